"""The live class's push channel: server-sent events of a class's change counter.

``GET /relpos/class/{code}/events?watch=state`` (or ``watch=activity``) answers a
``text/event-stream`` that sends the class's current version at once and then every new
one (:meth:`relpos.classroom.store.ClassStore.version`); a comment line every
:data:`HEARTBEAT` seconds keeps proxies from closing a quiet stream. A student's page
(:mod:`relpos.ui.class_events`) reruns only when the number it was drawn with changes, so
an idle class costs no script runs at all.

One watcher thread per process (:class:`_Hub`) watches every class that has an open
stream: it wakes when this process changes a class (the store's notifier), reads only that
class's counters, and reads all watched classes' counters at once every ``poll_seconds``
(0.2 s; changes made by other processes), one query or round trip for all of them. It then
wakes the streams whose counter moved, on the event loop; a stream is an idle coroutine.
So a stream costs a socket and a coroutine, never a thread: 2,000 streams over 1,000
classes are one thread, where one thread per class made 1,000 threads polling 5 times a
second each.

A student's page names their seat on its stream (``&seat=``, a sealed ticket:
:func:`relpos.class_routes.identity.seat_ticket`): while the stream is open the seat counts as
here (:mod:`relpos.class_routes.leases`), and a closed tab is subtracted a few seconds
after its stream ends.

An unknown code gets the same answer as a class nobody has changed yet (``data: 0``, then
only keep-alive comments), so the route does not tell which codes exist; and a client
that has asked for too many unknown codes waits before any code is looked up again
(:meth:`relpos.classroom.store.ClassStore.look_up`; 429), known codes included.

Nobody can hold more than :data:`MAX_STREAMS_PER_CLIENT` streams (per client address) nor
open more than :data:`MAX_STREAMS_PER_CLASS` on one class; past either the route answers
429 and the page's EventSource asks again later, ever more slowly.

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
import collections
import contextlib
import functools
import logging
import math
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable

import streamlit as st
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from relpos.class_routes import identity, leases
from relpos.class_routes.store import class_store
from relpos.classroom import codes, model
from relpos.classroom.errors import ClassroomError, RateLimitedError, StoreUnavailableError, UnknownClassError
from relpos.classroom.store import ClassStore
from relpos.server import asgi

__all__ = [
    "HEALTH_PATH",
    "HEARTBEAT",
    "PATH",
    "class_store",
    "events_path",
    "health",
    "on_state_change",
    "open_streams",
    "session_client",
]

#: The route (below the app's base URL path).
PATH = "/relpos/class/{code}/events"
#: The health check of the server with its class store (below the app's base URL path).
HEALTH_PATH = "/relpos/health"
#: Seconds between keep-alive comments (well inside HAProxy's and browsers' idle timeouts).
HEARTBEAT = 15.0
#: Streams one client address may hold open at once: every student of three full classes
#: behind one school's address (NAT), each in two tabs; a script opening thousands meets it.
MAX_STREAMS_PER_CLIENT = 6 * model.MAX_STUDENTS
#: Streams one class may have open at once: each student in two tabs, and the teacher's.
MAX_STREAMS_PER_CLASS = 2 * model.MAX_STUDENTS + 20
#: Seconds between two purges of the classes that are over (:func:`purge_on_schedule`).
PURGE_EVERY = 60.0
#: How long a watcher blocks in one wait (it also notices a class that is gone this often).
WAIT_SECONDS = 10.0

_log = logging.getLogger(__name__)
_stopping = threading.Event()  # the server is shutting down: streams end


def session_client() -> str:
    """This session's client address, as the class store's per-client limits count it; the
    same key as the event route's (``request.client.host``). ``local`` when Streamlit gives
    none (a browser on this machine, or a test)."""
    address = st.context.ip_address
    return address if isinstance(address, str) and address else "local"


def events_path(code: str, watch: str = "state", *, seat: str | None = None) -> str:
    """The stream's path for `code`, below the app's base URL path; `seat`: the token of the
    student whose page holds it (named by a sealed ticket, so they count as here meanwhile)."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    ticket = f"&seat={identity.seat_ticket(code, seat)}" if seat else ""
    return f"{'/' + base if base else ''}/relpos/class/{code}/events?watch={watch}{ticket}"


class _Topic:
    """One watched counter of one class: its last version and the streams waiting on it."""

    def __init__(self, version: int, loop: asyncio.AbstractEventLoop):
        self.version, self.loop, self.gone = version, loop, False
        self.events: set[asyncio.Event] = set()

    def wake(self) -> None:
        for event in self.events:
            event.set()


class _Hub:
    """The one thread of this process that watches every class with an open stream."""

    def __init__(self, store: ClassStore):
        self.store = store
        self.topics: dict[tuple[str, str], _Topic] = {}
        self.thread: threading.Thread | None = None
        self._seen: dict[str, tuple[int, int]] = {}  # notifier generation of each code when last read

    def subscribe(self, code: str, watch: str, version: int) -> tuple[_Topic, asyncio.Event]:
        """Call holding _watchers_lock."""
        event = asyncio.Event()
        topic = self.topics.get((code, watch))
        if topic is None:
            topic = self.topics[code, watch] = _Topic(version, asyncio.get_running_loop())
        topic.events.add(event)
        if self.thread is None:
            self.store.listen_for_changes()
            self.thread = threading.Thread(target=self._run, name="relpos-class-watcher", daemon=True)
            self.thread.start()
        return topic, event

    def _run(self) -> None:
        polled_at = -float("inf")
        while (codes := self._watched()) is not None:
            notifier, total = self.store.notifier, self.store.notifier.total
            if time.monotonic() - polled_at >= self.store.poll_seconds:  # others' changes: read them all
                due, polled_at = codes, time.monotonic()
            else:  # woken by this process: read only the classes it changed
                due = {code for code in codes if notifier.generation(code) != self._seen.get(code)}
            self._seen.update({code: notifier.generation(code) for code in due})
            try:
                self._publish(self.store.versions(sorted(due)) if due else {})
            except StoreUnavailableError:  # a blip says nothing of the classes: never "gone" for it
                _stopping.wait(1.0)
                continue
            except Exception:  # never let this thread die: every stream of the process hangs on it
                _log.exception("the class watcher failed; it tries again in a second")
                _stopping.wait(1.0)
                continue
            notifier.wait_any(total, max(0.0, polled_at + self.store.poll_seconds - time.monotonic()))

    def _watched(self) -> set[str] | None:
        """The codes with open streams; None (and the thread ends) when there are none."""
        with _watchers_lock:
            for key in [key for key, topic in self.topics.items() if not topic.events or topic.gone]:
                del self.topics[key]
            if not self.topics:
                self.thread, self._seen = None, {}
                return None
            return {code for code, _ in self.topics}

    def _publish(self, versions: dict[str, tuple[int, int] | None]) -> None:
        """Wake the streams of every topic whose counter moved (or whose class is gone)."""
        with _watchers_lock:
            for (code, watch), topic in self.topics.items():
                if code not in versions:  # not read this time
                    continue
                counters = versions[code]
                if counters is None:  # deleted after its end or expiry: the streams say "gone" and end
                    topic.gone = True
                elif counters[0 if watch == "state" else 1] != topic.version:
                    topic.version = counters[0 if watch == "state" else 1]
                    if watch == "state":  # first, so that the class's new view is on its way meanwhile
                        for listener in tuple(_state_listeners.values()):
                            topic.loop.call_soon_threadsafe(listener, code, topic.version)
                else:
                    continue
                topic.loop.call_soon_threadsafe(topic.wake)


_hub: _Hub | None = None
_watchers_lock = threading.Lock()
_state_listeners: dict[str, Callable[[str, int], None]] = {}


def on_state_change(name: str, listener: Callable[[str, int], None]) -> None:
    """Call ``listener(code, version)`` on the event loop whenever the state counter of a
    class with an open stream moves, just before its streams are told: the follow view
    (:mod:`relpos.class_routes.following`) starts building the class's new view then, so
    the students' fetches that the event brings find it built or on its way. A listener
    registered again under the same `name` replaces the earlier one."""
    _state_listeners[name] = listener


def open_streams() -> int:
    """How many event streams this process holds open (for tests and the bench)."""
    with _watchers_lock:
        return 0 if _hub is None else sum(len(topic.events) for topic in _hub.topics.values())


def _subscribe(store: ClassStore, code: str, watch: str, version: int) -> tuple[_Topic, asyncio.Event]:
    global _hub
    with _watchers_lock:
        if _hub is None or _hub.store is not store:  # a new store (tests): the old hub ends with its streams
            _hub = _Hub(store)
        return _hub.subscribe(code, watch, version)


def _unsubscribe(topic: _Topic, event: asyncio.Event) -> None:
    with _watchers_lock:
        topic.events.discard(event)


def _end_streams() -> None:
    """Wake every open stream of this process to end (see the module notes)."""
    _stopping.set()
    with _watchers_lock:
        for topic in _hub.topics.values() if _hub is not None else ():
            topic.loop.call_soon_threadsafe(topic.wake)


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
    store, client = class_store(), request.client.host if request.client else ""
    try:
        store.limits.check_guesses(client)
        code = codes.normalise_code(request.path_params["code"])
        version = await asyncio.to_thread(store.version, code, watch)
    except RateLimitedError as error:
        wait = str(math.ceil(error.retry_after))
        return PlainTextResponse(error.message, status_code=429, headers={"Retry-After": wait})
    except StoreUnavailableError as error:  # the page's EventSource asks again, ever more slowly
        return PlainTextResponse(error.message, status_code=503, headers={"Retry-After": "2"})
    except UnknownClassError:  # counted, and answered as a class nobody has touched yet would be
        store.limits.wrong_code(client)
        code, version = codes.normalise_code(request.path_params["code"]), None
    except ClassroomError as error:  # not even shaped like a code: that tells nothing of any class
        return PlainTextResponse(error.message, status_code=404)

    refusal = _admissions.admit(client, code)
    if refusal is not None:  # the page's EventSource asks again later, ever more slowly
        return PlainTextResponse(refusal, status_code=429, headers={"Retry-After": "15"})
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    release = functools.partial(_admissions.release, client, code)
    if version is None:
        return _AdmittedStream(_nothing_happens(), release, media_type="text/event-stream", headers=headers)
    release = _attended(store, code, request.query_params.get("seat"), release)
    return _AdmittedStream(
        _stream(store, code, watch, version), release, media_type="text/event-stream", headers=headers
    )


def _attended(store: ClassStore, code: str, ticket: str | None, release: Callable[[], None]) -> Callable[[], None]:
    """`release`, and for a stream that names a student's seat, the seat's presence too: it
    counts as here from now until the stream ends (a forged ticket names no seat)."""
    token = identity.seat_token(ticket, code) if ticket else None
    if token is None:
        return release
    leave = leases.arrive(store, code, token)

    def both() -> None:
        release()
        leave()

    return both


async def _nothing_happens() -> AsyncIterator[str]:
    """The stream of an unknown code: what a class at version 0 that nobody changes sends, so
    a guesser cannot tell an unknown code from a live one by the answer. It looks at
    :data:`_stopping` once a second (few such streams: wrong codes are throttled)."""
    yield "retry: 1000\ndata: 0\n\n"
    quiet = 0.0
    while not _stopping.is_set():
        await asyncio.sleep(1.0)
        quiet += 1.0
        if quiet >= HEARTBEAT:
            quiet = 0.0
            yield ": still here\n\n"


async def _stream(store: ClassStore, code: str, watch: str, version: int) -> AsyncIterator[str]:
    """The stream of a class: its version now, then every new one (see the module notes)."""
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


class _Admissions:
    """How many streams each client address and each class holds open (:data:`MAX_STREAMS_PER_CLIENT`,
    :data:`MAX_STREAMS_PER_CLASS`)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.clients: collections.Counter[str] = collections.Counter()
        self.classes: collections.Counter[str] = collections.Counter()

    def admit(self, client: str, code: str) -> str | None:
        """Count one more stream, or say why not (nothing counted)."""
        with self._lock:
            if self.clients[client] >= MAX_STREAMS_PER_CLIENT:
                return f"Too many open class streams from this address ({MAX_STREAMS_PER_CLIENT}); try again later."
            if self.classes[code] >= MAX_STREAMS_PER_CLASS:
                return f"Too many open streams on this class ({MAX_STREAMS_PER_CLASS}); try again later."
            self.clients[client] += 1
            self.classes[code] += 1
            return None

    def release(self, client: str, code: str) -> None:
        with self._lock:
            for counter, key in ((self.clients, client), (self.classes, code)):
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]  # the counters hold only open streams, never every address seen


_admissions = _Admissions()


class _AdmittedStream(StreamingResponse):
    """A streaming response that gives its admission back however its sending ends (the
    client went away, the server stops, the send failed)."""

    def __init__(self, content, release, **options):
        super().__init__(content, **options)
        self._release = release

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


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
    on its own when it is used: :meth:`relpos.classroom.store.ClassStore.purge_if_due`)."""
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
