"""Plotly figure builders for the app's heatmaps (no Streamlit imports).

Conventions shared by every page:

* matrix orientation: query ``i`` rows top to bottom, key ``j`` columns left to right,
  both labelled from 1, so cells with one offset ``j - i`` form a diagonal;
* score panels (content, bias, combined, differences) share one diverging,
  colour-blind-safe scale centred on 0 whose range comes from the data;
* weights use a sequential scale from 0 to 1.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.core import relative_offsets, table_rows
from relpos.tables import format_offset

__all__ = [
    "BLANK_CELL",
    "DIVERGING",
    "SEQUENTIAL",
    "WEIGHT_COLOURS",
    "enlarge",
    "highlight_cells",
    "offset_map_figure",
    "partial_score_heatmap",
    "score_heatmap",
    "symmetric_range",
    "table_strip_figure",
    "weight_bars_figure",
    "weight_heatmap",
]

#: ColorBrewer RdBu (colour-blind safe), negative blue, zero white, positive red.
DIVERGING = "RdBu_r"
#: Sequential scale for weights in [0, 1] (perceptually uniform, colour-blind safe).
SEQUENTIAL = "Viridis"

_AXIS_FONT = {"size": 13}
#: Background of cells with no value yet (distinct from the white of a zero score).
BLANK_CELL = "#e6e6e6"
#: Bar colours for content-only vs combined weights: grey baseline, Okabe-Ito blue.
WEIGHT_COLOURS = {"content-only": "#9a9a9a", "combined": "#0072B2"}


def symmetric_range(*matrices) -> float:
    """Half-width of a colour range centred on 0 that covers every matrix (never 0).

    >>> symmetric_range([[0.5, -2.0]], [[1.0]])
    2.0
    """
    largest = max(float(np.max(np.abs(np.asarray(m)))) for m in matrices)
    return largest if largest > 0 else 1.0


def _cell_text(matrix: np.ndarray, decimals: int) -> list[list[str]]:
    """Numbers printed in the cells, with a true minus sign."""
    return [[f"{value:.{decimals}f}".replace("-", "−") for value in row] for row in matrix]


def _matrix_layout(fig: go.Figure, n_q: int, n_k: int, title: str, height: int | None) -> go.Figure:
    """Label axes from 1, put row 1 at the top and keep cells square."""
    fig.update_layout(
        title={"text": title, "x": 0.5, "xanchor": "center"},
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        height=height or max(260, 40 * n_q + 120),
        font={"size": 14},
    )
    fig.update_xaxes(
        title={"text": "key position j", "font": _AXIS_FONT},
        tickmode="array",
        tickvals=list(range(n_k)),
        ticktext=[str(j + 1) for j in range(n_k)],
        side="bottom",
        constrain="domain",
    )
    fig.update_yaxes(
        title={"text": "query position i", "font": _AXIS_FONT},
        tickmode="array",
        tickvals=list(range(n_q)),
        ticktext=[str(i + 1) for i in range(n_q)],
        autorange="reversed",  # matrix orientation: row 1 on top
        scaleanchor="x",
        constrain="domain",
    )
    return fig


def _heatmap(matrix, title, *, colorscale, zmin, zmax, zmid, text, decimals, hovertext, height):
    matrix = np.asarray(matrix, dtype=float)
    n_q, n_k = matrix.shape
    trace = go.Heatmap(
        z=matrix,
        x=list(range(n_k)),
        y=list(range(n_q)),
        colorscale=colorscale,
        zmin=zmin,
        zmax=zmax,
        zmid=zmid,
        colorbar={"thickness": 14, "len": 0.9},
        xgap=1,
        ygap=1,
    )
    if text:
        trace.update(text=_cell_text(matrix, decimals), texttemplate="%{text}", textfont={"size": 14})
    if hovertext is not None:
        trace.update(hovertext=hovertext, hoverinfo="text")
    else:
        trace.update(hovertemplate="query i=%{customdata[0]}, key j=%{customdata[1]}<br>%{z:.4f}<extra></extra>")
        trace.update(customdata=np.dstack(np.indices((n_q, n_k)) + 1))
    return _matrix_layout(go.Figure(trace), n_q, n_k, title, height)


def score_heatmap(
    matrix,
    title: str,
    *,
    limit: float | None = None,
    text: bool = True,
    decimals: int = 2,
    hovertext=None,
    height: int | None = None,
) -> go.Figure:
    """Heatmap of a score-like matrix on the shared diverging scale centred on 0.

    Parameters
    ----------
    matrix : array_like, shape (n_q, n_k)
    title : str
    limit : float, optional
        Colour range ``[-limit, limit]``; pass the same value to every panel that is
        compared side by side (see :func:`symmetric_range`). Defaults to the data's own.
    text : bool
        Print the numbers in the cells.
    hovertext : array_like of str, shape (n_q, n_k), optional
        Replaces the default hover label (e.g. the cell's arithmetic).
    """
    limit = symmetric_range(matrix) if limit is None else limit
    return _heatmap(
        matrix,
        title,
        colorscale=DIVERGING,
        zmin=-limit,
        zmax=limit,
        zmid=0.0,
        text=text,
        decimals=decimals,
        hovertext=hovertext,
        height=height,
    )


def weight_heatmap(
    matrix, title: str, *, text: bool = True, decimals: int = 2, hovertext=None, height: int | None = None
) -> go.Figure:
    """Heatmap of attention weights on the sequential 0–1 scale."""
    return _heatmap(
        matrix,
        title,
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=1.0,
        zmid=None,
        text=text,
        decimals=decimals,
        hovertext=hovertext,
        height=height,
    )


def offset_map_figure(n_q: int, n_k: int, k: int, *, title: str | None = None, height: int | None = None):
    """Which table row (offset) each pair uses; clipped cells (|j − i| > k) are marked.

    Colours are the clipped offsets ``-k..+k`` (constant along each diagonal); a cell
    whose true offset lies beyond the window shows e.g. ``+3→+2``.
    """
    rows = table_rows(n_q, n_k, k)  # (n_q, n_k), values 0..2k
    offsets = relative_offsets(n_q, n_k)  # (n_q, n_k)
    clipped = rows - k
    labels = [
        [
            format_offset(o) if o == c else f"{format_offset(o)}→{format_offset(c)}"
            for o, c in zip(offset_row, clipped_row, strict=True)
        ]
        for offset_row, clipped_row in zip(offsets, clipped, strict=True)
    ]
    hover = [
        [
            f"query i={i + 1}, key j={j + 1}<br>offset j−i = {offsets[i, j]:+d}"
            f"<br>clipped to {clipped[i, j]:+d} → table row a^K[{clipped[i, j]:+d}]"
            + (" (clipped)" if offsets[i, j] != clipped[i, j] else "")
            for j in range(n_k)
        ]
        for i in range(n_q)
    ]
    limit = max(k, 1)
    fig = go.Figure(
        go.Heatmap(
            z=clipped,
            x=list(range(n_k)),
            y=list(range(n_q)),
            colorscale="PuOr",
            zmin=-limit,
            zmax=limit,
            text=labels,
            texttemplate="%{text}" if n_q * n_k <= 256 else None,
            textfont={"size": 13},
            hovertext=hover,
            hoverinfo="text",
            colorbar={"title": {"text": "a^K offset"}, "tickvals": list(range(-k, k + 1)), "thickness": 14},
            xgap=1,
            ygap=1,
        )
    )
    beyond = np.argwhere(offsets != clipped)
    if len(beyond):
        fig.add_trace(
            go.Scatter(
                # in the cell's top-right corner, clear of the "+3→+2" label in its centre
                x=beyond[:, 1] + 0.32,
                y=beyond[:, 0] - 0.3,
                mode="markers",
                marker={"symbol": "x", "size": 11, "color": "white", "line": {"width": 1.2, "color": "black"}},
                name=f"clipped (|j − i| > {k})",
                hoverinfo="skip",
                showlegend=True,
            )
        )
        fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return _matrix_layout(fig, n_q, n_k, title or f"offset map: table row used (k = {k})", height)


def highlight_cells(fig: go.Figure, cells, *, width: float = 3.0) -> go.Figure:
    """Outline matrix cells ``(i, j)`` (0-based) of a heatmap drawn by this module.

    Each outline is a black frame over a wider white one, so it shows on dark and
    light cells alike. Returns `fig` (changed in place) for chaining.

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
                fillcolor="rgba(0,0,0,0)",
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
    hovertext=None,
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
    hovertext : array_like of str, shape (n_q, n_k), optional

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
    fig = score_heatmap(shown, title, limit=limit, text=False, hovertext=hovertext, height=height)
    text = [
        [cell if keep else "" for cell, keep in zip(row, keep_row, strict=True)]
        for row, keep_row in zip(_cell_text(scores, 2), reached, strict=True)
    ]
    fig.update_traces(text=text, texttemplate="%{text}", textfont={"size": 14}, selector={"type": "heatmap"})
    fig.update_layout(plot_bgcolor=BLANK_CELL)
    return highlight_cells(fig, current)


def weight_bars_figure(content_weights, weights, title: str, *, labels=None, height: int | None = None) -> go.Figure:
    """Grouped bars: each key's content-only weight next to its combined weight, values printed.

    Parameters
    ----------
    content_weights, weights : array_like, shape (n_k,)
        One query row's softmax weights without and with the position term.
    title : str
    labels : sequence of str, length n_k, optional
        Category labels; default ``key 1 .. key n``.

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
        ("content only", content_weights, WEIGHT_COLOURS["content-only"]),
        ("combined", weights, WEIGHT_COLOURS["combined"]),
    ):
        fig.add_trace(
            go.Bar(
                x=labels,
                y=values,
                name=name,
                marker={"color": colour},
                text=[f"{value:.3f}" for value in values],
                textposition="outside",
                textfont={"size": 14, "color": "#222222"},
                cliponaxis=False,
                hovertemplate="%{x}: " + name + " weight %{y:.4f}<extra></extra>",
            )
        )
    top = float(max(content_weights.max(), weights.max()))
    fig.update_layout(
        title={"text": title, "x": 0.5, "xanchor": "center"},
        barmode="group",
        bargap=0.12,
        bargroupgap=0.02,
        # Plotly would shrink labels wider than a bar; keep every value readable
        uniformtext={"minsize": 13, "mode": "show"},
        height=height or 380,
        font={"size": 14},
        margin={"l": 60, "r": 20, "t": 90, "b": 60},
        legend={"orientation": "h", "x": 0.5, "xanchor": "center", "y": 1.0, "yanchor": "bottom"},
        plot_bgcolor="white",
    )
    fig.update_yaxes(
        title={"text": "attention weight", "font": _AXIS_FONT},
        range=[0, top * 1.2 if top > 0 else 1.0],
        gridcolor="#dddddd",
        zeroline=True,
        zerolinecolor="#888888",
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
    fig = score_heatmap(values[None, :], title, height=height or 170, decimals=2)
    fig.update_traces(
        hovertemplate=None,
        hovertext=[
            [f"offset {format_offset(o)}: a^K = {v:.4f}" for o, v in zip(range(-k, k + 1), values, strict=True)]
        ],
        hoverinfo="text",
        colorbar={"thickness": 10, "len": 1.0},
        selector={"type": "heatmap"},
    )
    fig.update_xaxes(
        title=None,
        ticktext=[f"offset {format_offset(o).replace('-', '−')}<br>row {o + k}" for o in range(-k, k + 1)],
    )
    fig.update_yaxes(showticklabels=False, title=None)
    fig.update_layout(margin={"l": 20, "r": 20, "t": 50, "b": 50})
    return highlight_cells(fig, [(0, offset + k) for offset in used])


def enlarge(fig: go.Figure, factor: float) -> go.Figure:
    """Scale a figure's fonts, height and outlines by `factor` (presenter mode); in place.

    >>> fig = enlarge(score_heatmap([[1.0]], "t", height=300), 1.5)
    >>> fig.layout.height, fig.layout.font.size
    (450, 21.0)
    """
    layout = fig.layout
    fig.update_layout(
        font={"size": (layout.font.size or 12) * factor},
        height=int((layout.height or 450) * factor),
    )
    base = fig.layout.font.size
    for axis in (layout.xaxis, layout.yaxis):
        if axis.title and axis.title.font and axis.title.font.size:
            axis.title.font.size = axis.title.font.size * factor
        axis.tickfont.size = (axis.tickfont.size or base / factor) * factor
    if layout.title and layout.title.font and layout.title.font.size:
        layout.title.font.size = layout.title.font.size * factor
    for trace in fig.data:
        textfont = getattr(trace, "textfont", None)
        if textfont is not None and textfont.size:
            trace.textfont.size = textfont.size * factor
        marker = getattr(trace, "marker", None)
        if marker is not None and getattr(marker, "size", None):
            marker.size = marker.size * factor
    if layout.uniformtext and layout.uniformtext.minsize:
        layout.uniformtext.minsize = layout.uniformtext.minsize * factor
    for shape in layout.shapes:
        if shape.line and shape.line.width:
            shape.line.width = shape.line.width * factor
    return fig
