"""Presenter mode, for a projector: its style, its toggle beside the page's title and the
"Copy link" button beside the toggle."""

from __future__ import annotations

from string import Template
from urllib.parse import quote

import streamlit as st

from relpos.server.internals import css_class
from relpos.state.keys import CLICKER, LESSON_NAV, START_CLASS
from relpos.ui import layout
from relpos.ui.fields import PageState

__all__ = [
    "ALWAYS_CSS",
    "COPY_LINK_HTML",
    "PRESENTER_CSS",
    "copy_link_button",
    "presenter_heading",
    "presenter_style",
    "presenter_toggle",
]


#: Always on pages that use :func:`presenter_style`: the walkthrough's invisible
#: Page Up / Page Down buttons (for a presentation clicker) take no room. (A formula wider
#: than its column is fitted or scrolls sideways: relpos/server/assets/page_helpers.js.)
ALWAYS_CSS = f"""
<style>
.{css_class(CLICKER)} {{ display: none; }}
</style>
"""


#: Presenter mode, for a projector (designed for 1280 × 720; tests/walkthrough/test_presenter.py
#: checks every stop): one stop fits one screen, read from the back row. Static CSS only
#: (no user text). Line by line:
#:
#: * the root font size: Streamlit sizes text and widgets in rem, so body text is 22 px;
#:   formulas 1.3 em of that (28.6 px); headings small, the room goes to the lesson;
#: * the header strip and the page's top padding shrink to what the sidebar arrow needs;
#: * Previous / Next (and the pickers) stick under the header while the lesson scrolls
#:   beneath them: always within reach, covering nothing before one scrolls. The sticky
#:   element is the bar's layout wrapper, whose parent spans the whole main area;
#: * on a phone-sized screen presenter mode steps aside: the phone layout (plain sizes,
#:   nothing sticky) is what a student who opened a presenter link needs (the server
#:   switches it off for a phone's link, :func:`relpos.ui.layout.phone_screen`; the CSS
#:   covers a phone it could not tell);
#: * ``--relpos-presenter`` tells the page helpers that presenter mode is on (they fold
#:   the sidebar and free the focus from the toggle), and the main area's focus frame, which
#:   a clicker's first key press would light up round the whole lesson, stays off;
#: * the "Copy link" button beside the Presenter toggle (:func:`copy_link_button`): an icon,
#:   whose message floats below it, so the page never moves;
#: * the walkthrough's "Start a class" beside the title, no taller than the title's row (the
#:   first screen has no room for a row of its own);
#: * colours in pairs, light-dark(), picked by the colour scheme Streamlit gives its app
#:   element (the themes' page, text and border colours of deploy/streamlit.toml):
#:   presenter mode follows the reader's theme like the rest of the app (a projector
#:   usually reads Light better; docs/pages.md says so).
PRESENTER_CSS = Template("""
<style>
@media (min-width: 700px) {
  html { font-size: 22px; --relpos-presenter: 1; }
  [data-testid="stMain"]:focus-visible::before { box-shadow: none !important; }
  .relpos-copy-link {
    position: relative; display: flex; align-items: center; justify-content: center;
    width: 2rem; height: 1.5rem; padding: 0; margin-left: 0.25rem; cursor: pointer;
    color: light-dark(#111318, #edebe8); background: light-dark(#ffffff, #171614);
    border: 1px solid light-dark(rgba(17, 19, 24, 0.2), rgba(237, 235, 232, 0.2)); border-radius: 0.5rem;
  }
  [data-testid="stHorizontalBlock"]:has(.relpos-copy-link) { flex-wrap: nowrap; }
  .relpos-copy-status:empty { display: none; }
  .relpos-copy-status {
    position: absolute; top: 100%; right: 0; margin-top: 0.2rem; padding: 0.1rem 0.4rem;
    font-size: 0.6rem; white-space: nowrap; border-radius: 0.3rem;
    background: light-dark(#111318, #edebe8); color: light-dark(#ffffff, #171614);
  }
  .relpos-copy-link:hover { border-color: light-dark(#c42b36, #ff6b73); color: light-dark(#c42b36, #ff6b73); }
  .relpos-copy-link:focus-visible { outline: 3px solid light-dark(#1c4f9c, #85b8f8); outline-offset: 2px; }
  [data-testid="stHeader"] { height: 2.6rem; min-height: 2.6rem; }
  [data-testid="stMainBlockContainer"] { padding: 2.4rem 2.2rem 7rem; max-width: none; }
  [data-testid="stMainBlockContainer"] h1 { font-size: 1.3rem; padding: 0.2rem 0 0; }
  [data-testid="stMainBlockContainer"] h2 { font-size: 1.3rem; padding: 0.1rem 0 0.2rem; }
  [data-testid="stMainBlockContainer"] h3 { font-size: 1.2rem; }
  [data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] :is(p, li) { font-size: 1rem; }
  [data-testid="stMainBlockContainer"] .katex { font-size: 1.3em; }
  [data-testid="stMainBlockContainer"] .katex-display { margin: 0.4em 0; }
  [data-testid="stLayoutWrapper"]:has(> $nav) {
    position: sticky; top: 2.6rem; z-index: 999; width: 100%;
    padding: 0.2rem 0; background: light-dark(#ffffff, #171614);
    border-bottom: 1px solid light-dark(rgba(17, 19, 24, 0.12), rgba(237, 235, 232, 0.12));
  }
  $nav { flex-wrap: wrap; row-gap: 0.3rem; }
  $nav button { padding-left: 0.55rem; padding-right: 0.55rem; min-height: 2.1rem; }
  $nav [data-testid="stMarkdownContainer"] p { white-space: nowrap; }
  $start button { min-height: 1.5rem; height: 1.5rem; padding-top: 0; padding-bottom: 0; }
}
</style>
""").substitute(nav="." + css_class(LESSON_NAV), start="." + css_class(START_CLASS))


#: Presenter mode's "Copy link" button: static HTML, no user text; the page helpers
#: (relpos/server/assets/page_helpers.js) copy the address bar when it is clicked, in the
#: browser (no rerun), and say so in its label.
#: A chain-link icon (Material's "link"): st.html keeps no inline SVG, so the SVG is a mask
#: over a box painted in the button's text colour, which follows the theme.
_LINK_ICON = "data:image/svg+xml," + quote(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M3.9 12a3.1 3.1 0 0 1 '
    "3.1-3.1h4V7H7a5 5 0 0 0 0 10h4v-1.9H7A3.1 3.1 0 0 1 3.9 12zM8 13h8v-2H8v2zm9-6h-4v1.9h4a3.1 3.1 0 0 1 0 "
    '6.2h-4V17h4a5 5 0 0 0 0-10z"/></svg>'
)

_ICON_STYLE = (
    "display: inline-block; width: 20px; height: 20px; background: currentColor; "
    f"mask: url({_LINK_ICON}) center / contain no-repeat"
)
COPY_LINK_HTML = (
    '<button type="button" class="relpos-copy-link" data-relpos-copy-link="1" aria-label="Copy link" '
    'title="Copy the lesson link of this view (the address bar holds the same link)">'
    f'<span aria-hidden="true" style="{_ICON_STYLE}"></span>'
    '<span class="relpos-copy-status" data-relpos-copy-label="1" aria-live="polite"></span></button>'
)


def copy_link_button() -> None:
    """A small button that copies this view's lesson link (the address bar) to the clipboard."""
    st.html(COPY_LINK_HTML, width="content")


#: Every Presenter mode toggle's help ends so: presenter mode does not change the theme.
_PRESENTER_THEME_HELP = (
    " Presenter mode keeps your theme: a projector shows the Light one best (app menu ⋮, top right)."
)


def presenter_toggle(key: str, *, help: str, on_change=None, args: tuple = ()) -> None:
    """A page's Presenter mode toggle (widget `key`, its `help` followed by a word on the theme);
    in presenter mode a "Copy link" button beside it (the sidebar with the lesson link stays folded)."""
    with st.container(horizontal=True, vertical_alignment="center", gap=None):
        st.toggle(
            "Presenter mode",
            key=key,
            persist_state="session",
            width="content",
            help=help + _PRESENTER_THEME_HELP,
            on_change=on_change,
            args=args,
        )
        if st.session_state.get(key):
            copy_link_button()


def presenter_heading(page: PageState, title: str, *, help: str) -> dict:
    """A page's state (with a ``presenter`` field), its title and its Presenter mode toggle
    beside it (bound to that field), presenter mode's style applied; returns the state.

    A presenter link opened on a phone gets the phone's layout (presenter mode is for a projector).
    """
    opening = not page.opened()
    state = page.state()
    if opening and state["presenter"] and layout.phone_screen():  # a projector's layout is no phone's
        page.replace(dict(state, presenter=False), forget=())
        state = page.state()
    presenter_style(state["presenter"])
    heading, toggle = st.columns([3, 1], vertical_alignment="center")
    heading.title(title)
    with toggle:
        presenter_toggle(help=help, **page.bind("presenter"))
    return state


def presenter_style(enabled: bool) -> None:
    """Apply presenter mode's CSS (see :data:`PRESENTER_CSS`) and fold the sidebar away.

    The sidebar is only collapsed, not hidden: its arrow brings it back for a live edit.
    :data:`ALWAYS_CSS` applies in both modes.
    """
    st.html(ALWAYS_CSS + PRESENTER_CSS if enabled else ALWAYS_CSS)
    st.set_page_config(initial_sidebar_state="collapsed" if enabled else "auto")
