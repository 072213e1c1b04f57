"""The Explorer's whole figures, built the slow way: the oracle the Explorer panel is checked against.

The app never builds these: it sends skeletons and recipes
(:func:`relpos.topics.explorer.panel_spec.release_spec`) and the browser fills the cells.
Here every cell is computed in Python, from the same panel specs, so the tests can
compare what the browser drew, and what the page sent, with whole Plotly figures.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go

from relpos.core.attention import AttentionResult
from relpos.plots import panels, style
from relpos.plots.heatmaps import figure_from_spec, heatmap_spec
from relpos.text import hover
from relpos.topics.explorer import panel_spec, presets

__all__ = ["explorer_panels", "figure_json", "spec_from_figures"]


def explorer_panels(
    queries,
    keys,
    table,
    result: AttentionResult,
    *,
    scalar: bool = False,
    height: int = 400,
    offsets: bool = True,
    hovers: dict[str, hover.Hover] | None = None,
    layout: style.PanelLayout = style.PANEL,
) -> dict[str, go.Figure]:
    """The Explorer's seven panels as whole figures, keyed as :data:`relpos.plots.panels.EXPLORER_PANELS`.

    Parameters
    ----------
    queries, keys : array_like, shape (n, d)
    table : array_like, shape (2k+1, d)
        ``a^K`` (its first column holds the scalars when ``scalar``).
    result : AttentionResult
        Computed from these inputs.
    scalar : bool
        The bias is query-independent (one scalar per offset).
    height : int
        Height of every panel in pixels.
    offsets : bool
        Include the offset map.
    hovers : dict, optional
        Whole hovers of these inputs (``explorer_hovers(..., cells=True)``).
    layout : relpos.plots.style.PanelLayout
        The panels' layout (a projector's in presenter mode).

    Examples
    --------
    >>> import relpos
    >>> example = relpos.worked_example()
    >>> figures = explorer_panels(example.queries, example.keys, example.table, example.attention())
    >>> list(figures) == list(panels.EXPLORER_PANELS)
    True
    >>> figures["content"].data[0].zmax == figures["bias"].data[0].zmax  # one shared score range
    True
    """
    if hovers is None:
        hovers = panel_spec.explorer_hovers(queries, keys, table, result, scalar=scalar, cells=True)
    d = np.shape(queries)[1] if np.ndim(queries) == 2 else 1
    n_q, n_k = result.scores.shape
    dtype = panels.panel_detail(max(n_q, n_k))["dtype"]  # what the browser's cells are computed in
    figures = {}
    heatmaps = panel_spec.explorer_heatmaps(result, d, scalar=scalar, height=height, hovers=hovers, layout=layout)
    for name, args in heatmaps.items():
        args = {**args, "matrix": args["matrix"].astype(dtype)}
        figures[name] = figure_from_spec(heatmap_spec(**args), args["look"].validate)
    if offsets:
        figures["offsets"] = panel_spec.offset_map_panel(n_q, n_k, result.k, height, layout, scalar=scalar)
    return figures


def figure_json(figure: go.Figure) -> dict:
    """A whole figure as the JSON plotly.js reads (NumPy arrays become typed arrays, ``bdata``)."""
    return json.loads(figure.to_json())


def spec_from_figures(
    state: dict,
    inputs: presets.ExplorerInputs,
    figures: dict[str, go.Figure],
    captions: dict[str, str],
    *,
    result: AttentionResult | None = None,
    hovers: dict[str, hover.Hover] | None = None,
    seq: int = 0,
) -> dict:
    """The Explorer panel's spec made from whole figures: what :func:`release_spec` must equal.

    Each figure's skeleton (:func:`relpos.topics.explorer.panel_spec.skeleton`: no cells, the
    clipping window's outline without its path), the decimals of its cell numbers and,
    with ``result`` and ``hovers``, the hover recipes.

    >>> import relpos
    >>> from relpos.topics.explorer import schema
    >>> state = schema.EXPLORER.decode({}).state
    >>> inputs = schema.explorer_inputs(state)
    >>> result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    >>> spec = spec_from_figures(state, inputs, explorer_panels(inputs.queries, inputs.keys, inputs.table, result), {})
    >>> spec["n"], spec["k"], spec["drag_repaint"]
    (4, 2, True)
    """
    n, k = state["n"], state["k"]
    skeletons = {
        name: panel_spec.outline_free(json.loads(_skeleton_json(figures[name])), n, k)
        for name in panel_spec.PANEL_ORDER
    }
    decimals = {name: panel_spec.figure_decimals(figures[name]) for name in panel_spec.PANEL_ORDER}
    recipes = panel_spec.hover_recipes(state, inputs, result, hovers) if result is not None and hovers else {}
    return panel_spec.assemble(state, inputs, skeletons, decimals, captions, recipes, seq)


def _skeleton_json(figure: go.Figure) -> str:
    import plotly.io as pio

    return pio.json.to_json_plotly(panel_spec.skeleton(figure.to_plotly_json()))
