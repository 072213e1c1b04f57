"""New sessions are let in at a steady pace, so that a burst of them cannot stall the server.

Every browser tab is a WebSocket on ``/_stcore/stream``
(:data:`relpos.server.internals.SESSION_STREAM`); Streamlit creates its session and runs
its first page on the event loop and the interpreter the whole class shares. 300 tabs
opened at once (a join link shared too widely, or a script) kept the event loop from
handing anything to any connection for seconds, and the teacher's Next waited with it
(bench/flood.py). :class:`AdmissionMiddleware` holds each new WebSocket, before Streamlit
sees it, until the pacer lets it in: :data:`RATE` a second after a burst of :data:`BURST`.
Nobody is refused, so a whole class behind one school's address still joins (300 tabs in
about 300 / RATE s); sessions already open are never held.
"""

from __future__ import annotations

import asyncio
import time

from relpos.server.internals import SESSION_STREAM

__all__ = ["BURST", "RATE", "AdmissionMiddleware", "Pacer"]

#: New sessions let in at once before the pace applies (a class opening the link together; more wait a moment).
BURST = 40
#: New sessions let in a second after the burst.
RATE = 15.0
#: How a held session waits (the event loop's sleep: the loop serves everyone else meanwhile).
_sleep = asyncio.sleep


class Pacer:
    """A token bucket whose takers wait their turn instead of being refused.

    >>> pacer = Pacer(rate=10.0, burst=2)
    >>> [round(pacer.delay(now=0.0), 2) for _ in range(4)]
    [0.0, 0.0, 0.1, 0.2]
    """

    def __init__(self, rate: float = RATE, burst: int = BURST):
        self.rate, self.burst = rate, burst
        self._tokens = float(burst)
        self._at = None

    def delay(self, now: float | None = None) -> float:
        """Seconds the next taker waits (and reserve its place)."""
        now = time.monotonic() if now is None else now
        if self._at is None:
            self._at = now
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        self._tokens -= 1
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate


class AdmissionMiddleware:
    """ASGI middleware: a new WebSocket on Streamlit's stream waits for the :class:`Pacer`."""

    def __init__(self, app, pacer: Pacer | None = None):
        self.app, self.pacer = app, pacer or Pacer()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and scope.get("path", "").endswith(SESSION_STREAM):
            wait = self.pacer.delay()
            if wait > 0:
                await _sleep(wait)
        await self.app(scope, receive, send)
