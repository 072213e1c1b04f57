"""The Explorer panel: a Streamlit custom component (``st.components.v2``), registered with the
others in :mod:`relpos.ui.components`.

Its JavaScript and CSS live in ``relpos/ui/explorer_panel_assets`` (declared as the component's
``asset_dir`` in ``pyproject.toml``) and are served by Streamlit at
``/_stcore/bidi-components/relpos.explorer_panel/…``.

The panel draws with the plotly.js of Streamlit's own frontend (the chunk that
``st.plotly_chart`` loads, :func:`relpos.ui.components.plotly_chunk`), not a copy of
its own: every other page draws its charts with ``st.plotly_chart``, so one copy serves
every chart of a tab, loaded once and cached as an immutable file, and no page has to
change how it draws. The two copies weigh about the same (1.06 and 1.11 MB in brotli), so
sharing Streamlit's costs the Explorer nothing and saves the second copy everywhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

from relpos.server import internals
from relpos.ui import components

__all__ = ["ASSETS", "NAME", "explorer_panel", "values_message"]

ASSETS = Path(__file__).resolve().with_name("explorer_panel_assets")
#: Streamlit's name for the component: ``<project>.<component>`` from pyproject.toml.
NAME = components.name("explorer_panel")
#: Streamlit's elements explorer_panel.js finds (relpos.server.internals).
SELECTORS = internals.selectors({"app": "stApp"})


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
    mount = components.mount("explorer_panel")
    data = {**spec, "plotly": components.plotly_chunk(), "dom": SELECTORS}
    mount(key=key, data=data, default={"values": None}, on_values_change=on_release)
