"""app.py as a server: ``streamlit run`` finds its ``st.App``, and others can add to it."""

from __future__ import annotations

from pathlib import Path

from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from relpos.server import asgi
from relpos.static import weight

ROOT = Path(__file__).resolve().parents[1]


def test_streamlit_run_serves_app_py_through_st_app():
    """Streamlit reads app.py's source for an ``st.App(...)`` assignment (the call must be written there)."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"


def test_the_weight_middleware_comes_first_and_registered_parts_follow(monkeypatch):
    monkeypatch.setattr(asgi, "_ROUTES", [])
    monkeypatch.setattr(asgi, "_MIDDLEWARE", [])

    async def hello(request):
        return PlainTextResponse("hi")

    class Marker:
        def __init__(self, app):
            self.app = app

    route = Route("/api/events", hello)
    asgi.register_routes(route)
    asgi.register_middleware(Middleware(Marker))
    options = asgi.app_options(routes=[Route("/api/extra", hello)])
    assert [r.path for r in options["routes"]] == ["/api/events", "/api/extra"]
    assert [m.cls for m in options["middleware"]] == [weight.WeightMiddleware, Marker]
    assert options["lifespan"] is not None


def test_while_the_server_runs_the_event_loop_gets_the_interpreter_back_within_a_millisecond():
    """Each socket write lets go of the interpreter's lock; at Python's 5 ms a Next's hundreds
    of writes (every student's event and view) queued behind the teacher's own page run."""
    import sys

    from tests.support.streamlit_client import run_in_own_loop

    default = sys.getswitchinterval()

    async def serve() -> float:
        async with asgi.app_options()["lifespan"](None):
            return sys.getswitchinterval()

    assert run_in_own_loop(serve()) == asgi.SWITCH_INTERVAL <= 0.001  # a thread's loop may be Playwright's
    assert sys.getswitchinterval() == default  # given back when the server stops
