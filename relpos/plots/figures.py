"""Plotly figure builders for the app's heatmaps (no Streamlit imports).

Conventions shared by every page:

* matrix orientation: query ``i`` rows top to bottom, key ``j`` columns left to right,
  both labelled from 1, so cells with one offset ``j - i`` form a diagonal;
* score panels (content, bias, combined, differences) share one diverging,
  colour-blind-safe scale centred on 0 whose range comes from the data;
* weights use a sequential scale from 0 to 1.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from relpos.core.attention import place_relative, relative_offsets, table_rows
from relpos.core.skewing import skew, skew_array, skew_labels
from relpos.tables.frames import format_offset
from relpos.text.hover import TEXT_CELLS, format_cells

__all__ = [
    "BLANK_CELL",
    "CONTENT_COLOUR",
    "DIVERGING",
    "LARGE_CELLS",
    "OUTPUT_COLOUR",
    "POSITION_COLOUR",
    "SEQUENTIAL",
    "WEIGHT_COLOURS",
    "add_window_outline",
    "enlarge",
    "highlight_cells",
    "minimum_fonts",
    "offset_map_figure",
    "partial_score_heatmap",
    "score_heatmap",
    "symmetric_range",
    "table_strip_figure",
    "value_outputs_figure",
    "value_parts_by_k_figure",
    "value_split_figure",
    "weight_bars_figure",
    "weight_heatmap",
    "window_staircases",
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
    """Numbers printed in the cells, with a true minus sign; a value that rounds to zero prints unsigned."""
    return format_cells(matrix, f".{decimals}f").tolist()


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


#: Axes up to this long label every position (the panels print numbers in cells up to
#: 12 tokens, too); longer ones get at most 8 round-numbered labels. Tick labels are
#: most of plotly.js's work when a heatmap redraws: six 16 × 16 Explorer panels took
#: 118–148 ms per update with 16 labels per axis and 65–80 ms with 8 (Chromium, this
#: 2-core machine), and bench/latency.py's n = 16 ratio fell from 1.08–1.28 to 0.91–1.07.
EVERY_TICK_MAX_N = 12


def _tick_step(n: int) -> int:
    """Label every position up to :data:`EVERY_TICK_MAX_N`, else every `step`-th with a
    round step (at most 8 labels).

    >>> _tick_step(12), _tick_step(16), _tick_step(24), _tick_step(512)
    (1, 2, 4, 64)
    """
    if n <= EVERY_TICK_MAX_N:
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
        fixed = re.fullmatch(r"\.(\d)f", cell_format or "")
        if cell_format and (matrix.size > TEXT_CELLS or not fixed):
            # the browser formats z: no string per cell to build and send (with a hyphen-minus)
            trace["texttemplate"] = f"%{{z:{cell_format}}}"
        else:  # few cells: our own strings, with a true minus sign
            trace.update(text=_cell_text(matrix, int(fixed[1]) if fixed else decimals), texttemplate="%{text}")
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
        A fixed-point format such as ``".2f"``: above :data:`relpos.text.hover.TEXT_CELLS` cells
        the browser prints z in the cells (no string per cell is sent); otherwise the
        numbers are formatted here, with its number of decimals (or `decimals`).
    customdata, hovertemplate : optional
        Per-cell numbers ``(n_q, n_k, fields)`` and the hover template that reads
        them (see :mod:`relpos.text.hover`); they take precedence over `hovertext`.
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
        # the × sits in each cell's top-right corner, clear of the "+3→+2" label in its centre
        corner = 0.32
        data.append(
            dict(
                type="scatter",
                x=beyond[:, 1] + origin + corner,
                y=beyond[:, 0] + origin - corner,
                mode="markers",
                # white with a black rim: visible on the darkest and the lightest cells
                marker={
                    "symbol": "x",
                    "size": 8 if panel_height else 11,
                    "color": "white",
                    "line": {"width": 1 if panel_height else 1.2, "color": "black"},
                },
                name=f"clipped (|j − i| > {k})",
                hoverinfo="skip",
                showlegend=not panel_height,
            )
        )
        layout["legend"] = {"orientation": "h", "y": -0.2}
    if outline:
        layout["shapes"] = _outline_shapes(n_q, n_k, k, origin=origin)
    return _figure({"data": data, "layout": layout}, validate)


# ---------------------------------------------------------------- efficient computation

__all__ += [
    "labelled_grid_figure",
    "memory_growth_figure",
    "memory_strip_figure",
    "placement_figures",
    "skew_memory_strip",
    "skew_step_figures",
    "timing_figure",
]

#: Text colour of cells whose content is a leftover or a pad (not a real logit).
_LEFTOVER_GREY = "#9a9a9a"
#: The offset map's purple–orange scale (ColorBrewer PuOr, colour-blind safe) with a grey
#: centre, so offset-0 cells stand out from empty (white) cells.
_OFFSET_SCALE = [
    "rgb(127,59,8)",
    "rgb(179,88,6)",
    "rgb(224,130,20)",
    "rgb(253,184,99)",
    "rgb(254,224,182)",
    "rgb(205,205,205)",
    "rgb(216,218,235)",
    "rgb(178,171,210)",
    "rgb(128,115,172)",
    "rgb(84,39,136)",
    "rgb(45,0,75)",
]


def _offset_span(limit: int) -> float:
    """Colour range half-width for offsets up to ±limit."""
    return 1.25 * max(limit, 1)


def _label_colours(offsets: np.ndarray, leftover: np.ndarray, span: float) -> np.ndarray:
    """Black text on light cells, white on the darkest, grey on leftovers."""
    position = (np.nan_to_num(offsets) + span) / (2 * span)  # 0..1 along the colour scale
    colours = np.where((position < 0.22) | (position > 0.78), "white", "black").astype(object)
    colours[leftover] = _LEFTOVER_GREY
    return colours


def _offset_heatmap(z, x, y, span: float, *, ygap: int) -> go.Heatmap:
    """Cells coloured by offset on the shared purple–grey–orange scale, no colour bar."""
    return go.Heatmap(
        z=z,
        x=x,
        y=y,
        colorscale=_OFFSET_SCALE,
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
        fig.add_trace(
            go.Scatter(
                x=columns[chosen],
                y=rows[chosen],
                mode="text",
                text=[str(label) for label in labels[chosen]],
                textfont={"size": 13, "color": list(text_colours[chosen])},
                hoverinfo="text",
                hovertext=[str(label).replace("<br>", " ") for label in labels[chosen]],
                showlegend=False,
                name="leftover" if grey else "logit",
            )
        )
    fig.update_layout(
        title={"text": title, "x": 0.5, "xanchor": "center", "font": {"size": 15}},
        margin={"l": 70, "r": 10, "t": 50, "b": 50},
        height=height or 70 * n_rows + 120,
        plot_bgcolor="white",
        font={"size": 13},
    )
    fig.update_xaxes(
        title={"text": column_title, "font": _AXIS_FONT},
        tickmode="array",
        tickvals=list(range(n_columns)),
        ticktext=list(column_labels),
        showgrid=False,
        zeroline=False,
        range=[-0.5, n_columns - 0.5],
    )
    fig.update_yaxes(
        title={"text": row_title, "font": _AXIS_FONT},
        tickmode="array",
        tickvals=list(range(n_rows)),
        ticktext=list(row_labels),
        autorange="reversed",
        showgrid=False,
        zeroline=False,
    )
    return fig


def memory_strip_figure(labels, offsets, *, length: int, leftover=None, height: int = 260) -> go.Figure:
    """The padded logits as one row of memory, cut into rows of L+1 (top) and of L (bottom).

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

    Notes
    -----
    Both strips hold the same cells in the same order: a reshape moves nothing, it only
    changes where one row ends. Thick black bars mark row ends.
    """
    labels = [str(label) for label in labels]
    size = len(labels)
    leftover = np.zeros(size, dtype=bool) if leftover is None else np.asarray(leftover, dtype=bool)
    strip = np.array(offsets, dtype=float)
    strip[leftover] = np.nan
    span = _offset_span(length - 1)
    text_colours = list(_label_colours(strip, leftover | np.isnan(strip), span))
    fig = go.Figure(_offset_heatmap(np.vstack([strip, strip]), list(range(size)), [0, 1], span, ygap=16))
    fig.add_trace(
        go.Scatter(
            x=list(range(size)) * 2,
            y=[0] * size + [1] * size,
            mode="text",
            text=labels * 2,
            textfont={"size": 12, "color": text_colours * 2},
            hoverinfo="skip",
            showlegend=False,
        )
    )
    for row, width in ((0, length + 1), (1, length)):
        for cut in range(width, size, width):
            fig.add_shape(
                type="line",
                x0=cut - 0.5,
                x1=cut - 0.5,
                y0=row - 0.45,
                y1=row + 0.45,
                line={"color": "black", "width": 4},
            )
    fig.update_layout(
        title={"text": "the padded matrix in memory: same cells, different row ends", "x": 0.5, "xanchor": "center"},
        margin={"l": 150, "r": 10, "t": 50, "b": 50},
        height=height,
        plot_bgcolor="white",
        font={"size": 13},
    )
    fig.update_xaxes(
        title={"text": "position in memory (row-major order)", "font": _AXIS_FONT},
        tickmode="array",
        tickvals=list(range(size)),
        ticktext=[str(i) for i in range(size)],
        showgrid=False,
        zeroline=False,
    )
    fig.update_yaxes(
        tickmode="array",
        tickvals=[0, 1],
        ticktext=[f"②  rows of {length + 1}", f"③  rows of {length}"],
        autorange="reversed",
        showgrid=False,
        zeroline=False,
    )
    return fig


def timing_figure(timings, *, height: int = 260) -> go.Figure:
    """Horizontal bars of each method's best time (log axis); skipped methods are absent."""
    measured = [t for t in timings if t.seconds is not None]
    milliseconds = [t.seconds * 1e3 for t in measured]
    fig = go.Figure(
        go.Bar(
            x=milliseconds,
            y=[t.method for t in measured],
            orientation="h",
            text=[f"{ms:,.2f} ms" for ms in milliseconds],
            textposition="outside",
            marker={"color": ["#b2182b" if "naive" in t.method else "#2166ac" for t in measured]},
            hovertemplate="%{y}: %{x:.3f} ms<extra></extra>",
        )
    )
    top = max(milliseconds) if milliseconds else 1.0
    bottom = min(milliseconds) if milliseconds else 1.0
    fig.update_layout(margin={"l": 180, "r": 40, "t": 30, "b": 50}, height=height, font={"size": 14}, showlegend=False)
    fig.update_xaxes(
        type="log",
        title={"text": "best time (ms, log scale)", "font": _AXIS_FONT},
        range=[np.log10(bottom) - 0.5, np.log10(top) + 0.6],
    )
    fig.update_yaxes(autorange="reversed")
    return fig


def memory_growth_figure(lengths, footprints, *, mark=None, height: int = 380) -> go.Figure:
    """Bytes of each method's intermediate against sequence length (log–log).

    Parameters
    ----------
    lengths : sequence of int
    footprints : sequence of relpos.core.skewing.MemoryFootprint, one per length
    mark : tuple (n, bytes, text), optional
        A published figure to draw as a labelled point.
    """
    series = {
        "naive gather (n, n, D)": "gathered",
        "scores H·(n, n), needed anyway": "scores",
        "Q A_Kᵀ: H·(n, 2k+1)": "relative_logits",
        "skewing's E: (n, D)": "skew_embeddings",
    }
    colours = ["#b2182b", "#777777", "#2166ac", "#1b7837"]
    fig = go.Figure()
    for (name, field), colour in zip(series.items(), colours, strict=True):
        fig.add_trace(
            go.Scatter(
                x=list(lengths),
                y=[getattr(footprint, field) for footprint in footprints],
                mode="lines",
                name=name,
                line={"color": colour, "width": 3, "dash": "dot" if field == "scores" else "solid"},
                hovertemplate=f"{name}<br>n = %{{x}}: %{{y:.3s}}B<extra></extra>",
            )
        )
    if mark is not None:
        n, size, text = mark
        fig.add_trace(
            go.Scatter(
                x=[n],
                y=[size],
                mode="markers+text",
                text=[text],
                textposition="middle left",
                marker={"size": 11, "color": "black", "symbol": "diamond"},
                name="published",
                showlegend=False,
            )
        )
    fig.update_layout(
        margin={"l": 70, "r": 20, "t": 30, "b": 50},
        height=height,
        font={"size": 14},
        legend={"orientation": "h", "y": -0.25},
    )
    fig.update_xaxes(type="log", title={"text": "sequence length n", "font": _AXIS_FONT})
    fig.update_yaxes(type="log", title={"text": "bytes per layer", "font": _AXIS_FONT}, exponentformat="SI")
    return fig


def _minus(text: str) -> str:
    return text.replace("-", "−")


def _offset_names(offsets) -> list[str]:
    return [_minus(format_offset(int(o))) for o in offsets]


def _skew_cell_labels(length: int, values, decimals: int):
    """Cell labels for each skew step: symbols (two lines) or the numbers of `values`."""
    if values is None:
        symbols = skew_labels(length).relative_logits
        cells = np.vectorize(lambda text: text.replace("·", "·<br>"), otypes=[object])(symbols)
    else:
        numbers = skew(values).relative_logits
        cells = np.vectorize(lambda value: _minus(f"{value:.{decimals}f}"), otypes=[object])(numbers)
    return skew_array(cells, "0")


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
    queries = [f"q{i + 1}" for i in range(n)]
    offset_names = _offset_names(column_offsets)
    steps = (
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
    labels = skew_labels(n).padded.ravel()
    colours = skew_array(np.broadcast_to(column_offsets, (n, n)).astype(float), np.nan).padded.ravel()
    useful = skew_array(column_offsets[None, :] >= -np.arange(n)[:, None], False).padded.ravel()
    return memory_strip_figure(
        [str(label).replace("·", "<br>") for label in labels], colours, length=n, leftover=~useful
    )


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
    labels = np.array([[f"q{i + 1}·a({_minus(format_offset(o))})" for o in offsets] for i in range(n)], dtype=object)
    rows = table_rows(n, n, k)  # (n, n): which logit each cell takes
    placed_labels = np.take_along_axis(labels, rows, axis=1)
    placed = place_relative(logits, n)  # (n, n)

    def with_values(names, numbers):
        return np.array(
            [
                [f"{name}<br>{_minus(f'{value:.{decimals}f}')}" for name, value in zip(r, v, strict=True)]
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
            column_labels=[f"a({_minus(format_offset(o))})" for o in offsets],
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


# --------------------------------------------------------------------------- value side (issue 5)

#: Colours of the two output parts (Okabe–Ito, colour-blind safe) and of their sum.
CONTENT_COLOUR = "#0072B2"
POSITION_COLOUR = "#E69F00"
OUTPUT_COLOUR = "#222222"


def _signed(value: float, decimals: int = 2) -> str:
    """A number with a true minus sign, for labels."""
    return f"{value:.{decimals}f}".replace("-", "−")


def value_split_figure(terms, *, title: str | None = None, height: int = 380) -> go.Figure:
    """One query's output key by key: ``α_ij v_j`` next to ``α_ij a^V`` (d = 1).

    Parameters
    ----------
    terms : relpos.QueryValueTerms
        From :func:`relpos.query_value_terms` (d must be 1).

    The last group holds the sums, the content part and the position part, and a
    diamond marks the output ``z_i`` (their sum).
    """
    content = np.asarray(terms.content_terms)[:, 0]  # (n_k,)
    position = np.asarray(terms.position_terms)[:, 0]  # (n_k,)
    n_k = len(content)
    labels = [f"key {j + 1}<br>j − i = {format_offset(int(o))}" for j, o in enumerate(terms.offsets)] + ["sum"]
    content_y = [*content, float(terms.content_part[0])]
    position_y = [*position, float(terms.position_part[0])]
    content_hover = [
        f"α = {terms.weights[j]:.3f}, v = {_signed(terms.values[j, 0])}<br>α·v = {_signed(content[j], 3)}"
        for j in range(n_k)
    ] + [f"content part Σ α·v = {_signed(content_y[-1], 3)}"]
    position_hover = [
        f"α = {terms.weights[j]:.3f}, a<sup>V</sup><sub>{format_offset(int(terms.clipped[j]))}</sub> = "
        f"{_signed(terms.value_embeddings[j, 0])}<br>α·a<sup>V</sup> = {_signed(position[j], 3)}"
        for j in range(n_k)
    ] + [f"position part Σ α·a<sup>V</sup> = {_signed(position_y[-1], 3)}"]
    fig = go.Figure(
        [
            go.Bar(
                name="content α<sub>ij</sub>·v<sub>j</sub>",
                x=labels,
                y=content_y,
                marker_color=CONTENT_COLOUR,
                text=[_signed(v) for v in content_y],
                textposition="outside",
                hovertext=content_hover,
                hoverinfo="text",
            ),
            go.Bar(
                name="position α<sub>ij</sub>·a<sup>V</sup>",
                x=labels,
                y=position_y,
                marker_color=POSITION_COLOUR,
                marker_pattern_shape="/",
                text=[_signed(v) for v in position_y],
                textposition="outside",
                hovertext=position_hover,
                hoverinfo="text",
            ),
            go.Scatter(
                name=f"output z<sub>{terms.query + 1}</sub>",
                x=[labels[-1]],
                y=[float(terms.output[0])],
                mode="markers+text",
                marker={"symbol": "diamond", "size": 14, "color": OUTPUT_COLOUR},
                text=[f"z = {_signed(float(terms.output[0]))}"],
                textposition="top center",
                hoverinfo="skip",
            ),
        ]
    )
    fig.add_vline(x=n_k - 0.5, line_dash="dot", line_color="#888888")
    fig.add_hline(y=0, line_color="#888888", line_width=1)
    fig.update_layout(
        title={"text": title or f"output of query {terms.query + 1}, key by key", "x": 0.5, "xanchor": "center"},
        barmode="group",
        height=height,
        margin={"l": 50, "r": 20, "t": 60, "b": 40},
        legend={"orientation": "h", "y": -0.15},
        yaxis={"title": {"text": "contribution", "font": _AXIS_FONT}},
        font={"size": 14},
    )
    return fig


def value_parts_by_k_figure(parts, query: int, *, current_k: int | None = None, height: int = 340) -> go.Figure:
    """Content part, position part and output of one query for every k (d = 1).

    Parameters
    ----------
    parts : relpos.ValueParts
        From :func:`relpos.value_parts_by_k`.
    query : int
        0-based query index.
    current_k : int, optional
        Marked with a vertical line.
    """
    ks = np.asarray(parts.ks)
    series = (
        ("content part Σ α·v", np.asarray(parts.content)[:, query, 0], CONTENT_COLOUR, "solid", "circle"),
        ("position part Σ α·a<sup>V</sup>", np.asarray(parts.position)[:, query, 0], POSITION_COLOUR, "dash", "square"),
        (f"output z<sub>{query + 1}</sub>", np.asarray(parts.output)[:, query, 0], OUTPUT_COLOUR, "solid", "diamond"),
    )
    fig = go.Figure(
        [
            go.Scatter(
                name=name,
                x=ks,
                y=values,
                mode="lines+markers",
                line={"color": colour, "dash": dash, "width": 3 if name.startswith("output") else 2},
                marker={"symbol": symbol, "size": 9},
                hovertemplate=f"{name}<br>k = %{{x}}: %{{y:.4f}}<extra></extra>",
            )
            for name, values, colour, dash, symbol in series
        ]
    )
    if current_k is not None:
        fig.add_vline(x=current_k, line_dash="dot", line_color="#888888", annotation_text=f"k = {current_k}")
    fig.add_hline(y=0, line_color="#bbbbbb", line_width=1)
    fig.update_layout(
        title={"text": f"query {query + 1}: the two parts as k changes", "x": 0.5, "xanchor": "center"},
        height=height,
        margin={"l": 50, "r": 20, "t": 60, "b": 40},
        legend={"orientation": "h", "y": -0.25},
        xaxis={"title": {"text": "clipping distance k", "font": _AXIS_FONT}, "tickvals": ks.tolist()},
        yaxis={"title": {"text": "value", "font": _AXIS_FONT}},
        font={"size": 14},
    )
    return fig


def value_outputs_figure(result, *, height: int = 340) -> go.Figure:
    """Every query's output split into content and position parts (d = 1)."""
    content = np.asarray(result.output_content)[:, 0]  # (n_q,)
    position = np.asarray(result.output_position)[:, 0]  # (n_q,)
    output = np.asarray(result.output)[:, 0]  # (n_q,)
    labels = [f"query {i + 1}" for i in range(len(output))]
    fig = go.Figure(
        [
            go.Bar(name="content part", x=labels, y=content, marker_color=CONTENT_COLOUR),
            go.Bar(name="position part", x=labels, y=position, marker_color=POSITION_COLOUR, marker_pattern_shape="/"),
            go.Scatter(
                name="output z<sub>i</sub>",
                x=labels,
                y=output,
                mode="markers+text",
                marker={"symbol": "diamond", "size": 13, "color": OUTPUT_COLOUR},
                text=[_signed(v) for v in output],
                textposition="middle right",
            ),
        ]
    )
    fig.add_hline(y=0, line_color="#888888", line_width=1)
    fig.update_layout(
        title={
            "text": "every query's output z<sub>i</sub> = content part + position part",
            "x": 0.5,
            "xanchor": "center",
        },
        barmode="group",
        height=height,
        margin={"l": 50, "r": 20, "t": 60, "b": 40},
        legend={"orientation": "h", "y": -0.2},
        font={"size": 14},
    )
    return fig


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


def _raise_font(font, minimum: float) -> None:
    if font is not None:
        font.size = max(font.size or 0, minimum)


def minimum_fonts(fig: go.Figure, minimum: float) -> go.Figure:
    """Raise every text of a figure (cell numbers, ticks, axis and legend titles) to at least
    `minimum` px; in place. Presenter mode: readable from the back row of a classroom.

    >>> fig = minimum_fonts(score_heatmap([[1.0]], "t", height=300), 20)
    >>> fig.data[0].textfont.size, fig.layout.xaxis.tickfont.size, fig.layout.xaxis.title.font.size
    (20, 20, 20)
    """
    layout = fig.layout
    fig.update_layout(font={"size": max(layout.font.size or 12, minimum)})
    for axis in (layout.xaxis, layout.yaxis):
        _raise_font(axis.tickfont, minimum)
        if axis.title:
            _raise_font(axis.title.font, minimum)
    if layout.title:
        _raise_font(layout.title.font, minimum)
    _raise_font(layout.legend.font, minimum)
    for trace in fig.data:
        if getattr(trace, "textfont", None) is not None:
            _raise_font(trace.textfont, minimum)
        colorbar = getattr(trace, "colorbar", None)
        if colorbar is not None:
            _raise_font(colorbar.tickfont, minimum)
    return fig
