"""The Explorer panel: a Streamlit custom component (``st.components.v2``).

Its JavaScript and CSS live in ``relpos/ui/explorer_panel_assets`` (declared as the component's
``asset_dir`` in ``pyproject.toml``) and are served by Streamlit at
``/_stcore/bidi-components/relpos.explorer_panel/…``. relpos runs from its source tree rather than
as an installed distribution, so Streamlit's scan of installed packages does not find the
manifest; :func:`project_component` hands the same manifest to the running server's component
manager instead.

The panel draws with the plotly.js of Streamlit's own frontend (the chunk that
``st.plotly_chart`` loads, :func:`relpos.server.internals.plotly_chunk`), not a copy of
its own: every other page draws its charts with ``st.plotly_chart``, so one copy serves
every chart of a tab, loaded once and cached as an immutable file, and no page has to
change how it draws. The two copies weigh about the same (1.06 and 1.11 MB in brotli), so
sharing Streamlit's costs the Explorer nothing and saves the second copy everywhere else.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from functools import cache
from pathlib import Path

import streamlit as st

from relpos.server import internals

__all__ = ["ASSETS", "NAME", "explorer_panel", "katex_chunk", "plotly_chunk", "project_component", "values_message"]

ROOT = Path(__file__).resolve().parents[2]
ASSETS = Path(__file__).resolve().with_name("explorer_panel_assets")
#: Streamlit's name for the component: ``<project>.<component>`` from pyproject.toml.
NAME = "relpos.explorer_panel"
#: Streamlit's elements explorer_panel.js finds (relpos.server.internals).
SELECTORS = internals.selectors({"app": "stApp"})
_mounts: dict[tuple[int, str], Callable] = {}  # (id(component manager), name) -> mounting callable


def manifest():
    """The component manifest of pyproject.toml (``[tool.streamlit.component]``): every
    component of the project (the Explorer panel and the live class's receiver)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entries = project["tool"]["streamlit"]["component"]["components"]
    return internals.manifest(project["project"]["name"], project["project"]["version"], entries)


@cache
def plotly_chunk() -> str:
    """The path of Streamlit's Plotly chunk below the app's root, for the panel to import."""
    return internals.plotly_chunk()


@cache
def katex_chunk() -> str:
    """The path of Streamlit's KaTeX chunk below the app's root (a live class's follow view imports it)."""
    return internals.katex_chunk()


def project_component(name: str, **options) -> Callable:
    """The mounting callable of the project's component `name` (``<project>.<component>``,
    declared in pyproject.toml), registered with the running server's manager once.
    `options` go to ``st.components.v2.component`` (its ``js``, ``css`` …)."""
    manager = internals.component_registry()
    if manager.get_component_asset_root(name) is None:
        manager.register_from_manifest(manifest(), ROOT)
    if (id(manager), name) not in _mounts:
        _mounts[id(manager), name] = st.components.v2.component(name, **options)
    return _mounts[id(manager), name]


def values_message(key: str) -> dict | None:
    """The values the panel last handed back (its ``values`` state), or None."""
    result = st.session_state.get(key)
    if result is None:
        return None
    message = result.get("values") if hasattr(result, "get") else None
    return message if isinstance(message, dict) else None


def explorer_panel(spec: dict, *, key: str, on_release: Callable[[], None]) -> None:
    """Mount the Explorer panel with `spec` (:func:`relpos.topics.explorer.panel_spec.release_spec`).

    `on_release` runs (as a widget callback, before the rerun) when the learner lets go
    of a slider or flips the toggle; read the values with :func:`values_message`.
    """
    mount = project_component(NAME, js="explorer_panel.js", css="explorer_panel.css", isolate_styles=False)
    data = {**spec, "plotly": plotly_chunk(), "dom": SELECTORS}
    mount(key=key, data=data, default={"values": None}, on_values_change=on_release)
