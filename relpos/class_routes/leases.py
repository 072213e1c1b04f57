"""Who is here: the leases this server process keeps on the seats whose streams it holds.

A student's page names their seat on its event stream (``?seat=``, a
:func:`relpos.class_routes.identity.seat_ticket`); while that stream is open this process counts
the seat as here, and keeps a lease on it in the class store
(:mod:`relpos.classroom.presence`), shared by every replica. Writing is cheap and
rate-limited: one thread (:class:`Presence`) looks at its seats once every :data:`TICK`
seconds and writes, in one call a class, the seats that arrived, the leases due for renewal
(all of a class's seats at once, every :data:`~relpos.classroom.presence.RENEW` seconds)
and the seats whose last stream closed :data:`GRACE` seconds ago (a closed tab). A reload
closes and opens a seat's stream within the grace, and writes nothing. Opening or closing a
stream only counts, in memory: a student costs the server no page run and no write of
their own.

A student who has just joined is here by the join's own lease until their first lease
from a stream is written (:data:`~relpos.classroom.presence.JOIN_GRACE`).
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from relpos.classroom.errors import ClassroomError, StoreUnavailableError
from relpos.classroom.presence import RENEW
from relpos.classroom.store import ClassStore

__all__ = ["GRACE", "TICK", "Presence", "arrive", "holding"]

#: Seconds between two looks at this process's seats (the longest a change waits to be written).
TICK = 1.0
#: Seconds a seat whose last stream closed stays here (a reload opens a new one meanwhile).
GRACE = 2.0

_log = logging.getLogger(__name__)


@dataclass
class _Seat:
    streams: int = 0
    written: float = -math.inf  # when this process last wrote its lease (monotonic)
    closed_at: float = math.inf  # when its last stream closed
    seated: bool = True  # False: the store gave it no lease (removed): not renewed


class Presence:
    """The seats one store's streams hold in this process, and the thread that writes their leases.

    Parameters
    ----------
    store : ClassStore
    holder : str, optional
        This process's name on its leases (random by default).
    clock : callable, optional
        Monotonic seconds.
    background : bool
        Write from a thread of its own every :data:`TICK` seconds (False: a test calls
        :meth:`flush` itself, with a fake `clock`).
    """

    def __init__(
        self,
        store: ClassStore,
        holder: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        *,
        background: bool = True,
    ):
        self.store, self.holder, self._clock = store, holder or secrets.token_hex(8), clock
        self._background = background
        self._seats: dict[tuple[str, str], _Seat] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def arrive(self, code: str, token: str) -> Callable[[], None]:
        """A stream of `token`'s seat opened; call what this returns when it closes."""
        with self._lock:
            seat = self._seats.setdefault((code, token), _Seat())
            seat.streams += 1
            seat.closed_at = math.inf
            if self._thread is None and self._background:
                self._thread = threading.Thread(target=self._run, name="relpos-class-presence", daemon=True)
                self._thread.start()
        return lambda: self._leave(code, token)

    def _leave(self, code: str, token: str) -> None:
        with self._lock:
            seat = self._seats.get((code, token))
            if seat is not None:
                seat.streams -= 1
                if seat.streams <= 0:
                    seat.closed_at = self._clock()

    def holds(self, code: str) -> int:
        """How many seats of `code` this process holds a stream of (for tests)."""
        with self._lock:
            return sum(seat.streams > 0 for (held, _), seat in self._seats.items() if held == code)

    def _run(self) -> None:
        while True:
            time.sleep(TICK)
            with self._lock:
                if not self._seats:
                    self._thread = None
                    return
            try:
                self.flush()
            except Exception:  # never let this thread die: presence would stop for the process
                _log.exception("writing who is here failed; it tries again in a second")

    def flush(self) -> None:
        """Write what is due (see the module notes): one store call per class with something to write."""
        now = self._clock()
        with self._lock:
            here, gone = self._due(now)
        for code in sorted(set(here) | set(gone)):
            self._write(code, here.get(code, []), gone.get(code, []), now)

    def _due(self, now: float) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """The seats to renew and to drop, by class; dropped seats are forgotten (call holding the lock)."""
        here, gone, renew = defaultdict(list), defaultdict(list), set()
        for (code, token), seat in list(self._seats.items()):
            if seat.streams > 0 and seat.seated:
                here[code].append(token)
                if now - seat.written >= RENEW:
                    renew.add(code)
            elif seat.streams <= 0 and now - seat.closed_at >= GRACE:
                del self._seats[code, token]
                if seat.written > -math.inf and seat.seated:
                    gone[code].append(token)
        return {code: tokens for code, tokens in here.items() if code in renew}, dict(gone)

    def _write(self, code: str, here: list[str], gone: list[str], now: float) -> None:
        try:
            unseated = self.store.note_presence(code, self.holder, here, gone)
        except StoreUnavailableError:
            return  # not written: due again at the next look (a lease outlives a short outage)
        except ClassroomError:  # the class is gone (or refuses): its seats are not watched here any more
            self._forget(code)
            return
        with self._lock:
            for token in here:
                seat = self._seats.get((code, token))
                if seat is not None:
                    seat.written, seat.seated = now, token not in unseated

    def _forget(self, code: str) -> None:
        with self._lock:
            for key in [key for key in self._seats if key[0] == code]:
                self._seats[key].seated = False


_presence: Presence | None = None
_presence_lock = threading.Lock()


def holding(store: ClassStore) -> Presence:
    """This process's :class:`Presence` for `store` (a new one when the store changed: tests)."""
    global _presence
    with _presence_lock:
        if _presence is None or _presence.store is not store:
            _presence = Presence(store)
        return _presence


def arrive(store: ClassStore, code: str, token: str) -> Callable[[], None]:
    """:meth:`Presence.arrive` on this process's presence for `store`."""
    return holding(store).arrive(code, token)
