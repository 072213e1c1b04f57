"""Plotly figures for the scheme comparison page (no Streamlit imports).

Heatmaps reuse :mod:`relpos.plots.heatmaps` (matrix orientation, shared diverging scale for
score-like panels, 0–1 sequential scale for weights). Curves over the offset ``j − i``
shade the offsets a model "trained" at length L has seen.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.core.scheme_comparison import LengthReport, SchemeScores
from relpos.core.schemes import SCHEMES
from relpos.plots import style
from relpos.plots.heatmaps import TEXT_MAX_N, score_heatmap, symmetric_range, weight_heatmap
from relpos.plots.style import HeatmapStyle
from relpos.text.hover import scheme_score_hover, scheme_weight_hover, translation_hover
from relpos.text.numbers import number, offset, readable

__all__ = [
    "TRAINED_FILL",
    "alibi_curve_figure",
    "change_matrices",
    "position_heatmaps",
    "rope_curve_figure",
    "score_matrices",
    "shaw_curve_figure",
    "sinusoid_figure",
    "t5_curve_figure",
    "translation_bar_figure",
    "translation_heatmaps",
    "weight_heatmaps",
]

#: Shading of the offsets (or positions) seen in training (kept importable here).
TRAINED_FILL = style.TRAINED_FILL
#: Below this a change is rounding, not a real change (float64 sums of ~10 terms).
ROUNDING = 1e-9


def _look(n: int, height: int) -> HeatmapStyle:
    """Cell numbers as on every page: printed up to n = 12, one decimal above n = 6 and
    sized by Plotly to fit the small panels."""
    if n > TEXT_MAX_N:
        return HeatmapStyle(height=height, text=False)
    small = n <= 6
    return HeatmapStyle(height=height, decimals=2 if small else 1, text_size=style.SMALL_TEXT_SIZE if small else None)


def _compact(fig: go.Figure, name: str) -> go.Figure:
    """Small-panel touches: the scheme's name in the trace (for tests and hover), tight margins."""
    fig.update_traces(name=name, selector={"type": "heatmap"})
    fig.update_layout(margin=style.SMALL_PANEL_MARGIN.plotly(), font={"size": style.SMALL_LABEL_SIZE})
    return fig


def position_heatmaps(results: dict[str, SchemeScores], *, height: int = 400) -> dict[str, go.Figure]:
    """Each scheme's position-only part ``scores − content``, on one shared colour range.

    The "none" scheme has no position part (all zeros); its panel shows the
    no-position scores themselves, the baseline every other part is added to.
    Hovering a cell shows its arithmetic (:func:`relpos.text.hover.scheme_score_hover`).
    """
    panels = {
        name: (result.content, "scores without positions") if name == "none" else (result.position, "position part")
        for name, result in results.items()
    }
    limit = symmetric_range(*(matrix for matrix, _ in panels.values()))
    figures = {}
    for name, (matrix, title) in panels.items():
        hover = scheme_score_hover(results[name].content, results[name].scores, baseline=name == "none")
        figures[name] = _compact(
            score_heatmap(matrix, title, limit=limit, look=_look(len(matrix), height), hover=hover), name
        )
    return figures


def weight_heatmaps(results: dict[str, SchemeScores], *, height: int = 400) -> dict[str, go.Figure]:
    """Each scheme's combined attention weights (softmax of its scores), with the softmax in the hover."""
    figures = {}
    for name, result in results.items():
        weights = scheme_weight_hover(result.scores)
        figures[name] = _compact(
            weight_heatmap(result.weights, "combined weights", look=_look(len(result.weights), height), hover=weights),
            name,
        )
    return figures


def _without_rounding(changes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {name: np.where(np.abs(change) < ROUNDING, 0.0, change) for name, change in changes.items()}


def change_matrices(changes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The translation panels' numbers by panel title (for the screen-reader tables)."""
    return {f"{SCHEMES[name]}: change": change for name, change in _without_rounding(changes).items()}


def score_matrices(results: dict[str, SchemeScores]) -> dict[str, np.ndarray]:
    """The comparison panels' numbers by title: each scheme's position part and weights."""
    matrices = {}
    for name, result in results.items():
        if name == "none":
            matrices[f"{SCHEMES[name]}: scores without positions"] = result.content
        else:
            matrices[f"{SCHEMES[name]}: position part"] = result.position
        matrices[f"{SCHEMES[name]}: combined weights"] = result.weights
    return matrices


def translation_heatmaps(
    changes: dict[str, np.ndarray], *, before: dict[str, SchemeScores], shift: int, height: int = 300
) -> dict[str, go.Figure]:
    """``scores(shift) − scores(0)`` for each scheme, on one shared colour range.

    Changes below rounding level are drawn as exact zeros, so an unchanged scheme is
    plainly white rather than speckled with 1e−16 noise. `before` holds the unshifted
    results, for the hover's ``after − before`` arithmetic.
    """
    cleaned = _without_rounding(changes)
    limit = symmetric_range(*cleaned.values())
    return {
        name: _compact(
            score_heatmap(
                change,
                f"{SCHEMES[name]}: change",
                limit=limit,
                look=_look(len(change), height),
                hover=translation_hover(before[name].scores, change, shift),
            ),
            name,
        )
        for name, change in cleaned.items()
    }


def translation_bar_figure(changes: dict[str, np.ndarray], shift: int, *, height: int = 330) -> go.Figure:
    """Largest change of any score, per scheme, when the tokens move by `shift` places."""
    names = list(changes)
    largest = [float(np.max(np.abs(changes[name]))) for name in names]
    changed = [value >= ROUNDING for value in largest]
    # a change that moved never reads 0.000: below 0.0005 it prints in E notation
    labels = [
        readable(value, 3, trim=None) if moved else "0 (unchanged)"
        for value, moved in zip(largest, changed, strict=True)
    ]
    fig = go.Figure(
        go.Bar(
            x=[value if moved else 0.0 for value, moved in zip(largest, changed, strict=True)],
            y=[SCHEMES[name] for name in names],
            orientation="h",
            marker_color=[style.UNTRAINED if moved else style.CURVE for moved in changed],
            text=labels,
            textposition="outside",
            cliponaxis=False,
            customdata=largest,
            hovertemplate="%{y}<br>max |change| = %{customdata:.3g}<extra></extra>",
        )
    )
    fig.update_layout(
        title=style.centred_title(f"largest change of a score when every token moves {shift} places"),
        height=height,
        margin=style.TRANSLATION_BARS_MARGIN.plotly(),
        xaxis={"title": style.axis_title("max |score(shifted) − score(original)|"), "rangemode": "tozero"},
        yaxis={"autorange": "reversed"},
        font={"size": style.FONT_SIZE},
    )
    return fig


def _shade_trained(fig: go.Figure, x0: float, x1: float, label: str) -> None:
    """Shade the x range a model trained at length L has seen, labelled at the bottom."""
    fig.add_vrect(
        x0=x0,
        x1=x1,
        fillcolor=TRAINED_FILL,
        line_width=0,
        layer="below",
        annotation_text=label,
        annotation_position="bottom left",
        annotation_font_size=style.SMALL_LABEL_SIZE,
    )


def _offset_axes(fig: go.Figure, report: LengthReport, title: str, y_title: str, height: int) -> go.Figure:
    """Shade the trained offsets, label the axes, put the legend below."""
    edge = report.trained_length - 1
    _shade_trained(fig, -edge - 0.5, edge + 0.5, f"trained: |j − i| ≤ {edge}")
    fig.add_hline(y=0, line_color=style.palette().faint_guide, line_width=1)
    fig.update_layout(
        title=style.centred_title(title),
        height=height,
        margin=style.CHART_MARGIN.plotly(),
        legend={"orientation": "h", "y": -0.28},
        xaxis={"title": style.axis_title("offset j − i"), "zeroline": False},
        yaxis={"title": style.axis_title(y_title)},
        font={"size": style.SMALL_FONT_SIZE},
    )
    return fig


def _hover(xs, ys, where=lambda x: f"j − i = {offset(int(x))}", prefix: str = "") -> list[str]:
    """One hover label per point, numbers by the one formatter (Plotly's own formats print a hyphen-minus)."""
    return [f"{prefix}{where(x)}: {number(y, 3)}" for x, y in zip(xs, ys, strict=True)]


def _flagged(report: LengthReport, values: np.ndarray, flag: np.ndarray, name: str, colour: str, symbol: str):
    """Markers on the offsets where `flag` holds (None when there are none)."""
    if not np.any(flag):
        return None
    return go.Scatter(
        x=report.offsets[flag],
        y=values[flag],
        mode="markers",
        name=name,
        marker={"color": colour, "symbol": symbol, "size": 8},
        hovertext=_hover(report.offsets[flag], values[flag], prefix=f"{name}<br>"),
        hoverinfo="text",
    )


def shaw_curve_figure(report: LengthReport, k: int, *, height: int = 340) -> go.Figure:
    """Shaw bias of query 1 at every offset of length 2L: flat beyond ±k."""
    traces = [
        go.Scatter(
            x=report.offsets,
            y=report.shaw,
            mode="lines",
            name="q<sub>1</sub>·a<sup>K</sup><sub>clip(j−i, k)</sub>/√d",
            line={"color": style.CURVE, "width": 2},
            hovertext=_hover(report.offsets, report.shaw),
            hoverinfo="text",
        ),
        _flagged(
            report,
            report.shaw,
            report.shaw_clipped,
            f"clipped: reuses a<sup>K</sup><sub>±{k}</sub>",
            style.REUSED,
            "circle-open",
        ),
        _flagged(report, report.shaw, report.shaw_row_untrained, "row never trained", style.UNTRAINED, "x"),
    ]
    fig = go.Figure([trace for trace in traces if trace is not None])
    return _offset_axes(fig, report, f"Shaw (k = {k}): flat beyond ±k", "bias", height)


def t5_curve_figure(report: LengthReport, *, height: int = 340) -> go.Figure:
    """T5 bias at every offset: steps of log-spaced buckets, unseen buckets marked."""
    hover = [
        f"j − i = {offset(o)}: bucket {b}, bias {number(y, 3)}"
        for o, b, y in zip(report.offsets, report.t5_buckets, report.t5, strict=True)
    ]
    traces = [
        go.Scatter(
            x=report.offsets,
            y=report.t5,
            mode="lines",
            line={"color": style.CURVE, "width": 2, "shape": "hvh"},
            name="β[bucket(j − i)]",
            hovertext=hover,
            hoverinfo="text",
        ),
        _flagged(report, report.t5, report.t5_untrained, "bucket never trained", style.UNTRAINED, "x"),
    ]
    fig = go.Figure([trace for trace in traces if trace is not None])
    return _offset_axes(fig, report, "T5: log-spaced buckets", "bias", height)


def alibi_curve_figure(report: LengthReport, head: int, *, height: int = 340) -> go.Figure:
    """ALiBi penalty of every head; the chosen head (0-based) drawn bold."""
    n_heads = len(report.alibi)
    fig = go.Figure(
        [
            go.Scatter(
                x=report.offsets,
                y=report.alibi[h],
                mode="lines",
                name=f"head {h + 1}",
                showlegend=False,
                line={"color": style.palette().faded_line, "width": 1},
                hovertext=_hover(report.offsets, report.alibi[h], prefix=f"head {h + 1}<br>"),
                hoverinfo="text",
            )
            for h in range(n_heads)
            if h != head
        ]
        + [
            go.Scatter(
                x=report.offsets,
                y=report.alibi[head],
                mode="lines",
                name=f"head {head + 1} (others in grey)" if n_heads > 1 else "the head",
                line={"color": style.CURVE, "width": 3},
                hovertext=_hover(report.offsets, report.alibi[head], prefix=f"head {head + 1}<br>"),
                hoverinfo="text",
            )
        ]
    )
    return _offset_axes(fig, report, "ALiBi: −m·|j − i| keeps growing", "bias", height)


def rope_curve_figure(report: LengthReport, *, height: int = 340) -> go.Figure:
    """RoPE score of query 1 with key 2 placed at each offset."""
    fig = go.Figure(
        go.Scatter(
            x=report.offsets,
            y=report.rope,
            mode="lines+markers",
            marker={"size": 4},
            line={"color": style.CURVE, "width": 2},
            name="(R<sub>0</sub>q<sub>1</sub>)·(R<sub>j−i</sub>k<sub>2</sub>)/√d: query 1, key 2",
            hovertext=_hover(report.offsets, report.rope),
            hoverinfo="text",
        )
    )
    return _offset_axes(fig, report, "RoPE: the same pair at every offset", "score of query 1 with key 2", height)


def sinusoid_figure(report: LengthReport, *, height: int = 340, max_columns: int = 8) -> go.Figure:
    """Sinusoidal encodings of positions 1..2L, one line per column; trained positions shaded."""
    encodings = report.sinusoids  # (2L, d_model)
    positions = np.arange(1, len(encodings) + 1)
    palette = style.palette().categories
    fig = go.Figure(
        [
            go.Scatter(
                x=positions,
                y=encodings[:, column],
                mode="lines",
                name=f"{'sin' if column % 2 == 0 else 'cos'} column {column + 1}",
                line={"color": palette[column % len(palette)], "width": 2},
                hovertext=_hover(
                    positions, encodings[:, column], lambda x: f"position {x}", prefix=f"column {column + 1}<br>"
                ),
                hoverinfo="text",
            )
            for column in range(min(max_columns, encodings.shape[1]))
        ]
    )
    length = report.trained_length
    _shade_trained(fig, 0.5, length + 0.5, f"trained: 1..{length}")
    fig.update_layout(
        title=style.centred_title("sinusoidal: positions beyond L are new inputs"),
        height=height,
        margin=style.CHART_MARGIN.plotly(),
        legend={"orientation": "h", "y": -0.28, "font": {"size": style.SMALL_TEXT_SIZE}},
        xaxis={"title": style.axis_title("position")},
        yaxis={"title": style.axis_title("encoding value"), "range": [-1.1, 1.1]},
        font={"size": style.SMALL_FONT_SIZE},
    )
    return fig
