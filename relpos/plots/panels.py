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
from relpos.plots import style
from relpos.plots.heatmaps import TEXT_MAX_N, score_heatmap, symmetric_range, weight_heatmap
from relpos.plots.style import HeatmapStyle, PanelLayout
from relpos.text import hover

__all__ = [
    "EXPLORER_PANELS",
    "HOVER_MAX_N",
    "POSITION_EFFECTS_PANELS",
    "TEXT_MAX_N",
    "cell_numbers",
    "explorer_titles",
    "panel_detail",
    "panel_height",
    "panel_look",
    "panel_matrices",
    "percent_line",
    "plain_title",
    "position_effects_decimals",
    "position_effects_panels",
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
POSITION_EFFECTS_PANELS = {
    "content": "content scores  q<sub>i</sub>·k<sub>j</sub>/√d<sub>k</sub>",
    "bias": "position biases  q<sub>i</sub>·a<sup>K</sup><sub>clip(j−i)</sub>/√d<sub>k</sub>",
    "content_weights": "content-only weights",
    "weights": "combined weights",
}


def plain_title(name: str, d: int = 1, *, scalar: bool = False, position_effects: bool = False) -> str:
    """A panel's title without HTML (for tables and screen readers), saying what its numbers are.

    Parameters
    ----------
    name : str
        The panel's key.
    d : int
        The Explorer's vector width: both products are divided by √d (named for d > 1).
    scalar : bool
        The Explorer's query-independent bias (one number per offset, not q_i·a^K).
    position_effects : bool
        A Position effects panel (:data:`POSITION_EFFECTS_PANELS`, scaled by √d_k).

    Examples
    --------
    >>> plain_title("content"), plain_title("content", 2), plain_title("bias", position_effects=True)
    ('content  q_i·k_j', 'content  q_i·k_j/√2', 'position biases  q_i·a^K_clip(j−i)/√d_k')
    """
    title = POSITION_EFFECTS_PANELS[name] if position_effects else explorer_titles(d, scalar=scalar)[name]
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


def panel_height(n: int, layout: PanelLayout = style.PANEL) -> int:
    """Height (px) of a panel for n tokens: taller when there are more cells to read (or the
    layout's fixed height).

    >>> panel_height(4), panel_height(12), panel_height(12, style.PRESENTER_PANEL) == style.PRESENTER_PANEL.height
    (440, 460, True)
    """
    return layout.height or (440 if n <= 6 else 460)


def cell_numbers(n: int, layout: PanelLayout = style.PANEL) -> bool:
    """Whether panels of n tokens laid out as `layout` print numbers in their cells.

    >>> cell_numbers(12), cell_numbers(13), cell_numbers(6, style.PRESENTER_PANEL)
    (True, False, False)
    """
    return n <= (layout.text_max_n or TEXT_MAX_N)


def panel_detail(n: int, layout: PanelLayout = style.PANEL) -> dict:
    return {
        "text": cell_numbers(n, layout),
        # signed scores with two decimals ("-0.25") no longer fit 9 to 12 cells a row;
        # weights ("0.08") and weight changes keep two, or they would all read 0.0 or 0.1
        "score_format": ".2f" if n <= 8 else ".1f",
        "hover": n <= HOVER_MAX_N,
        # float32 halves what large panels send; small ones keep every digit
        "dtype": np.float32 if n > HOVER_MAX_N else np.float64,
    }


def panel_look(detail: dict, height: int, cell_format: str, layout: PanelLayout = style.PANEL) -> HeatmapStyle:
    """Side-by-side panels laid out as `layout`: numbers fitted to the cells by Plotly, whatever
    the column width (or at the layout's fixed size, a projector's)."""
    return HeatmapStyle(
        panel_height=height,
        panel=layout,
        text=detail["text"],
        text_size=layout.text.cell,
        cell_format=cell_format,
        validate=False,
    )


#: The weight panels' cell numbers ("0.08"): two decimals at every size that prints them.
WEIGHT_CELL_FORMAT = ".2f"
#: Decimals of the Position effects hover labels (relpos.text.hover.position_effects_hover): scores, weights.
_POSITION_EFFECTS_HOVER_DECIMALS = (2, 4)


def position_effects_decimals(n: int) -> tuple[int, int]:
    """Decimals of the numbers the Position effects panels show for n tokens: (scores, weights).

    The cells' own where they print numbers (up to :data:`TEXT_MAX_N` tokens), else the
    hover labels', the only numbers on screen; captions print theirs alike.

    >>> position_effects_decimals(6), position_effects_decimals(10), position_effects_decimals(20)
    ((2, 2), (1, 2), (2, 4))
    """
    detail = panel_detail(n)
    if not detail["text"]:
        return _POSITION_EFFECTS_HOVER_DECIMALS
    return int(detail["score_format"][1:-1]), int(WEIGHT_CELL_FORMAT[1:-1])


def position_effects_panels(result: AttentionResult, *, height: int = 420) -> dict[str, go.Figure]:
    """The Position effects page's four panels, keyed as :data:`POSITION_EFFECTS_PANELS`.

    Examples
    --------
    >>> import relpos
    >>> panels = position_effects_panels(relpos.worked_example().attention())
    >>> sorted(panels) == sorted(POSITION_EFFECTS_PANELS)
    True
    """
    n_q, n_k = result.scores.shape
    detail = panel_detail(max(n_q, n_k))
    score_hover, weight_hover = hover.position_effects_hover(result) if detail["hover"] else (None, None)
    limit = symmetric_range(result.content, result.bias)
    clipped = result.k < max(n_q, n_k) - 1
    panels = {
        name: score_heatmap(
            getattr(result, name).astype(detail["dtype"]),
            POSITION_EFFECTS_PANELS[name],
            limit=limit,
            look=panel_look(detail, height, detail["score_format"]),
            hover=score_hover,
            outline_k=result.k if name == "bias" and clipped else None,
        )
        for name in ("content", "bias")
    }
    for name in ("content_weights", "weights"):
        panels[name] = weight_heatmap(
            getattr(result, name).astype(detail["dtype"]),
            POSITION_EFFECTS_PANELS[name],
            look=panel_look(detail, height, WEIGHT_CELL_FORMAT),
            hover=weight_hover,
        )
    return panels


def percent_line(labels, fractions, name: str, colour: str) -> go.Scatter:
    """One line of an accuracy chart: fractions drawn as percent at categorical x labels.

    >>> percent_line(["L", "2L"], [1.0, 0.5], "RoPE", "blue").y.tolist()
    [100.0, 50.0]
    """
    return go.Scatter(
        x=list(labels),
        y=100 * np.asarray(fractions, dtype=float),
        mode="lines+markers",
        name=name,
        line={"color": colour, "width": 2},
        marker={"size": 9},
        hovertemplate="%{x}: %{y:.1f}%<extra>" + name + "</extra>",
    )
