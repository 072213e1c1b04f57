"""The Efficient computation page's figures: skewing step by step, the memory strip,
the ``Q A_Kᵀ`` placement, timings and memory growth (no Streamlit).

Cells that hold a logit are coloured by its offset on one purple–grey–orange scale
(:data:`relpos.plots.style.OFFSET_CELLS_SCALE`), so a learner can follow each logit
from step to step; pads and leftovers stay uncoloured with grey text.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.core.offsets import place_relative, table_rows
from relpos.core.skewing import skew, skew_array, skew_labels
from relpos.plots import style
from relpos.tables import frames as tables
from relpos.text import numbers as num

__all__ = [
    "grid_frame",
    "labelled_grid_figure",
    "memory_strip_figure",
    "placement_figures",
    "skew_memory_strip",
    "skew_step_figures",
]


def _offset_span(limit: int) -> float:
    """Colour range half-width for offsets up to ±limit."""
    return 1.25 * max(limit, 1)


def _label_colours(offsets: np.ndarray, leftover: np.ndarray, span: float) -> np.ndarray:
    """Black text on light cells, white on the darkest, grey on leftovers, and the theme's
    ink on uncoloured pad cells (they show the page)."""
    position = (np.nan_to_num(offsets) + span) / (2 * span)  # 0..1 along the colour scale
    colours = np.where((position < 0.22) | (position > 0.78), "white", "black").astype(object)
    colours[np.isnan(offsets)] = style.palette().ink
    colours[leftover] = style.LEFTOVER_GREY
    return colours


def _offset_heatmap(z, x, y, span: float, *, ygap: int) -> go.Heatmap:
    """Cells coloured by offset on the shared purple–grey–orange scale, no colour bar."""
    return go.Heatmap(
        z=z,
        x=x,
        y=y,
        colorscale=list(style.OFFSET_CELLS_SCALE),
        zmin=-span,
        zmax=span,
        showscale=False,
        xgap=2,
        ygap=ygap,
        hoverinfo="skip",
    )


def labelled_grid_figure(
    labels,
    offsets,
    title: str,
    *,
    row_labels,
    column_labels,
    row_title: str,
    column_title: str,
    limit: int,
    leftover=None,
    height: int | None = None,
) -> go.Figure:
    """A grid of labelled cells coloured by the offset each cell holds.

    Used to draw each step of skewing and of the ``Q A_Kᵀ`` placement, where a cell
    holds a symbol like ``q2·e(−1)`` rather than a number.

    Parameters
    ----------
    labels : array_like of str, shape (rows, columns)
        Text of each cell (``<br>`` breaks a line).
    offsets : array_like of float, shape (rows, columns)
        Offset the cell's logit belongs to (colour, on the offset map's purple–orange
        scale); NaN for pad cells, which stay uncoloured.
    row_labels, column_labels : sequence of str
        Tick labels.
    limit : int
        Colour range ``[-limit, limit]``; pass the same value to every step.
    leftover : array_like of bool, optional
        Cells holding leftovers (not meaningful): grey text, no colour.
    """
    labels = np.asarray(labels, dtype=object)
    colours = np.array(offsets, dtype=float)
    n_rows, n_columns = labels.shape
    leftover = np.zeros(labels.shape, dtype=bool) if leftover is None else np.asarray(leftover, dtype=bool)
    colours[leftover] = np.nan
    rows, columns = np.indices(labels.shape)
    span = _offset_span(limit)
    text_colours = _label_colours(colours, leftover, span)
    fig = go.Figure(_offset_heatmap(colours, list(range(n_columns)), list(range(n_rows)), span, ygap=2))
    for grey in (False, True):
        chosen = leftover == grey
        fig.add_trace(_cell_texts(columns[chosen], rows[chosen], labels[chosen], text_colours[chosen], grey=grey))
    fig.update_layout(
        title=style.centred_title(title, font={"size": style.TITLE_SIZE}),
        margin=style.GRID_MARGIN.plotly(),
        height=height or 70 * n_rows + 120,
        font={"size": style.SMALL_FONT_SIZE},
    )
    fig.update_xaxes(
        title=style.axis_title(column_title), **_ticks(n_columns, column_labels), range=[-0.5, n_columns - 0.5]
    )
    fig.update_yaxes(title=style.axis_title(row_title), **_ticks(n_rows, row_labels), autorange="reversed")
    return fig


def _ticks(count: int, labels) -> dict:
    """An axis with a tick on each of `count` cells, named by `labels`, and no grid or zero line."""
    return {
        "tickmode": "array",
        "tickvals": list(range(count)),
        "ticktext": list(labels),
        "showgrid": False,
        "zeroline": False,
    }


def _cell_texts(x, y, labels, colours, *, grey: bool) -> go.Scatter:
    """The labels of a grid's logit cells (or, `grey`, of its leftovers), each in its colour."""
    return go.Scatter(
        x=x,
        y=y,
        mode="text",
        text=[str(label) for label in labels],
        textfont={"size": style.SMALL_FONT_SIZE, "color": list(colours)},
        hoverinfo="text",
        hovertext=[str(label).replace("<br>", " ") for label in labels],
        showlegend=False,
        name="leftover" if grey else "logit",
    )


def _row_ends(length: int, size: int) -> list[dict]:
    """Thick black bars where a row ends: every L+1 cells in the left column, every L in the right."""
    return [
        {
            "type": "line",
            "x0": column - 0.45,
            "x1": column + 0.45,
            "y0": cut - 0.5,
            "y1": cut - 0.5,
            "line": {"color": "black", "width": 4},
        }
        for column, width in ((0, length + 1), (1, length))
        for cut in range(width, size, width)
    ]


#: Height (px) of one memory cell of the strip: room for a one-line label.
_STRIP_CELL = 24
#: Where (px from the figure's top) the strip's two-line title is centred: above the
#: column names, which take the bottom of the top margin.
_TITLE_MIDDLE = 32


def memory_strip_figure(labels, offsets, *, length: int, leftover=None, height: int | None = None) -> go.Figure:
    """The padded logits as one column of memory, cut into rows of L+1 (left) and of L (right).

    Memory runs down the page, so each cell is as wide as half the figure: its label
    stays legible on a phone (a strip running across would give a 390 px screen 10 px
    per cell).

    Parameters
    ----------
    labels : array_like of str, shape (L * (L+1),)
        The padded matrix read row by row (its memory order).
    offsets : array_like of float, shape (L * (L+1),)
        Offset of each cell (NaN for pad cells).
    length : int
        L.
    leftover : array_like of bool, shape (L * (L+1),), optional
        Cells no causal score needs (grey, uncoloured).
    height : int, optional
        Default: :data:`_STRIP_CELL` px per cell plus the margins.

    Notes
    -----
    Both columns hold the same cells in the same order: a reshape moves nothing, it only
    changes where one row ends. Thick black bars mark row ends.

    >>> fig = memory_strip_figure(["a", "b"], [0.0, 1.0], length=1)
    >>> fig.layout.yaxis.autorange, list(fig.layout.xaxis.ticktext)
    ('reversed', ['② rows of 2', '③ rows of 1'])
    """
    labels = [str(label) for label in labels]
    size = len(labels)
    leftover = np.zeros(size, dtype=bool) if leftover is None else np.asarray(leftover, dtype=bool)
    strip = np.array(offsets, dtype=float)
    strip[leftover] = np.nan
    span = _offset_span(length - 1)
    text_colours = list(_label_colours(strip, leftover | np.isnan(strip), span))
    heatmap = _offset_heatmap(np.vstack([strip, strip]).T, [0, 1], list(range(size)), span, ygap=2)
    heatmap.update(xgap=16)
    fig = go.Figure(heatmap)
    fig.add_trace(
        go.Scatter(
            x=[0] * size + [1] * size,
            y=list(range(size)) * 2,
            mode="text",
            text=labels * 2,
            textfont={"size": style.SMALL_LABEL_SIZE, "color": text_colours * 2},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    for shape in _row_ends(length, size):
        fig.add_shape(shape)
    margin = style.STRIP_COLUMN_MARGIN
    height = height or _STRIP_CELL * size + margin.top + margin.bottom
    fig.update_layout(
        # two lines, centred _TITLE_MIDDLE px below the top: centred in the top margin
        # (Plotly's default), the second line would cover the column names
        title=style.centred_title(
            "the padded matrix in memory:<br>same cells, different row ends",
            y=1 - _TITLE_MIDDLE / height,
            yanchor="middle",
        ),
        margin=margin.plotly(),
        height=height,
        font={"size": style.SMALL_FONT_SIZE},
    )
    fig.update_xaxes(**_ticks(2, [f"② rows of {length + 1}", f"③ rows of {length}"]), side="top")
    fig.update_yaxes(
        title=style.axis_title("position in memory (row-major order)"),
        **_ticks(size, [str(i) for i in range(size)]),
        autorange="reversed",
    )
    return fig


def _offset_names(offsets) -> list[str]:
    return [num.offset(int(o)) for o in offsets]


def _skew_cell_labels(length: int, values, decimals: int):
    """Cell labels for each skew step: symbols (two lines) or the numbers of `values`."""
    if values is None:
        symbols = skew_labels(length, offset_name=num.offset).relative_logits
        cells = np.vectorize(lambda text: text.replace("·", "·<br>"), otypes=[object])(symbols)
    else:
        numbers = skew(values).relative_logits
        cells = np.vectorize(lambda value: num.number(value, decimals), otypes=[object])(numbers)
    return skew_array(cells, "0")


def _skew_steps(n: int, offset_names: list[str]) -> tuple:
    """Each skewing step: (field of SkewArrays, row labels, column labels, row title, column title, title)."""
    queries = [f"q{i + 1}" for i in range(n)]
    return (
        (
            "relative_logits",
            queries,
            offset_names,
            "query i",
            "offset of the embedding (column of E)",
            f"① Q Eᵀ: one logit per query and offset ({n} × {n})",
        ),
        (
            "padded",
            queries,
            ["pad", *offset_names],
            "query i",
            "column",
            f"② pad one column on the left ({n} × {n + 1})",
        ),
        (
            "reshaped",
            ["dropped", *[f"row {r}" for r in range(2, n + 2)]],
            [str(c + 1) for c in range(n)],
            "row",
            "column",
            f"③ read as {n + 1} rows of {n} (same memory)",
        ),
        (
            "sliced",
            queries,
            [f"k{j + 1}" for j in range(n)],
            "query i",
            "key j",
            f"④ drop the first row: S_rel ({n} × {n})",
        ),
    )


def skew_step_figures(length: int, values=None, *, decimals: int = 2) -> list[go.Figure]:
    """The four steps of skewing drawn cell by cell: Q Eᵀ, padded, reshaped, sliced.

    Parameters
    ----------
    length : int
        L, the sequence length.
    values : array_like, shape (L, L), optional
        Numeric relative logits ``Q Eᵀ`` to show instead of symbols.

    Returns
    -------
    figures : list of four go.Figure
        Cells are coloured by the offset of the logit they hold (the offset map's
        colours). Pad cells, and logits no causal cell needs (a query looking back
        past position 1), are uncoloured with grey text in every step, so a learner
        can follow them into the dropped row and above the diagonal.
    """
    n = int(length)
    column_offsets = np.arange(n) - (n - 1)  # column m of Q E^T holds offset m - (L-1)
    # labels, colours and the "useful" mask all go through the very same moves
    labels = _skew_cell_labels(n, values, decimals)
    colours = skew_array(np.broadcast_to(column_offsets, (n, n)).astype(float), np.nan)
    # query i (0-based) can look back at most i positions: offset >= -i is useful
    useful = skew_array(column_offsets[None, :] >= -np.arange(n)[:, None], False)
    steps = _skew_steps(n, _offset_names(column_offsets))
    return [
        labelled_grid_figure(
            getattr(labels, step),
            getattr(colours, step),
            title,
            row_labels=rows,
            column_labels=columns,
            row_title=row_title,
            column_title=column_title,
            limit=max(n - 1, 1),
            leftover=~getattr(useful, step),
            height=62 * len(rows) + 130,
        )
        for step, rows, columns, row_title, column_title, title in steps
    ]


def skew_memory_strip(length: int) -> go.Figure:
    """The padded matrix of step ② laid out as memory, cut into rows of L+1 and of L."""
    n = int(length)
    column_offsets = np.arange(n) - (n - 1)
    labels = skew_labels(n, offset_name=num.offset).padded.ravel()
    colours = skew_array(np.broadcast_to(column_offsets, (n, n)).astype(float), np.nan).padded.ravel()
    useful = skew_array(column_offsets[None, :] >= -np.arange(n)[:, None], False).padded.ravel()
    return memory_strip_figure([str(label) for label in labels], colours, length=n, leftover=~useful)


def placement_figures(scenario, *, decimals: int = 2) -> list[go.Figure]:
    """``Q A_Kᵀ`` (one logit per query and table row) and its placement on the grid.

    Parameters
    ----------
    scenario : relpos.Scenario
        A d = 1 scenario (the worked example on the page).

    Returns
    -------
    figures : list of two go.Figure
        Left: the ``(n, 2k+1)`` relative logits with labels ``q1·a(−2)`` and values.
        Right: the ``(n, n)`` position biases; each cell shows which logit it took.
    """
    q = np.asarray(scenario.queries, dtype=float)
    table = np.asarray(scenario.table, dtype=float)
    n, k = len(q), scenario.k
    logits = np.outer(q, table)  # (n, 2k+1): q_i · a^K_r (d = 1)
    offsets = np.arange(-k, k + 1)
    labels = np.array([[f"q{i + 1}·a({num.offset(o)})" for o in offsets] for i in range(n)], dtype=object)
    rows = table_rows(n, n, k)  # (n, n): which logit each cell takes
    placed_labels = np.take_along_axis(labels, rows, axis=1)
    placed = place_relative(logits, n)  # (n, n)

    def with_values(names, numbers):
        return np.array(
            [
                [f"{name}<br>{num.number(value, decimals)}" for name, value in zip(r, v, strict=True)]
                for r, v in zip(names, numbers, strict=True)
            ],
            dtype=object,
        )

    queries = [f"q{i + 1}" for i in range(n)]
    return [
        labelled_grid_figure(
            with_values(labels, logits),
            np.broadcast_to(offsets, (n, 2 * k + 1)),
            f"Q A_Kᵀ: {n} × {2 * k + 1} logits",
            row_labels=queries,
            column_labels=[f"a({num.offset(o)})" for o in offsets],
            row_title="query i",
            column_title="table row (offset)",
            limit=k,
        ),
        labelled_grid_figure(
            with_values(placed_labels, placed),
            rows - k,
            f"placed: {n} × {n} position biases",
            row_labels=queries,
            column_labels=[f"k{j + 1}" for j in range(n)],
            row_title="query i",
            column_title="key j",
            limit=k,
        ),
    ]


def _tick_names(axis) -> dict:
    """Tick value -> tick text of an axis with array ticks."""
    return dict(zip(axis.tickvals or (), axis.ticktext or (), strict=False))


def grid_frame(fig: go.Figure):
    """The text of a labelled grid (:func:`labelled_grid_figure`, :func:`memory_strip_figure`)
    as a table (:func:`relpos.tables.frames.text_grid_frame`): a chart's screen-reader
    alternative, cell for cell.

    Rows and columns are named by the axes' tick labels; a line break in a cell becomes
    a space (none after a "·").

    >>> grid_frame(labelled_grid_figure([["a", "b"]], [[0.0, 1.0]], "t", row_labels=["q1"],
    ...     column_labels=["k1", "k2"], row_title="query i", column_title="key j", limit=1))
    key j    k1 k2
    query i
    q1        a  b
    """
    rows, columns = _tick_names(fig.layout.yaxis), _tick_names(fig.layout.xaxis)
    cells: dict[tuple, str] = {}
    for trace in fig.data:
        if trace.type == "scatter" and trace.mode == "text":
            for x, y, text in zip(trace.x, trace.y, trace.text, strict=True):
                cells[(y, x)] = str(text).replace("·<br>", "·").replace("<br>", " ")
    return tables.text_grid_frame(
        [[cells.get((y, x), "") for x in columns] for y in rows],
        rows=list(rows.values()),
        columns=list(columns.values()),
        row_title=fig.layout.yaxis.title.text or "row",
        column_title=fig.layout.xaxis.title.text or "column",
    )
