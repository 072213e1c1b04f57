"""New WebSocket sessions wait their turn (relpos.server.admission); nothing else waits."""

from __future__ import annotations

from relpos.server import admission
from relpos.server.admission import AdmissionMiddleware, Pacer
from tests.support.streamlit_client import run_in_own_loop


def test_a_burst_goes_at_once_and_the_rest_at_the_rate():
    pacer = Pacer(rate=25.0, burst=40)
    delays = [pacer.delay(now=0.0) for _ in range(300)]
    assert delays[:40] == [0.0] * 40
    assert delays[40] == 1 / 25 and abs(delays[-1] - 260 / 25) < 1e-9  # 300 tabs in about 10 s


def test_the_bucket_refills_while_nobody_comes():
    pacer = Pacer(rate=10.0, burst=2)
    assert [pacer.delay(now=0.0) for _ in range(3)] == [0.0, 0.0, 0.1]
    assert pacer.delay(now=10.0) == 0.0  # full again after a quiet while


def _served(scopes: list[dict], pacer: Pacer, monkeypatch) -> tuple[list[str], list[float]]:
    served, slept = [], []

    async def app(scope, receive, send):
        served.append(scope["path"])

    async def sleep(seconds):
        slept.append(seconds)

    monkeypatch.setattr(admission, "_sleep", sleep)
    middleware = AdmissionMiddleware(app, pacer)

    async def all_of_them():
        for scope in scopes:
            await middleware(scope, None, None)

    run_in_own_loop(all_of_them())
    return served, slept


def test_only_new_stream_sockets_wait(monkeypatch):
    stream = {"type": "websocket", "path": "/_stcore/stream"}
    others = [{"type": "http", "path": "/_stcore/stream"}, {"type": "websocket", "path": "/elsewhere"}]
    served, slept = _served([stream, stream, *others * 5, stream], Pacer(rate=10.0, burst=1), monkeypatch)
    assert len(served) == 13  # every one served, none refused
    assert len(slept) == 2 and all(seconds > 0 for seconds in slept)  # the second and third streams waited
