"""Every page runs through app.py: the one place that stops Streamlit's legacy folder routing.

Streamlit treats an app whose entry script sits next to a ``pages/`` folder as a legacy
"pages folder" app until some session has called ``st.navigation``. On a fresh server
(after a start, a restart or on a new replica) a first request for ``/explorer`` would
therefore run ``pages/explorer.py`` on its own: no page list, no page config, none of
app.py's setup.

The correction has two halves, and neither runs at import time (an import that reruns
the script aborts half-way, and every other session importing the same module at that
moment fails with an ImportError):

* app.py runs the chosen page inside :func:`app_entry`, which marks the current script
  run (a context variable, so each session's run thread sees only its own mark);
* each page's first statement is :func:`require_app_entry`: in a run that did not come
  through app.py it switches the process to ``st.navigation`` routing and runs app.py in
  its place, which opens the same page because a page's identity is its ``url_path`` and
  that equals the page's file name (see relpos.ui.navigation). The client's widget events
  of that run (a click, an upload) reach the page as usual: nothing is rerun.

Both are idempotent and safe under concurrency: any number of sessions may take the
legacy path at once during a cold start, each of them runs app.py once, and the switch
is a single assignment of a class attribute to ``False`` (the value ``st.navigation``
itself assigns). Streamlit's AppTest resets that attribute before every run, so page
tests take this path on every run after their first.

A page's earlier address has no file for the legacy routing to find: :func:`redirects` sends
a load of it to the page's address by HTTP, before Streamlit's frontend starts.
"""

from __future__ import annotations

import runpy
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

import streamlit as st
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from relpos.server import internals

#: True while app.py is running the page it chose with st.navigation (per run thread).
_THROUGH_APP: ContextVar[bool] = ContextVar("relpos_through_app", default=False)


@contextmanager
def app_entry() -> Iterator[None]:
    """Mark the page that app.py runs as reached through the app's navigation."""
    token = _THROUGH_APP.set(True)
    try:
        yield
    finally:
        _THROUGH_APP.reset(token)


def came_through_app() -> bool:
    """Whether the running page was started by app.py (and not by legacy folder routing)."""
    return _THROUGH_APP.get()


def require_app_entry() -> None:
    """First statement of every page: run app.py in place if legacy routing ran the page.

    Does nothing in the normal case. In a run that legacy folder routing started, it
    switches the whole process to ``st.navigation`` routing (what app.py's first
    ``st.navigation`` call would do), runs app.py in place of this page (app.py opens
    the page that the URL names, with the app around it), then ends this run.

    In place, not by ``st.rerun()``: a rerun starts over without the client's widget
    events, so the first click, upload or slider move that reaches a fresh server (a
    restart, a new replica) would be silently lost.
    """
    if came_through_app():
        return
    entry = internals.use_navigation_routing()
    if entry is None:  # not in a Streamlit run (a bare import): nothing to route
        return
    runpy.run_path(str(entry), run_name="__main__")
    st.stop()


def redirects(moved: Mapping[str, str]) -> list[Route]:
    """HTTP routes that answer a load of ``/<old>?…`` (an old url_path in `moved`) with a
    redirect to ``/<new>?…``, the query kept.

    A link, bookmark or class link made before a page was renamed then opens the page, and
    even a fresh server's legacy folder routing (which finds no file of the old name and
    would say "Page not found") never sees the old address.
    """

    async def redirect(request: Request) -> Response:
        path = request.url.path.rstrip("/")
        old = path.rsplit("/", 1)[1]
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"{path[: -len(old)]}{moved[old]}{query}", status_code=307)

    return [Route(f"/{old}{slash}", redirect, methods=["GET", "HEAD"]) for old in moved for slash in ("", "/")]
