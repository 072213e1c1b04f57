"""Every custom component of the app (``st.components.v2``), registered in one place.

Each component is declared in ``pyproject.toml`` (``[tool.streamlit.component]``: its name
and its asset folder) and listed in :data:`COMPONENTS` with the files Streamlit loads from
that folder and the module that mounts it:

* ``explorer_panel``: the Explorer's sliders and heatmaps, repainted in the browser;
* ``class_events``: a live class's push receiver (no face);
* ``class_follow``: a following student's screen, drawn in the browser;
* ``class_roster``: the teacher's roster of a class (who is here, who answered);
* ``theme``: the reader's theme followed (no face).

Streamlit serves their files at ``/_stcore/bidi-components/relpos.<component>/…``. relpos
runs from its source tree rather than as an installed distribution, so Streamlit's scan of
installed packages does not find the manifest; :func:`mount` hands the same manifest to the
running server's component manager instead, once per manager.

A component that draws charts or formulas imports the plotly.js and KaTeX of Streamlit's own
frontend (:func:`plotly_chunk`, :func:`katex_chunk`), never a copy of its own.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import streamlit as st

from relpos.server import internals

__all__ = ["COMPONENTS", "Component", "katex_chunk", "manifest", "mount", "name", "plotly_chunk"]

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Component:
    """What Streamlit loads of one component (from its asset folder), and who mounts it."""

    module: str  # the module that mounts it (and says what it is)
    js: str
    css: str | None = None


#: The app's components by their pyproject.toml name.
COMPONENTS: dict[str, Component] = {
    "explorer_panel": Component("relpos.ui.explorer_panel", "explorer_panel.js", "explorer_panel.css"),
    "class_events": Component("relpos.ui.class_events", "events.js"),
    "class_follow": Component("relpos.ui.class_follow", "follow.js", "follow.css"),
    "class_roster": Component("relpos.ui.class_roster", "roster.js", "roster.css"),
    "theme": Component("relpos.ui.theme", "theme.js"),
}
_mounts: dict[tuple[int, str], Callable] = {}  # (id(component manager), name) -> mounting callable


@cache
def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def name(component: str) -> str:
    """Streamlit's name for `component`: ``<project>.<component>``, e.g. ``relpos.theme``."""
    return f"{_project()['project']['name']}.{component}"


def manifest():
    """The component manifest of pyproject.toml (``[tool.streamlit.component]``): every
    component of the project."""
    project = _project()
    entries = project["tool"]["streamlit"]["component"]["components"]
    return internals.manifest(project["project"]["name"], project["project"]["version"], entries)


def mount(component: str) -> Callable:
    """The mounting callable of `component` (a key of :data:`COMPONENTS`), registered with the
    running server's component manager once."""
    files, full = COMPONENTS[component], name(component)
    manager = internals.component_registry()
    if manager.get_component_asset_root(full) is None:
        manager.register_from_manifest(manifest(), ROOT)
    if (id(manager), full) not in _mounts:
        styles = {"css": files.css} if files.css else {}
        _mounts[id(manager), full] = st.components.v2.component(full, js=files.js, isolate_styles=False, **styles)
    return _mounts[id(manager), full]


@cache
def plotly_chunk() -> str:
    """The path of Streamlit's Plotly chunk below the app's root, for a component to import."""
    return internals.plotly_chunk()


@cache
def katex_chunk() -> str:
    """The path of Streamlit's KaTeX chunk below the app's root (a live class's follow view imports it)."""
    return internals.katex_chunk()
