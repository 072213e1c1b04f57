"""The reader's theme: a run's figures follow it, and a change of theme reruns the page.

The server harness draws each run's figures in the theme the browser names with the run
(:func:`relpos.server.draw_in_readers_theme`). Switching themes in the app menu (System,
Light, Dark), or the system's own switch under System, restyles the page without a run;
:func:`follow_theme` mounts a component without a face (``st.components.v2``, its
JavaScript in ``relpos/ui/theme_assets``) that sees the switch and reruns the page, so
the figures take the new theme's colours too. One run per switch, none otherwise.
"""

from __future__ import annotations

import streamlit as st

from relpos.state.keys import widget_key
from relpos.ui import live

__all__ = ["KEY", "NAME", "follow_theme"]

#: Streamlit's name for the component: ``<project>.<component>`` from pyproject.toml.
NAME = "relpos.theme"
#: The element's key (one per page).
KEY = widget_key("app", "theme")


def _ignore() -> None:
    """The change itself is the message: the rerun it starts reads the theme afresh."""


def follow_theme() -> None:
    """Rerun the page when the theme shown is not the one this run drew for (see the module).

    Nothing is mounted without a browser (``st.context.theme.type`` is None, as in AppTest).
    """
    theme = st.context.theme.type
    if theme is None:
        return
    mount = live.project_component(NAME, js="theme.js", isolate_styles=False)
    with st.sidebar:
        mount(key=KEY, data={"theme": theme}, default={"theme": theme}, on_theme_change=_ignore)
