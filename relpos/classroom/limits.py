"""Rate limits of the live class: how often one client may do a costly thing.

A :class:`RateLimit` counts the times of each key (a client address) in a sliding window
and says how long to wait when the window is full. In memory, per process: each replica
limits its own clients (behind a load balancer a client's requests stick to one replica).
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable

__all__ = ["RateLimit", "TokenBucket"]


class RateLimit:
    """At most `count` events per `window` seconds for each key.

    Parameters
    ----------
    count : int
    window : float
        Seconds.
    clock : callable, optional
        Seconds (``time.monotonic``); tests pass a fake one.

    Examples
    --------
    >>> now = [0.0]
    >>> starts = RateLimit(2, 60, clock=lambda: now[0])
    >>> starts.wait("1.2.3.4"), starts.wait("1.2.3.4"), starts.wait("1.2.3.4"), starts.wait("5.6.7.8")
    (0.0, 0.0, 60.0, 0.0)
    >>> now[0] = 61.0
    >>> starts.wait("1.2.3.4")
    0.0
    """

    def __init__(self, count: int, window: float, *, clock: Callable[[], float] = time.monotonic):
        self.count, self.window, self._clock = count, window, clock
        self._times: dict[str, collections.deque[float]] = {}
        self._lock = threading.Lock()

    def wait(self, key: str) -> float:
        """0 and the event counted, or the seconds until `key` may try again (nothing counted)."""
        with self._lock:
            left = self._blocked(key)
            if left == 0:
                self._times.setdefault(key, collections.deque()).append(self._clock())
            return left

    def blocked(self, key: str) -> float:
        """Seconds until `key` may try again (0: now), counting nothing: for limits that count
        only failures (:meth:`note`), such as wrong class codes."""
        with self._lock:
            return self._blocked(key)

    def note(self, key: str) -> None:
        """Count one event of `key` (whether or not its window is full)."""
        with self._lock:
            self._times.setdefault(key, collections.deque()).append(self._clock())

    def _blocked(self, key: str) -> float:
        now = self._clock()
        self._forget_before(now - self.window)
        times = self._times.get(key, ())
        return times[0] + self.window - now if len(times) >= self.count else 0.0

    def _forget_before(self, start: float) -> None:
        """Drop the times before `start`, and the keys left with none (memory stays bounded
        by the clients of one window)."""
        for key in list(self._times):
            times = self._times[key]
            while times and times[0] <= start:
                times.popleft()
            if not times:
                del self._times[key]


class TokenBucket:
    """At most `burst` events at once for each key, refilled at `rate` a second: O(1) a call.

    For limits checked on every request of a flood (answers): :class:`RateLimit` keeps each
    event's time and sweeps every key on each call, a cost that grows with the flood it
    refuses. A bucket keeps two numbers a key; a full bucket is the same as no bucket, so
    full ones are dropped once there are more than `keys` (memory stays bounded).

    Examples
    --------
    >>> now = [0.0]
    >>> answers = TokenBucket(2, rate=1.0, clock=lambda: now[0])
    >>> answers.wait("t"), answers.wait("t"), answers.wait("t"), answers.wait("u")
    (0.0, 0.0, 1.0, 0.0)
    >>> now[0] = 0.5
    >>> answers.wait("t")
    0.5
    >>> now[0] = 1.0
    >>> answers.wait("t"), answers.wait("t")
    (0.0, 1.0)
    """

    def __init__(self, burst: float, *, rate: float, keys: int = 10_000, clock: Callable[[], float] = time.monotonic):
        self.burst, self.rate, self.keys, self._clock = burst, rate, keys, clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, as of time)
        self._lock = threading.Lock()

    def wait(self, key: str) -> float:
        """0 and one token taken, or the seconds until `key` has a token again (nothing taken)."""
        with self._lock:
            now = self._clock()
            tokens = self._tokens(key, now)
            if tokens < 1.0:
                return (1.0 - tokens) / self.rate
            self._buckets[key] = (tokens - 1.0, now)
            if len(self._buckets) > self.keys:
                self._forget_full(now)
            return 0.0

    def _tokens(self, key: str, now: float) -> float:
        tokens, at = self._buckets.get(key, (self.burst, now))
        return min(self.burst, tokens + (now - at) * self.rate)

    def _forget_full(self, now: float) -> None:
        """Drop the keys whose bucket has filled up again (they are as if never seen)."""
        for key in [key for key in self._buckets if self._tokens(key, now) >= self.burst]:
            del self._buckets[key]
