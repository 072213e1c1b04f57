"""The live class's push channel: server-sent events of a class's change counter.

``GET /relpos/class/{code}/events?watch=state`` (or ``watch=activity``) answers a
``text/event-stream`` that sends the class's current version at once and then every new
one (:meth:`relpos.classroom.store.ClassStore.version`); a comment line every
:data:`HEARTBEAT` seconds keeps proxies from closing a quiet stream. A student's page
(:mod:`relpos.ui.class_events`) reruns only when the number it was drawn with changes, so
an idle class costs no script runs at all.

One watcher thread per watched class and counter in this process blocks in
``wait_for_change`` and wakes every open stream of that class on the event loop; a stream
itself is an idle coroutine. So 200 students cost one thread, not 200 (Starlette's thread
pool holds 40), and a change reaches every stream of a replica at once.

Every page and every stream of one server process share :func:`class_store`, so a change a
script thread stores wakes the watchers of this process immediately (the store's
notifier); a change made on another replica arrives through the store (Redis' pub/sub, or
the store's poll).

A stream never ends by itself, and the server (uvicorn) waits for every open response
before it stops: on SIGTERM or SIGINT every stream is ended first (without the class's
``gone`` event: the browser reconnects, to the server started again or another replica),
so a restart does not wait for its supervisor's kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import AsyncIterator

import streamlit as st
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from relpos.classroom import model
from relpos.classroom.errors import ClassroomError, StoreUnavailableError
from relpos.classroom.store import BaseStore
from relpos.classroom.stores import open_store
from relpos.server import asgi

__all__ = ["HEALTH_PATH", "HEARTBEAT", "PATH", "class_store", "events_path", "health", "open_streams"]

#: The route (below the app's base URL path).
PATH = "/relpos/class/{code}/events"
#: The health check of the server with its class store (below the app's base URL path).
HEALTH_PATH = "/relpos/health"
#: Seconds between keep-alive comments (well inside HAProxy's and browsers' idle timeouts).
HEARTBEAT = 15.0
#: Seconds between two purges of the classes that are over (:func:`purge_on_schedule`).
PURGE_EVERY = 60.0
#: How long a watcher blocks in one wait (it also notices a class that is gone this often).
WAIT_SECONDS = 10.0

_store: BaseStore | None = None
_store_lock = threading.Lock()
_stopping = threading.Event()  # the server is shutting down: streams end


def class_store() -> BaseStore:
    """The process's one live-class store (:func:`relpos.classroom.stores.open_store`)."""
    global _store
    with _store_lock:
        if _store is None:
            _store = open_store()
        return _store


def events_path(code: str, watch: str = "state") -> str:
    """The stream's path for `code`, below the app's base URL path."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"{'/' + base if base else ''}/relpos/class/{code}/events?watch={watch}"


class _Watcher:
    """One thread waiting for changes of one class's counter, waking its streams."""

    def __init__(self, store: BaseStore, code: str, watch: str, version: int, loop: asyncio.AbstractEventLoop):
        self.store, self.code, self.watch, self.loop = store, code, watch, loop
        self.version = version
        self.gone = False
        self.events: set[asyncio.Event] = set()
        self.thread = threading.Thread(target=self._run, name=f"relpos-class-{code}-{watch}", daemon=True)

    def _run(self) -> None:
        while True:
            try:
                current = self.store.wait_for_change(self.code, self.version, WAIT_SECONDS, watch=self.watch)
            except StoreUnavailableError:  # a blip says nothing of the class: never "gone" for it
                threading.Event().wait(1.0)
                continue
            except ClassroomError:  # deleted after its end or expiry: tell the streams and stop
                current, self.gone = self.version, True
            except Exception:  # the store is unreachable for a moment: try again, not in a hot loop
                threading.Event().wait(1.0)
                continue
            with _watchers_lock:
                if current != self.version or self.gone:
                    self.version = current
                    self.loop.call_soon_threadsafe(self.wake)
                if self.gone or not self.events:
                    _watchers.pop((self.code, self.watch), None)
                    return

    def wake(self) -> None:
        for event in self.events:
            event.set()


_watchers: dict[tuple[str, str], _Watcher] = {}
_watchers_lock = threading.Lock()


def open_streams() -> int:
    """How many event streams this process holds open (for tests and the bench)."""
    with _watchers_lock:
        return sum(len(watcher.events) for watcher in _watchers.values())


def _subscribe(store: BaseStore, code: str, watch: str, version: int) -> tuple[_Watcher, asyncio.Event]:
    event = asyncio.Event()
    with _watchers_lock:
        watcher = _watchers.get((code, watch))
        if watcher is None:
            watcher = _watchers[code, watch] = _Watcher(store, code, watch, version, asyncio.get_running_loop())
            watcher.thread.start()
        watcher.events.add(event)
    return watcher, event


def _unsubscribe(watcher: _Watcher, event: asyncio.Event) -> None:
    with _watchers_lock:
        watcher.events.discard(event)


def _end_streams() -> None:
    """Wake every open stream of this process to end (see the module notes)."""
    _stopping.set()
    with _watchers_lock:
        for watcher in _watchers.values():
            watcher.loop.call_soon_threadsafe(watcher.wake)


@contextlib.asynccontextmanager
async def _streams_end_at_shutdown(app) -> AsyncIterator[None]:
    """While the server runs: SIGTERM and SIGINT end the streams, then do what they did."""
    loop, chained = asyncio.get_running_loop(), {}
    _stopping.clear()

    def end_streams_first(signum, frame) -> None:
        # a signal handler may interrupt a holder of _watchers_lock: the loop takes it later
        _stopping.set()
        loop.call_soon_threadsafe(_end_streams)
        previous = chained.get(signum)
        if callable(previous):
            previous(signum, frame)

    with contextlib.suppress(ValueError):  # signals are for the main thread only (a server elsewhere keeps its own)
        for signum in (signal.SIGTERM, signal.SIGINT):
            chained[signum] = signal.signal(signum, end_streams_first)
    try:
        yield
    finally:
        _end_streams()


async def class_events(request: Request) -> Response:
    """The event stream of one class (see the module notes)."""
    watch = request.query_params.get("watch", "state")
    if watch not in ("state", "activity"):
        return PlainTextResponse("watch is state or activity", status_code=400)
    store = class_store()
    try:
        code = model.normalise_code(request.path_params["code"])
        version = await asyncio.to_thread(store.version, code, watch)
    except StoreUnavailableError as error:  # the page's EventSource asks again, ever more slowly
        return PlainTextResponse(error.message, status_code=503, headers={"Retry-After": "2"})
    except ClassroomError as error:
        return PlainTextResponse(error.message, status_code=404)

    async def stream() -> AsyncIterator[str]:
        watcher, event = _subscribe(store, code, watch, version)
        try:
            sent = watcher.version
            yield f"retry: 1000\ndata: {sent}\n\n"  # reconnect after 1 s (a restart, another replica)
            while not watcher.gone:
                try:
                    await asyncio.wait_for(event.wait(), HEARTBEAT)
                except TimeoutError:
                    yield ": still here\n\n"
                    continue
                event.clear()
                if _stopping.is_set():
                    return  # the server stops: the browser reconnects (retry above)
                if watcher.version != sent:
                    sent = watcher.version
                    yield f"data: {sent}\n\n"
            yield "event: gone\ndata: gone\n\n"
        finally:
            _unsubscribe(watcher, event)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


async def health(request: Request) -> Response:
    """``ok`` while the class store can be read and written, else 503 and what is wrong.

    Streamlit's ``/_stcore/health`` says the server runs; a server whose store is read-only,
    full or unreachable runs too, yet cannot start or keep a class: the container's health
    check asks both (Dockerfile), so an orchestrator sees such a replica as unhealthy.
    """
    try:
        await asyncio.to_thread(class_store().check)
    except ClassroomError as error:
        return PlainTextResponse(error.message, status_code=503, headers={"Cache-Control": "no-store"})
    return PlainTextResponse("ok", headers={"Cache-Control": "no-store"})


async def purge_on_schedule(every: float = PURGE_EVERY) -> None:
    """Delete the classes that are over (their students, nicknames and answers) every `every`
    seconds while the server runs, whether or not anyone uses a class (the store also purges
    on its own when it is used: :meth:`relpos.classroom.store.BaseStore.purge_if_due`)."""
    while True:
        with contextlib.suppress(ClassroomError):  # a store that cannot be reached: next time
            await asyncio.to_thread(class_store().purge_if_due)
        await asyncio.sleep(every)


@contextlib.asynccontextmanager
async def _purging(app) -> AsyncIterator[None]:
    task = asyncio.create_task(purge_on_schedule())
    try:
        yield
    finally:
        task.cancel()


asgi.register_routes(Route(PATH, class_events, methods=["GET"]), Route(HEALTH_PATH, health, methods=["GET"]))
asgi.register_lifespan(_streams_end_at_shutdown)
asgi.register_lifespan(_purging)
