"""Plotly figure builders for the app's heatmaps (no Streamlit imports).

Conventions shared by every page:

* matrix orientation: query ``i`` rows top to bottom, key ``j`` columns left to right,
  both labelled from 1, so cells with one offset ``j - i`` form a diagonal;
* score panels (content, bias, combined, differences) share one diverging,
  colour-blind-safe scale centred on 0 whose range comes from the data;
* weights use a sequential scale from 0 to 1.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from relpos.core import relative_offsets, table_rows
from relpos.tables import format_offset

__all__ = [
    "DIVERGING",
    "LARGE_CELLS",
    "SEQUENTIAL",
    "add_window_outline",
    "offset_map_figure",
    "score_heatmap",
    "symmetric_range",
    "weight_heatmap",
    "window_staircases",
]

#: ColorBrewer RdBu (colour-blind safe), negative blue, zero white, positive red.
DIVERGING = "RdBu_r"
#: Sequential scale for weights in [0, 1] (perceptually uniform, colour-blind safe).
SEQUENTIAL = "Viridis"

_AXIS_FONT = {"size": 13}

#: Above this many cells (64 × 64) a heatmap drops per-cell text, hover labels and
#: markers: they would outweigh the data itself in the figure sent to the browser.
LARGE_CELLS = 4096


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


#: Margins (px) of panels shown side by side: room for the title above and for the
#: axis title and a horizontal colour bar below, so every panel's square plot area is
#: the same size whatever its colour bar's labels.
PANEL_MARGIN = {"l": 52, "r": 8, "t": 40, "b": 104}


#: Panels put cell (i, j) (0-based) at x = j + PANEL_ORIGIN, y = i + PANEL_ORIGIN, so the
#: coordinates are the 1-based positions and hover templates can show %{x} and %{y}.
PANEL_ORIGIN = 1


def _panel_side(height: int) -> int:
    """Side (px) of the square plot area of a panel of this height."""
    return height - PANEL_MARGIN["t"] - PANEL_MARGIN["b"]


def _panel_colorbar(height: int) -> dict:
    """A horizontal colour bar under the x-axis title, as wide as the plot area."""
    return {
        "orientation": "h",
        "x": 0.5,
        "xanchor": "center",
        "y": -78 / _panel_side(height),  # 78 px below the plot area, in paper units
        "yanchor": "top",
        "thickness": 10,
        "len": 0.9,  # of the plot area's width, which a width-limited square fills
        "tickfont": {"size": 11},
    }


def _tick_step(n: int) -> int:
    """Label every position up to 16, else every `step`-th with a round step (at most 8 labels).

    >>> _tick_step(12), _tick_step(24), _tick_step(512)
    (1, 4, 64)
    """
    if n <= 16:
        return 1
    return next(s for s in (2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 256, 512) if n / s <= 8)


def _tick_positions(n: int) -> list[int]:
    """0-based positions to label: all of them up to 16, else 1 and round numbers (at most ~9).

    >>> [p + 1 for p in _tick_positions(512)]
    [1, 64, 128, 192, 256, 320, 384, 448, 512]
    >>> [p + 1 for p in _tick_positions(24)]
    [1, 4, 8, 12, 16, 20, 24]
    """
    step = _tick_step(n)
    return list(range(n)) if step == 1 else [0, *range(step - 1, n, step)]


def _matrix_layout_dict(n_q: int, n_k: int, title: str, height: int | None, panel_height: int | None = None) -> dict:
    """Layout that labels axes from 1, puts row 1 at the top and keeps cells square."""
    x_ticks, y_ticks = _tick_positions(n_k), _tick_positions(n_q)
    layout = {
        "title": {"text": title, "x": 0.5, "xanchor": "center"},
        "margin": {"l": 60, "r": 20, "t": 60, "b": 50},
        "height": height or max(260, 40 * n_q + 120),
        "font": {"size": 14},
        "xaxis": {
            "title": {"text": "key position j", "font": _AXIS_FONT},
            "tickmode": "array",
            "tickvals": x_ticks,
            "ticktext": [str(j + 1) for j in x_ticks],
            "side": "bottom",
            "constrain": "domain",
        },
        "yaxis": {
            "title": {"text": "query position i", "font": _AXIS_FONT},
            "tickmode": "array",
            "tickvals": y_ticks,
            "ticktext": [str(i + 1) for i in y_ticks],
            "autorange": "reversed",  # matrix orientation: row 1 on top
            "scaleanchor": "x",
            "constrain": "domain",
        },
    }
    if panel_height is not None:
        layout.update(
            # Streamlit's theme replaces the whole template, so plotly's default one
            # (two thirds of a small figure's bytes and build time) is never seen
            template={},
            hoverlabel={"align": "left"},  # multi-line arithmetic reads better flush left
            height=panel_height,
            margin=PANEL_MARGIN,
            title={"text": title, "x": 0.5, "xanchor": "center", "y": 0.985, "yanchor": "top", "font": {"size": 15}},
        )
        layout["xaxis"]["title"]["standoff"] = 4
        # a width-limited square sits on its axis and colour bar; spare room goes above
        layout["yaxis"]["constraintoward"] = "bottom"
        # panels place cell (i, j) at y = i + 1, x = j + 1 (see PANEL_ORIGIN), so evenly
        # spaced ticks need no lists of positions and labels
        for axis, n in (("xaxis", n_k), ("yaxis", n_q)):
            step = _tick_step(n)
            for name in ("tickvals", "ticktext"):
                del layout[axis][name]
            layout[axis].update(tickmode="linear", tick0=1 if step == 1 else 0, dtick=step)
        # fixed ranges: the outline's line width would otherwise widen the autorange
        layout["xaxis"]["range"] = [0.5, n_k + 0.5]
        layout["yaxis"]["range"] = [n_q + 0.5, 0.5]  # matrix orientation: row 1 on top
        del layout["yaxis"]["autorange"]
    return layout


def _matrix_layout(fig: go.Figure, n_q: int, n_k: int, title: str, height: int | None) -> go.Figure:
    """Label axes from 1, put row 1 at the top and keep cells square (on an existing figure)."""
    fig.update_layout(_matrix_layout_dict(n_q, n_k, title, height))
    return fig


@cache
def _colorscale(name: str) -> tuple[tuple[float, str], ...]:
    """A named colour scale as explicit (position, colour) pairs.

    Plotly.js knows only some names (not ColorBrewer's PuOr, nor the "_r" reversal,
    which plotly.py expands); a figure built without validation must send the list.
    """
    return tuple((float(position), colour) for position, colour in plotly.colors.get_colorscale(name))


def _figure(spec: dict, validate: bool) -> go.Figure:
    """One constructor call from plain dicts (updating a figure, or wrapping go.Heatmap,
    validates everything again). ``validate=False`` skips Plotly's per-property checks
    (about 6x faster); only for specs whose validity the tests check."""
    return go.Figure(spec, _validate=validate)


def _heatmap(
    matrix,
    title,
    *,
    colorscale,
    zmin,
    zmax,
    zmid,
    text,
    decimals,
    hovertext,
    height,
    text_size=14,
    panel_height=None,
    cell_format=None,
    customdata=None,
    hovertemplate=None,
    outline_k=None,
    validate=True,
):
    matrix = np.asarray(matrix)
    # float32 input stays float32: half the bytes sent to the browser for large panels
    matrix = matrix if matrix.dtype == np.float32 else matrix.astype(float)
    n_q, n_k = matrix.shape
    large = matrix.size > LARGE_CELLS
    trace = {
        "z": matrix,
        "colorscale": [list(pair) for pair in _colorscale(colorscale)] if isinstance(colorscale, str) else colorscale,
        "zmin": zmin,
        "zmax": zmax,
        "zmid": zmid,
        "colorbar": _panel_colorbar(panel_height) if panel_height else {"thickness": 14, "len": 0.9},
        "xgap": 0 if large else 1,
        "ygap": 0 if large else 1,
    }
    if panel_height:
        trace.update(x0=PANEL_ORIGIN, dx=1, y0=PANEL_ORIGIN, dy=1)
    else:
        trace.update(x=list(range(n_k)), y=list(range(n_q)))
    if text:
        if cell_format:  # the browser formats z: no string per cell to build and send
            trace["texttemplate"] = f"%{{z:{cell_format}}}"
        else:
            trace.update(text=_cell_text(matrix, decimals), texttemplate="%{text}")
        if text_size:  # None: Plotly fits the numbers to the cells
            trace["textfont"] = {"size": text_size}
    if hovertemplate is not None:
        trace.update(hovertemplate=hovertemplate, customdata=customdata)
    elif hovertext is not None:
        trace.update(hovertext=hovertext, hoverinfo="text")
    elif large:
        # per-cell (i, j) labels would double the payload; a panel's coordinates are the positions
        where = "query i = %{y}, key j = %{x}<br>" if panel_height else ""
        trace.update(hovertemplate=where + "%{z:.3f}<extra></extra>")
    else:
        trace.update(
            hovertemplate="query i=%{customdata[0]}, key j=%{customdata[1]}<br>%{z:.4f}<extra></extra>",
            customdata=np.dstack(np.indices((n_q, n_k)) + 1),
        )
    layout = _matrix_layout_dict(n_q, n_k, title, height, panel_height)
    if outline_k is not None:
        layout["shapes"] = _outline_shapes(n_q, n_k, outline_k, origin=PANEL_ORIGIN if panel_height else 0)
    return _figure({"data": [{"type": "heatmap", **trace}], "layout": layout}, validate)


def score_heatmap(
    matrix,
    title: str,
    *,
    limit: float | None = None,
    text: bool = True,
    decimals: int = 2,
    hovertext=None,
    height: int | None = None,
    text_size: int = 14,
    panel_height: int | None = None,
    cell_format: str | None = None,
    customdata=None,
    hovertemplate: str | None = None,
    outline_k: int | None = None,
    validate: bool = True,
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
    text_size : int or None
        Font size of the numbers in the cells; None lets Plotly fit them to the cells.
    panel_height : int, optional
        Lay the figure out as one of several equal panels side by side: this height,
        fixed margins and a horizontal colour bar below (overrides `height`).
    cell_format : str, optional
        A d3 format such as ``".2f"``: the browser prints z in the cells (no string
        per cell is sent); otherwise `decimals` formats them here.
    customdata, hovertemplate : optional
        Per-cell numbers ``(n_q, n_k, fields)`` and the hover template that reads
        them (see :mod:`relpos.hover`); they take precedence over `hovertext`.
    outline_k : int, optional
        Draw the clipping window ``|j − i| <= outline_k`` as dashed lines.
    validate : bool
        Let Plotly check every property (False is faster; see :func:`_figure`).

    A float32 `matrix` is sent as float32; above :data:`LARGE_CELLS` cells the
    default hover label shows only the value.
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
        text_size=text_size,
        panel_height=panel_height,
        cell_format=cell_format,
        customdata=customdata,
        hovertemplate=hovertemplate,
        outline_k=outline_k,
        validate=validate,
    )


def weight_heatmap(
    matrix,
    title: str,
    *,
    text: bool = True,
    decimals: int = 2,
    hovertext=None,
    height: int | None = None,
    text_size: int = 14,
    panel_height: int | None = None,
    cell_format: str | None = None,
    customdata=None,
    hovertemplate: str | None = None,
    validate: bool = True,
) -> go.Figure:
    """Heatmap of attention weights on the sequential 0–1 scale (options as :func:`score_heatmap`)."""
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
        text_size=text_size,
        panel_height=panel_height,
        cell_format=cell_format,
        customdata=customdata,
        hovertemplate=hovertemplate,
        validate=validate,
    )


def window_staircases(n_q: int, n_k: int, k: int) -> list[list[tuple[float, float]]]:
    """Cell-edge paths separating offsets within ``±k`` from the clipped ones.

    Returns up to two polylines in heatmap coordinates (cell ``(i, j)`` centred at
    ``x = j, y = i``): between offsets ``+k`` and ``+k+1`` (above the window) and
    between ``-k`` and ``-k-1`` (below it). A side with no clipped cell has no path.

    Examples
    --------
    >>> window_staircases(3, 3, 1)
    [[(1.5, -0.5), (1.5, 0.5), (2.5, 0.5)], [(-0.5, 1.5), (0.5, 1.5), (0.5, 2.5)]]
    >>> window_staircases(3, 3, 2)
    []
    """
    paths = []
    if k + 1 <= n_k - 1:  # some key is more than k after its query
        x, y, path = k + 0.5, -0.5, [(k + 0.5, -0.5)]
        while y < n_q - 0.5 and x < n_k - 0.5:
            y += 1
            path.append((x, y))
            if y < n_q - 0.5:
                x += 1
                path.append((x, y))
        paths.append(path)
    if k + 1 <= n_q - 1:  # some key is more than k before its query
        x, y, path = -0.5, k + 0.5, [(-0.5, k + 0.5)]
        while x < n_k - 0.5 and y < n_q - 0.5:
            x += 1
            path.append((x, y))
            if x < n_k - 0.5:
                y += 1
                path.append((x, y))
        paths.append(path)
    return paths


def _outline_shapes(n_q: int, n_k: int, k: int, color: str = "black", origin: int = 0) -> list[dict]:
    return [
        {
            "type": "path",
            "path": "M " + " L ".join(f"{x + origin},{y + origin}" for x, y in path),
            "line": {"color": color, "width": 2, "dash": "dash"},
            "layer": "above",
        }
        for path in window_staircases(n_q, n_k, k)
    ]


def add_window_outline(fig: go.Figure, n_q: int, n_k: int, k: int, *, color: str = "black") -> go.Figure:
    """Draw dashed lines around the clipping window ``|j − i| <= k`` on a matrix figure."""
    fig.update_layout(shapes=list(fig.layout.shapes) + _outline_shapes(n_q, n_k, k, color))
    return fig


def offset_map_figure(
    n_q: int,
    n_k: int,
    k: int,
    *,
    title: str | None = None,
    height: int | None = None,
    outline: bool = False,
    text_size: int = 13,
    panel_height: int | None = None,
    validate: bool = True,
):
    """Which table row (offset) each pair uses; clipped cells (|j − i| > k) are marked.

    Colours are the clipped offsets ``-k..+k`` (constant along each diagonal); a cell
    whose true offset lies beyond the window shows e.g. ``+3→+2``. With ``outline``
    dashed lines separate the window from the clipped region; ``panel_height`` lays
    the figure out like the other panels (see :func:`score_heatmap`; the × markers
    then have no legend entry). Above :data:`LARGE_CELLS` cells the labels, per-cell
    hover text and × markers are left out (the colours and the outline still show
    everything) and ``z`` holds the table row ``0..2k`` as uint8 (uint16 for k >= 128).
    """
    rows = table_rows(n_q, n_k, k)  # (n_q, n_k), values 0..2k
    offsets = relative_offsets(n_q, n_k)  # (n_q, n_k)
    clipped = rows - k
    large = n_q * n_k > LARGE_CELLS
    limit = max(k, 1)
    colorbar = {"title": {"text": "a^K offset"}, "tickvals": list(range(-k, k + 1)) if k <= 8 else None}
    if panel_height:
        colorbar = {**_panel_colorbar(panel_height), "tickvals": colorbar["tickvals"]}
    else:
        colorbar["thickness"] = 14
    origin = PANEL_ORIGIN if panel_height else 0
    trace = {
        "z": clipped,
        **(
            {"x0": origin, "dx": 1, "y0": origin, "dy": 1}
            if panel_height
            else {"x": list(range(n_k)), "y": list(range(n_q))}
        ),
        "colorscale": [list(pair) for pair in _colorscale("PuOr")],
        "zmin": -limit,
        "zmax": limit,
        "colorbar": colorbar,
        "xgap": 0 if large else 1,
        "ygap": 0 if large else 1,
    }
    if large:
        # send the table row 0..2k (uint8/16, not signed offsets): negative integers
        # are 0xFF bytes, i.e. '/' in base64, which Plotly's JSON escapes to 6 chars
        trace.update(
            z=rows.astype(np.uint8 if k < 128 else np.uint16),
            zmin=k - limit,
            zmax=k + limit,
            hovertemplate=("query i = %{y}, key j = %{x}<br>" if panel_height else "")
            + f"a<sup>K</sup> row %{{z}}: offset = row − {k}<extra></extra>",
        )
        ticks = list(range(-k, k + 1)) if k <= 8 else [-k, -k // 2, 0, k // 2, k]
        trace["colorbar"] = {
            **colorbar,
            "tickvals": [t + k for t in ticks],
            "ticktext": [format_offset(t) for t in ticks],
        }
    elif panel_height:
        # as a panel: numbers and arithmetic formatted by the browser from one small
        # int array, instead of two strings per cell
        trace.update(
            texttemplate="%{z}" if n_q * n_k <= 256 else None,
            customdata=offsets[..., None].astype(np.int16),
            hovertemplate=(
                "query i = %{y}, key j = %{x}<br>offset j − i = %{customdata[0]:+d}"
                " → table row a<sup>K</sup><sub>%{z:+d}</sub><extra></extra>"
            ),
        )
        if text_size:
            trace["textfont"] = {"size": text_size}
    else:
        # "+3→+2" fits a cell only in small panels; larger ones show the row and an ×
        arrows = not panel_height or n_q * n_k <= 36
        labels = [
            [
                format_offset(c) if o == c or not arrows else f"{format_offset(o)}→{format_offset(c)}"
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
        trace.update(
            text=labels,
            texttemplate="%{text}" if n_q * n_k <= 256 else None,
            textfont={"size": text_size} if text_size else None,
            hovertext=hover,
            hoverinfo="text",
        )
    data = [{"type": "heatmap", **trace}]
    layout = _matrix_layout_dict(n_q, n_k, title or f"offset map: table row used (k = {k})", height, panel_height)
    beyond = np.argwhere(offsets != clipped)
    # in a larger panel the outline marks the clipped region; a × per cell would be noise
    if len(beyond) and not large and (not panel_height or n_q * n_k <= 64):
        # as a panel the cells also carry labels: put the × in each cell's top-right corner
        corner = 0.32 if panel_height else 0.0
        data.append(
            dict(
                type="scatter",
                x=beyond[:, 1] + origin + corner,
                y=beyond[:, 0] + origin - corner,
                mode="markers",
                marker=(
                    # white with a black rim: visible on the darkest and the lightest cells
                    {"symbol": "x", "size": 8, "color": "white", "line": {"width": 1, "color": "black"}}
                    if panel_height
                    else {"symbol": "x-thin", "size": 10, "line": {"width": 1.5, "color": "black"}}
                ),
                name=f"clipped (|j − i| > {k})",
                hoverinfo="skip",
                showlegend=not panel_height,
            )
        )
        layout["legend"] = {"orientation": "h", "y": -0.2}
    if outline:
        layout["shapes"] = _outline_shapes(n_q, n_k, k, origin=origin)
    return _figure({"data": data, "layout": layout}, validate)
