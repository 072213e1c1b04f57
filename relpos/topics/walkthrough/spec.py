"""A live class's follow view of the walkthrough: one stop as JSON that a student's browser draws.

A student who follows the teacher does not rerun the page at every Next: the server
builds this view once per class state (:mod:`relpos.class_routes.following`), and each
student's browser draws it (``relpos/ui/follow_assets/follow.js``). It holds what the page
shows of a stop: the heading, the arithmetic (LaTeX, drawn with KaTeX), the sentences (as
:func:`relpos.text.rich.runs`, never HTML), the score matrix, the weight bars, the offset
map, the table strip and the table of all pairs, each figure as Plotly JSON made by the
same functions as the page's (:mod:`relpos.topics.walkthrough.figures`).

While a question asked at this stop is open, what it asks for is left out of the view
(:func:`relpos.topics.walkthrough.model.asked_part`): the view is public to anyone
holding the class code, so the answer is not in it, hidden or not.

A block is a dict with a type ``t``:

* ``{"t": "h", "text"}`` a heading; ``{"t": "tex", "tex"}`` a displayed formula;
* ``{"t": "p", "runs", "small"}`` a sentence; ``{"t": "ul", "items": [runs, …]}`` a list;
* ``{"t": "fig", "fig": {"data", "layout"}, "name"}`` a Plotly figure;
* ``{"t": "table", "columns", "rows", "marked"}`` a table (marked: rows of the stop);
* ``{"t": "cols", "cols": [[block, …], …]}`` columns side by side (stacked on a phone);
* ``{"t": "details", "summary", "blocks"}`` a folded part.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from relpos.plots.plain import plain_figure
from relpos.text import numbers as num
from relpos.text.prose import read_content
from relpos.text.rich import runs
from relpos.topics.walkthrough import figures as walkthrough_figures
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import schema as walkthrough_schema
from relpos.topics.walkthrough import text as wt_text
from relpos.topics.walkthrough.schema import WALKTHROUGH

__all__ = ["follow_view", "view_of_state"]


def view_of_state(state: str) -> walkthrough_schema.WalkthroughView:
    """The walkthrough view a class's pace state names (its stop and numbers)."""
    return walkthrough_schema.walkthrough_view(WALKTHROUGH.decode(dict(parse_qsl(state))).state)


def _figure(fig, name: str) -> dict:
    """A figure as plain JSON for plotly.js (the phone layout: colour bars under the chart)."""
    walkthrough_figures.colour_bar_below(fig)
    fig.update_layout(dragmode=False)
    return {"t": "fig", "fig": plain_figure(fig), "name": name}


def _p(text: str, *, small: bool = False) -> dict:
    return {"t": "p", "runs": runs(text), "small": small}


def _pair_blocks(step: wt.PairStep, asked: str | None) -> list[dict]:
    return [
        {"t": "h", "text": f"Query i = {step.i + 1}, key j = {step.j + 1}"},
        {"t": "tex", "tex": wt_text.pair_latex(step, hide_score=asked == "score")},
        _p(wt_text.pair_sentence(step)),
        _p("With d = 1 the scale 1/√d is 1, so both terms are plain products.", small=True),
    ]


def _softmax_blocks(shift: wt.RowShift, row_steps, asked: str | None) -> list[dict]:
    blocks = [
        {"t": "h", "text": f"Softmax of row i = {shift.row + 1}"},
        {"t": "tex", "tex": wt_text.softmax_latex(row_steps, combined=asked != "gains")},
    ]
    if asked == "gains":
        return [*blocks, _p(wt_text.GAINS_ASKED)]
    derivation = [
        _p(" ".join(read_content("softmax_shift").split())),
        {"t": "ul", "items": [runs(s) for s in wt_text.takeaway_derivation(shift, row_steps)]},
    ]
    return [
        *blocks,
        {"t": "ul", "items": [runs(s) for s in wt_text.takeaway(shift, row_steps)]},
        {"t": "details", "summary": "How this is computed", "blocks": derivation},
    ]


def _step_table(steps, stop: wt.Stop, n: int) -> dict:
    """Every pair's arithmetic, the stop's rows marked (numbers as the page prints them)."""
    offsets = ("offset", "clipped")

    def cell(step: wt.PairStep, field: str) -> str:
        value = getattr(step, field)
        if field in ("i", "j"):
            return str(value + 1)
        return num.offset(value) if field in offsets else num.number(value, 4)

    current = {(stop.row, j) for j in range(n)} if stop.is_softmax(n) else {(stop.row, stop.step)}
    return {
        "t": "table",
        "columns": list(wt.STEP_COLUMNS),
        "rows": [[cell(step, field) for field in wt.STEP_COLUMNS.values()] for step in steps],
        "marked": [number for number, step in enumerate(steps) if (step.i, step.j) in current],
    }


def follow_view(state: str, asked: tuple[str, str] | None = None) -> dict:
    """The stop of a class's pace `state` as blocks for the student's browser.

    Parameters
    ----------
    state : str
        The class's pace state (:func:`relpos.topics.walkthrough.classroom_view.pace_of`): the
        walkthrough's URL state of the teacher's stop and numbers.
    asked : (kind, stop id), optional
        The open question's kind and the stop it was asked at: what it asks for is left out.

    Returns
    -------
    view : dict
        ``{"where", "index", "total", "stage": [block], "offsets": [block], "table": block or None}``.

    Examples
    --------
    >>> view = follow_view("i=1&j=4")
    >>> view["where"], view["index"], view["total"], view["stage"][0]["cols"][0][0]["text"]
    ('pair (1, 4)', 3, 20, 'Query i = 1, key j = 4')
    >>> import json
    >>> stage, figures = follow_view("i=1&j=4", ("number", "r1j4"))["stage"][0]["cols"]
    >>> "0.7" in stage[1]["tex"], figures[0]["fig"]["data"][0]["text"][0][3]
    (False, '')
    """
    view = view_of_state(state)
    scenario, stop = view.scenario, view.stop
    n, result = scenario.n, scenario.attention()
    steps = wt.pair_steps(scenario, result)
    part = wt.asked_part(*asked, stop, n) if asked else None
    softmax = stop.is_softmax(n)
    current = [(stop.row, j) for j in range(n)] if softmax else [(stop.row, stop.step)]
    hidden = current if part == "score" else []
    row_steps = steps[stop.row * n : (stop.row + 1) * n]
    shift = wt.row_shift(result, stop.row)
    matrix = walkthrough_figures.stop_score_matrix(
        result.scores, steps, wt.reached_cells(stop, n), current, hidden=hidden
    )
    figures = [_figure(matrix, "Scores computed so far")]
    if softmax:
        bars = walkthrough_figures.stop_weight_bars(shift, row_steps, combined=part != "gains")
        figures.insert(0, _figure(bars, f"Weights of query {stop.row + 1}"))
    stage = _softmax_blocks(shift, row_steps, part) if softmax else _pair_blocks(steps[stop.row * n + stop.step], part)
    caption = _p(
        "Rows are queries i, columns keys j; grey cells are not computed yet. Colour: blue < 0 < red.", small=True
    )
    offsets = [
        {"t": "h", "text": "Which table entry does each pair read?"},
        _figure(walkthrough_figures.offset_map_for_stop(n, scenario.k, current), "Offset map"),
        _figure(
            walkthrough_figures.table_strip_for_stop(scenario.table, wt.used_offsets(steps, stop, n)), "The table aᴷ"
        ),
        _p(wt_text.offset_map_note(steps)),
    ]
    where = f"row {stop.row + 1}, softmax" if softmax else f"pair ({stop.row + 1}, {stop.step + 1})"
    return {
        "where": where,
        "index": wt.stop_index(stop, n),
        "total": len(wt.lesson_stops(n)),
        "stage": [{"t": "cols", "cols": [stage, [*figures, caption]]}],
        "offsets": offsets,
        # the table holds every score and weight: not while the class answers a question here
        "table": None if part else _step_table(steps, stop, n),
        "table_note": wt_text.TABLE_ASKED if part else None,
    }
