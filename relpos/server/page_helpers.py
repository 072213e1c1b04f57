"""Browser-side helpers of every page: ``relpos/server/assets/page_helpers.js``.

Formulas scaled to fit their column (or made keyboard-scrollable regions when they
cannot), text fields that let go of the focus after Enter (so a clicker steps the lesson
again), the current walkthrough stop kept in view after Previous / Next in presenter
mode, presenter mode's folded sidebar, free focus and "Copy link" button, a phone's
decimal keyboard in the number fields, and the window width in a cookie for the server
(``relpos.ui.layout.phone_screen``). Static code, no user text.

The script is a file of its own, served by a route at a URL that names its content's hash
(:data:`PATH`), so a browser fetches it once and keeps it (the page weight middleware
compresses it). Every full run puts the same small ``<script src>`` at the top of the
sidebar. Sending it once per session is not enough: Streamlit draws ``st.html`` with code
it loads lazily, and a second run that finishes before that code arrives removes an
element the first run sent before the browser ever ran it; the tab would then never get
the helpers. An element that every run sends is never removed, so it runs as soon as it
can, and only once (the script ignores a second copy).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import streamlit as st
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from relpos.server import asgi
from relpos.server.internals import css_class, selectors
from relpos.state.keys import CLICKER, LESSON_NAV, NUMBER_FIELDS

__all__ = ["PATH", "SCRIPT", "install_page_helpers", "script_tag", "script_url"]

#: Streamlit's elements the script finds (relpos.server.internals), by the names it uses.
SELECTORS = selectors(
    {
        "main": "stMain",
        "sidebar": "stSidebar",
        "sidebarFold": "stSidebarCollapseButton",
        "header": "stHeader",
        "checkbox": "stCheckbox",
        "chart": "stPlotlyChart",
        "textInput": "stTextInput",
        "numberInput": "stNumberInput",
        "form": "stForm",
    },
    {"lessonNav": LESSON_NAV, "clicker": CLICKER},
)
#: The script (static, read once), with Streamlit's selectors and the st-key classes of the
#: number fields filled in.
SCRIPT = (
    (Path(__file__).parent / "assets" / "page_helpers.js")
    .read_text(encoding="utf-8")
    .replace("/*SELECTORS*/{}", json.dumps(SELECTORS))
    .replace("/*NUMBER_FIELDS*/[]", json.dumps([css_class(key) for key in NUMBER_FIELDS]))
)
_BODY = SCRIPT.encode("utf-8")
#: The route (below the app's base URL path): the name carries the content's hash.
PATH = f"/relpos/page_helpers.{hashlib.sha256(_BODY).hexdigest()[:12]}.js"


async def _serve_script(request: Request) -> Response:
    """The helpers, cached for good: a new script has a new URL."""
    headers = {"Cache-Control": "public, max-age=31536000, immutable"}
    return Response(_BODY, media_type="text/javascript", headers=headers)


asgi.register_routes(Route(PATH, _serve_script, methods=["GET", "HEAD"]))


def script_url() -> str:
    """:data:`PATH` below the app's base URL path."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"{'/' + base if base else ''}{PATH}"


def script_tag() -> str:
    """The element that loads the helpers (static: no user text)."""
    return f'<script src="{script_url()}"></script>'


def install_page_helpers() -> None:
    """Put the helpers' ``<script src>`` at the top of the sidebar (every full run; no
    visible output)."""
    with st.sidebar:
        st.html(script_tag(), unsafe_allow_javascript=True)
