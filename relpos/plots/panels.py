"""The sets of heatmap panels the Explore pages show side by side (no Streamlit).

Every panel of a set has the same height and margins, the score panels share one
diverging colour range computed from the data, and the level of detail follows the
size: numbers in the cells up to :data:`TEXT_MAX_N` tokens, per-cell arithmetic on
hover up to :data:`HOVER_MAX_N`, float32 data above that.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.core.attention import AttentionResult
from relpos.plots.heatmaps import (
    TEXT_MAX_N,
    WEIGHT_RANGE,
    cell_decimals,
    diverging_range,
    figure_from_spec,
    heatmap_spec,
    score_heatmap,
    symmetric_range,
    weight_heatmap,
)
from relpos.plots.offset_map import offset_map_figure
from relpos.plots.style import HeatmapStyle
from relpos.text import hover

__all__ = [
    "EFFECTS_PANELS",
    "EXPLORER_PANELS",
    "HOVER_MAX_N",
    "TEXT_MAX_N",
    "effects_panels",
    "explorer_hovers",
    "explorer_panels",
    "explorer_skeletons",
    "explorer_titles",
    "offset_map",
    "panel_height",
    "panel_matrices",
    "plain_title",
]

#: Hover labels show each cell's arithmetic up to this many tokens.
HOVER_MAX_N = 64

#: Explorer panel key -> title (Plotly titles accept <sub>).
EXPLORER_PANELS = {
    "content": "content  q<sub>i</sub>·k<sub>j</sub>",
    "bias": "position bias  q<sub>i</sub>·a<sup>K</sup><sub>clip(j−i)</sub>",
    "scores": "combined score",
    "content_weights": "content-only weights",
    "weights": "combined weights",
    "difference": "weight change: combined − content-only",
    "offsets": "offset map: table row used",
}
#: Position-effects panel key -> title.
EFFECTS_PANELS = {
    "content": "content scores  q<sub>i</sub>·k<sub>j</sub>/√d<sub>k</sub>",
    "bias": "position biases  q<sub>i</sub>·a<sup>K</sup><sub>clip(j−i)</sub>/√d<sub>k</sub>",
    "content_weights": "content-only weights",
    "weights": "combined weights",
}


def plain_title(name: str, d: int = 1, *, scalar: bool = False, effects: bool = False) -> str:
    """A panel's title without HTML (for tables and screen readers), saying what its numbers are.

    Parameters
    ----------
    name : str
        The panel's key.
    d : int
        The Explorer's vector width: both products are divided by √d (named for d > 1).
    scalar : bool
        The Explorer's query-independent bias (one number per offset, not q_i·a^K).
    effects : bool
        A Position effects panel (:data:`EFFECTS_PANELS`, scaled by √d_k).

    Examples
    --------
    >>> plain_title("content"), plain_title("content", 2), plain_title("bias", effects=True)
    ('content  q_i·k_j', 'content  q_i·k_j/√2', 'position biases  q_i·a^K_clip(j−i)/√d_k')
    """
    title = EFFECTS_PANELS[name] if effects else explorer_titles(d, scalar=scalar)[name]
    for tag, plain in (("<sub>", "_"), ("</sub>", ""), ("<sup>", "^"), ("</sup>", "")):
        title = title.replace(tag, plain)
    return title


def explorer_titles(d: int, *, scalar: bool = False) -> dict[str, str]:
    """The Explorer panels' titles for vectors of size d (the bias title names the bias used).

    >>> explorer_titles(2)["content"]
    'content  q<sub>i</sub>·k<sub>j</sub>/√2'
    >>> explorer_titles(1, scalar=True)["bias"]
    'position bias  b<sub>clip(j−i)</sub>  (query-independent)'
    """
    titles = dict(EXPLORER_PANELS)
    if d > 1:
        titles["content"] += f"/√{d}"
        titles["bias"] += f"/√{d}"
    if scalar:
        titles["bias"] = "position bias  b<sub>clip(j−i)</sub>  (query-independent)"
    return titles


def panel_matrices(result: AttentionResult) -> dict[str, np.ndarray]:
    """The matrix behind each Explorer panel (``offsets`` are the clipped offsets)."""
    return {
        "content": result.content,
        "bias": result.bias,
        "scores": result.scores,
        "content_weights": result.content_weights,
        "weights": result.weights,
        "difference": result.weights - result.content_weights,
        "offsets": result.offsets,
    }


def panel_height(n: int) -> int:
    """Height (px) of a panel for n tokens: taller when there are more cells to read.

    >>> panel_height(4), panel_height(12)
    (440, 460)
    """
    return 440 if n <= 6 else 460


def _detail(n: int) -> dict:
    return {
        "text": n <= TEXT_MAX_N,
        # signed scores with two decimals ("-0.25") no longer fit 9 to 12 cells a row;
        # weights ("0.08") and weight changes keep two, or they would all read 0.0 or 0.1
        "score_format": ".2f" if n <= 8 else ".1f",
        "hover": n <= HOVER_MAX_N,
        # float32 halves what large panels send; small ones keep every digit
        "dtype": np.float32 if n > HOVER_MAX_N else np.float64,
    }


def _panel_look(detail: dict, height: int, cell_format: str) -> HeatmapStyle:
    """Side-by-side panels: numbers fitted to the cells by Plotly, whatever the column width."""
    return HeatmapStyle(
        panel_height=height, text=detail["text"], text_size=None, cell_format=cell_format, validate=False
    )


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
) -> dict[str, go.Figure]:
    """The Explorer's seven panels, keyed as :data:`EXPLORER_PANELS`.

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
        Include the offset map (pages that cache it per size pass False and use
        :func:`offset_map`).
    hovers : dict, optional
        :func:`explorer_hovers` of these inputs, when the caller has them already.

    Examples
    --------
    >>> import relpos
    >>> example = relpos.worked_example()
    >>> panels = explorer_panels(example.queries, example.keys, example.table, example.attention())
    >>> list(panels) == list(EXPLORER_PANELS)
    True
    >>> panels["content"].data[0].zmax == panels["bias"].data[0].zmax  # one shared score range
    True
    """
    if hovers is None:
        hovers = explorer_hovers(queries, keys, table, result, scalar=scalar)
    d = np.shape(queries)[1] if np.ndim(queries) == 2 else 1
    specs = _explorer_heatmaps(result, d, scalar=scalar, height=height, hovers=hovers)
    panels = {name: figure_from_spec(heatmap_spec(**args), args["look"].validate) for name, args in specs.items()}
    if offsets:
        n_q, n_k = result.scores.shape
        panels["offsets"] = offset_map(n_q, n_k, result.k, height)
    return panels


def explorer_skeletons(result: AttentionResult, d: int, *, scalar: bool, height: int, hovers: dict) -> dict:
    """The six data panels of :func:`explorer_panels` as skeletons: plain dicts without the
    per-cell arrays (``z``, cell ``text``, ``customdata``), which are never computed.

    Returns a dict of panel key to ``(spec, decimals)``: the figure dict (what
    :func:`relpos.topics.explorer.spec.skeleton` keeps of the figure's JSON) and the decimals of
    the cell numbers the browser prints (None: none, or Plotly formats z). `hovers` may be
    recipes (``explorer_hovers(..., cells=False)``).
    """
    specs = _explorer_heatmaps(result, d, scalar=scalar, height=height, hovers=hovers, cells=False)
    return {
        name: (heatmap_spec(**args, cells=False), cell_decimals(args["matrix"].size, args["look"]))
        for name, args in specs.items()
    }


def _explorer_heatmaps(
    result: AttentionResult, d: int, *, scalar: bool, height: int, hovers: dict, cells: bool = True
) -> dict:
    """What each of the six data panels is drawn from: :func:`heatmap_spec`'s arguments
    (``cells=False``: the matrices as computed, since no cell is sent in any dtype)."""
    n_q, n_k = result.scores.shape
    detail = _detail(max(n_q, n_k))
    matrices = panel_matrices(result)
    titles = explorer_titles(d, scalar=scalar)
    scores_look, weights_look = _panel_look(detail, height, detail["score_format"]), _panel_look(detail, height, ".2f")
    score_range = diverging_range(symmetric_range(result.content, result.bias, result.scores))
    clipped = result.k < max(n_q, n_k) - 1
    looks = {
        "content": (score_range, scores_look, None),
        "bias": (score_range, scores_look, result.k if clipped else None),
        "scores": (score_range, scores_look, None),
        "content_weights": (WEIGHT_RANGE, weights_look, None),
        "weights": (WEIGHT_RANGE, weights_look, None),
        "difference": (diverging_range(symmetric_range(matrices["difference"])), weights_look, None),
    }
    return {
        name: {
            "matrix": matrices[name].astype(detail["dtype"]) if cells else matrices[name],
            "title": titles[name],
            "colours": colours,
            "look": look,
            "hover": hovers.get(name),
            "outline_k": outline_k,
        }
        for name, (colours, look, outline_k) in looks.items()
    }


def explorer_hovers(
    queries, keys, table, result: AttentionResult, *, scalar: bool = False, cells: bool = True
) -> dict[str, hover.Hover]:
    """The hover arithmetic of the six data panels, keyed by panel (empty above :data:`HOVER_MAX_N`).

    The three score panels share one hover: each cell's content term, position term and sum.
    ``cells=False``: only the recipes (templates and fields, no ``customdata``).

    >>> import relpos
    >>> example = relpos.worked_example()
    >>> hovers = explorer_hovers(example.queries, example.keys, example.table, example.attention())
    >>> hovers["content"] is hovers["scores"], hovers["weights"].fields[:2]
    (True, (('logit', '.2f'), ('exp', '.3f')))
    """
    if not _detail(max(result.scores.shape))["hover"]:
        return {}
    score_hover = hover.score_hover(queries, keys, table, result, scalar=scalar, cells=cells)
    content_hover, weight_hover, change_hover = hover.weight_hovers(result, cells=cells)
    return {
        "content": score_hover,
        "bias": score_hover,
        "scores": score_hover,
        "content_weights": content_hover,
        "weights": weight_hover,
        "difference": change_hover,
    }


def offset_map(n_q: int, n_k: int, k: int, height: int) -> go.Figure:
    """The Explorer's offset-map panel (it depends only on the sizes, so pages may cache it)."""
    return offset_map_figure(
        n_q,
        n_k,
        k,
        title=f"{EXPLORER_PANELS['offsets']} (k = {k})",
        outline=True,
        text_size=None,
        panel_height=height,
        validate=False,
    )


def effects_panels(result: AttentionResult, *, height: int = 420) -> dict[str, go.Figure]:
    """The Position effects page's four panels, keyed as :data:`EFFECTS_PANELS`.

    Examples
    --------
    >>> import relpos
    >>> panels = effects_panels(relpos.worked_example().attention())
    >>> sorted(panels) == sorted(EFFECTS_PANELS)
    True
    """
    n_q, n_k = result.scores.shape
    detail = _detail(max(n_q, n_k))
    score_hover, weight_hover = hover.effects_hover(result) if detail["hover"] else (None, None)
    limit = symmetric_range(result.content, result.bias)
    clipped = result.k < max(n_q, n_k) - 1
    panels = {
        name: score_heatmap(
            getattr(result, name).astype(detail["dtype"]),
            EFFECTS_PANELS[name],
            limit=limit,
            look=_panel_look(detail, height, detail["score_format"]),
            hover=score_hover,
            outline_k=result.k if name == "bias" and clipped else None,
        )
        for name in ("content", "bias")
    }
    for name in ("content_weights", "weights"):
        panels[name] = weight_heatmap(
            getattr(result, name).astype(detail["dtype"]),
            EFFECTS_PANELS[name],
            look=_panel_look(detail, height, ".2f"),
            hover=weight_hover,
        )
    return panels
