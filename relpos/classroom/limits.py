"""Rate limits of the live class: how often one client may do a costly thing.

A :class:`RateLimit` counts the times of each key (a client address) in a sliding window
and says how long to wait when the window is full; a :class:`TokenBucket` does it in O(1)
for floods. :class:`StoreLimits` holds the limits of a store: classes started,
unknown codes looked up and new seats taken, per client and per class. In memory, per
process: each replica limits its own clients (behind a load balancer a client's requests
stick to one replica).
"""

from __future__ import annotations

import collections
import math
import threading
import time
from collections.abc import Callable

from relpos.classroom import codes
from relpos.classroom.errors import RateLimitedError

__all__ = [
    "JOINS_PER_CLASS",
    "JOINS_PER_CLASS_RATE",
    "JOINS_PER_CLIENT",
    "JOINS_PER_CLIENT_RATE",
    "MAX_KEPT_CLASSES",
    "STARTS_PER_CLIENT",
    "STARTS_WINDOW",
    "WRONG_CODES_PER_CLIENT",
    "WRONG_CODES_WINDOW",
    "RateLimit",
    "StoreLimits",
    "TokenBucket",
]

#: Classes one client address may start per STARTS_WINDOW seconds (per server process).
STARTS_PER_CLIENT, STARTS_WINDOW = 10, 600.0
#: Wrong class codes one client address may look up per WRONG_CODES_WINDOW seconds before
#: its lookups wait (a classroom behind one address mistypes a few; a guesser made 1,300 a second).
WRONG_CODES_PER_CLIENT, WRONG_CODES_WINDOW = 60, 600.0
#: New seats one client address may take at once, then a second. A class behind one school
#: NAT (one address for 300 students) joins within a minute; a flood of 300 joins at once
#: from one client froze the teacher's Next for 59 s, and a script clicking Join in a loop
#: took every seat in 25 s. A rejoin (a seat's token) is never limited.
JOINS_PER_CLIENT, JOINS_PER_CLIENT_RATE = 100, 5.0
#: New seats one class gives at once, then a second, whatever the addresses: half a full
#: class at once, the rest within 15 s; a flood from many addresses costs few store writes.
JOINS_PER_CLASS, JOINS_PER_CLASS_RATE = 150, 10.0
#: Classes one store keeps at once, at most (a school needs tens; a script could start
#: thousands from many addresses).
MAX_KEPT_CLASSES = 2000


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


class StoreLimits:
    """A store's limits: how fast a client may start classes, look up codes and take seats.

    Parameters
    ----------
    clock : callable
        The store's clock (seconds).
    """

    def __init__(self, clock: Callable[[], float]):
        self._starts = RateLimit(STARTS_PER_CLIENT, STARTS_WINDOW, clock=clock)
        self._wrong_codes = RateLimit(WRONG_CODES_PER_CLIENT, WRONG_CODES_WINDOW, clock=clock)
        self._client_joins = TokenBucket(JOINS_PER_CLIENT, rate=JOINS_PER_CLIENT_RATE, clock=clock)
        self._class_joins = TokenBucket(JOINS_PER_CLASS, rate=JOINS_PER_CLASS_RATE, clock=clock)

    def check_start(self, kept: int, client: str | None) -> None:
        """Refuse a start when the store keeps `kept` classes, :data:`MAX_KEPT_CLASSES` or
        more, or past the client's rate (anyone could otherwise start classes at a few a
        second, each one kept 12 hours); None: not limited (a script of the server's)."""
        if kept >= MAX_KEPT_CLASSES:
            raise RateLimitedError(
                f"This server runs {MAX_KEPT_CLASSES:,} classes already; "
                "try again later, or end a class you no longer need.",
                60.0,
            )
        wait = self._starts.wait(client) if client is not None else 0.0
        if wait > 0:
            raise RateLimitedError(
                f"You have started {self._starts.count} classes in the last {self._starts.window / 60:g} minutes; "
                f"wait {math.ceil(wait)} s before starting another.",
                wait,
            )

    def check_guesses(self, client: str | None) -> None:
        """Raise RateLimitedError while `client` has looked up too many unknown codes."""
        wait = self._wrong_codes.blocked(client) if client is not None else 0.0
        if wait > 0:
            raise RateLimitedError(
                f"Too many wrong class codes from this address; wait {math.ceil(wait)} s, then check the code "
                "on the projector.",
                wait,
            )

    def check_joins(self, code: str, client: str | None) -> None:
        """Raise RateLimitedError when `client` or class `code` has taken new seats too fast
        (JOINS_PER_CLIENT, JOINS_PER_CLASS); None: not limited (a script of the server's)."""
        if client is None:
            return
        wait = self._client_joins.wait(client)
        if wait > 0:
            raise RateLimitedError(
                f"Many students are joining from your network just now; wait {math.ceil(wait)} s, then press Join "
                "again.",
                wait,
            )
        wait = self._class_joins.wait(codes.normalise_code(code))
        if wait > 0:
            raise RateLimitedError(
                f"Many students are joining this class just now; wait {math.ceil(wait)} s, then press Join again.",
                wait,
            )

    def wrong_code(self, client: str | None) -> None:
        """Count an unknown code `client` looked up (see :meth:`relpos.classroom.store.ClassStore.look_up`)."""
        if client is not None:
            self._wrong_codes.note(client)
