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

__all__ = ["RateLimit"]


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
        now = self._clock()
        with self._lock:
            self._forget_before(now - self.window)
            times = self._times.setdefault(key, collections.deque())
            if len(times) >= self.count:
                return times[0] + self.window - now
            times.append(now)
            return 0.0

    def _forget_before(self, start: float) -> None:
        """Drop the times before `start`, and the keys left with none (memory stays bounded
        by the clients of one window)."""
        for key in list(self._times):
            times = self._times[key]
            while times and times[0] <= start:
                times.popleft()
            if not times:
                del self._times[key]
