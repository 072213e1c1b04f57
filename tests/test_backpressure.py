"""A client that never reads gets no new runs (relpos.server.backpressure)."""

from __future__ import annotations

import asyncio
import itertools
import random
import sys
import time

import pytest

from relpos.server import backpressure, internals
from tests.support.apptest import ROOT
from tests.support.streamlit_client import run_in_own_loop

pytestmark = pytest.mark.server

MIB = 2**20


class TestPendingMessages:
    def test_reads_the_starlette_clients_send_queue(self):
        """The one private detail relpos relies on: fails loudly if a Streamlit upgrade renames it."""
        from streamlit.web.server.starlette.starlette_websocket import StarletteSessionClient

        class Socket:
            def __init__(self):
                self.headers, self.cookies, self.client = {}, {}, None

            async def send_bytes(self, payload):  # never called: nothing is sent here
                await asyncio.sleep(3600)

        async def scenario():
            client = StarletteSessionClient(Socket())
            assert backpressure.pending_messages(client) == 0
            for _ in range(3):
                client._send_queue.put_nowait(b"x")
            pending = backpressure.pending_messages(client)
            await client.aclose()
            return pending

        assert run_in_own_loop(scenario()) == 3

    def test_unknown_client_says_nothing(self):
        assert backpressure.pending_messages(object()) is None


def test_outside_a_served_session_nothing_waits():
    started = time.monotonic()
    backpressure.wait_for_client()  # no script run context: returns at once
    assert time.monotonic() - started < 0.1


def test_a_stalled_client_cannot_grow_the_servers_memory():
    """One client at 64 tokens asks for a run every 0.3 s for 7 s and never reads. Measured
    with the Explorer panel when each run sent its figures whole: 28 MiB more without the
    back-pressure, 5–7 MiB with it (first-run caches, allocator noise on a busy machine)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from stalled import StalledSession

    from tests.support.browser import ARTIFACTS, StreamlitServer, deployed_server_options

    options = deployed_server_options()
    with StreamlitServer("app.py", options=options, log_path=ARTIFACTS / "streamlit-stalled-test.log") as server:
        args = type("Args", (), {"every": 0.3, "timeout": 30.0})()
        client = StalledSession(server, "explorer", "n=64", "aᴷ₀", random.Random(0))
        outcome: dict = {}

        async def stall() -> tuple[int, int]:
            now = time.monotonic()
            task = asyncio.create_task(client.stall(now, now + 3, now + 10, args, outcome))
            await asyncio.sleep(2.8)  # the page is loaded (read); the client stalls from 3 s on
            loaded = server.rss_bytes()
            await task
            await asyncio.sleep(1.0)
            return loaded, server.rss_bytes()

        loaded, after = run_in_own_loop(stall())
    assert (after - loaded) / MIB < 14, f"the stalled client grew the server by {(after - loaded) / MIB:.1f} MiB"


class TestUnfinishedPause:
    def test_one_run_cut_short_costs_nothing(self):
        assert backpressure.unfinished_pause(0) == backpressure.unfinished_pause(1) == 0.0

    def test_doubles_then_stops_at_the_maximum(self):
        pauses = [backpressure.unfinished_pause(n) for n in range(2, 12)]
        assert pauses[0] == backpressure.PAUSE
        assert all(b == min(2 * a, backpressure.PAUSE_MAX) for a, b in itertools.pairwise(pauses))
        assert pauses[-1] == backpressure.PAUSE_MAX


class TestTransportBehind:
    """How the back-pressure finds a connection's transport through the middleware's wrappers."""

    def make_protocol(self, transport):
        class Protocol:
            def __init__(self):
                self.transport = transport

            async def send(self, message):
                pass

        return Protocol()

    def test_through_nested_closures(self):
        transport = asyncio.WriteTransport()
        inner = self.make_protocol(transport).send

        def middleware(send):
            async def sender(message):
                await send(message)

            return sender

        assert internals.transport_behind(middleware(middleware(inner))) is transport

    def test_nothing_to_find(self):
        async def send(message):
            pass

        assert internals.transport_behind(send) is None
        assert internals.transport_behind(None) is None
        assert backpressure.unread_bytes(object()) is None


def test_kernel_counts_what_the_peer_has_not_acknowledged():
    """Bytes written to a loopback connection whose reader stopped reading stay in the
    writer's kernel send queue once the reader's buffer is full: SIOCOUTQ sees them."""
    import socket

    class Transport:
        def __init__(self, sock):
            self.sock = sock

        def get_extra_info(self, name):
            return self.sock if name == "socket" else None

    with socket.create_server(("127.0.0.1", 0)) as listener:
        writer = socket.create_connection(listener.getsockname())
        reader, _ = listener.accept()
        with writer, reader:
            assert backpressure.kernel_unacknowledged(Transport(writer)) == 0
            writer.setblocking(False)
            sent = 0
            try:
                while sent < 64 * MIB:
                    sent += writer.send(b"x" * 65536)
            except BlockingIOError:  # both buffers are full
                pass
            unacknowledged = backpressure.kernel_unacknowledged(Transport(writer))
            assert 0 < unacknowledged <= sent
            received = len(reader.recv(1 << 20))
            assert received > 0


def probe_runs(server, query: str, *, requests: int, every: float, read: bool) -> list[str]:
    """Load the probe page, send `requests` reruns `every` s apart (reading meanwhile, or not),
    then read everything the server sent and return the texts it drew."""
    from websockets.asyncio.client import connect

    from tests.support.streamlit_client import Session

    session = Session(server, "", query, None, random.Random(0))
    session.page = ""  # the probe is a single-page app

    async def scenario():
        # max_queue=1: the socket library reads at most one message ahead of the test
        options = {"origin": session.origin, "subprotocols": ["streamlit"], "max_size": None, "max_queue": 1}
        async with connect(session.url, **options) as socket:
            await session.run_once(socket, session.rerun_message(), 60)
            session.texts.clear()
            reader = asyncio.create_task(drain(socket, session)) if read else None
            for _ in range(requests):
                await socket.send(session.rerun_message())
                await asyncio.sleep(every)
            await asyncio.sleep(0.5)
            if reader is None:
                reader = asyncio.create_task(drain(socket, session))
            await asyncio.sleep(2.0)  # the last request's run, after a pause of up to 1.6 s
            reader.cancel()
        return session.texts

    return run_in_own_loop(scenario())


async def drain(socket, session) -> None:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    while True:
        message = ForwardMsg()
        message.ParseFromString(await socket.recv())
        if message.WhichOneof("type") == "delta":
            session.read_delta(message.delta)


@pytest.fixture(scope="module")
def probe_server():
    from tests.support.browser import ARTIFACTS, StreamlitServer, deployed_server_options

    with StreamlitServer(
        "tests/apps/backpressure_probe.py",
        options=deployed_server_options(),
        log_path=ARTIFACTS / "streamlit-backpressure-probe.log",
    ) as server:
        yield server


def test_the_back_pressure_sees_the_served_connection(probe_server):
    """The private details (send queue, transport, browser queue) are found on the installed
    Streamlit and uvicorn: an upgrade that hides them fails here."""
    texts = probe_runs(probe_server, "answer=10", requests=1, every=0.2, read=True)
    report = next(text for text in texts if text.startswith("transport found"))
    assert report.startswith("transport found: True; unread bytes: "), report
    assert "None" not in report, report
    assert "TCP_NODELAY: 1" in texts  # else each answer's last message waits ~40 ms for an ACK


def test_send_without_delay_leaves_other_sockets_alone():
    import socket

    class Transport:
        def __init__(self, sock):
            self.sock = sock

        def get_extra_info(self, name):
            return self.sock if name == "socket" else None

    left, right = socket.socketpair()  # a Unix socket: no Nagle to turn off
    with left, right:
        assert backpressure.send_without_delay(Transport(left)) is False
    assert backpressure.send_without_delay(Transport(None)) is False
    with socket.create_server(("127.0.0.1", 0)) as listener, socket.create_connection(listener.getsockname()) as tcp:
        assert tcp.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
        assert backpressure.send_without_delay(Transport(tcp)) is True
        assert tcp.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1


def test_a_client_that_never_reads_gets_a_few_runs_not_one_per_request(probe_server):
    """30 requests, 200 KB answers, nothing read. Counting only Streamlit's queue all 30 ran
    (the kernel takes megabytes first); counting the kernel's send queue the client's own
    buffers take a few answers (5-9 here: they grew while it read the page), then it waits."""
    texts = probe_runs(probe_server, "answer=200000", requests=30, every=0.15, read=False)
    started = texts.count("run started")
    assert 1 <= started <= 12, f"{started} of 30 requests ran for a client that did not read"


def test_a_reading_client_is_answered_every_time(probe_server):
    texts = probe_runs(probe_server, "answer=200000", requests=10, every=0.5, read=True)
    assert texts.count("run started") == 10


def test_requests_faster_than_runs_finish_stop_costing_runs(probe_server):
    """A run takes 0.5 s; requests come every 0.1 s (each cuts the run before it short). The
    pause doubles with every run cut short: soon no request gets past it until they stop."""
    texts = probe_runs(probe_server, "seconds=0.5", requests=40, every=0.1, read=True)
    started = texts.count("run started")
    assert started <= 12, f"{started} of 40 requests started a run although none could finish"
    assert started >= 2


def test_1100_runs_cut_short_keep_the_pause_at_its_maximum(monkeypatch):
    """The probe's case: after 1,026 cut-short runs ``2 ** n`` no longer fit a float and every
    later run raised OverflowError (a traceback per message). Each run here starts as Streamlit
    starts one and is cut short before ``run_finished``."""
    state, pauses = {}, []
    monkeypatch.setattr(backpressure, "served_session", lambda fragment=False: ("server", "session"))
    monkeypatch.setattr(backpressure.st, "session_state", state)
    monkeypatch.setattr(backpressure, "_sleep", pauses.append)
    monkeypatch.setattr(backpressure, "_wait_while_behind", lambda server, session_id: None)
    for _ in range(1100):
        backpressure.wait_for_client()
    assert pauses[-1] == backpressure.PAUSE_MAX
    assert max(pauses) == backpressure.PAUSE_MAX
    assert state[backpressure._UNFINISHED] <= backpressure.MOST_UNFINISHED
    backpressure.run_finished()
    assert state[backpressure._UNFINISHED] == 0


def _queue_that_empties_after(looks: int, monkeypatch) -> list[int]:
    """A session whose outgoing queue holds messages for the first `looks` looks; returns the
    sizes seen, one per look."""
    seen = []

    def unflushed(server, session_id):
        seen.append(max(0, looks - len(seen)))
        return seen[-1]

    monkeypatch.setattr(backpressure, "served_session", lambda fragment=False: ("server", "session"))
    monkeypatch.setattr(backpressure.st, "session_state", {})
    monkeypatch.setattr(backpressure, "unflushed_messages", unflushed)
    return seen


def test_a_full_run_that_drew_a_fragment_ends_once_its_elements_are_sent(monkeypatch):
    """bench/flood.py's blank teacher page: a fragment's run started while the whole run's
    elements were still queued, and Streamlit dropped the fragment's ones from the queue."""
    seen = _queue_that_empties_after(3, monkeypatch)
    backpressure.fragment_drawn()
    backpressure.run_finished()
    assert seen == [3, 2, 1, 0]  # waited until the queue was empty
    seen.clear()
    backpressure.run_finished()  # the next run drew no fragment: it does not wait
    assert seen == []


def test_a_fragments_own_run_and_a_page_without_fragments_do_not_wait(monkeypatch):
    seen = _queue_that_empties_after(3, monkeypatch)
    backpressure.run_finished()
    backpressure.fragment_drawn()
    backpressure.run_finished(fragment=True)
    assert seen == []


def test_the_wait_for_the_queue_is_bounded(monkeypatch):
    monkeypatch.setattr(backpressure, "SEND_WAIT", 0.05)
    seen = _queue_that_empties_after(10**9, monkeypatch)
    backpressure.fragment_drawn()
    started = time.monotonic()
    backpressure.run_finished()
    assert len(seen) > 1 and seen[-1] > 0
    assert time.monotonic() - started < 2.0
