"""A client that never reads gets no new runs (issue 14, part 3; relpos.ui.backpressure)."""

from __future__ import annotations

import asyncio
import random
import sys
import time

from relpos.ui import backpressure
from tests.apptest import ROOT
from tests.streamlit_client import run_in_own_loop

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
    """One client at 64 tokens asks for a run every 0.3 s for 10 s and never reads. Measured
    with the live panel when each run sent its figures whole: 28 MiB more without the
    back-pressure, 5–7 MiB with it (first-run caches, allocator noise on a busy machine)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from stalled import StalledSession

    from tests.browser import ARTIFACTS, StreamlitServer, deployed_server_options

    options = deployed_server_options()
    with StreamlitServer("app.py", options=options, log_path=ARTIFACTS / "streamlit-stalled-test.log") as server:
        args = type("Args", (), {"every": 0.3, "timeout": 30.0})()
        client = StalledSession(server, "explorer", "n=64", "aᴷ₀", random.Random(0))
        outcome: dict = {}

        async def stall() -> tuple[int, int]:
            now = time.monotonic()
            task = asyncio.create_task(client.stall(now, now + 6, now + 16, args, outcome))
            await asyncio.sleep(5.8)  # the page is loaded (read); the client stalls from 6 s on
            loaded = server.rss_bytes()
            await task
            await asyncio.sleep(1.0)
            return loaded, server.rss_bytes()

        loaded, after = run_in_own_loop(stall())
    assert (after - loaded) / MIB < 14, f"the stalled client grew the server by {(after - loaded) / MIB:.1f} MiB"
