"""The reader's theme: a run's figures follow it, a change of theme reruns the page, and
the colours Streamlit's themes get wrong for this app are set right in both.

The server harness draws each run's figures in the theme the browser names with the run
(:func:`relpos.server.draw_in_readers_theme`). Switching themes in the app menu (System,
Light, Dark), or the system's own switch under System, restyles the page without a run;
:func:`follow_theme` mounts a component without a face (``st.components.v2``, its
JavaScript in ``relpos/ui/theme_assets``) that sees the switch and reruns the page, so
the figures take the new theme's colours too. One run per switch, none otherwise.
The style sheet :data:`THEME_CSS` is in every page's HTML head (app.py gives it to the
server harness, :func:`relpos.server.asgi.app_options`), so it holds from the first paint;
every run sends it too, for a server without the harness (``AppTest``, a bare script).
"""

from __future__ import annotations

import streamlit as st

from relpos.server.internals import css_class, selectors
from relpos.state.keys import widget_key
from relpos.ui import components

__all__ = ["KEY", "NAME", "THEME_CSS", "follow_theme"]

#: Streamlit's name for the component: ``<project>.<component>`` from pyproject.toml.
NAME = components.name("theme")
#: The element's key (one per page), and its box's: the box (with the style sheet) takes no room.
KEY = widget_key("app", "theme")
BOX = widget_key("app", "theme-box")


#: Text colours in pairs, light-dark(): the browser picks by the colour scheme Streamlit gives
#: its app element; each pair holds the light and the dark theme's colours of
#: deploy/streamlit.toml (Streamlit's own --st-* variables exist only inside components).
#: A style sheet only (it takes no room): in the page's head from the first paint, and sent
#: with every run as well. Line by line:
#:
#: * labels of disabled controls in the theme's text colour at 62 % (5:1 on white, 6.4:1 on
#:   the dark page), not Streamlit's fainter 2.6:1 (axe colour-contrast);
#: * primary buttons print their label in the page's colour: white on the light theme's dark
#:   red, the dark page's near-black on the dark theme's light red (6.5:1). Streamlit prints
#:   white, which no red reaches 4.5:1 with while also reading as text on the dark page
#:   (selected pills, slider values);
#: * the box of this style sheet and the theme component takes no room in the sidebar.
THEME_CSS = f"""<style>
[data-testid="stLayoutWrapper"]:has(> .{css_class(BOX)}) {{ display: none; }}
label[data-testid="stWidgetLabel"][disabled] {{ color: light-dark(rgba(17, 19, 24, 0.62), rgba(237, 235, 232, 0.62)); }}
:is([data-testid="stBaseButton-primary"], [data-testid="stBaseButton-primaryFormSubmit"]):not(:disabled) {{
  color: light-dark(#ffffff, #171614);
}}
</style>"""
#: Streamlit's elements theme.js finds (relpos.server.internals).
SELECTORS = selectors({"app": "stApp"})


def _ignore() -> None:
    """The change itself is the message: the rerun it starts reads the theme afresh."""


def follow_theme() -> None:
    """Rerun the page when the theme shown is not the one this run drew for (see the module).

    Nothing is mounted without a browser (``st.context.theme.type`` is None, as in AppTest).
    """
    theme = st.context.theme.type
    if theme is None:
        return
    mount = components.mount("theme")
    with st.sidebar.container(key=BOX):
        st.html(THEME_CSS)
        mount(key=KEY, data={"theme": theme, "dom": SELECTORS}, default={"theme": theme}, on_theme_change=_ignore)
