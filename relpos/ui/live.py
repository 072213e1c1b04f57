"""The Explorer's live panel: a Streamlit custom component (``st.components.v2``).

Its JavaScript and CSS live in ``relpos/ui/live_assets`` (declared as the component's
``asset_dir`` in ``pyproject.toml``) and are served by Streamlit at
``/_stcore/bidi-components/relpos.live/…``, together with a copy of the installed plotly
package's ``plotly.min.js``: the panel works without internet. relpos runs from its
source tree rather than as an installed distribution, so Streamlit's scan of installed
packages does not find the manifest; :func:`_register` hands the same manifest to the
running server's component manager instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

import plotly
import streamlit as st

from relpos.server import internals

__all__ = ["ASSETS", "NAME", "live_panel", "values_message"]

ROOT = Path(__file__).resolve().parents[2]
ASSETS = Path(__file__).resolve().with_name("live_assets")
#: Streamlit's name for the component: ``<project>.<component>`` from pyproject.toml.
NAME = "relpos.live"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
VENDORED_PLOTLY = ASSETS / "vendor" / "plotly.min.js"

_mounts: dict[int, Callable] = {}  # id(component manager) -> mounting callable


def _manifest():
    """The component manifest of pyproject.toml (``[tool.streamlit.component]``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entries = project["tool"]["streamlit"]["component"]["components"]
    return internals.manifest(project["project"]["name"], project["project"]["version"], entries)


def vendor_plotly() -> Path:
    """Copy the installed plotly.js next to the component's scripts (once per plotly version).

    A class opening the Explorer on a fresh server copies it from many sessions at once:
    each writes its own temporary file and renames it into place, so no session renames
    another's half-written file, and the last complete copy wins.
    """
    source = PLOTLY_JS.stat()
    if not VENDORED_PLOTLY.exists() or VENDORED_PLOTLY.stat().st_size != source.st_size:
        VENDORED_PLOTLY.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=VENDORED_PLOTLY.parent, suffix=".partial")
        try:
            with os.fdopen(handle, "wb") as copy, open(PLOTLY_JS, "rb") as original:
                shutil.copyfileobj(original, copy)
            os.replace(partial, VENDORED_PLOTLY)  # atomic: a browser never reads half a file
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(partial)
    return VENDORED_PLOTLY


def _register() -> Callable:
    """The component's mounting callable, registered with the running server's manager."""
    manager = internals.component_registry()
    if manager.get_component_asset_root(NAME) is None:
        vendor_plotly()
        manager.register_from_manifest(_manifest(), ROOT)
    if id(manager) not in _mounts:
        _mounts[id(manager)] = st.components.v2.component(NAME, js="live.js", css="live.css", isolate_styles=False)
    return _mounts[id(manager)]


def values_message(key: str) -> dict | None:
    """The values the panel last handed back (its ``values`` state), or None."""
    result = st.session_state.get(key)
    if result is None:
        return None
    message = result.get("values") if hasattr(result, "get") else None
    return message if isinstance(message, dict) else None


def live_panel(spec: dict, *, key: str, on_release: Callable[[], None]) -> None:
    """Mount the live panel with `spec` (:func:`relpos.topics.explorer.spec.release_spec`).

    `on_release` runs (as a widget callback, before the rerun) when the learner lets go
    of a slider or flips the toggle; read the values with :func:`values_message`.
    """
    mount = _register()
    mount(key=key, data=spec, default={"values": None}, on_values_change=on_release)
