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
    "DIVERGING",
    "SEQUENTIAL",
    "offset_map_figure",
    "score_heatmap",
    "symmetric_range",
    "weight_heatmap",
]

#: ColorBrewer RdBu (colour-blind safe), negative blue, zero white, positive red.
DIVERGING = "RdBu_r"
#: Sequential scale for weights in [0, 1] (perceptually uniform, colour-blind safe).
SEQUENTIAL = "Viridis"

_AXIS_FONT = {"size": 13}


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
                x=beyond[:, 1],
                y=beyond[:, 0],
                mode="markers",
                marker={"symbol": "x-thin", "size": 10, "line": {"width": 1.5, "color": "black"}},
                name=f"clipped (|j − i| > {k})",
                hoverinfo="skip",
                showlegend=True,
            )
        )
        fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return _matrix_layout(fig, n_q, n_k, title or f"offset map: table row used (k = {k})", height)
