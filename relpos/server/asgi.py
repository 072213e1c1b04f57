"""The server around the script: ``st.App``'s routes, middleware and lifespan, in one place.

``streamlit run app.py`` looks for an ``st.App(...)`` assigned in app.py (by reading its
source: the call must be written there) and then serves that app with uvicorn, importing
app.py as a module; Streamlit still runs app.py per session as the script, as
``__main__``. app.py therefore builds the App with :func:`app_options` when imported, and
runs the page only as the script.

Other parts of the server add to the app here, before app.py is imported: a route
(``register_routes``), a middleware (``register_middleware``) or a lifespan of their own
(``register_lifespan``), or pass extra ones to :func:`app_options` directly. The page
weight middleware (:mod:`relpos.static.weight`) always comes first, so whatever is added
answers compressed and with ETags as well (a route that streams, such as server-sent
events, is passed through as it is).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

import streamlit as st
from starlette.middleware import Middleware

from relpos.server import frontend, internals
from relpos.static import weight

__all__ = [
    "app_options",
    "bounded_body",
    "register_lifespan",
    "register_middleware",
    "register_routes",
    "weight_middleware",
]

#: The longest request line and headers the server reads: Streamlit's longest query string
#: and a browser's headers (uvicorn holds up to this much of a request head per connection).
REQUEST_HEAD_BYTES = internals.QUERY_MAX_CHARS + 64 * 1024

_ROUTES: list[Any] = []
_MIDDLEWARE: list[Middleware] = []
_LIFESPANS: list[Callable[[Any], AbstractAsyncContextManager[dict | None]]] = []


def register_routes(*routes: Any) -> None:
    """Serve these Starlette routes beside Streamlit's (paths outside ``/_stcore/``,
    ``/static/``, ``/media/`` and ``/component/``, which Streamlit keeps for itself)."""
    _ROUTES.extend(routes)


def register_middleware(*middleware: Middleware) -> None:
    """Wrap Streamlit's stack in these too (inside the page weight middleware, in order)."""
    _MIDDLEWARE.extend(middleware)


def register_lifespan(lifespan: Callable[[Any], AbstractAsyncContextManager[dict | None]]) -> None:
    """Run this async context manager (given the App) while the server runs; a dict it
    yields joins ``app.state``."""
    _LIFESPANS.append(lifespan)


def weight_middleware(head: str = "") -> Middleware:
    """The page weight middleware, serving Streamlit's frontend build under the base URL,
    with `head` in the head of every page (:class:`relpos.static.weight.WeightMiddleware`)."""
    return Middleware(
        weight.WeightMiddleware,
        static_root=internals.static_dir(),
        base_url=st.get_option("server.baseUrlPath") or "",
        transforms=frontend.app_transforms(head),
        head=head,
    )


def app_options(routes: Iterable[Any] = (), middleware: Iterable[Middleware] = (), head: str = "") -> dict[str, Any]:
    """Keyword arguments for ``st.App(script, **app_options())``: the registered routes,
    middleware and lifespans, plus `routes` and `middleware`; `head` goes in every page's
    HTML head (a style sheet that must hold from the first paint).

    Also lets the server read any link up to Streamlit's length limit, so one with too many
    parameters gets its page and the page's notice (:mod:`relpos.server.links`), not a bare 400.
    """
    internals.read_request_heads_of(REQUEST_HEAD_BYTES)
    return {
        "routes": [*_ROUTES, *routes],
        "middleware": [weight_middleware(head), *_MIDDLEWARE, *middleware],
        "lifespan": _lifespan,
    }


#: The interpreter's switch interval while the server runs (s; Python's default is 5 ms). The
#: event loop hands every message to every connection, and each socket write lets go of the
#: interpreter's lock; while a page run computes, the loop waits up to this long to get it
#: back, at each write. A Next sends hundreds of small writes at once (every student's event
#: and view), so at 5 ms they queued behind the teacher's own run (bench/flood.py).
SWITCH_INTERVAL = 0.001


@asynccontextmanager
async def _lifespan(app: Any) -> AsyncIterator[dict]:
    """Every registered lifespan, entered in order and left in reverse; meanwhile the loop
    gets the interpreter's lock back within :data:`SWITCH_INTERVAL`."""
    state: dict = {}
    default = sys.getswitchinterval()
    sys.setswitchinterval(min(default, SWITCH_INTERVAL))
    async with AsyncExitStack() as stack:
        for lifespan in _LIFESPANS:
            state.update(await stack.enter_async_context(lifespan(app)) or {})
        try:
            yield state
        finally:
            sys.setswitchinterval(default)


async def bounded_body(request: Any, limit: int) -> bytes | None:
    """A request's body, or None once it is longer than `limit` bytes: read no further, so a
    client sending megabytes to a route that takes a few hundred costs the server no more
    than `limit` (a stated ``Content-Length`` over it is refused before reading at all)."""
    stated = request.headers.get("content-length", "")
    if stated.isdigit() and int(stated) > limit:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)
