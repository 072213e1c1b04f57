"""Streamlit helpers shared by every page: Markdown content, tables, charts, presenter
style, page state in the URL, downloads and scenario uploads.

Each page's own widgets live in a module of their own beside this one (efficiency,
quiz, schemes, value_side, training, walkthrough). :class:`PageFields` draws a page's
widgets from the fields of its schema, so a bound or a label is written once.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from urllib.parse import quote, urlencode, urlsplit

import numpy as np
import pandas as pd
import streamlit as st

from relpos.plots.template import use_lean_default
from relpos.server import set_widget
from relpos.state.codec import Schema, StateError
from relpos.state.export import load_scenario, scenario_json
from relpos.state.keys import css_class, state_key, widget_key
from relpos.tables import frames as tables
from relpos.text import numbers as num
from relpos.text.escape import escape_markdown
from relpos.text.prose import read_content

# Importing Streamlit made its template Plotly's default; the app's figures start from the
# lean copy of it instead (relpos.plots.template).
use_lean_default()


def markdown(name: str) -> None:
    """Show ``content/<name>.md`` (our own prose; never user text)."""
    st.markdown(read_content(name))


def bullets(sentences) -> None:
    """Show sentences computed from the numbers as a Markdown list (nothing when there are none)."""
    if sentences:
        st.markdown("\n".join(f"- {sentence}" for sentence in sentences))


def caption(name: str) -> None:
    """Show ``content/<name>.md`` in small print (help next to controls)."""
    st.caption(read_content(name))


def _number_cells(decimals: int):
    """A Styler formatter: floats by the one number formatter, anything else as it is."""
    return lambda value: num.number(value, decimals) if isinstance(value, (float, np.floating)) else str(value)


#: Names for an unnamed index, by how its labels begin: a screen reader announces the
#: index column's header, and an empty one is an accessibility violation (axe: empty-table-header).
_INDEX_NAMES = (
    ("i = ", "query"),
    ("offset", "offset"),
    ("key j", "key"),
    ("q_i", "vector"),
    ("aᴷ", "table"),
    ("aⱽ", "table"),
)


def named_index(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with its index named (for its header cell) when it has no name yet.

    >>> named_index(pd.DataFrame({"j = 1": [1.0]}, index=["i = 1"])).index.name
    'query'
    """
    if frame.index.name is not None or isinstance(frame.index, pd.MultiIndex):
        return frame
    first = str(frame.index[0]) if len(frame.index) else ""
    name = next((name for prefix, name in _INDEX_NAMES if first.startswith(prefix)), "row")
    return frame.rename_axis(name)


def matrix_table(frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None) -> None:
    """Show a labelled matrix with a fixed number of decimals and true minus signs."""
    frame = named_index(frame)
    st.dataframe(frame.style.format(_number_cells(decimals)), width="content")
    if caption:
        st.caption(caption)


# ---------------------------------------------------------------- shared chart helper


def page_links(pages, *, columns: int = 2) -> None:
    """A card per page (link plus its one-line summary), `columns` to a row."""
    for first in range(0, len(pages), columns):
        for column, spec in zip(st.columns(columns), pages[first : first + columns], strict=False):
            with column.container(border=True):
                st.page_link(spec.path, label=spec.title, icon=spec.icon)
                st.caption(spec.summary)


# Buttons taken off Plotly's tool bar, which keeps its PNG download and Streamlit's full-screen
# button: dragging never zooms, so zoom, pan and hover-mode buttons would only switch it back on.
_TOOLS_REMOVED = [
    *("zoom2d", "pan2d", "select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "resetScale2d"),
    *("toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian"),
]
#: Plotly options of every chart: no zoom or pan by drag or wheel, so a swipe or a wheel
#: turn that starts on a chart scrolls the page (a phone's swipe would otherwise be
#: trapped); a tap or hover still shows a cell's text. A phone shows no tool bar (`chart`):
#: it came up at every tap that reads a cell, over a title as wide as the screen.
CHART_CONFIG = {
    "displaylogo": False,
    "scrollZoom": False,
    "doubleClick": False,
    "responsive": True,
    "modeBarButtonsToRemove": _TOOLS_REMOVED,
}


def chart_name(fig) -> str:
    """A chart's accessible name: its title without HTML tags (``e<sub>ij</sub>`` reads "e ij")."""
    title = fig.layout.title.text or ""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", title)).strip() or "Chart"


def chart(fig, *, key: str | None = None, alt: str | None = None, width="stretch", toolbar: bool = True) -> None:
    """Show a Plotly figure (Plotly's JS ships with Streamlit: no CDN), named for screen readers.

    Dragging never zooms (``dragmode`` off), so touch scrolling passes through the chart;
    Plotly's tool bar offers the PNG download and the full-screen view, and not on a phone.
    """
    # the tool bar stands on end in the top right corner, beside a centred title, not over it
    fig.update_layout(dragmode=False, modebar_orientation="v")
    config = CHART_CONFIG if toolbar and not phone_screen() else {**CHART_CONFIG, "displayModeBar": False}
    st.plotly_chart(fig, width=width, config=config, key=key, alt=alt or chart_name(fig))


def plotly(fig, *, key: str | None = None) -> None:
    """Show a Plotly figure at the container's width, named by its title."""
    chart(fig, key=key)


def labelled_table(
    frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None, stretch: bool = False
) -> None:
    """Show a table mixing text and number columns; numbers get `decimals` places, gaps show a dash."""
    frame = named_index(frame)
    styled = frame.style.format(_number_cells(decimals), na_rep="—")
    st.dataframe(styled, width="stretch" if stretch else "content")
    if caption:
        st.caption(caption)


def chart_row(figures, *, key_prefix: str) -> None:
    """Figures side by side, one column each."""
    for index, (column, fig) in enumerate(zip(st.columns(len(figures)), figures, strict=True)):
        with column:
            chart(fig, key=f"{key_prefix}.{index}")


def callout(name: str) -> None:
    """Show ``content/<name>.md`` in an info box (a convention the reader must not miss)."""
    st.info(read_content(name))


#: Always on pages that use :func:`presenter_style`: a formula wider than its column
#: scrolls sideways instead of being cut off, and the walkthrough's invisible
#: Page Up / Page Down buttons (for a presentation clicker) take no room.
ALWAYS_CSS = """
<style>
[data-testid="stMainBlockContainer"] .stLatex { overflow-x: auto; overflow-y: hidden; }
.st-key-clicker { display: none; }
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
#:   switches it off for a phone's link, :func:`phone_screen`; the CSS covers a phone it
#:   could not tell);
#: * ``--relpos-presenter`` tells the classroom helpers that presenter mode is on (they fold
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
PRESENTER_CSS = """
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
  [data-testid="stLayoutWrapper"]:has(> .st-key-lesson-nav) {
    position: sticky; top: 2.6rem; z-index: 999; width: 100%;
    padding: 0.2rem 0; background: light-dark(#ffffff, #171614);
    border-bottom: 1px solid light-dark(rgba(17, 19, 24, 0.12), rgba(237, 235, 232, 0.12));
  }
  .st-key-lesson-nav { flex-wrap: wrap; row-gap: 0.3rem; }
  .st-key-lesson-nav button { padding-left: 0.55rem; padding-right: 0.55rem; min-height: 2.1rem; }
  .st-key-lesson-nav [data-testid="stMarkdownContainer"] p { white-space: nowrap; }
  .st-key-worked_example-start_class button { min-height: 1.5rem; height: 1.5rem; padding-top: 0; padding-bottom: 0; }
}
</style>
"""


#: Narrower than this (CSS px) is a phone: presenter mode's CSS steps aside below it too.
PHONE_WIDTH = 700
#: The cookie in which the classroom helpers (relpos/server/assets/classroom.js) keep the
#: window's width, so a later run knows the screen before anything is drawn.
WIDTH_COOKIE = "relpos-width"


def phone_screen() -> bool:
    """Whether this browser is a phone, decided on the server before anything is drawn.

    The window width the classroom helpers keep in a cookie decides; before they have
    run in this browser (its first visit), the phone's own word does: the client hint
    ``Sec-CH-UA-Mobile: ?1`` or "Mobi" in the user agent (as every phone browser sends).
    """
    width = str(st.context.cookies.get(WIDTH_COOKIE, ""))
    if width.isdigit():
        return int(width) < PHONE_WIDTH
    headers = st.context.headers
    return headers.get("Sec-CH-UA-Mobile", "") == "?1" or "Mobi" in headers.get("User-Agent", "")


#: Presenter mode's "Copy link" button: static HTML, no user text; the classroom helpers
#: (relpos/server/assets/classroom.js) copy the address bar when it is clicked, in the
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


def land_on(key: str) -> None:
    """Have this page open scrolled to the container keyed `key` (``st.container(key=…)``).

    A mark for the classroom helpers (relpos/server/assets/classroom.js, landOnStop), drawn
    in the sidebar, where it takes no room: they keep that container at the top of the
    screen while the page settles, until the reader scrolls, taps or types. Draw it in one
    run only.
    """
    if not re.fullmatch(r"[a-z][a-z0-9-]*", key):
        raise ValueError(f"key must be a CSS-safe container key (a-z, 0-9, -); got {key!r}")
    with st.sidebar:
        st.html(f'<span data-relpos-land="{css_class(key)}" hidden></span>', width="content")


#: Every Presenter mode toggle's help ends so: presenter mode does not change the theme.
_PRESENTER_THEME_HELP = (
    " Presenter mode keeps your theme: a projector shows the Light one best (app menu ⋮, top right)."
)


def presenter_toggle(key: str, *, help: str, on_change=None) -> None:
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
        )
        if st.session_state.get(key):
            copy_link_button()


def _store_presenter(name: str, key: str) -> None:
    st.session_state[name] = dict(st.session_state[name], presenter=bool(st.session_state[key]))


def presenter_heading(name: str, schema: Schema, title: str, *, toggle_key: str, help: str) -> dict:
    """A page's state (``page_state(name, schema)``, with a ``presenter`` field), its title and its
    Presenter mode toggle beside it, presenter mode's style applied; returns the state.

    A presenter link opened on a phone gets the phone's layout (presenter mode is for a projector).
    """
    opening = name not in st.session_state
    state = page_state(name, schema)
    if opening and state["presenter"] and phone_screen():  # a projector's layout is no phone's
        state = st.session_state[name] = dict(state, presenter=False)
    presenter_style(state["presenter"])
    heading, toggle = st.columns([3, 1], vertical_alignment="center")
    heading.title(title)
    with toggle:
        seed_widget(toggle_key, state["presenter"])
        presenter_toggle(toggle_key, help=help, on_change=functools.partial(_store_presenter, name, toggle_key))
    return state


def presenter_style(enabled: bool) -> None:
    """Apply presenter mode's CSS (see :data:`PRESENTER_CSS`) and fold the sidebar away.

    The sidebar is only collapsed, not hidden: its arrow brings it back for a live edit.
    :data:`ALWAYS_CSS` applies in both modes.
    """
    st.html(ALWAYS_CSS + PRESENTER_CSS if enabled else ALWAYS_CSS)
    st.set_page_config(initial_sidebar_state="collapsed" if enabled else "auto")


def download_csv(frame: pd.DataFrame, filename: str, *, label: str, key: str) -> None:
    """A download button for `frame` as UTF-8 CSV with a byte-order mark (no index; full precision)."""
    st.download_button(
        label,
        data=frame.to_csv(index=False).encode("utf-8-sig"),  # the BOM tells spreadsheet programs it is UTF-8
        file_name=filename,
        mime="text/csv",
        key=key,
        icon=":material/download:",
    )


# --- Lesson links: a page's whole state in the URL ------------------------------------
# A page keeps its state as one dict in st.session_state[name]. On the page's first run
# in a browser session the dict is decoded from st.query_params (bad values reported
# and replaced by defaults); afterwards widgets change the dict and write_url() mirrors
# it into the address bar, so the URL is always a link to exactly this view.


def page_state(name: str, schema: Schema, *, foreign: tuple[str, ...] = ()) -> dict:
    """The page's state dict, decoded from the URL on the page's first run in this session.

    Problems found in the URL are kept for :func:`show_url_problems`; the parameters named
    in `foreign` belong to someone else (a live class's ``class``) and are no problem.
    """
    if name not in st.session_state:
        params = {key: value for key, value in st.query_params.to_dict().items() if key not in foreign}
        decoded = schema.decode(params)
        st.session_state[name] = decoded.state
        st.session_state[state_key(name, "problems")] = decoded.problems
    return st.session_state[name]


def show_url_problems(name: str) -> None:
    """Warn (once) about the parameters of the opening link that could not be used."""
    problems = st.session_state.pop(state_key(name, "problems"), ())
    if problems:
        st.warning(url_problems_text(problems), icon=":material/warning:")


def url_problems_text(problems) -> str:
    """The warning about a link's unusable parts: each line says what the page used instead (a
    default, or a value clamped into range such as k = 7 for k = 9 at n = 8), so the header claims
    neither.

    >>> url_problems_text(["Using 7"]).splitlines()
    ['Parts of this link could not be used as given; each line says what the page used instead:', '', '- Using 7']
    """
    lines = "\n".join(f"- {escape_markdown(problem)}" for problem in problems)
    return f"Parts of this link could not be used as given; each line says what the page used instead:\n\n{lines}"


def set_page_state(name: str, state: dict, *, widget_prefix: str) -> None:
    """Replace the page's state and forget its widgets' values so they re-seed from it.

    Call from widget callbacks (before widgets are drawn).
    """
    st.session_state[name] = state
    for key in [key for key in st.session_state if isinstance(key, str) and key.startswith(widget_prefix)]:
        del st.session_state[key]


def seed_widget(key: str, value) -> None:
    """Give a keyed widget its value from the page state unless it already has one.

    Through :func:`set_widget` (:mod:`relpos.server.seeds`): a click that races this run
    would otherwise leave the browser showing the widget's default while the server holds
    the value.
    """
    if key not in st.session_state:
        set_widget(key, value)


def write_url(schema: Schema, state: dict, *, keep: tuple[str, ...] = ()) -> None:
    """Mirror the state into st.query_params (only when it changed); the parameters named in
    `keep` (such as a live class's ``class``) stay as they are."""
    current = st.query_params.to_dict()
    params = {**{name: current[name] for name in keep if name in current}, **schema.encode(state)}
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


@dataclass(frozen=True)
class PageFields:
    """A page's widgets, each drawn from a field of the page's schema.

    The field gives the widget its label, bounds (narrowed by the schema's ``limits``,
    such as k ≤ n − 1), step or options; the page adds only help text and layout. The
    state dict is :func:`page_state` (read from the URL once), every widget is seeded
    from it and writes back into it when moved, and :meth:`write_url` mirrors it: the
    same sync as every other page with a lesson link. Widget keys are
    ``widget_key(page, name[, index])``.

    Why not Streamlit's ``bind="query-params"``: a bound widget names its URL parameter
    after its key (``?schemes.shift=3`` instead of the lesson links' ``?shift=3``), and it
    drops an invalid value from the URL without a word, where a bad link must get a
    message saying which parameter was wrong and what is allowed (and a list such as
    ``v=0.1,0.2`` is one parameter for many sliders).
    """

    page: str
    schema: Schema

    def state(self) -> dict:
        """The page's state, decoded from the URL on the page's first run in this session."""
        return page_state(self.page, self.schema)

    def key(self, name: str, index: int | None = None) -> str:
        """Widget key of a field (one per entry of a list field)."""
        return widget_key(self.page, name) if index is None else widget_key(self.page, name, index)

    def _keys(self, name: str) -> list[str]:
        """Every widget key of a field: one, or one per entry of a list field."""
        if self.schema.fields[name].kind == "floats":
            return [self.key(name, index) for index in range(len(self.state()[name]))]
        return [self.key(name)]

    def _changed(self, name: str, index: int | None) -> None:
        """A widget moved: store its value, and bring fields whose bounds it moved back inside."""
        state = dict(self.state())
        value = st.session_state[self.key(name, index)]
        if index is None:
            state[name] = value
        else:
            state[name] = [*state[name][:index], float(value), *state[name][index + 1 :]]
        for other, (low, high) in self.schema.limits(state).items():
            if not low <= state[other] <= high:
                state[other] = min(max(state[other], low), high)
                st.session_state.pop(self.key(other), None)  # re-seeded from the state
        st.session_state[self.page] = state

    def _options(self, name: str, index: int | None = None) -> dict:
        """A widget's key and callback, its value seeded from the state."""
        value = self.state()[name]
        seed_widget(self.key(name, index), value if index is None else float(value[index]))
        return {"key": self.key(name, index), "on_change": self._changed, "args": (name, index)}

    def slider(self, name: str, *, help: str | None = None) -> int | float:
        """A slider over the field's bounds in the current state."""
        spec = self.schema.fields[name]
        low, high = self.schema.bounds(name, self.state())
        return st.slider(spec.label, low, high, step=spec.step, help=help, **self._options(name))

    def select_slider(self, name: str, *, help: str | None = None) -> str:
        """A slider over the field's choices."""
        spec = self.schema.fields[name]
        return st.select_slider(spec.label, list(spec.choices), help=help, **self._options(name))

    def number_input(self, name: str, *, help: str | None = None) -> int:
        """A number field over the field's bounds."""
        spec = self.schema.fields[name]
        low, high = self.schema.bounds(name, self.state())
        return st.number_input(spec.label, low, high, step=spec.step, help=help, **self._options(name))

    def radio(self, name: str, *, format_func=str, horizontal: bool = True):
        """Radio buttons over the field's choices, or over every integer within its bounds."""
        spec = self.schema.fields[name]
        if spec.kind == "choice":
            options = list(spec.choices)
        else:
            low, high = self.schema.bounds(name, self.state())
            options = list(range(int(low), int(high) + 1))
        return st.radio(spec.label, options, format_func=format_func, horizontal=horizontal, **self._options(name))

    def sliders(self, name: str, labels, *, disabled=None) -> None:
        """One slider per entry of a list field, side by side, each over the field's bounds."""
        spec = self.schema.fields[name]
        for index, (column, label) in enumerate(zip(st.columns(len(labels)), labels, strict=True)):
            with column:
                st.slider(
                    label,
                    float(spec.low),
                    float(spec.high),
                    step=spec.step,
                    disabled=bool(disabled[index]) if disabled is not None else False,
                    **self._options(name, index),
                )

    def reset(self) -> None:
        """Every field back to its default (a button's on_click)."""
        st.session_state[self.page] = self.schema.reconcile(self.schema.defaults())[0]
        for name in self.schema.fields:
            for key in self._keys(name):
                st.session_state.pop(key, None)

    def show_problems(self) -> None:
        """Warn (once) about the parameters of the opening link that could not be used."""
        self.state()
        show_url_problems(self.page)

    def write_url(self) -> dict:
        """Mirror the state into the URL; returns the state."""
        state = self.state()
        write_url(self.schema, state)
        return state


def _app_base_url(url_path: str) -> str:
    """The app's address without the page (``http://host:8501``), or "" when unknown."""
    parts = urlsplit(st.context.url or "")
    if parts.scheme not in ("http", "https"):
        return ""
    path = parts.path.rstrip("/")
    if path == f"/{url_path}" or path.endswith(f"/{url_path}"):
        path = path[: -len(url_path) - 1]
    return f"{parts.scheme}://{parts.netloc}{path}"


def app_url(url_path: str, params: dict[str, str], *, here: str | None = None) -> str:
    """The address of page `url_path` with the URL parameters `params`, on this app's host
    (just ``/url_path?…`` when the address is unknown); `here` is the url_path of the page running
    (`url_path` itself by default)."""
    return f"{_app_base_url(here or url_path)}/{url_path}?{urlencode(params, safe=',')}"


def lesson_link(schema: Schema, state: dict, url_path: str) -> None:
    """Show the link that reopens exactly this view, ready to copy."""
    st.code(app_url(url_path, schema.encode(state)), language=None, wrap_lines=True)
    st.caption("The address bar holds the same link: paste it into a slide or a message to open this exact view.")


# --- Panels ---------------------------------------------------------------------------
def heatmap_panel(fig, caption: str, *, key: str, alt: str) -> None:
    """One heatmap with its "what to notice" caption; `alt` names it for screen readers."""
    chart(fig, key=key, alt=alt, toolbar=False)
    st.caption(caption)


def matrix_tables(matrices: dict[str, object], *, key: str, limit: int = 16, decimals: int = 4) -> None:
    """Every panel's numbers as real HTML tables, in an expander that renders only when open.

    Larger matrices show their top-left ``limit × limit`` corner (the CSV downloads
    hold everything).
    """
    expander = st.expander("Numbers as tables (screen-reader friendly)", key=key, on_change="rerun")
    if not expander.open:
        return
    with expander:
        for title, matrix in matrices.items():
            array = np.asarray(matrix)
            corner = array[:limit, :limit]
            note = (
                ""
                if corner.shape == array.shape
                else f" (top-left {limit} × {limit} of {array.shape[0]} × {array.shape[1]})"
            )
            st.markdown(f"**{title}**{note}")
            frame = named_index(tables.matrix_frame(corner))
            st.table(frame.style.format(_number_cells(decimals)))


def chart_tables(
    frames: dict[str, pd.DataFrame],
    *,
    key: str,
    label: str = "Charts as tables (screen-reader friendly)",
    decimals: int | None = None,
) -> None:
    """Charts' cells as real HTML tables (each chart's screen-reader alternative), in an
    expander that renders only when open; `frames` maps a chart's title to its table.
    With `decimals`, numbers are printed by the one formatter (true minus signs)."""
    expander = st.expander(label, key=key, on_change="rerun")
    if not expander.open:
        return
    with expander:
        for title, frame in frames.items():
            st.markdown(f"**{escape_markdown(title)}**")
            frame = named_index(frame)
            st.table(frame if decimals is None else frame.style.format(_number_cells(decimals)))


# --- Export and import ------------------------------------------------------------------
@dataclass(frozen=True)
class Download:
    """One download button: label, file name, content (or a function making it), MIME type."""

    label: str
    file_name: str
    data: object
    mime: str = "text/csv"


def matrix_download(matrices: dict[str, object], *, file_prefix: str, key: str) -> None:
    """Pick a matrix, download it as CSV (made only when clicked)."""
    choice_column, button_column = st.columns([2, 1], vertical_alignment="bottom")
    with choice_column:
        name = st.selectbox("Matrix to download", list(matrices), key=key, format_func=lambda m: m.replace("_", " "))
    with button_column:
        st.download_button(
            f"{name.replace('_', ' ')}.csv",
            lambda matrix=matrices[name]: tables.matrix_csv(matrix),
            file_name=f"{file_prefix}_{name}.csv",
            mime="text/csv",
            on_click="ignore",
            key=f"{key}.button",
            icon=":material/download:",
            width="stretch",
        )


def download_buttons(files: list[Download], *, columns: int = 4, key: str) -> None:
    """A grid of download buttons that do not rerun the page when clicked."""
    grid = st.columns(columns)
    for number, file in enumerate(files):
        with grid[number % columns]:
            st.download_button(
                file.label,
                file.data,
                file_name=file.file_name,
                mime=file.mime,
                on_click="ignore",
                key=f"{key}.{number}",
                icon=":material/download:",
                width="stretch",
            )


def export_section(
    *,
    schema: Schema,
    state: dict,
    url_path: str,
    matrices: dict[str, object],
    result,
    computed: dict[str, object],
    snippet: str,
    key: str,
) -> None:
    """Lesson link, CSV/JSON downloads and the NumPy snippet, built only while the expander is open.

    ``result`` is an AttentionResult (for the one-row-per-pair CSV); ``computed`` holds
    the arrays written into the scenario file for the reader.
    """
    section = st.expander(
        "Lesson link, downloads and NumPy code", key=key, on_change="rerun", icon=":material/ios_share:"
    )
    if not section.open:
        return
    prefix = url_path.replace("-", "_")
    scenario = dict(state)  # the page's state dict changes in place on later reruns
    with section:
        lesson_link(schema, state, url_path)
        matrix_column, file_column = st.columns([1, 1], vertical_alignment="bottom")
        with matrix_column:
            matrix_download(matrices, file_prefix=prefix, key=f"{key}.matrix")
        with file_column:
            files = [
                Download(
                    "all pairs (long).csv",
                    f"{prefix}_pairs.csv",
                    lambda: tables.pairs_frame(result).to_csv(index=False),
                ),
                Download(
                    "scenario.json",
                    f"{prefix}_scenario.json",
                    lambda: scenario_json(url_path, schema, scenario, computed),
                    "application/json",
                ),
            ]
            download_buttons(files, key=f"{key}.download", columns=2)
        st.code(snippet, language="python")


def _load_upload(key: str, page: str, schema: Schema, on_loaded) -> None:
    uploaded = st.session_state.get(key)
    if uploaded is None:
        st.session_state.pop(f"{key}:message", None)
        return
    try:
        state = load_scenario(uploaded.getvalue(), page, schema)
    except StateError as error:
        st.session_state[f"{key}:message"] = ("error", error.problems)
        return
    on_loaded(state)
    st.session_state[f"{key}:message"] = ("success", ())


def scenario_upload(page: str, schema: Schema, *, key: str, on_loaded, lazy_key: str | None = None) -> None:
    """Upload a scenario JSON file; valid files call ``on_loaded(state)``, others are explained.

    With `lazy_key` the uploader sits in an expander that is built only while open
    (and stays open while a message about the last file is shown).
    """
    if lazy_key is not None:
        message = st.session_state.get(f"{key}:message")
        if message is not None and not st.session_state.get(lazy_key):
            st.session_state[lazy_key] = True  # keep the result of a load in view
        section = st.expander("Load a scenario file", key=lazy_key, on_change="rerun", icon=":material/upload_file:")
        if not section.open:
            return
        with section:
            _scenario_uploader(page, schema, key=key, on_loaded=on_loaded)
        return
    _scenario_uploader(page, schema, key=key, on_loaded=on_loaded)


def _scenario_uploader(page: str, schema: Schema, *, key: str, on_loaded) -> None:
    st.file_uploader(
        "Load a scenario file",
        type=["json"],
        key=key,
        on_change=_load_upload,
        args=(key, page, schema, on_loaded),
        help="A .json scenario file downloaded from this page.",
    )
    kind, problems = st.session_state.get(f"{key}:message", (None, ()))
    if kind == "error":
        lines = "\n".join(f"- {escape_markdown(problem)}" for problem in problems)
        st.error(f"This file could not be loaded; nothing was changed:\n\n{lines}", icon=":material/block:")
    elif kind == "success":
        st.success("Scenario loaded.", icon=":material/check_circle:")
