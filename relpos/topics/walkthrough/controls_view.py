"""Streamlit layer of the classroom walkthrough (``pages/walkthrough.py``).

Session state, the sidebar editor, the step controls and the drawing of each stage.
Every number comes from :mod:`relpos.topics.walkthrough.model` (which reads the core's
:class:`~relpos.core.attention.AttentionResult`); figures come from :mod:`relpos.plots`,
tables from :mod:`relpos.tables.frames`. Part of the view, built from the widget kit :mod:`relpos.ui`.

State lives in ``st.session_state`` under ``walkthrough:*`` keys (widgets under
``walkthrough.*``, :mod:`relpos.state.keys`): the last good scenario and the
current stop are plain entries (they survive page switches); the widgets mirror them.

Lesson links: on the page's first run in a browser session the whole view (stop,
presenter mode, k and every number) is decoded from the URL with
:data:`relpos.topics.walkthrough.schema.WALKTHROUGH` (bad parameters are reported and replaced by
defaults); afterwards every run writes the view back into the URL, so the address bar is
always a link to exactly what is on screen. The same state is the scenario file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from relpos import ui
from relpos.core.attention import AttentionResult
from relpos.core.examples import Scenario, worked_example
from relpos.plots import style
from relpos.state import export
from relpos.state.keys import CLICKER, LESSON_NAV, state_key, widget_key
from relpos.text import notation
from relpos.text import numbers as num
from relpos.text.numbers import subscript
from relpos.topics.walkthrough import figures as walkthrough_figures
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import schema as walkthrough_schema
from relpos.topics.walkthrough import tables as step_tables
from relpos.topics.walkthrough import text as wt_text
from relpos.topics.walkthrough.schema import WALKTHROUGH
from relpos.topics.walkthrough.snippet import walkthrough_snippet

PAGE = "walkthrough"  # url_path: lesson links, scenario files and keys name the page by it
# session values (relpos.state.keys: page:name)
SCENARIO = state_key(PAGE, "scenario")  # last good Scenario
MEMORY = state_key(PAGE, "memory")  # a^K values by offset, remembered when k is lowered
STOP = state_key(PAGE, "stop")  # current wt.Stop
FLASH = state_key(PAGE, "flash")  # one-off confirmation message
LAND = state_key(PAGE, "land")  # the opening link named a stop, not yet landed on
# widgets (page.name)
ROW, STEP, K, PRESENTER = (widget_key(PAGE, name) for name in ("row", "step", "k", "presenter"))
NEXT, PREVIOUS, RESET, CSV = (widget_key(PAGE, name) for name in ("next", "previous", "reset", "csv"))
JSON, SNIPPET, UPLOAD, LOAD = (widget_key(PAGE, name) for name in ("json", "snippet", "upload", "load"))
#: The sidebar's lesson link expander; like the NumPy code's (SNIPPET), drawn only while
#: open: a code block makes Streamlit load its code highlighter (0.4 MB) on every page load.
SHARE = widget_key(PAGE, "share")
#: The stage's charts and table.
SCORES, WEIGHTS, OFFSETS, TABLE = (widget_key(PAGE, name) for name in ("scores", "weights", "offsets", "table"))
#: The live class's URL parameter (relpos.ui.classroom): the lesson link keeps it.
CLASS_PARAM = "class"
#: The view as a WALKTHROUGH state dict, mirrored in the URL (a live class's ``class`` and a
#: teacher's ``teacher`` are no problem in a link; the lesson link keeps ``class``). Its
#: widgets are not bound to fields: the scenario and the stop above are the view.
STATE = ui.PageState(PAGE, WALKTHROUGH, foreign=(CLASS_PARAM, "teacher"), keep=(CLASS_PARAM,))
#: Container key of the Previous / Next bar, which presenter mode keeps on screen (ui.PRESENTER_CSS);
#: the invisible Page Up / Page Down buttons are in the container keyed CLICKER (hidden by ui.ALWAYS_CSS).
NAV = LESSON_NAV
#: HTML id of the current stop's heading (h2), which presenter mode scrolls into view after a move.
STAGE_ANCHOR = "current-stop"

#: Presenter mode (a 1280 × 720 projector): figure text at least this many px, and the
#: figures' heights, chosen so each stop fits one screen under the navigation bar
#: (tests/walkthrough/test_presenter.py measures it). The CSS of ui.PRESENTER_CSS sets body text to
#: 22 px and formulas to 28 px and more.
PRESENTER_FIGURE_FONT = style.PRESENTER_MIN_FONT
_PRESENTER_HEIGHTS = {SCORES: 440, SCORES + ".softmax": 270, WEIGHTS: 270, OFFSETS: 460, TABLE: 220}
#: The edited-example note lists this many changes, then counts the rest.
_SHOWN_CHANGES = 4


def input_key(kind: str, index: int) -> str:
    """Session key of one number field: ``q`` / ``k`` by 0-based position, ``a`` by offset."""
    return widget_key(PAGE, kind, f"{index:+d}" if kind == "a" else index)


def _fields(scenario: Scenario):
    """(widget key, on-screen name, value) of every editable number of `scenario`."""
    for i, value in enumerate(scenario.queries):
        yield input_key("q", i), f"q{subscript(i + 1)}", value
    for j, value in enumerate(scenario.keys):
        yield input_key("k", j), f"k{subscript(j + 1)}", value
    for offset, value in zip(scenario.table_offsets(), scenario.table, strict=True):
        yield input_key("a", int(offset)), f"a^K at offset {wt_text.signed(offset, 0)}", value


@dataclass(frozen=True)
class Lesson:
    """Everything one run of the page draws from."""

    scenario: Scenario
    result: AttentionResult
    steps: tuple[wt.PairStep, ...]  # all n * n pairs, row by row
    stop: wt.Stop
    presenter: bool
    problems: tuple[tuple[str, str], ...]  # (widget key, message) of rejected fields
    locked: bool = False  # a student of a paced live class: the stop is the teacher's
    asked: str | None = None  # what an open class question hides at this stop (wt.asked_part)

    @property
    def n(self) -> int:
        return self.scenario.n

    @property
    def at_softmax(self) -> bool:
        return self.stop.is_softmax(self.n)

    @property
    def row_steps(self) -> tuple[wt.PairStep, ...]:
        return self.steps[self.stop.row * self.n : (self.stop.row + 1) * self.n]

    @property
    def link_state(self) -> dict:
        """This view as a :data:`~relpos.topics.walkthrough.schema.WALKTHROUGH` state (lesson link, scenario file)."""
        return walkthrough_schema.walkthrough_state(self.scenario, self.stop, self.presenter)

    @property
    def hidden_cells(self) -> list[tuple[int, int]]:
        """The cell whose score the class is asked to predict, while the question is open."""
        return [(self.stop.row, self.stop.step)] if self.asked == "score" else []

    @property
    def current_cells(self) -> list[tuple[int, int]]:
        """The cell being computed, or the whole row at the softmax stop."""
        columns = range(self.n) if self.at_softmax else [self.stop.step]
        return [(self.stop.row, j) for j in columns]

    def figure(self, fig, key: str, *, size: str | None = None) -> None:
        """Draw a Plotly figure; in presenter mode its text is enlarged and its height fixed
        (by `size`, a key of ``_PRESENTER_HEIGHTS``, or `key`)."""
        if self.presenter:
            walkthrough_figures.minimum_fonts(fig)
            fig.update_layout(height=_PRESENTER_HEIGHTS[size or key])
        else:  # a phone's narrow column: the colour bar goes under the chart
            walkthrough_figures.colour_bar_below(fig)
        ui.chart(fig, key=key, toolbar=False)


# ---------------------------------------------------------------------------
# State and callbacks
# ---------------------------------------------------------------------------


def _set_fields(scenario: Scenario) -> None:
    for key, _, value in _fields(scenario):
        STATE.set_widget(key, wt_text.short_number(value))


def _restore(link: dict) -> None:
    """Make a valid WALKTHROUGH state the page's view (before the widgets are drawn)."""
    view = walkthrough_schema.walkthrough_view(link)
    state = st.session_state
    state[SCENARIO] = view.scenario
    state[MEMORY] = {}
    state[STOP] = view.stop
    # presenter mode is for a projector: a link opened on a phone gets the phone layout
    STATE.set_widget(PRESENTER, view.presenter and not ui.phone_screen())
    state[LAND] = STATE.link_names("i", "j")
    STATE.set_widget(K, view.scenario.k)
    _set_fields(view.scenario)


def follow_view(scenario: Scenario, stop: wt.Stop) -> None:
    """Show the live class's stop and numbers (before the widgets are drawn): a paced
    student's page follows the teacher's, edits and moves included."""
    state = st.session_state
    if state.get(SCENARIO) != scenario:
        state[SCENARIO] = scenario
        state[MEMORY] = {}
        STATE.set_widget(K, scenario.k)
        _set_fields(scenario)
    else:  # a field edited meanwhile goes back to the teacher's number
        _set_fields(scenario)
    state[STOP] = stop


def open_link_once() -> None:
    """Open the view the page's link describes, on the session's first run of this page."""
    if SCENARIO not in st.session_state:
        _restore(STATE.state())


def _init_state() -> None:
    state = st.session_state
    open_link_once()  # first run in this session: open the view the link describes
    scenario = state[SCENARIO]
    for key, _, value in _fields(scenario):
        if key not in state:  # first visit, or the widget was dropped on a page switch
            STATE.set_widget(key, wt_text.short_number(value))
    if state.get(K) not in wt.K_CHOICES:
        STATE.set_widget(K, scenario.k)


def _read_edits() -> tuple[tuple[str, str], ...]:
    """Parse every number field into a new good scenario; rejected fields keep their old value."""
    state = st.session_state
    good: Scenario = state[SCENARIO]
    problems, values = [], []
    for key, name, old in _fields(good):
        text = state.get(key, "")
        if text == wt_text.short_number(old):  # untouched: keep the exact value (a link may carry more digits)
            values.append(old)
            continue
        value, message = wt.parse_value(text, name=name)
        if message:
            problems.append((key, f"{message} Still using {num.number(old, 4, trim=1)}."))
        values.append(old if value is None else value)
    n, width = good.n, len(good.table)
    state[SCENARIO] = Scenario(
        queries=tuple(values[:n]), keys=tuple(values[n : 2 * n]), table=tuple(values[2 * n : 2 * n + width])
    )
    return tuple(problems)


def _move(delta: int) -> None:
    state = st.session_state
    n = state[SCENARIO].n
    state[STOP] = wt.next_stop(state[STOP], n) if delta > 0 else wt.previous_stop(state[STOP], n)


def _pick_row() -> None:
    state = st.session_state
    if state.get(ROW) is not None:
        state[STOP] = wt.Stop(int(state[ROW]), state[STOP].step)


def _pick_step() -> None:
    state = st.session_state
    if state.get(STEP) is not None:
        state[STOP] = wt.Stop(state[STOP].row, int(state[STEP]))


def _change_k() -> None:
    state = st.session_state
    good: Scenario = state[SCENARIO]
    new_k = state.get(K)
    if new_k not in wt.K_CHOICES or new_k == good.k:
        STATE.set_widget(K, good.k)
        return
    memory = dict(state[MEMORY])
    memory.update({int(o): v for o, v in zip(good.table_offsets(), good.table, strict=True)})
    state[MEMORY] = memory
    state[SCENARIO] = replace(good, table=wt.resize_table(good.table, int(new_k), memory))
    _set_fields(state[SCENARIO])


def _reset() -> None:
    state = st.session_state
    state[SCENARIO] = worked_example()
    state[MEMORY] = {}
    STATE.set_widget(K, state[SCENARIO].k)
    _set_fields(state[SCENARIO])
    state[FLASH] = "Restored the textbook example."


def lesson() -> Lesson:
    """Read the state and every edit, compute the attention, and return what to draw."""
    _init_state()
    problems = _read_edits()
    scenario: Scenario = st.session_state[SCENARIO]
    result = scenario.attention()
    stop = st.session_state[STOP]
    if not (0 <= stop.row < scenario.n and 0 <= stop.step <= scenario.n):  # defensive: n is fixed
        stop = st.session_state[STOP] = wt.Stop(0, 0)
    return Lesson(
        scenario=scenario,
        result=result,
        steps=wt.pair_steps(scenario, result),
        stop=stop,
        presenter=bool(st.session_state.get(PRESENTER, False)),
        problems=problems,
    )


# ---------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------


def land_on_stop() -> None:
    """A link that names a stop, opened on a phone, opens at that stop (the introduction
    above it is more than a phone's screen), once: Previous / Next at the top of the screen,
    the stop's heading right under them."""
    if st.session_state.pop(LAND, False) and ui.phone_screen():
        ui.land_on(NAV)


def presenter_toggle() -> None:
    """The Presenter mode toggle; in presenter mode a "Copy link" button beside it (the sidebar
    with the lesson link stays folded, and the navigation bar has no room to spare)."""
    ui.presenter_toggle(
        PRESENTER,
        help="Bigger text, formulas and figures for a projector; Previous and Next stay at the "
        "top of the screen. The keyboard's ← and → arrows work too, and so does a presentation "
        "clicker (Page Up / Page Down).",
    )


def sync_url(lesson: Lesson) -> None:
    """Write the view into the URL (only when it changed): the address bar stays a lesson link."""
    STATE.replace(lesson.link_state, forget=())
    STATE.write_url()


def edited_note(lesson: Lesson) -> None:
    """How the numbers on screen differ from the textbook's, which the introduction describes.

    Every part of the message is formatted from parsed numbers, never echoed user text.
    """
    changes = wt.changes_from(lesson.scenario, worked_example())
    if not changes:
        return
    shown = list(changes[:_SHOWN_CHANGES])
    where = "under Edit the numbers, below the stop" if lesson.presenter else "sidebar"
    if len(changes) > _SHOWN_CHANGES:
        shown.append(f"{len(changes) - _SHOWN_CHANGES} more")
    st.info(
        f"**Edited example.** Compared with the textbook: {'; '.join(shown)}. "
        f"**Reset to the textbook example** ({where}) brings its numbers back.",
        icon=":material/edit_note:",
    )


def problems_summary(lesson: Lesson) -> None:
    """Warnings about the opening link's unusable parameters (once) and every rejected field.

    Messages quote user text only escaped.
    """
    STATE.show_problems()
    if lesson.problems:
        lines = "\n".join(f"- {message}" for _, message in lesson.problems)
        st.warning(f"**Some numbers were not accepted; the page keeps their last good values.**\n{lines}")


def _step_label(step: int, n: int) -> str:
    return "softmax" if step == n else f"j = {step + 1}"


def _pickers(lesson: Lesson) -> None:
    """The row and key pickers; in presenter mode without visible labels (they sit in the
    navigation bar, where the buttons' "i = 3" and "j = 2" say enough; screen readers
    still hear the labels)."""
    n = lesson.n
    labels = "collapsed" if lesson.presenter else "visible"
    st.segmented_control(
        "Query row",
        list(range(n)),
        format_func=lambda i: f"i = {i + 1}",
        key=ROW,
        required=True,
        on_change=_pick_row,
        label_visibility=labels,
        disabled=lesson.locked,
    )
    st.segmented_control(
        "Key (or the row's softmax)",
        list(range(n + 1)),
        format_func=lambda j: _step_label(j, n),
        key=STEP,
        required=True,
        on_change=_pick_step,
        label_visibility=labels,
        disabled=lesson.locked,
    )


def _clicker_buttons(index: int, total: int, locked: bool = False) -> None:
    """A presentation clicker sends Page Up / Page Down; a button takes one shortcut, so a
    second, invisible pair (ui.ALWAYS_CSS hides CLICKER) listens for those keys."""
    with st.container(key=CLICKER):
        st.button(
            "Page Up: previous stop",
            key=f"{PREVIOUS}_clicker",
            on_click=_move,
            args=(-1,),
            disabled=locked or index == 0,
            shortcut="PageUp",
        )
        st.button(
            "Page Down: next stop",
            key=f"{NEXT}_clicker",
            on_click=_move,
            args=(1,),
            disabled=locked or index == total - 1,
            shortcut="PageDown",
        )


def step_controls(lesson: Lesson) -> None:
    """Row and key pickers, and the Previous / Next buttons with the lesson's progress.

    In presenter mode the pickers join the navigation bar, so the bar is one row."""
    n, stop = lesson.n, lesson.stop
    STATE.set_widget(ROW, stop.row)  # the widgets mirror STOP
    STATE.set_widget(STEP, stop.step)
    index, total = wt.stop_index(stop, n), len(wt.lesson_stops(n))
    if not lesson.presenter:
        with st.container(horizontal=True, vertical_alignment="bottom", gap="medium"):
            _pickers(lesson)
    # a row of its own, whose wrapper's parent is the page: presenter mode makes it sticky
    with st.container(key=NAV, horizontal=True, vertical_alignment="center", gap="small", width="stretch"):
        locked = lesson.locked  # a paced student: the teacher moves the stop
        st.button("Previous", key=PREVIOUS, on_click=_move, args=(-1,), disabled=locked or index == 0, shortcut="Left")
        st.button(
            "Next",
            key=NEXT,
            type="primary",
            on_click=_move,
            args=(1,),
            disabled=locked or index == total - 1,
            shortcut="Right",
        )
        where = f"row {stop.row + 1}, softmax" if lesson.at_softmax else f"pair ({stop.row + 1}, {stop.step + 1})"
        st.markdown(f"**Stop {index + 1} of {total}** · {where}", width="content")
        if lesson.presenter:
            _pickers(lesson)
        _clicker_buttons(index, total, locked)


def export_section(lesson: Lesson) -> None:
    """Downloads (step table as CSV, scenario as JSON) and NumPy code that reproduces the numbers."""
    result = lesson.result
    computed = {
        "content scores": result.content,
        "position biases": result.bias,
        "scores": result.scores,
        "content-only weights": result.content_weights,
        "combined weights": result.weights,
    }
    with st.container(horizontal=True, gap="small"):
        ui.download_csv(
            step_tables.step_frame(lesson.steps),
            "relpos_walkthrough_pairs.csv",
            label="Download the table as CSV",
            key=CSV,
        )
        st.download_button(
            "Download the scenario as JSON",
            export.scenario_json(PAGE, WALKTHROUGH, lesson.link_state, computed),
            file_name="relpos_walkthrough_scenario.json",
            mime="application/json",
            on_click="ignore",
            key=JSON,
            icon=":material/download:",
            help="Every number, k, the current stop and presenter mode. Load it again in the sidebar.",
        )
    code = st.expander(
        "NumPy code that reproduces these numbers", key=SNIPPET, on_change="rerun", icon=":material/code:"
    )
    if code.open:
        with code:
            st.code(walkthrough_snippet(lesson.link_state), language="python")
            st.caption("Runs in this project's environment; relpos.relative_attention computes every number above.")


def share(lesson: Lesson) -> None:
    """The lesson link of this view and the scenario-file upload (draw inside ``st.sidebar``)."""
    link = st.expander("Lesson link", key=SHARE, on_change="rerun", icon=":material/ios_share:")
    if link.open:
        with link:
            ui.lesson_link(WALKTHROUGH, lesson.link_state, PAGE)
    ui.scenario_upload(PAGE, WALKTHROUGH, key=UPLOAD, on_loaded=_restore, lazy_key=LOAD)


# ---------------------------------------------------------------------------
# The sidebar editor
# ---------------------------------------------------------------------------


def _number_fields(label: str, items, problems: dict[str, str], per_row: int = 4) -> None:
    """Text fields for (key, plain-text label) items, in rows of `per_row`, with their errors below."""
    st.markdown(f"**{label}**")
    items = list(items)
    for start in range(0, len(items), per_row):
        columns = st.columns(per_row)
        for column, (key, latex_label) in zip(columns, items[start : start + per_row], strict=False):
            column.text_input(latex_label, key=key, max_chars=wt.MAX_INPUT_CHARS)
    for key, _ in items:
        if key in problems:
            st.error(problems[key])


def presenter_editor(lesson: Lesson) -> None:
    """Presenter mode: the editor in the main area, under the stop (the sidebar stays folded
    away, so the page keeps its width); after Enter a field lets go of the focus
    (relpos/server/assets/page_helpers.js), so the clicker steps the lesson again."""
    with st.expander("Edit the numbers", icon=":material/edit:", expanded=bool(lesson.problems)):
        editor(lesson)


def editor(lesson: Lesson) -> None:
    """Every number of the example, k, and the reset button (draw inside ``st.sidebar``,
    or :func:`presenter_editor` in presenter mode)."""
    scenario, problems = lesson.scenario, dict(lesson.problems)
    st.header("The numbers")
    ui.caption("walkthrough_edit")
    n = scenario.n
    _number_fields("Queries", [(input_key("q", i), f"q{subscript(i + 1)}") for i in range(n)], problems)
    _number_fields("Keys", [(input_key("k", j), f"k{subscript(j + 1)}") for j in range(n)], problems)
    st.segmented_control("Clipping distance k", list(wt.K_CHOICES), key=K, required=True, on_change=_change_k)
    offsets = [int(o) for o in scenario.table_offsets()]
    _number_fields(
        f"Table aᴷ, clipping distance k = {scenario.k} (offsets {num.offset_range(scenario.k, ' … ')})"
        if scenario.k
        else "Table aᴷ, clipping distance k = 0 (offset 0 only)",
        [(input_key("a", o), notation.entry("K", o)) for o in offsets],
        problems,
    )
    st.button("Reset to the textbook example", key=RESET, on_click=_reset, icon=":material/restart_alt:")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
