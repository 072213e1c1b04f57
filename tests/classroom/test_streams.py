"""What event streams and class starts may cost the server (relpos.class_routes.events).

* a stream costs a socket and a coroutine, never a thread: hundreds of streams over
  hundreds of classes leave the server's thread count where it was, and a change still
  reaches its class's streams at once;
* no client address holds more than MAX_STREAMS_PER_CLIENT streams, no class more than
  MAX_STREAMS_PER_CLASS (429 past either, and a closed stream frees its place);
* a client starts at most STARTS_PER_CLIENT classes per window, and a store keeps at most
  MAX_KEPT_CLASSES;
* when a class that students follow moves on, its new view is built at once, before the
  students' fetches arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import time
import urllib.request

import pytest

from relpos.class_routes import events, following
from relpos.classroom import limits
from relpos.classroom.errors import RateLimitedError, StoreUnavailableError, UnknownClassError
from relpos.classroom.stores import open_store
from tests.classroom.conftest import app_store_at
from tests.support.browser import ARTIFACTS, ROOT, StreamlitServer
from tests.support.streamlit_client import run_in_own_loop


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def _open_stream(port: int, code: str) -> socket.socket:
    """A raw HTTP stream of `code` (a socket is cheaper than a client thread per stream)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"GET /relpos/class/{code}/events?watch=state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def _read_until(sock: socket.socket, marker: bytes, timeout: float = 30.0) -> bytes:
    seen, deadline = b"", time.monotonic() + timeout
    while marker not in seen:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(4096)
        assert chunk, f"the stream closed before {marker!r}: {seen[-300:]!r}"
        seen += chunk
    return seen


@pytest.mark.server
def test_hundreds_of_streams_over_hundreds_of_classes_cost_no_thread_each(tmp_path):
    """300 streams over 150 classes. One watcher thread per class made 150 more threads here
    (2,031 threads for the probe's 2,000 streams); now the count stays within a few."""
    log = ARTIFACTS / f"streamlit-class-streams-{os.getpid()}.log"
    with StreamlitServer(ROOT / "app.py", log_path=log, env={"RELPOS_DATA_DIR": str(tmp_path)}) as server:
        with urllib.request.urlopen(server.base_url + "/relpos/health", timeout=30) as health:
            assert health.read() == b"ok"  # the route the Dockerfile's health check asks, served
        store = open_store(f"sqlite://{tmp_path / 'classes.sqlite3'}")
        classes = [store.create_class() for _ in range(150)]
        warm = _open_stream(server.port, classes[0][0].code)  # the watcher and the thread pool exist
        _read_until(warm, b"data: 0")
        before = _threads(server.process.pid)
        streams = []
        try:
            for record, _ in classes:
                for _ in range(2):
                    streams.append(_open_stream(server.port, record.code))
            for sock in streams:
                _read_until(sock, b"data: 0")
            during = _threads(server.process.pid)
            record, credential = classes[-1]
            store.set_stop(record.code, credential, index=3)
            for sock in streams[-2:]:
                _read_until(sock, b"data: 1", timeout=5)  # a change still reaches its streams
        finally:
            for sock in [warm, *streams]:
                sock.close()
            store.close()
    print(f"threads: {before} with one stream, {during} with {len(streams) + 1}")
    assert during - before <= 8, f"{during - before} more threads for {len(streams)} more streams"


# ---------------------------------------------------------------- caps, in process


def _request(code: str, client: str):
    from starlette.requests import Request

    scope = {
        "type": "http",
        "method": "GET",
        "headers": [],
        "query_string": b"watch=state",
        "path_params": {"code": code},
        "client": (client, 40000),
    }
    return Request(scope)


async def _ended(response) -> None:
    """Send `response` to a client that has gone away at once (its stream ends)."""

    async def receive():
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.body":
            raise OSError("the client went away")

    from starlette.requests import ClientDisconnect

    with contextlib.suppress(OSError, ClientDisconnect):
        await response({"type": "http", "asgi": {"spec_version": "2.4"}}, receive, send)


def test_streams_are_capped_per_client_and_per_class(tmp_path, monkeypatch):
    monkeypatch.setattr(events, "MAX_STREAMS_PER_CLIENT", 3)
    monkeypatch.setattr(events, "MAX_STREAMS_PER_CLASS", 4)
    monkeypatch.setattr(events, "_admissions", events._Admissions())

    async def scenario() -> None:
        store = events.class_store()
        one, _ = store.create_class()
        two, _ = store.create_class()
        mine = [await events.class_events(_request(one.code, "10.0.0.1")) for _ in range(3)]
        assert [response.status_code for response in mine] == [200, 200, 200]
        refused = await events.class_events(_request(two.code, "10.0.0.1"))
        assert refused.status_code == 429 and "from this address" in bytes(refused.body).decode()
        assert (await events.class_events(_request(one.code, "10.0.0.2"))).status_code == 200
        full = await events.class_events(_request(one.code, "10.0.0.3"))
        assert full.status_code == 429 and "on this class" in bytes(full.body).decode()
        await _ended(mine[0])  # a stream that ends frees its place, for its client and its class
        assert (await events.class_events(_request(one.code, "10.0.0.1"))).status_code == 200

    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        run_in_own_loop(scenario())


def test_a_client_starts_a_few_classes_then_waits(store, clock):
    for _ in range(limits.STARTS_PER_CLIENT):
        store.create_class(client="10.0.0.1")
    with pytest.raises(RateLimitedError, match="wait 600 s before starting another") as refused:
        store.create_class(client="10.0.0.1")
    assert refused.value.retry_after == pytest.approx(limits.STARTS_WINDOW)
    store.create_class(client="10.0.0.2")  # another client is not held up
    clock.advance(limits.STARTS_WINDOW + 1)
    store.create_class(client="10.0.0.1")


def test_a_store_keeps_at_most_so_many_live_classes(store, monkeypatch):
    monkeypatch.setattr(limits, "MAX_KEPT_CLASSES", 3)
    for number in range(3):
        store.create_class(client=f"10.0.0.{number}")
    with pytest.raises(RateLimitedError, match="runs 3 classes already"):
        store.create_class(client="10.0.0.9")


def test_the_watcher_reads_every_class_at_once(store):
    """The one read the watcher makes per poll (SQLite: one query; Redis: one round trip)."""
    one, credential = store.create_class()
    two, _ = store.create_class()
    store.set_stop(one.code, credential, index=2)
    store.join(two.code, "Ada")
    assert store.versions([one.code, two.code, "ZZZZZZ"]) == {one.code: (1, 0), two.code: (0, 1), "ZZZZZZ": None}
    assert store.versions([]) == {}


# ---------------------------------------------------------------- guessing codes


def test_wrong_codes_are_throttled_per_client_known_codes_too(store, clock):
    running, _ = store.create_class()
    for number in range(limits.WRONG_CODES_PER_CLIENT):
        with pytest.raises(UnknownClassError):
            store.look_up(f"ZZZ{number:03d}".translate(str.maketrans("01", "XY")), "10.0.0.1")
    for guess in (running.code, "ZZZZZZ"):  # refused alike: a waiting guesser learns nothing
        with pytest.raises(RateLimitedError, match="Too many wrong class codes"):
            store.look_up(guess, "10.0.0.1")
    with pytest.raises(RateLimitedError):
        store.join(running.code, "Ada", client="10.0.0.1")
    assert store.look_up(running.code, "10.0.0.2") == running  # another address is not held up
    clock.advance(limits.WRONG_CODES_WINDOW + 1)
    assert store.join(running.code, "Ada", client="10.0.0.1").nickname == "Ada"


async def _first_chunk(response) -> str:
    chunk = await anext(response.body_iterator)
    await response.body_iterator.aclose()
    return chunk


def test_the_event_route_answers_an_unknown_code_as_a_live_one(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "WRONG_CODES_PER_CLIENT", 3)
    monkeypatch.setattr(events, "_admissions", events._Admissions())

    async def scenario() -> None:
        running, _ = events.class_store().create_class()
        answers = []
        for code in (running.code, "ZZZZZZ"):
            response = await events.class_events(_request(code, "10.0.0.1"))
            answers.append((response.status_code, response.media_type, await _first_chunk(response)))
        assert answers[0] == answers[1] == (200, "text/event-stream", "retry: 1000\ndata: 0\n\n")
        for code in ("ZZZZZY", "ZZZZZX"):  # three wrong codes: the client waits
            await _first_chunk(await events.class_events(_request(code, "10.0.0.1")))
        for code in (running.code, "ZZZZZW"):
            refused = await events.class_events(_request(code, "10.0.0.1"))
            assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0

    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        run_in_own_loop(scenario())


# ---------------------------------------------------------------- the watcher


async def _next_data(response, timeout: float = 5.0) -> str:
    """The next event of a stream that is not a keep-alive comment."""
    while (chunk := await asyncio.wait_for(anext(response.body_iterator), timeout)).startswith(":"):
        pass
    return chunk


def test_a_blip_never_ends_a_stream_and_a_purged_class_does(tmp_path, monkeypatch):
    monkeypatch.setattr(events, "_admissions", events._Admissions())

    async def scenario() -> None:
        store = events.class_store()
        record, credential = store.create_class()
        response = await events.class_events(_request(record.code, "10.0.0.1"))
        assert await _next_data(response) == "retry: 1000\ndata: 0\n\n"
        real = store.versions

        def down(codes):
            raise StoreUnavailableError("The class server cannot be reached just now.")

        monkeypatch.setattr(store, "versions", down)
        await asyncio.sleep(1.5)  # the watcher meets the blip, more than once
        monkeypatch.setattr(store, "versions", real)
        store.set_stop(record.code, credential, index=2)
        assert await _next_data(response) == "data: 1\n\n"  # not "gone": the blip said nothing of the class
        store._delete_gone(float("inf"))  # the purge
        assert await _next_data(response) == "event: gone\ndata: gone\n\n"
        await response.body_iterator.aclose()

    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        run_in_own_loop(scenario())


def test_a_followed_class_has_its_new_view_built_before_any_student_asks(tmp_path, monkeypatch):
    """At a Next the whole class's fetches reach the server over a few tenths of a second while
    it sends them the event; the view is built when the change is seen, so the first fetch
    finds it built instead of starting the build. A class nobody follows here costs no build."""
    monkeypatch.setattr(events, "_admissions", events._Admissions())
    built: list[tuple[str, int]] = []
    real = following.view_bytes

    def counted(code, stops):
        version, body, packed = real(code, stops)
        built.append((code, version))
        return version, body, packed

    monkeypatch.setattr(following, "view_bytes", counted)
    route = following.view_route({"walkthrough": lambda state, asked: {"state": state}})

    async def fetch(code: str, version: int) -> dict:
        from starlette.requests import Request

        scope = {"type": "http", "method": "GET", "headers": [], "query_string": f"v={version}".encode()}
        response = await route.endpoint(Request({**scope, "path_params": {"code": code}}))
        assert response.status_code == 200
        return json.loads(response.body)

    async def scenario() -> None:
        store = events.class_store()
        followed, credential = store.create_class()
        unfollowed, other = store.create_class()
        assert (await fetch(followed.code, 0))["version"] == 0  # a student follows it here
        streams = [await events.class_events(_request(record.code, "10.0.0.1")) for record in (followed, unfollowed)]
        for stream in streams:
            assert await _next_data(stream) == "retry: 1000\ndata: 0\n\n"
        built.clear()
        store.set_stop(followed.code, credential, index=2)
        store.set_stop(unfollowed.code, other, index=2)
        for stream in streams:
            assert await _next_data(stream) == "data: 1\n\n"
        deadline = time.monotonic() + 5
        while following._cached(followed.code, 1) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert built == [(followed.code, 1)]  # built on the change, before any fetch; the other class not
        assert (await fetch(followed.code, 1))["version"] == 1
        assert (await fetch(followed.code, 1))["version"] == 1
        assert built == [(followed.code, 1)]  # the fetches found it built
        for stream in streams:
            await stream.body_iterator.aclose()

    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        run_in_own_loop(scenario())
