"""The Walkthrough's figures (no Streamlit): the score matrix filling in stop by stop,
the current cells outlined, weight bars, the a^K table strip, and presenter-mode enlarging.

The offset map is :func:`relpos.plots.offset_map.offset_map_figure`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.plots import style
from relpos.plots.heatmaps import cell_text, score_heatmap, symmetric_range
from relpos.plots.offset_map import offset_map_figure
from relpos.plots.style import HeatmapStyle
from relpos.text import numbers as num

__all__ = [
    "colour_bar_below",
    "highlight_cells",
    "minimum_fonts",
    "offset_map_for_stop",
    "partial_score_heatmap",
    "score_hover",
    "stop_score_matrix",
    "stop_weight_bars",
    "table_strip_figure",
    "table_strip_for_stop",
    "weight_bars_figure",
]


def weight_bars_figure(
    content_weights, weights, title: str, *, labels=None, height: int | None = None, decimals: int = 3
) -> go.Figure:
    """Grouped bars: each key's content-only weight next to its combined weight, values printed.

    Parameters
    ----------
    content_weights, weights : array_like, shape (n_k,)
        One query row's softmax weights without and with the position term.
    title : str
    labels : sequence of str, length n_k, optional
        Category labels; default ``key 1 .. key n``.
    decimals : int
        Decimals of the values printed over the bars (a projector's 20 px labels need two
        to stay apart over narrow bars).

    Examples
    --------
    >>> fig = weight_bars_figure([0.4, 0.6], [0.5, 0.5], "t")
    >>> [trace.name for trace in fig.data], fig.data[1].text
    (['content only', 'combined'], ('0.500', '0.500'))
    """
    content_weights = np.asarray(content_weights, dtype=float)  # (n_k,)
    weights = np.asarray(weights, dtype=float)  # (n_k,)
    if content_weights.shape != weights.shape or weights.ndim != 1:
        raise ValueError(
            f"content_weights and weights must be 1-D of one length; got {content_weights.shape} and {weights.shape}"
        )
    labels = list(labels) if labels is not None else [f"key {j + 1}" for j in range(weights.size)]
    fig = go.Figure()
    for name, values, colour in (
        ("content only", content_weights, style.WEIGHT_COLOURS["content-only"]),
        ("combined", weights, style.WEIGHT_COLOURS["combined"]),
    ):
        fig.add_trace(
            go.Bar(
                x=labels,
                y=values,
                name=name,
                marker={"color": colour},
                text=[num.number(value, decimals) for value in values],
                textposition="outside",
                textfont={"size": style.FONT_SIZE},  # in the theme's text colour
                cliponaxis=False,
                hovertemplate="%{x}: " + name + " weight %{y:.4f}<extra></extra>",
            )
        )
    top = float(max(content_weights.max(), weights.max()))
    fig.update_layout(
        title=style.centred_title(title),
        barmode="group",
        bargap=0.12,
        bargroupgap=0.02,
        # Plotly would shrink labels wider than a bar; keep every value readable
        uniformtext={"minsize": style.SMALL_FONT_SIZE, "mode": "show"},
        height=height or 380,
        font={"size": style.FONT_SIZE},
        margin=style.WEIGHT_BARS_MARGIN.plotly(),
        legend={"orientation": "h", "x": 0.5, "xanchor": "center", "y": 1.0, "yanchor": "bottom"},
    )
    fig.update_yaxes(
        title=style.axis_title("attention weight"),
        range=[0, top * 1.2 if top > 0 else 1.0],
        gridcolor=style.palette().grid,
        zeroline=True,
        zerolinecolor=style.GUIDE_GREY,
    )
    return fig


def table_strip_figure(table, title: str, *, used=(), height: int | None = None) -> go.Figure:
    """The (2k+1,) table a^K as one row of cells labelled by offset ``-k..+k``.

    Parameters
    ----------
    table : array_like, shape (2k+1,)
        Entry ``r`` is the embedding of offset ``r - k`` (d = 1).
    title : str
    used : iterable of int
        Offsets whose cells are outlined (the row the current pair reads).

    Examples
    --------
    >>> fig = table_strip_figure([-0.3, 0.4, 0.1], "t", used=[1])
    >>> list(fig.layout.xaxis.ticktext), len(fig.layout.shapes)
    (['offset −1<br>row 0', 'offset 0<br>row 1', 'offset +1<br>row 2'], 2)
    """
    values = np.asarray(table, dtype=float).reshape(-1)  # (2k+1,)
    if values.size % 2 == 0:
        raise ValueError(f"table must have an odd number of entries 2k+1; got {values.size}")
    k = (values.size - 1) // 2
    fig = score_heatmap(values[None, :], title, look=HeatmapStyle(height=height or 170))
    fig.update_traces(
        hovertemplate=None,
        hovertext=[
            [
                f"offset {num.offset(o)}: aᴷ{num.offset_subscript(o)} = {num.number(v, 4)}"
                for o, v in zip(range(-k, k + 1), values, strict=True)
            ]
        ],
        hoverinfo="text",
        colorbar={"thickness": 10, "len": 1.0},
        selector={"type": "heatmap"},
    )
    fig.update_xaxes(
        title=None,
        ticktext=[f"offset {num.offset(o)}<br>row {o + k}" for o in range(-k, k + 1)],
    )
    fig.update_yaxes(showticklabels=False, title=None)
    fig.update_layout(margin=style.STRIP_ROW_MARGIN.plotly())
    return highlight_cells(fig, [(0, offset + k) for offset in used])


def highlight_cells(fig: go.Figure, cells, *, width: float = 3.0) -> go.Figure:
    """Outline matrix cells ``(i, j)`` (0-based) of a heatmap shown alone; in place.

    Each outline is a black frame over a wider white one, so it shows on dark and
    light cells alike. Returns `fig` for chaining.

    >>> fig = highlight_cells(score_heatmap([[1.0, 2.0]], "t"), [(0, 1)])
    >>> [(shape.x0, shape.x1, shape.line.color) for shape in fig.layout.shapes]
    [(0.5, 1.5, 'white'), (0.5, 1.5, 'black')]
    """
    for i, j in cells:
        for colour, line_width in (("white", 2.5 * width), ("black", width)):
            fig.add_shape(
                type="rect",
                x0=j - 0.5,
                x1=j + 0.5,
                y0=i - 0.5,
                y1=i + 0.5,
                line={"color": colour, "width": line_width},
                fillcolor=style.TRANSPARENT,
                layer="above",
            )
    return fig


def partial_score_heatmap(
    scores,
    reached,
    title: str,
    *,
    limit: float | None = None,
    current=(),
    hover=None,
    height: int | None = None,
) -> go.Figure:
    """Score heatmap that shows only the cells computed so far; the rest stay blank.

    Parameters
    ----------
    scores : array_like, shape (n_q, n_k)
    reached : array_like of bool, shape (n_q, n_k)
        Cells to show; the others get no value (NaN) and no text, on a grey background.
    title : str
    limit : float, optional
        Colour range ``[-limit, limit]``; pass the range of all scores so colours do
        not shift while the matrix fills in. Defaults to the data's own.
    current : iterable of (i, j)
        Cells to outline (see :func:`highlight_cells`).
    hover : array_like of str, shape (n_q, n_k), optional

    Examples
    --------
    >>> fig = partial_score_heatmap([[1.0, 0.5]], [[True, False]], "t")
    >>> fig.data[0].text
    (['1.00', ''],)
    """
    scores = np.asarray(scores, dtype=float)  # (n_q, n_k)
    reached = np.asarray(reached, dtype=bool)  # (n_q, n_k)
    if reached.shape != scores.shape:
        raise ValueError(f"reached must have the shape of scores {scores.shape}; got {reached.shape}")
    limit = symmetric_range(scores) if limit is None else limit
    shown = np.where(reached, scores, np.nan)  # (n_q, n_k)
    fig = score_heatmap(shown, title, limit=limit, look=HeatmapStyle(height=height, text=False), hover=hover)
    text = [
        [cell if keep else "" for cell, keep in zip(row, keep_row, strict=True)]
        for row, keep_row in zip(cell_text(scores, 2), reached, strict=True)
    ]
    fig.update_traces(
        text=text, texttemplate="%{text}", textfont={"size": style.CELL_TEXT_SIZE}, selector={"type": "heatmap"}
    )
    fig.update_layout(plot_bgcolor=style.palette().blank_cell)
    return highlight_cells(fig, current)


def _raise_font(font, minimum: float, colour: str | None) -> None:
    """At least `minimum` px, in `colour` (None: the colour it has, as a heatmap's cell
    numbers, which Plotly draws light or dark to stand out from their cell)."""
    if font is not None:
        font.size = max(font.size or 0, minimum)
        if colour:
            font.color = colour


def minimum_fonts(fig: go.Figure, minimum: float = style.PRESENTER_MIN_FONT) -> go.Figure:
    """Raise every text of a figure (cell numbers, ticks, axis and legend titles, colour
    bar, sub- and superscripts, bar labels Plotly would shrink) to at least `minimum` px and
    draw it in the theme's ink (:attr:`~relpos.plots.style.Palette.ink`), not Streamlit's
    grey; in place. Presenter mode: read from the back row.

    >>> fig = minimum_fonts(score_heatmap([[1.0]], "t", look=HeatmapStyle(height=300)), 20)
    >>> fig.data[0].textfont.size, fig.layout.xaxis.tickfont.size, fig.layout.xaxis.title.font.size
    (20, 20, 20)
    """
    layout = fig.layout
    ink = style.palette().ink
    fig.update_layout(font={"size": max(layout.font.size or style.FONT_SIZE, minimum), "color": ink})
    if layout.uniformtext.minsize is not None:  # Plotly would shrink bar labels down to it
        layout.uniformtext.minsize = max(layout.uniformtext.minsize, minimum)
    for axis in (layout.xaxis, layout.yaxis):
        _raise_font(axis.tickfont, minimum, ink)
        if axis.title:
            _raise_font(axis.title.font, minimum, ink)
    if layout.title:
        _raise_font(layout.title.font, minimum, ink)
    _raise_font(layout.legend.font, minimum, ink)
    _raise_font(layout.hoverlabel.font, minimum, colour=None)  # Plotly picks it for the label's colour
    for trace in fig.data:
        if getattr(trace, "textfont", None) is not None:
            _raise_font(trace.textfont, minimum, colour=None)
        colorbar = getattr(trace, "colorbar", None)
        if colorbar is not None:
            _raise_font(colorbar.tickfont, minimum, ink)
            _full_size_scripts(colorbar.title, minimum)
    for title in (layout.title, layout.xaxis.title, layout.yaxis.title):
        _full_size_scripts(title, minimum)
    return fig


def _full_size_scripts(title, minimum: float) -> None:
    """A title's sub- and superscripts at no less than `minimum` px (or the title's own size)."""
    if title is not None and title.text:
        title.text = style.full_size_scripts(title.text, max(title.font.size or minimum, minimum))


#: Room (px) a colour bar under a chart takes: its ticks and its title.
COLOUR_BAR_ROOM = 70


def colour_bar_below(fig: go.Figure) -> go.Figure:
    """Move every colour bar of a figure under it, as wide as the figure; in place.

    A bar beside a chart takes a third of a phone's width from the cells; under the
    chart it takes only height (the figure grows by :data:`COLOUR_BAR_ROOM`).

    >>> fig = colour_bar_below(score_heatmap([[1.0]], "t", look=HeatmapStyle(height=300)))
    >>> fig.data[0].colorbar.orientation, fig.layout.height
    ('h', 370)
    """
    bars = [t for t in fig.data if getattr(t, "colorbar", None) is not None and t.showscale is not False]
    for trace in bars:
        trace.colorbar.update(
            orientation="h",
            x=0.5,
            xanchor="center",
            yref="container",
            y=0.0,
            yanchor="bottom",
            ypad=4,
            thickness=10,
            len=0.8,
            title={"side": "top"},
        )
    if bars:
        margin = fig.layout.margin
        room = COLOUR_BAR_ROOM + (30 if fig.layout.showlegend else 0)  # a legend under the axis stays clear
        fig.update_layout(
            height=(fig.layout.height or 450) + room,
            margin_b=(margin.b if margin.b is not None else 80) + room,  # its own margin, grown
        )
    return fig


# ---------------------------------------------------------------- one stop's figures
# Drawn alike by the page (relpos.topics.walkthrough.stage_view) and by a live class's follow view
# (relpos.topics.walkthrough.spec), from the stop's numbers; `hidden` names the cells whose
# score a question asks for while it is open (they stay "not computed yet").


def score_hover(steps, reached, n: int) -> list[list[str]]:
    """The hover text of each score cell: its sum, or "not computed yet".

    >>> from relpos.core.examples import worked_example
    >>> from relpos.topics.walkthrough.model import pair_steps
    >>> score_hover(pair_steps(worked_example()), np.eye(4, dtype=bool), 4)[0][:2]
    ['e(1,1) = content 0.9 + position 0.1 = 1.0', 'not computed yet']
    """
    hover = [["not computed yet" for _ in range(n)] for _ in range(n)]
    for step in steps:
        if reached[step.i][step.j]:
            content, position, score = (num.number(v, 4, trim=1) for v in (step.content, step.position, step.score))
            hover[step.i][step.j] = f"e({step.i + 1},{step.j + 1}) = content {content} + position {position} = {score}"
    return hover


def stop_score_matrix(scores, steps, reached, current, *, hidden=(), height: int = 420) -> go.Figure:
    """The score matrix as far as the lesson has computed it, the current cells outlined.

    Parameters
    ----------
    scores : array_like, shape (n, n)
    steps : sequence of PairStep, length n * n
    reached : array_like of bool, shape (n, n)
        Cells computed by this stop.
    current : iterable of (i, j)
        The stop's cells (outlined).
    hidden : iterable of (i, j)
        Cells a question asks for: drawn as not computed yet.
    """
    reached = np.array(reached, dtype=bool)  # (n, n), a copy: hidden cells are cleared
    for i, j in hidden:
        reached[i, j] = False
    n = reached.shape[0]
    return partial_score_heatmap(
        scores,
        reached,
        "Scores e<sub>ij</sub> computed so far",
        limit=symmetric_range(scores),
        current=current,
        hover=score_hover(steps, reached, n),
        height=height,
    )


def stop_weight_bars(shift, row_steps, *, presenter: bool = False, combined: bool = True) -> go.Figure:
    """A softmax stop's bars: each key's content-only weight beside its combined weight
    (only the content-only bars while a question asks which key gains most)."""
    labels = [f"key {s.j + 1}<br>offset {num.offset(s.offset)}" for s in row_steps]
    # while the class predicts which key gains most, only the content-only bars are drawn
    shown = "content only vs combined" if combined else "content only (combined after the reveal)"
    title = f"Weights of query {shift.row + 1}" + ("" if presenter else f": {shown}")
    fig = weight_bars_figure(
        shift.content_weights,
        shift.weights,
        title,
        labels=labels,
        height=380,
        decimals=2 if presenter else 3,  # the formula beside the bars has three
    )
    if not combined:
        fig.data = fig.data[:1]
    return fig


def offset_map_for_stop(n: int, k: int, current) -> go.Figure:
    """The offset map with the stop's cells outlined."""
    fig = offset_map_figure(n, n, k, title=f"Offset map: clipped offset j − i (k = {k})", height=420)
    return highlight_cells(fig, current)


def table_strip_for_stop(table, used) -> go.Figure:
    """The a^K table with the entries the stop reads outlined."""
    k = (len(table) - 1) // 2
    return table_strip_figure(table, f"The table a<sup>K</sup>: 2k + 1 = {2 * k + 1} entries", used=used, height=190)
