"""Every private Streamlit (and Starlette/uvicorn) name the app relies on, and why.

The rest of relpos uses Streamlit's public API only (``tests/test_layers.py`` fails on a
private name anywhere else), so an upgrade can break the app only here. Each name below
was checked on the Streamlit version that ``requirements.txt`` pins (one minor release),
and ``tests/test_internals.py`` finds every one of them on the installed version.

Why each is still private:

* **Which session a run belongs to** (``get_script_run_ctx``, ``runtime.get_instance``):
  back-pressure and turns act per session; Streamlit has no public "this session" handle.
* **What a session has not sent or its client has not read** (``AppSession._browser_queue``
  through ``Runtime._session_mgr``; ``StarletteSessionClient._send_queue`` and
  ``._websocket._send``, whose innermost wrapper is uvicorn's protocol with the asyncio
  ``transport``): Streamlit exposes no back-pressure signal at all.
* **Legacy folder routing** (``PagesManager.uses_pages_directory``): a ``pages/`` folder
  next to the entry script still makes a fresh server run ``pages/<name>.py`` on its own
  until some session has called ``st.navigation`` (Streamlit 1.67 keeps the flag "for
  apps created with the pages directory feature"); the project's layout keeps ``pages/``.
* **The query-string limits** (``CLIENT_STATE_QUERY_STRING_MAX_FIELDS`` / ``_LENGTH``):
  Streamlit drops a longer query string without a word; the app says so instead.
* **Which widgets the browser holds** (``SafeSessionState._state``, ``SessionState``'s
  ``_new_widget_state`` and ``_key_id_mapper``): a value the app sets for a widget reaches
  the browser only if the browser applies it in the run that carried it, and Streamlit
  neither says whether it did nor sends it again (:mod:`relpos.server.seeds`).
* **Registering the custom components' manifest** (``Runtime.bidi_component_registry``,
  ``ComponentManifest``; :mod:`relpos.ui.components`): ``st.components.v2`` finds manifests
  only in installed distributions, and relpos runs from its source tree.
* **Where Streamlit's frontend build lives** (``file_util.get_static_dir``): the page
  weight middleware (:mod:`relpos.static.weight`) answers those files itself,
  compressed once, because Streamlit sends them uncompressed on purpose.
* **Streamlit's Plotly chunk** (``static/js/PlotlyChart.<hash>.js``, which sets
  ``window.Plotly`` when it is evaluated): the Explorer panel draws with the plotly.js that
  ``st.plotly_chart`` loads, so a page carries one copy; the chunk's hashed name is a
  detail of Streamlit's build, found here (:data:`CHECKED_FILES`); it is served trimmed
  to the app's traces (:mod:`relpos.static.plotly_trim`).
* **How long a request head the server reads** (uvicorn's ``h11_impl.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE``,
  16 KiB): uvicorn answers 400 to a request line and headers that arrive in pieces adding up
  to more (a link of 10,000 parameters is 89 KB: one read on a quiet loopback, several on
  any network), so the page never loads to say the link was too long (:mod:`relpos.server.links`).
  Streamlit builds uvicorn's configuration itself and has no option for it.
* **The path of a tab's WebSocket** (``starlette_websocket._ROUTE_WEBSOCKET_STREAM``,
  ``_stcore/stream`` below the base URL path, :data:`SESSION_STREAM`): the admission pacing
  (:mod:`relpos.server.admission`) holds new sessions there, before Streamlit sees them;
  Streamlit has no public hook for a session about to be made.
* **Streamlit's icon font** (``static/media/MaterialSymbols-Rounded.<hash>.woff2``, icons
  named ``:material/name:``): served with the app's and Streamlit's icons only
  (:mod:`relpos.static.icon_font`).
* **Streamlit's DOM** (:data:`TESTIDS`, the ``data-testid`` of its elements, and
  :func:`css_class`, the ``st-key-…`` class of a keyed container): the app's style sheets and
  browser scripts find Streamlit's elements by these, which Streamlit documents nowhere.
  Python style sheets write ``[data-testid="…"]`` selectors of the declared names; the
  browser's scripts get theirs from Python (:func:`selectors`), never by hand.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest
from streamlit.runtime.state.query_params import (
    CLIENT_STATE_QUERY_STRING_MAX_FIELDS as QUERY_MAX_FIELDS,
)
from streamlit.runtime.state.query_params import (
    CLIENT_STATE_QUERY_STRING_MAX_LENGTH as QUERY_MAX_CHARS,
)
from streamlit.web.server.starlette.starlette_websocket import _ROUTE_WEBSOCKET_STREAM

__all__ = [
    "QUERY_MAX_CHARS",
    "QUERY_MAX_FIELDS",
    "SESSION_STREAM",
    "TESTIDS",
    "component_registry",
    "css_class",
    "katex_chunk",
    "manifest",
    "pending_messages",
    "plotly_chunk",
    "read_request_heads_of",
    "reported_widget_ids",
    "selectors",
    "served_session",
    "static_dir",
    "testid_selector",
    "transport_behind",
    "transport_of",
    "unflushed_messages",
    "use_navigation_routing",
    "widget_id",
]

#: How every tab's WebSocket path ends (``/_stcore/stream``, after the base URL path if one is set).
SESSION_STREAM = "/" + _ROUTE_WEBSOCKET_STREAM.strip("/")

#: How deep to follow the wrappers around the ASGI ``send`` callable (middleware closures).
_MAX_WRAPPERS = 8


def script_run_context():
    """The running script's context, or None outside a Streamlit run."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    return get_script_run_ctx()


def served_session(fragment: bool = False) -> tuple[Any, str] | None:
    """(runtime, session id) of this run, or None outside a served session (AppTest, bare
    import) and, with `fragment`, in a full run (app.py's calls cover those)."""
    from streamlit import runtime

    context = script_run_context()
    if context is None or not runtime.exists() or (fragment and not context.fragment_ids_this_run):
        return None
    return runtime.get_instance(), context.session_id


def pending_messages(client) -> int | None:
    """Messages in the client's send queue (made, not yet written), or None if the server cannot say."""
    queue = getattr(client, "_send_queue", None)
    return queue.qsize() if isinstance(queue, asyncio.Queue) else None  # AppTest's client is a mock


def unflushed_messages(server, session_id: str) -> int | None:
    """Messages a run has made that the event loop has not yet handed to the client's send
    queue (the session's browser queue), or None if the server cannot say."""
    manager = getattr(server, "_session_mgr", None)
    info = manager.get_session_info(session_id) if hasattr(manager, "get_session_info") else None
    queue = getattr(getattr(info, "session", None), "_browser_queue", None)
    try:
        return len(queue)
    except TypeError:  # another Streamlit version: not counted
        return None


def transport_of(client) -> asyncio.WriteTransport | None:
    """The asyncio transport behind a session client's WebSocket, or None if it cannot be found."""
    return transport_behind(getattr(getattr(client, "_websocket", None), "_send", None))


def transport_behind(send) -> asyncio.WriteTransport | None:
    """The transport an ASGI ``send`` callable writes to, through the middleware's wrappers.

    Starlette's middleware wraps ``send`` in closures; the innermost one is a bound method
    of the server's protocol object (uvicorn's), which holds the asyncio transport.
    """
    seen, todo = set(), [send]
    while todo and len(seen) < _MAX_WRAPPERS:
        function = todo.pop()
        if function is None or id(function) in seen:
            continue
        seen.add(id(function))
        transport = getattr(getattr(function, "__self__", None), "transport", None)
        if isinstance(transport, asyncio.WriteTransport):
            return transport
        for cell in getattr(function, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if callable(value):
                todo.append(value)
    return None


def _session_state() -> Any:
    """The running session's SessionState (behind st.session_state's lock wrapper), or None."""
    context = script_run_context()
    return getattr(getattr(context, "session_state", None), "_state", None)


def reported_widget_ids() -> set[str] | None:
    """Ids of the widgets whose values the browser sent with the request that started this
    run (read before the run draws a widget), or None when the server cannot say."""
    states = getattr(getattr(_session_state(), "_new_widget_state", None), "states", None)
    return set(states) if isinstance(states, dict) else None


def widget_id(key: str) -> str | None:
    """The element id of the widget with user key `key`, once a run has drawn it."""
    mapper = getattr(_session_state(), "_key_id_mapper", None)
    return mapper.get_id_from_key(key) if hasattr(mapper, "get_id_from_key") else None


def use_navigation_routing() -> Path | None:
    """Switch the process to ``st.navigation`` routing; return the entry script's path
    (None outside a Streamlit run)."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False  # the value st.navigation itself assigns
    context = script_run_context()
    return None if context is None else Path(context.pages_manager.main_script_path)


def manifest(name: str, version: str, components: list[dict]) -> ComponentManifest:
    """A components-v2 manifest, as Streamlit builds it from an installed package's pyproject."""
    return ComponentManifest(
        name=name, version=version, components=[ComponentConfig.from_dict(entry) for entry in components]
    )


def component_registry() -> Any:
    """The running server's registry of components-v2 assets (``register_from_manifest``,
    ``get_component_asset_root``)."""
    from streamlit.runtime import Runtime

    return Runtime.instance().bidi_component_registry


def read_request_heads_of(size: int) -> None:
    """Let the server read a request line and headers of up to `size` bytes however they
    arrive (uvicorn's HTTP parser, h11, is given the limit when a connection opens).

    Never lowers uvicorn's own limit.
    """
    from uvicorn.protocols.http import h11_impl

    h11_impl.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE = max(size, h11_impl.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE)


def static_dir() -> Path:
    """The folder of Streamlit's frontend build (``index.html``, ``static/js/…``)."""
    from streamlit import file_util

    return Path(file_util.get_static_dir())


#: The chunk of Streamlit's frontend that bundles plotly.js, and what it assigns.
PLOTLY_CHUNK_GLOB, PLOTLY_CHUNK_GLOBAL = "static/js/PlotlyChart.*.js", "window.Plotly="


#: The chunk of Streamlit's frontend that bundles KaTeX (an ES module whose default export is
#: katex), which st.latex draws with; a live class's follow view draws its formulas with it.
KATEX_CHUNK_GLOB, KATEX_CHUNK_TEXT = "static/js/katex.*.js", "KaTeX parse error"


#: Streamlit's icon font (Material Symbols Rounded: icons by ligature, ``:material/name:``),
#: and how its frontend names an icon of its own.
ICON_FONT_GLOB, ICON_NAME_PREFIX = "static/media/MaterialSymbols-Rounded.*.woff2", ":material/"


def _chunk(glob: str) -> str:
    found = sorted(static_dir().glob(glob))
    if len(found) != 1:
        raise RuntimeError(f"expected one {glob} in Streamlit's build, found {len(found)}")
    return found[0].relative_to(static_dir()).as_posix()


def plotly_chunk() -> str:
    """The URL path of Streamlit's Plotly chunk below the app's root (``static/js/PlotlyChart.<hash>.js``)."""
    return _chunk(PLOTLY_CHUNK_GLOB)


def katex_chunk() -> str:
    """The URL path of Streamlit's KaTeX chunk below the app's root (``static/js/katex.<hash>.js``)."""
    return _chunk(KATEX_CHUNK_GLOB)


#: Streamlit's elements that the app's CSS and JavaScript find, by ``data-testid``, and why.
#: ``tests/test_internals.py`` finds each in the installed Streamlit's frontend build and
#: fails on a ``data-testid`` anywhere in relpos that is not declared here.
TESTIDS: dict[str, str] = {
    "stApp": "the app element: its colour scheme is the theme shown (theme.js, explorer_panel.js)",
    "stMain": "the main area: formulas to fit, heatmap numbers to hide, presenter mode's focus frame",
    "stMainBlockContainer": "the main area's content: presenter mode's padding and text sizes",
    "stSidebar": "the sidebar: formulas to fit, folded in presenter mode",
    "stSidebarCollapseButton": "the control that folds the sidebar (presenter mode)",
    "stHeader": "the header strip: presenter mode's height, the sticky bar below it",
    "stLayoutWrapper": "a keyed container's wrapper: the sticky lesson bar, the hidden theme box",
    "stHorizontalBlock": "a row of columns: the Copy link button's row does not wrap",
    "stMarkdownContainer": "a Markdown element: presenter mode's text size",
    "stWidgetLabel": "a widget's label: a disabled control's label colour",
    "stBaseButton-primary": "a primary button: its label's colour",
    "stBaseButton-primaryFormSubmit": "a form's primary submit button: its label's colour",
    "stCheckbox": "a checkbox or toggle: the keyboard focus ring",
    "stPlotlyChart": "a chart: a touch swipe on it scrolls the page",
    "stTextInput": "a text field: it lets go of the focus after Enter; the clicker's keys",
    "stNumberInput": "a number field: the clicker's keys while it has the focus",
    "stForm": "a form: Enter in its fields submits it, the focus stays",
}


def testid_selector(name: str) -> str:
    """The CSS selector of Streamlit's elements with ``data-testid`` `name` (one of :data:`TESTIDS`).

    >>> testid_selector("stMain")
    '[data-testid="stMain"]'
    """
    if name not in TESTIDS:
        raise KeyError(f"{name!r} is not a data-testid declared in relpos.server.internals.TESTIDS")
    return f'[data-testid="{name}"]'


#: How Streamlit names a keyed element's container: this prefix and the key.
KEY_CLASS_PREFIX = "st-key-"


def css_class(key: str) -> str:
    """The class Streamlit gives a keyed element's container (``st-key-`` and the key, with
    every character but letters, digits, ``_`` and ``-`` made a ``-``).

    >>> css_class("walkthrough.a.+2")
    'st-key-walkthrough-a--2'
    """
    return KEY_CLASS_PREFIX + re.sub(r"[^A-Za-z0-9_-]", "-", key)


def selectors(testids: dict[str, str], keys: dict[str, str] | None = None) -> dict[str, str]:
    """CSS selectors for a browser script, by the names it uses: `testids` maps a name to a
    ``data-testid`` (:func:`testid_selector`), `keys` a name to a container key (``.`` and
    :func:`css_class`).

    >>> selectors({"main": "stMain"}, {"nav": "lesson-nav"})
    {'main': '[data-testid="stMain"]', 'nav': '.st-key-lesson-nav'}
    """
    keyed = {name: "." + css_class(key) for name, key in (keys or {}).items()}
    return {name: testid_selector(value) for name, value in testids.items()} | keyed


#: What ``tests/test_internals.py`` checks on the installed Streamlit: (module, dotted name).
CHECKED: list[tuple[str, str]] = [
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "get_script_run_ctx"),
    ("streamlit.runtime.pages_manager", "PagesManager.uses_pages_directory"),
    ("streamlit.runtime.state.query_params", "CLIENT_STATE_QUERY_STRING_MAX_FIELDS"),
    ("streamlit.runtime.state.query_params", "CLIENT_STATE_QUERY_STRING_MAX_LENGTH"),
    ("streamlit.components.v2.manifest_scanner", "ComponentManifest"),
    ("streamlit.components.v2.manifest_scanner", "ComponentConfig.from_dict"),
    ("streamlit.runtime", "Runtime.bidi_component_registry"),
    ("streamlit.file_util", "get_static_dir"),
    ("uvicorn.protocols.http.h11_impl", "DEFAULT_MAX_INCOMPLETE_EVENT_SIZE"),
    ("streamlit.web.server.starlette.starlette_websocket", "_ROUTE_WEBSOCKET_STREAM"),
]
#: Files of Streamlit's frontend build: (glob below :func:`static_dir`, text each must contain).
CHECKED_FILES: list[tuple[str, str]] = [
    (PLOTLY_CHUNK_GLOB, PLOTLY_CHUNK_GLOBAL),
    (KATEX_CHUNK_GLOB, KATEX_CHUNK_TEXT),
    (ICON_FONT_GLOB, "wOF2"),
]
#: Instance attributes (set in ``__init__``, so found in the class's source): (module, class, attribute).
CHECKED_ATTRIBUTES: list[tuple[str, str, str]] = [
    ("streamlit.runtime.runtime", "Runtime", "_session_mgr"),
    ("streamlit.runtime.app_session", "AppSession", "_browser_queue"),
    ("streamlit.web.server.starlette.starlette_websocket", "StarletteSessionClient", "_send_queue"),
    ("streamlit.web.server.starlette.starlette_websocket", "StarletteSessionClient", "_websocket"),
    ("starlette.websockets", "WebSocket", "_send"),
    ("streamlit.runtime.state.safe_session_state", "SafeSessionState", "_state"),
]
#: Fields of dataclasses: (module, class, field).
CHECKED_FIELDS: list[tuple[str, str, str]] = [
    ("streamlit.runtime.state.session_state", "SessionState", "_new_widget_state"),
    ("streamlit.runtime.state.session_state", "SessionState", "_key_id_mapper"),
    ("streamlit.runtime.state.session_state", "WStates", "states"),
]


def option_if_set(name: str) -> Any:
    """A config option's value when someone set it (config file, flag or environment), else
    None: ``browser.serverAddress`` defaults to ``localhost``, which says nothing."""
    from streamlit import config

    return config.get_option(name) if config.is_manually_set(name) else None
