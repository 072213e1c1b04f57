"""The walkthrough's stage (``pages/walkthrough.py``): the current stop's arithmetic, the
score matrix filling in, the weight bars at a softmax stop, the offset map and the step table.

Everything is drawn from a :class:`relpos.topics.walkthrough.controls_view.Lesson`; its state, controls,
editor and exports live in :mod:`relpos.topics.walkthrough.controls_view`.
"""

from __future__ import annotations

import streamlit as st

from relpos import ui
from relpos.text import numbers as num
from relpos.topics.walkthrough import figures as walkthrough_figures
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import tables as step_tables
from relpos.topics.walkthrough import text as wt_text
from relpos.topics.walkthrough.controls_view import OFFSETS, SCORES, STAGE_ANCHOR, TABLE, WEIGHTS, Lesson

__all__ = ["offset_section", "stage", "step_table"]


def _score_matrix(lesson: Lesson) -> None:
    reached = wt.reached_cells(lesson.stop, lesson.n)
    fig = walkthrough_figures.stop_score_matrix(
        lesson.result.scores, lesson.steps, reached, lesson.current_cells, hidden=lesson.hidden_cells
    )
    squeezed = lesson.presenter and lesson.at_softmax  # a third of the width: no colour bar, no caption
    if squeezed:
        _squeeze(fig)
    lesson.figure(fig, SCORES, size=SCORES + ".softmax" if lesson.at_softmax else None)
    if not squeezed:
        st.caption(wt_text.SCORES_CAPTION)


def _squeeze(fig) -> None:
    """The score matrix in a third of a 1280 px screen (presenter mode's softmax stop):
    no colour bar, short axis titles, and cells wider than tall, so 20 px numbers fit."""
    fig.update_traces(showscale=False, selector={"type": "heatmap"})
    fig.update_layout(
        margin={"l": 62, "r": 4, "t": 40, "b": 62},
        xaxis={"title": {"text": "key j", "standoff": 8}},
        yaxis={"title": {"text": "query i", "standoff": 2}, "scaleanchor": None},
    )


def _pair_stage(lesson: Lesson) -> None:
    step = lesson.steps[lesson.stop.row * lesson.n + lesson.stop.step]
    st.header(f"Query i = {step.i + 1}, key j = {step.j + 1}", anchor=STAGE_ANCHOR)
    st.latex(wt_text.pair_latex(step, hide_score=lesson.asked == "score"))
    st.markdown(wt_text.pair_sentence(step))
    st.caption("With d = 1 the scale 1/√d is 1, so both terms are plain products.")


def _softmax_stage(lesson: Lesson) -> None:
    """Both softmaxes of the row with the numbers, and the takeaway computed from them."""
    row_steps = lesson.row_steps
    st.header(f"Softmax of row i = {lesson.stop.row + 1}", anchor=STAGE_ANCHOR)
    st.latex(wt_text.softmax_latex(row_steps, combined=lesson.asked != "gains"))
    _takeaway(lesson)


def _takeaway(lesson: Lesson) -> None:
    """The row's takeaway in plain sentences; the softmax arithmetic behind them on request
    (neither while the class is asked which key gains most)."""
    if lesson.asked == "gains":
        st.info(wt_text.GAINS_ASKED)
        return
    shift = wt.row_shift(lesson.result, lesson.stop.row)
    ui.bullets(wt_text.takeaway(shift, lesson.row_steps))
    with st.expander("How this is computed"):
        ui.markdown("softmax_shift")
        ui.bullets(wt_text.takeaway_derivation(shift, lesson.row_steps))


def _presenter_softmax_stage(lesson: Lesson) -> None:
    """Presenter mode's softmax stop on one screen: the arithmetic, the weight bars and the
    score matrix side by side, the takeaway under them at full width."""
    st.header(f"Softmax of row i = {lesson.stop.row + 1}", anchor=STAGE_ANCHOR)
    formula, bars, matrix = st.columns([1.1, 1.15, 0.9], gap="small")
    with formula:
        st.latex(wt_text.softmax_latex(lesson.row_steps, compact=True, combined=lesson.asked != "gains"))
    with bars:
        _weight_bars(lesson)
    with matrix:
        _score_matrix(lesson)
    _takeaway(lesson)


def _weight_bars(lesson: Lesson) -> None:
    """Content-only next to combined weight for each key of the row, values printed."""
    shift = wt.row_shift(lesson.result, lesson.stop.row)
    fig = walkthrough_figures.stop_weight_bars(
        shift, lesson.row_steps, presenter=lesson.presenter, combined=lesson.asked != "gains"
    )
    if lesson.presenter:
        # a third of the screen wide: labels stay level, the legend below the title; the
        # bars' own 20 px values replace the y-axis, so the bars are wide enough to keep
        # them apart, with room above the tallest for its value
        fig.update_xaxes(tickangle=0)
        top = max(max(shift.content_weights), max(shift.weights))
        fig.update_yaxes(visible=False, range=[0, top * 1.35])
        fig.update_layout(margin={"l": 5, "r": 5, "t": 95, "b": 70})
    lesson.figure(fig, WEIGHTS)


def stage(lesson: Lesson) -> None:
    """The current stop: its arithmetic on the left; on the right the score matrix filling in,
    under the weight bars at a softmax stop (so the whole softmax step fits one screen)."""
    if lesson.presenter and lesson.at_softmax:
        _presenter_softmax_stage(lesson)
        return
    widths, gap = ([1.25, 1], "medium") if lesson.presenter else ([1.15, 1], "large")
    left, right = st.columns(widths, gap=gap)
    with left:
        _softmax_stage(lesson) if lesson.at_softmax else _pair_stage(lesson)
    with right:
        if lesson.at_softmax:
            _weight_bars(lesson)
        _score_matrix(lesson)


def offset_section(lesson: Lesson) -> None:
    """The offset map and the a^K table, with what the current stop reads outlined."""
    st.subheader("Which table entry does each pair read?")
    left, right = st.columns([1.15, 1], gap="large")
    with left:
        fig = walkthrough_figures.offset_map_for_stop(lesson.n, lesson.scenario.k, lesson.current_cells)
        if lesson.presenter:  # 20 px axis title: the legend moves below it
            fig.update_layout(legend={"y": -0.32}, margin={"b": 120})
        lesson.figure(fig, OFFSETS)
    with right:
        strip = walkthrough_figures.table_strip_for_stop(
            lesson.scenario.table, wt.used_offsets(lesson.steps, lesson.stop, lesson.n)
        )
        lesson.figure(strip, TABLE)
        st.markdown(wt_text.offset_map_note(lesson.steps))


#: The current stop's rows: pale yellow, their text dark in either theme (the dark theme's
#: light text would not read on yellow).
HIGHLIGHT = "background-color: #fff1a8; color: #111318"


def _highlight_current(frame, lesson: Lesson):
    current = {(i + 1, j + 1) for i, j in lesson.current_cells}

    def colour(row):
        mark = (row["i"], row["j"]) in current
        return [HIGHLIGHT if mark else "" for _ in row]

    return colour


def step_table(lesson: Lesson) -> None:
    """The arithmetic of all n² pairs (current stop highlighted) and its CSV download; while
    the class answers a question, after the reveal (it holds every answer)."""
    if lesson.asked:
        st.subheader(f"All {lesson.n * lesson.n} pairs at once")
        st.caption(wt_text.TABLE_ASKED)
        return
    frame = step_tables.step_frame(lesson.steps)
    st.subheader(f"All {len(frame)} pairs at once")
    offsets = ["offset j−i", "clipped offset"]
    numbers = [c for c in frame.columns if c not in ("i", "j", *offsets)]
    styled = (
        frame.style.format(lambda value: num.number(value, 4), subset=numbers)
        .format(num.offset, subset=offsets)
        .apply(_highlight_current(frame, lesson), axis=1)
    )
    # a plain table: nothing here needs the data grid's sorting or scrolling (a 0.14 MB
    # chunk), and a screen reader reads it as the table it is
    st.table(styled, hide_index=True)
    st.caption("The highlighted rows are the current stop. Weights are per query row (each row of 4 sums to 1).")
