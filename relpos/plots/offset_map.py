"""The offset map: which table row ``a^K`` each (query, key) pair reads (no Streamlit).

Colours are the clipped offsets ``-k..+k`` (constant along each diagonal); a cell whose
true offset lies beyond the window is marked, and small maps label it e.g. ``+3→+2``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.core.offsets import relative_offsets, table_rows
from relpos.plots import style
from relpos.plots.heatmaps import (
    LARGE_CELLS,
    PANEL_ORIGIN,
    colorscale_pairs,
    figure_from_spec,
    matrix_layout,
    outline_shapes,
    panel_colorbar,
)
from relpos.text import numbers as num
from relpos.text.hover import TEXT_CELLS, format_cells

__all__ = ["offset_map_figure", "panel_cells"]

#: Offset labels and hover strings are sent per cell up to this many cells (16 × 16);
#: beyond it the browser formats the offsets from z.
LABELLED_CELLS = 256
#: A clipped cell of a panel gets an × up to this many cells (8 × 8); larger panels
#: rely on the outline, where one × per cell would be noise.
MARKED_PANEL_CELLS = 64


def _colorbar(k: int, panel_height: int | None, layout: style.PanelLayout) -> dict:
    """Offsets −k..+k, one tick each up to k = 8."""
    ticks = list(range(-k, k + 1)) if k <= 8 else None
    if panel_height:
        return {**panel_colorbar(panel_height, layout), "tickvals": ticks}
    return {"title": {"text": "aᴷ offset"}, "tickvals": ticks, "thickness": 14}


def _large_map(rows: np.ndarray, k: int, colorbar: dict, panel: bool) -> dict:
    """Trace properties of a map above :data:`LARGE_CELLS` cells: rows as small ints, no labels.

    Sends the table row 0..2k (uint8/16, not signed offsets): negative integers are 0xFF
    bytes, i.e. '/' in base64, which Plotly's JSON escapes to 6 chars.
    """
    limit = max(k, 1)
    ticks = list(range(-k, k + 1)) if k <= 8 else [-k, -k // 2, 0, k // 2, k]
    return {
        "z": rows.astype(np.uint8 if k < 128 else np.uint16),
        "zmin": k - limit,
        "zmax": k + limit,
        "hovertemplate": ("query i = %{y}, key j = %{x}<br>" if panel else "")
        + f"a<sup>K</sup> row %{{z}}: offset = row − {k}<extra></extra>",
        "colorbar": {**colorbar, "tickvals": [t + k for t in ticks], "ticktext": [num.offset(t) for t in ticks]},
    }


def _panel_labels(offsets: np.ndarray, clipped: np.ndarray) -> dict:
    """Cell text and hover of the offset map as a panel.

    Up to :data:`TEXT_CELLS` cells the offsets travel as our own strings (``+2``, ``0``,
    ``−1``); larger panels send one small int array that the browser formats.
    """
    where = "query i = %{y}, key j = %{x}<br>offset j − i = "
    if offsets.size <= TEXT_CELLS:
        offset_text, clipped_text = format_cells(offsets, "+d"), format_cells(clipped, "+d")
        return {
            "text": clipped_text,
            "texttemplate": "%{text}",
            "customdata": np.stack([offset_text, clipped_text], axis=-1),
            "hovertemplate": where + "%{customdata[0]} → table row a<sup>K</sup><sub>%{customdata[1]}</sub>"
            "<extra></extra>",
        }
    return {
        "texttemplate": "%{z}" if offsets.size <= LABELLED_CELLS else None,
        "customdata": offsets[..., None].astype(np.int16),
        "hovertemplate": where + "%{customdata[0]:+d} → table row a<sup>K</sup><sub>%{z:+d}</sub><extra></extra>",
    }


def panel_cells(n_q: int, n_k: int, k: int, *, labelled: bool = True) -> dict:
    """What the cells of the offset map *as a panel* hold, for a browser that builds them itself.

    The Explorer panel receives the figure without its cells and fills them from
    this recipe: ``z`` is the clipped offset ``clip(j − i, k)`` plus ``shift`` (the table
    row above :data:`LARGE_CELLS` cells, see :func:`_large_map`); ``labels`` says whether
    the cells carry their offsets as text (``+2``, ``0``, ``−1``; never without `labelled`,
    see :func:`offset_map_figure`'s ``cell_labels``); ``hover`` whether
    ``customdata`` holds ``[offset, clipped]`` as such text, the offset as a number, or nothing.

    >>> panel_cells(4, 4, 2), panel_cells(16, 16, 2)["hover"], panel_cells(128, 128, 3)["shift"]
    ({'shift': 0, 'labels': True, 'hover': 'text'}, 'offset', 3)
    """
    cells = n_q * n_k
    if cells > LARGE_CELLS:
        return {"shift": k, "labels": False, "hover": None}
    if cells <= TEXT_CELLS:
        return {"shift": 0, "labels": labelled, "hover": "text"}
    return {"shift": 0, "labels": False, "hover": "offset"}


def _cell_label(offset: int, clipped: int) -> str:
    """``+2`` inside the window, ``+3→+2`` beyond it."""
    return num.offset(clipped) if offset == clipped else f"{num.offset(offset)}→{num.offset(clipped)}"


def _cell_hover(i: int, j: int, offset: int, clipped: int) -> str:
    entry = num.offset(clipped)
    return (
        f"query i={i + 1}, key j={j + 1}<br>offset j−i = {num.offset(offset)}"
        f"<br>clipped to {entry} → table row aᴷ{num.subscript(entry)}" + (" (clipped)" if offset != clipped else "")
    )


def _alone_labels(offsets: np.ndarray, clipped: np.ndarray) -> dict:
    """Cell labels (``+3→+2``) and hover strings of a map shown alone."""
    n_q, n_k = offsets.shape
    cells = [(i, j, int(offsets[i, j]), int(clipped[i, j])) for i in range(n_q) for j in range(n_k)]
    labels = np.array([_cell_label(o, c) for _, _, o, c in cells], dtype=object).reshape(n_q, n_k)
    hover = np.array([_cell_hover(*cell) for cell in cells], dtype=object).reshape(n_q, n_k)
    return {
        "text": labels.tolist(),
        "texttemplate": "%{text}" if offsets.size <= LABELLED_CELLS else None,
        "hovertext": hover.tolist(),
        "hoverinfo": "text",
    }


def _clipped_markers(beyond: np.ndarray, k: int, origin: int, panel: bool) -> dict:
    """An × in the top-right corner of each clipped cell, clear of the label in its centre."""
    corner = 0.32
    return {
        "type": "scatter",
        "x": beyond[:, 1] + origin + corner,
        "y": beyond[:, 0] + origin - corner,
        "mode": "markers",
        # white with a black rim: visible on the darkest and the lightest cells
        "marker": {
            "symbol": "x",
            "size": 8 if panel else 11,
            "color": "white",
            "line": {"width": 1 if panel else 1.2, "color": "black"},
        },
        "name": f"clipped (|j − i| > {k})",
        "hoverinfo": "skip",
        "showlegend": not panel,
    }


def _map_trace(
    n_q: int, n_k: int, k: int, panel_height: int | None, text_size: int | None, layout: style.PanelLayout
) -> dict:
    rows = table_rows(n_q, n_k, k)  # (n_q, n_k), values 0..2k
    offsets = relative_offsets(n_q, n_k)  # (n_q, n_k)
    clipped = rows - k  # (n_q, n_k)
    large, panel = n_q * n_k > LARGE_CELLS, bool(panel_height)
    limit = max(k, 1)
    trace = {
        "type": "heatmap",
        "z": clipped,
        "colorscale": [list(pair) for pair in colorscale_pairs(style.OFFSET_MAP_SCALE)],
        "zmin": -limit,
        "zmax": limit,
        "colorbar": _colorbar(k, panel_height, layout),
        "xgap": 0 if large else 1,
        "ygap": 0 if large else 1,
        **(
            {"x0": PANEL_ORIGIN, "dx": 1, "y0": PANEL_ORIGIN, "dy": 1}
            if panel
            else {"x": list(range(n_k)), "y": list(range(n_q))}
        ),
    }
    if large:
        trace.update(_large_map(rows, k, trace["colorbar"], panel))
    else:
        trace.update(_panel_labels(offsets, clipped) if panel else _alone_labels(offsets, clipped))
        if text_size:
            trace["textfont"] = {"size": text_size}
    return trace


def _unlabelled(trace: dict) -> dict:
    """A map trace without offsets printed in its cells (hover and colours stay)."""
    return {key: value for key, value in trace.items() if key not in ("text", "texttemplate", "textfont")}


def offset_map_figure(
    n_q: int,
    n_k: int,
    k: int,
    *,
    title: str | None = None,
    height: int | None = None,
    outline: bool = False,
    text_size: int | None = style.SMALL_FONT_SIZE,
    panel_height: int | None = None,
    panel_layout: style.PanelLayout = style.PANEL,
    cell_labels: bool = True,
    validate: bool = True,
    table: str = "a<sup>K</sup>",
) -> go.Figure:
    """Which table row (offset) each pair uses; clipped cells (|j − i| > k) are marked.

    Colours are the clipped offsets ``-k..+k`` (constant along each diagonal); a cell
    whose true offset lies beyond the window shows e.g. ``+3→+2``. With ``outline``
    dashed lines separate the window from the clipped region; ``panel_height`` lays
    the figure out like the other panels, as `panel_layout` says (see
    :class:`relpos.plots.style.HeatmapStyle`; the × markers then have no legend entry).
    `table` names the table in the hover (``b`` for a query-independent bias).
    Without ``cell_labels`` no offset is printed in the cells (a projector's cells too small
    for its 20 px text). Above :data:`LARGE_CELLS` cells the labels,
    per-cell hover text and × markers are left out (the colours and the outline still show
    everything) and ``z`` holds the table row ``0..2k`` as uint8 (uint16 for k >= 128).

    Examples
    --------
    >>> fig = offset_map_figure(3, 3, 1)
    >>> fig.data[0].text[0]
    ['0', '+1', '+2→+1']
    >>> fig.data[1].name
    'clipped (|j − i| > 1)'
    """
    panel = bool(panel_height)
    trace = _map_trace(n_q, n_k, k, panel_height, text_size, panel_layout)
    if "hovertemplate" in trace:  # the query-independent mode's table is b, one number per offset
        trace["hovertemplate"] = trace["hovertemplate"].replace("table row a<sup>K</sup>", f"table row {table}")
    data = [trace if cell_labels else _unlabelled(trace)]
    title = title or f"offset map: table row used (k = {k})"
    layout = matrix_layout(n_q, n_k, title, height, panel_height, panel_layout)
    origin = PANEL_ORIGIN if panel else 0
    beyond = np.argwhere(np.abs(relative_offsets(n_q, n_k)) > k)  # (clipped cells, 2)
    if len(beyond) and n_q * n_k <= LARGE_CELLS and (not panel or n_q * n_k <= MARKED_PANEL_CELLS):
        data.append(_clipped_markers(beyond, k, origin, panel))
        layout["legend"] = {"orientation": "h", "y": -0.2}
    if outline:
        layout["shapes"] = outline_shapes(n_q, n_k, k, origin=origin)
    return figure_from_spec({"data": data, "layout": layout}, validate)
