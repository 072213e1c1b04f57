"""The heatmap builder every page uses (no Streamlit).

Conventions shared by every page:

* matrix orientation: query ``i`` rows top to bottom, key ``j`` columns left to right,
  both labelled from 1, so cells with one offset ``j - i`` form a diagonal;
* score panels (content, bias, combined, differences) share one diverging,
  colour-blind-safe scale centred on 0 whose range comes from the data;
* weights use a sequential scale from 0 to 1.

How a heatmap looks (sizes, cell numbers) is a :class:`relpos.plots.style.HeatmapStyle`;
its colours are a :class:`ColourRange`; its hover is a :class:`relpos.text.hover.Hover`
(per-cell numbers and a template) or one string per cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from relpos.plots import style
from relpos.plots.style import HeatmapStyle
from relpos.text.hover import TEXT_CELLS, Hover, format_cells

__all__ = [
    "EVERY_TICK_MAX_N",
    "LARGE_CELLS",
    "PANEL_ORIGIN",
    "TEXT_MAX_N",
    "WEIGHT_RANGE",
    "ColourRange",
    "cell_decimals",
    "cell_text",
    "colorscale_pairs",
    "diverging_range",
    "figure_from_spec",
    "heatmap_spec",
    "matrix_layout",
    "outline_shapes",
    "panel_colorbar",
    "score_heatmap",
    "symmetric_range",
    "weight_heatmap",
    "window_staircases",
]

#: Numbers are printed in the cells up to this many tokens.
TEXT_MAX_N = 12

#: Above this many cells (64 × 64) a heatmap drops per-cell text, hover labels and
#: markers: they would outweigh the data itself in the figure sent to the browser.
LARGE_CELLS = 4096

#: Panels put cell (i, j) (0-based) at x = j + PANEL_ORIGIN, y = i + PANEL_ORIGIN, so the
#: coordinates are the 1-based positions and hover templates can show %{x} and %{y}.
PANEL_ORIGIN = 1

#: Axes up to this long label every position (the panels print numbers in cells up to
#: 12 tokens, too); longer ones get at most 8 round-numbered labels. Tick labels are
#: most of plotly.js's work when a heatmap redraws: six 16 × 16 Explorer panels took
#: 118–148 ms per update with 16 labels per axis and 65–80 ms with 8 (Chromium, this
#: 2-core machine), and bench/latency.py's n = 16 ratio fell from 1.08–1.28 to 0.91–1.07.
EVERY_TICK_MAX_N = 12


#: Largest magnitude that is rounding noise, not a value: with k = 0 every row's scores
#: shift by one number, and the weight change is exactly zero but computes as ~1e-17.
NOISE = 1e-12


def symmetric_range(*matrices) -> float:
    """Half-width of a colour range centred on 0 that covers every matrix (never 0).

    Matrices of zeros and rounding noise (nothing above :data:`NOISE`) get ``[-1, 1]``:
    a range fitted to the noise would paint it in the strongest colours.

    >>> symmetric_range([[0.5, -2.0]], [[1.0]]), symmetric_range([[5e-17, -3e-17]])
    (2.0, 1.0)
    """
    largest = max(float(np.max(np.abs(np.asarray(m)))) for m in matrices)
    return largest if largest > NOISE else 1.0


def cell_text(matrix: np.ndarray, decimals: int) -> list[list[str]]:
    """Numbers printed in the cells, with a true minus sign; a value that rounds to zero prints unsigned.

    >>> cell_text(np.array([[-0.25, -0.001]]), 2)
    [['−0.25', '0.00']]
    """
    return format_cells(matrix, f".{decimals}f").tolist()


@cache
def colorscale_pairs(name: str) -> tuple[tuple[float, str], ...]:
    """A named colour scale as explicit (position, colour) pairs.

    Plotly.js knows only some names (not ColorBrewer's PuOr, nor the "_r" reversal,
    which plotly.py expands); a figure built without validation must send the list.

    >>> colorscale_pairs("RdBu_r")[0][0], colorscale_pairs("RdBu_r")[-1][0]
    (0.0, 1.0)
    """
    return tuple((float(position), colour) for position, colour in plotly.colors.get_colorscale(name))


def figure_from_spec(spec: dict, validate: bool) -> go.Figure:
    """One constructor call from plain dicts (updating a figure, or wrapping go.Heatmap,
    validates everything again). ``validate=False`` skips Plotly's per-property checks
    (about 6x faster); only for specs whose validity the tests check."""
    return go.Figure(spec, _validate=validate)


# ------------------------------------------------------------------ axes and layout


def _panel_side(height: int, panel: style.PanelLayout = style.PANEL) -> int:
    """Side (px) of the square plot area of a panel of this height."""
    return height - panel.margin.top - panel.margin.bottom


def panel_colorbar(height: int, panel: style.PanelLayout = style.PANEL) -> dict:
    """A panel's colour bar: horizontal under the x-axis title, as wide as the plot area, or
    (a projector's, ``panel.colour_bar == "right"``) vertical beside the plot, as tall as it."""
    tickfont = {"size": panel.text.colour_bar}
    if panel.colour_bar == "right":
        return {"x": 1.0, "xanchor": "left", "xpad": 12, "y": 0.5, "len": 1.0, "thickness": 14, "tickfont": tickfont}
    return {
        "orientation": "h",
        "x": 0.5,
        "xanchor": "center",
        "y": -78 / _panel_side(height, panel),  # 78 px below the plot area, in paper units
        "yanchor": "top",
        "thickness": 10,
        "len": 0.9,  # of the plot area's width, which a width-limited square fills
        "tickfont": tickfont,
    }


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
    """0-based positions to label: all of them up to 12, else 1 and round numbers (at most ~9).

    >>> [p + 1 for p in _tick_positions(512)]
    [1, 64, 128, 192, 256, 320, 384, 448, 512]
    >>> [p + 1 for p in _tick_positions(24)]
    [1, 4, 8, 12, 16, 20, 24]
    """
    step = _tick_step(n)
    return list(range(n)) if step == 1 else [0, *range(step - 1, n, step)]


def _position_axis(n: int, title: str) -> dict:
    """An axis of positions labelled from 1 (cells at 0..n−1)."""
    ticks = _tick_positions(n)
    return {
        "title": style.axis_title(title),
        "tickmode": "array",
        "tickvals": ticks,
        "ticktext": [str(p + 1) for p in ticks],
        "constrain": "domain",
    }


def _panel_axis(n: int, title: str, text: style.PanelText) -> dict:
    """An axis of a panel, whose cells sit at 1..n: evenly spaced ticks need no lists."""
    step = _tick_step(n)
    return {
        "title": {"text": title, "font": {"size": text.axis_title}, "standoff": 4},
        "tickmode": "linear",
        "tick0": 1 if step == 1 else 0,
        "dtick": step,
        "constrain": "domain",
        # fixed ranges: the outline's line width would otherwise widen the autorange
        "range": [0.5, n + 0.5],
    }


def _panel_layout(n_q: int, n_k: int, title: str, panel_height: int, panel: style.PanelLayout) -> dict:
    """Layout of one of several equal panels side by side (cells at 1..n)."""
    text = panel.text
    y_axis = _panel_axis(n_q, "query position i", text)
    y_axis.update(
        range=[n_q + 0.5, 0.5],  # matrix orientation: row 1 on top
        scaleanchor="x",
        # a width-limited square sits on its axis and colour bar; spare room goes above
        constraintoward="bottom",
    )
    return {
        # Streamlit's theme replaces the whole template, so plotly's default one
        # (two thirds of a small figure's bytes and build time) is never seen
        "template": {},
        # multi-line arithmetic reads better flush left
        "hoverlabel": {"align": "left", **({"font": {"size": text.hover}} if text.hover else {})},
        "height": panel_height,
        "margin": panel.margin.plotly(),
        "font": {"size": text.body},
        "title": style.centred_title(
            panel.title(title),
            y=0.985,
            yanchor="top",
            font={"size": text.title},
        ),
        "xaxis": {**_panel_axis(n_k, "key position j", text), "side": "bottom"},
        "yaxis": y_axis,
    }


def matrix_layout(
    n_q: int,
    n_k: int,
    title: str,
    height: int | None,
    panel_height: int | None = None,
    panel: style.PanelLayout = style.PANEL,
) -> dict:
    """Layout that labels axes from 1, puts row 1 at the top and keeps cells square.

    With `panel_height` the figure is one of several equal panels laid out as `panel` (see
    :class:`~relpos.plots.style.HeatmapStyle`); cells then sit at 1..n (:data:`PANEL_ORIGIN`).

    >>> layout = matrix_layout(3, 4, "t", None)
    >>> layout["yaxis"]["autorange"], layout["xaxis"]["ticktext"]
    ('reversed', ['1', '2', '3', '4'])
    """
    if panel_height is not None:
        return _panel_layout(n_q, n_k, title, panel_height, panel)
    y_axis = _position_axis(n_q, "query position i")
    y_axis.update(autorange="reversed", scaleanchor="x")  # matrix orientation: row 1 on top
    return {
        "title": style.centred_title(title),
        "margin": style.MATRIX_MARGIN.plotly(),
        "height": height or max(260, 40 * n_q + 120),
        "font": {"size": style.FONT_SIZE},
        "xaxis": {**_position_axis(n_k, "key position j"), "side": "bottom"},
        "yaxis": y_axis,
    }


# ------------------------------------------------------------------ the clipping window


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
        paths.append(_upper_staircase(n_q, n_k, k))
    if k + 1 <= n_q - 1:  # some key is more than k before its query: the mirror image
        paths.append([(x, y) for y, x in _upper_staircase(n_k, n_q, k)])
    return paths


def _upper_staircase(n_q: int, n_k: int, k: int) -> list[tuple[float, float]]:
    """Cell-edge path (x, y) between offset k and k + 1, from the top edge down and right."""
    x, y, path = k + 0.5, -0.5, [(k + 0.5, -0.5)]
    while y < n_q - 0.5 and x < n_k - 0.5:
        y += 1
        path.append((x, y))
        if y < n_q - 0.5:
            x += 1
            path.append((x, y))
    return path


def outline_shapes(n_q: int, n_k: int, k: int, origin: int = 0) -> list[dict]:
    """Dashed layout shapes along :func:`window_staircases` (cells centred at ``origin + j``).

    >>> [shape["path"] for shape in outline_shapes(2, 2, 0)]
    ['M 0.5,-0.5 L 0.5,0.5 L 1.5,0.5', 'M -0.5,0.5 L 0.5,0.5 L 0.5,1.5']
    """
    return [
        {"type": "path", "path": path, "line": {"color": "black", "width": 2, "dash": "dash"}, "layer": "above"}
        for path in _outline_paths(n_q, n_k, k, origin)
    ]


@lru_cache(maxsize=32)
def _outline_paths(n_q: int, n_k: int, k: int, origin: int) -> tuple[str, ...]:
    """The SVG paths of :func:`outline_shapes`, kept by size: every Explorer release draws
    (and compares) the bias panel's outline, ~2n corners formatted one by one."""
    return tuple(
        "M " + " L ".join(f"{x + origin},{y + origin}" for x, y in path) for path in window_staircases(n_q, n_k, k)
    )


# ------------------------------------------------------------------ heatmaps


@dataclass(frozen=True)
class ColourRange:
    """A heatmap's colour scale and the values at its ends (and centre, if any)."""

    colorscale: str
    zmin: float
    zmax: float
    zmid: float | None = None


#: Weights are always drawn on the sequential scale from 0 to 1.
WEIGHT_RANGE = ColourRange(style.SEQUENTIAL, 0.0, 1.0)


def diverging_range(limit: float) -> ColourRange:
    """The score panels' diverging scale from ``-limit`` to ``limit``, centred on 0."""
    return ColourRange(style.DIVERGING, -limit, limit, 0.0)


def cell_decimals(size: int, look: HeatmapStyle) -> int | None:
    """Decimals of the cell numbers a heatmap of `size` cells prints as its own strings,
    or None when it prints none or Plotly formats z (``texttemplate``).

    >>> cell_decimals(64, style.HeatmapStyle(cell_format=".1f")), cell_decimals(400, style.HeatmapStyle())
    (1, 2)
    """
    fixed = re.fullmatch(r"\.(\d)f", look.cell_format or "")
    if not look.text or (look.cell_format and (size > TEXT_CELLS or not fixed)):
        return None
    return int(fixed[1]) if fixed else look.decimals


def _cells_text(matrix: np.ndarray, look: HeatmapStyle, cells: bool = True) -> dict:
    """The trace properties that print the numbers in the cells (``cells=False``: without the strings)."""
    decimals = cell_decimals(matrix.size, look)
    if decimals is None:
        # the browser formats z: no string per cell to build and send (with a hyphen-minus)
        args = {"texttemplate": f"%{{z:{look.cell_format}}}"}
    elif cells:  # few cells: our own strings, with a true minus sign
        args = {"text": cell_text(matrix, decimals), "texttemplate": "%{text}"}
    else:
        args = {"texttemplate": "%{text}"}
    if look.text_size:  # None: Plotly fits the numbers to the cells
        args["textfont"] = {"size": look.text_size}
    return args


def _default_hover(matrix: np.ndarray, panel: bool, cells: bool = True) -> dict:
    """The hover of a heatmap given none: the cell's positions and value."""
    n_q, n_k = matrix.shape
    if matrix.size > LARGE_CELLS:
        # per-cell (i, j) labels would double the payload; a panel's coordinates are the positions
        where = "query i = %{y}, key j = %{x}<br>" if panel else ""
        return {"hovertemplate": where + "%{z:.3f}<extra></extra>"}
    if matrix.size <= TEXT_CELLS:  # few cells: our own numbers, with a true minus sign
        values = format_cells(matrix, ".4f")
        hover = [[f"query i={i + 1}, key j={j + 1}<br>{values[i, j]}" for j in range(n_k)] for i in range(n_q)]
        return {"hovertext": hover, "hoverinfo": "text"}
    template = {"hovertemplate": "query i=%{customdata[0]}, key j=%{customdata[1]}<br>%{z:.4f}<extra></extra>"}
    return {**template, "customdata": np.dstack(np.indices((n_q, n_k)) + 1)} if cells else template


def _hover_args(matrix: np.ndarray, hover, panel: bool, cells: bool = True) -> dict:
    """Trace properties for a :class:`Hover`, one string per cell, or the default hover."""
    if isinstance(hover, Hover):
        args = hover.trace_args()
        return args if cells else {key: value for key, value in args.items() if key != "customdata"}
    if hover is not None:
        return {"hovertext": hover, "hoverinfo": "text"}
    return _default_hover(matrix, panel, cells)


def _heatmap(matrix, title: str, colours: ColourRange, look: HeatmapStyle, hover, outline_k) -> go.Figure:
    spec = heatmap_spec(matrix, title, colours, look, hover=hover, outline_k=outline_k)
    return figure_from_spec(spec, look.validate)


def heatmap_spec(
    matrix, title: str, colours: ColourRange, look: HeatmapStyle, *, hover=None, outline_k=None, cells: bool = True
) -> dict:
    """A heatmap as the plain ``{"data": [trace], "layout": ...}`` dict its figure is built from.

    With ``cells=False`` the trace leaves out the per-cell arrays (``z``, cell ``text``,
    ``customdata``) without computing them: what :func:`relpos.topics.explorer.panel_spec.skeleton` keeps
    of the figure, at a fraction of the cost (the Explorer's browser fills the cells).

    >>> spec = heatmap_spec([[0.5]], "t", WEIGHT_RANGE, style.DEFAULT_HEATMAP, cells=False)
    >>> sorted(set(spec["data"][0]) & {"z", "text", "customdata"}), spec["data"][0]["zmax"]
    ([], 1.0)
    """
    matrix = np.asarray(matrix)
    # float32 input stays float32: half the bytes sent to the browser for large panels
    matrix = matrix if matrix.dtype == np.float32 or not cells else matrix.astype(float)
    n_q, n_k = matrix.shape
    gap = 0 if matrix.size > LARGE_CELLS else 1
    panel = bool(look.panel_height)
    trace = {
        "type": "heatmap",
        **({"z": matrix} if cells else {}),
        "colorscale": [list(pair) for pair in colorscale_pairs(colours.colorscale)],
        "zmin": colours.zmin,
        "zmax": colours.zmax,
        "zmid": colours.zmid,
        "colorbar": panel_colorbar(look.panel_height, look.panel) if panel else {"thickness": 14, "len": 0.9},
        "xgap": gap,
        "ygap": gap,
        **(
            {"x0": PANEL_ORIGIN, "dx": 1, "y0": PANEL_ORIGIN, "dy": 1}
            if panel
            else {"x": list(range(n_k)), "y": list(range(n_q))}
        ),
        **(_cells_text(matrix, look, cells) if look.text else {}),
        **_hover_args(matrix, hover, panel, cells),
    }
    layout = matrix_layout(n_q, n_k, title, look.height, look.panel_height, look.panel)
    if outline_k is not None:
        layout["shapes"] = outline_shapes(n_q, n_k, outline_k, origin=PANEL_ORIGIN if panel else 0)
    # a figure leaves out unset properties (a weight scale's zmid); so does the plain dict
    return {"data": [{key: value for key, value in trace.items() if value is not None}], "layout": layout}


def score_heatmap(
    matrix,
    title: str,
    *,
    limit: float | None = None,
    look: HeatmapStyle = style.DEFAULT_HEATMAP,
    hover=None,
    outline_k: int | None = None,
) -> go.Figure:
    """Heatmap of a score-like matrix on the shared diverging scale centred on 0.

    Parameters
    ----------
    matrix : array_like, shape (n_q, n_k)
    title : str
    limit : float, optional
        Colour range ``[-limit, limit]``; pass the same value to every panel that is
        compared side by side (see :func:`symmetric_range`). Defaults to the data's own.
    look : HeatmapStyle
        Sizes and cell numbers (see :class:`relpos.plots.style.HeatmapStyle`).
    hover : relpos.text.hover.Hover or array_like of str, shape (n_q, n_k), optional
        Per-cell numbers and the template that reads them, or one label per cell
        (e.g. the cell's arithmetic). Default: the cell's positions and value.
    outline_k : int, optional
        Draw the clipping window ``|j − i| <= outline_k`` as dashed lines.

    A float32 `matrix` is sent as float32; above :data:`LARGE_CELLS` cells the
    default hover label shows only the value.

    Examples
    --------
    >>> fig = score_heatmap([[-0.25, 1.0]], "t")
    >>> fig.data[0].zmin, fig.data[0].zmid, fig.data[0].text
    (-1.0, 0.0, (['−0.25', '1.00'],))
    """
    limit = symmetric_range(matrix) if limit is None else limit
    return _heatmap(matrix, title, diverging_range(limit), look, hover, outline_k)


def weight_heatmap(matrix, title: str, *, look: HeatmapStyle = style.DEFAULT_HEATMAP, hover=None) -> go.Figure:
    """Heatmap of attention weights on the sequential 0–1 scale (options as :func:`score_heatmap`).

    >>> weight_heatmap([[0.25, 0.75]], "t").data[0].zmax
    1.0
    """
    return _heatmap(matrix, title, WEIGHT_RANGE, look, hover, None)
