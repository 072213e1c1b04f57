"""Plotly figures of the long-context lesson (no Streamlit). Each group of small panels is
one figure (``make_subplots``), so the page draws one chart per group.

Colours are Okabe–Ito (colour-blind safe) from :mod:`relpos.plots.style`; scores use the
diverging scale centred on 0, attention weights the 0–1 sequential scale. Positions on
axes count from 1; pairs are numbered i = 0 .. d/2 − 1 as in θ_i = b^(−2i/d).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from relpos.core.rope_scaling import ROPE_SCALINGS, RopeFrequencies
from relpos.plots import style
from relpos.plots.heatmaps import symmetric_range
from relpos.plots.panels import percent_line
from relpos.topics.long_context.model import BANDS, PiBound
from relpos.topics.long_context.text import SHORT, count

__all__ = [
    "BAND_COLOURS",
    "METHOD_COLOURS",
    "accuracy_figure",
    "decay_figure",
    "frequency_figure",
    "hands_figure",
    "head_patterns_figure",
    "pattern_figure",
    "pi_figure",
    "wavelength_figure",
]

#: One colour per method, the same on every chart of the page.
METHOD_COLOURS = {
    "none": style.SCHEME_COLOURS["none"],
    "linear": style.OKABE_ITO[5],
    "ntk": style.OKABE_ITO[2],
    "dynamic": style.OKABE_ITO[3],
    "yarn": style.OKABE_ITO[0],
    "llama3": style.OKABE_ITO[1],
}
#: Pairs kept, in between, divided by s.
BAND_COLOURS = {"kept": style.OKABE_ITO[0], "between": style.OKABE_ITO[1], "divided": style.OKABE_ITO[5]}


def _font(big: bool) -> dict:
    return {"size": style.PRESENTER_MIN_FONT if big else style.FONT_SIZE}


def _finish(fig: go.Figure, title: str, height: int, big: bool) -> go.Figure:
    fig.update_layout(
        title=style.centred_title(title),
        height=height,
        margin=style.CHART_MARGIN.plotly(),
        font=_font(big),
        legend={"orientation": "h", "y": -0.18, "x": 0.5, "xanchor": "center"},
    )
    fig.update_annotations(font=_font(big))  # subplot titles
    return fig


def _markers(x, y, *, name: str, colour: str, hover: str, **extra) -> go.Scatter:
    """Points of one colour, 8 px (a band of pairs, a group of wavelengths)."""
    return go.Scatter(
        x=x, y=y, mode="markers", name=name, marker={"color": colour, "size": 8}, hovertemplate=hover, **extra
    )


def _trained_band(fig: go.Figure, length: int, **where) -> None:
    """Shade the distances (or positions) 0 .. L₀ that training showed."""
    fig.add_vrect(x0=0, x1=length, fillcolor=style.TRAINED_FILL, line_width=0, layer="below", **where)


# ----------------------------------------------------------------------------- 1 · RoPE as rotations


def hands_figure(freq: RopeFrequencies, m: int, pairs, *, big: bool = False, height: int = 300) -> go.Figure:
    """One clock face per chosen pair: the hand at angle m·θ_i, one panel each, in one figure."""
    pairs = [int(i) for i in pairs]
    titles = [f"pair {i}: λ = {count(round(2 * math.pi / freq.inv_freq[i], 1))}" for i in pairs]
    fig = make_subplots(rows=1, cols=len(pairs), subplot_titles=titles, horizontal_spacing=0.03)
    circle = np.linspace(0, 2 * math.pi, 121)
    guide = style.palette().faint_guide
    for column, i in enumerate(pairs, start=1):
        angle = m * freq.inv_freq[i]
        fig.add_trace(
            go.Scatter(x=np.cos(circle), y=np.sin(circle), mode="lines", line={"color": guide}, hoverinfo="skip"),
            row=1,
            col=column,
        )
        turns = angle / (2 * math.pi)
        fig.add_trace(
            go.Scatter(
                x=[0, math.cos(angle)],
                y=[0, math.sin(angle)],
                mode="lines+markers",
                line={"color": METHOD_COLOURS["yarn"], "width": 4},
                marker={"size": [4, 10]},
                hovertemplate=f"pair {i}: angle m·θ = {turns:.3f} turns<extra></extra>",
            ),
            row=1,
            col=column,
        )
        axis = {"range": [-1.2, 1.2], "visible": False}
        fig.update_xaxes(axis, row=1, col=column)
        fig.update_yaxes(axis, row=1, col=column, scaleanchor=f"x{column if column > 1 else ''}")
    fig.update_layout(showlegend=False)
    return _finish(fig, f"Each pair's hand at index m = {count(m)} (angle m·θᵢ)", height, big)


def wavelength_figure(freq: RopeFrequencies, length: int, *, big: bool = False, height: int = 340) -> go.Figure:
    """Wavelength λ_i = 2π/θ_i of every pair (log scale) against the training length L₀."""
    pairs = np.arange(len(freq.inv_freq))
    wavelengths = 2 * math.pi / freq.original_inv_freq
    longer = wavelengths > length
    hover = "pair %{x}: λ = %{y:,.1f}<extra></extra>"
    fig = go.Figure(
        [
            _markers(
                pairs[~longer],
                wavelengths[~longer],
                name="λ ≤ L₀: turns at least once",
                colour=BAND_COLOURS["kept"],
                hover=hover,
            ),
            _markers(
                pairs[longer],
                wavelengths[longer],
                name="λ > L₀: never a full turn",
                colour=BAND_COLOURS["divided"],
                hover=hover,
            ),
        ]
    )
    fig.add_hline(
        y=length,
        line={"dash": "dash", "color": style.palette().strong_guide},
        annotation_text=f"L₀ = {count(length)}",
        annotation_position="top left",
    )
    fig.update_yaxes(type="log", title=style.axis_title("wavelength λᵢ (positions)"))
    fig.update_xaxes(title=style.axis_title("pair i"))
    return _finish(fig, "Wavelength of every pair against the training length", height, big)


def decay_figure(
    curves: dict, length: int, top: int, *, title: str | None = None, big: bool = False, height: int = 460
) -> go.Figure:
    """Score e(Δ) of q = k = (1, …, 1) against distance, one small panel per method (one figure).

    `curves` maps a method to ``(distances, scores)``; the shaded band is 0 .. L₀.
    """
    methods = list(curves)
    columns = min(3, len(methods))
    rows = math.ceil(len(methods) / columns)
    fig = make_subplots(
        rows=rows,
        cols=columns,
        subplot_titles=[SHORT[m] for m in methods],
        shared_xaxes=True,
        shared_yaxes=True,
        horizontal_spacing=0.04,
        vertical_spacing=0.14,
    )
    for index, method in enumerate(methods):
        row, column = index // columns + 1, index % columns + 1
        distances, scores = curves[method]
        fig.add_trace(
            go.Scatter(
                x=np.maximum(distances, 1),
                y=scores,
                mode="lines",
                name=ROPE_SCALINGS[method],
                line={"color": METHOD_COLOURS[method], "width": 1.5},
                hovertemplate="distance %{x:,}: score %{y:.3f}<extra>" + SHORT[method] + "</extra>",
            ),
            row=row,
            col=column,
        )
        fig.add_vrect(x0=1, x1=length, fillcolor=style.TRAINED_FILL, line_width=0, layer="below", row=row, col=column)
    fig.update_xaxes(type="log", range=[0, math.log10(max(top, 2))])
    fig.update_xaxes(title=style.axis_title("distance n − m (log)"), row=rows)
    fig.update_yaxes(title=style.axis_title("score"), col=1)
    fig.update_layout(showlegend=False)
    title = title or f"Score against distance, out to s·L₀ = {count(top)} (shaded: 1 .. L₀ = {count(length)})"
    return _finish(fig, title, height, big)


# ----------------------------------------------------------------------------- 2 · context extension


def frequency_figure(freq: RopeFrequencies, bands, length: int, *, big: bool = False, height: int = 400) -> go.Figure:
    """Left: each pair's new frequency against its old one, coloured by band. Right: full turns
    per pair in L₀ before (grey) and after (band colour), with the one-turn line."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=["new θ′ against old θ (log–log)", f"full turns in L₀ = {count(length)}: L₀ / λᵢ"],
        horizontal_spacing=0.1,
    )
    pairs = np.arange(len(freq.inv_freq))
    old, new = freq.original_inv_freq, freq.inv_freq
    guide = style.palette().strong_guide
    fig.add_trace(
        go.Scatter(x=old, y=old, mode="lines", name="θ′ = θ", line={"color": guide, "dash": "dot"}), row=1, col=1
    )
    if freq.factor > 1:
        fig.add_trace(
            go.Scatter(
                x=old, y=old / freq.factor, mode="lines", name="θ′ = θ/s", line={"color": guide, "dash": "dash"}
            ),
            row=1,
            col=1,
        )
    fig.add_trace(
        go.Scatter(
            x=pairs,
            y=length * old / (2 * math.pi),
            mode="markers",
            name="before",
            marker={"color": style.palette().faded_line, "size": 7, "symbol": "circle-open"},
            hovertemplate="pair %{x}: %{y:.3g} turns before<extra></extra>",
        ),
        row=1,
        col=2,
    )
    for band, label in BANDS.items():
        chosen = np.asarray(bands) == band
        if not chosen.any():
            continue
        colour = BAND_COLOURS[band]
        fig.add_trace(
            _markers(
                old[chosen],
                new[chosen],
                name=label,
                colour=colour,
                hover="pair %{customdata}: θ = %{x:.3g}, θ′ = %{y:.3g}<extra></extra>",
                customdata=pairs[chosen],
            ),
            row=1,
            col=1,
        )
        turns = length * new[chosen] / (2 * math.pi)
        hover = "pair %{x}: %{y:.3g} turns after<extra></extra>"
        fig.add_trace(
            _markers(pairs[chosen], turns, name=label, colour=colour, hover=hover, showlegend=False), row=1, col=2
        )
    fig.add_hline(y=1, line={"dash": "dash", "color": guide}, row=1, col=2)
    fig.update_xaxes(type="log", title=style.axis_title("old θᵢ"), row=1, col=1)
    fig.update_yaxes(type="log", title=style.axis_title("new θ′ᵢ"), row=1, col=1)
    fig.update_xaxes(title=style.axis_title("pair i"), row=1, col=2)
    fig.update_yaxes(type="log", title=style.axis_title("turns"), row=1, col=2)
    return _finish(fig, f"{ROPE_SCALINGS[freq.scaling]} at s = {count(freq.factor)}", height, big)


def _heatmap_row(panels: dict, *, scale: str, low: float, high: float, bar: str, horizontal: float) -> go.Figure:
    """Matrices side by side on one colour scale, query rows top to bottom; `panels` maps a
    title to ``(position labels, matrix)``."""
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=list(panels), horizontal_spacing=horizontal)
    for column, (labels, matrix) in enumerate(panels.values(), start=1):
        fig.add_trace(
            go.Heatmap(
                z=matrix,
                x=labels,
                y=labels,
                colorscale=scale,
                zmin=low,
                zmax=high,
                showscale=column == len(panels),
                colorbar={"title": {"text": bar}, "len": 0.8},
                hovertemplate="query %{y}, key %{x}: %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=column,
        )
        fig.update_yaxes(autorange="reversed", showticklabels=column == 1, row=1, col=column)
    fig.update_xaxes(title=style.axis_title("key position"))
    fig.update_yaxes(title=style.axis_title("query position"), col=1)
    return fig


def pattern_figure(patterns: dict, *, big: bool = False, height: int = 400) -> go.Figure:
    """Score patterns e(j − i) at sampled positions, side by side on one diverging scale centred on 0.

    `patterns` maps a panel title to ``(positions, scores)`` (0-based positions; NaN above
    the diagonal).
    """
    limit = symmetric_range(*[np.nan_to_num(scores) for _, scores in patterns.values()])
    panels = {title: ([str(p + 1) for p in positions], scores) for title, (positions, scores) in patterns.items()}
    fig = _heatmap_row(panels, scale=style.DIVERGING, low=-limit, high=limit, bar="score", horizontal=0.05)
    fig.update_xaxes(type="category", nticks=5)
    fig.update_yaxes(type="category", nticks=5)
    title = "Scores of q = k = (1, …, 1) at evenly spread positions (causal: keys up to the query)"
    return _finish(fig, title, height, big)


# ----------------------------------------------------------------------------- 4 · train short, test long


def accuracy_figure(methods, lengths, accuracy, trained: int, *, big: bool = False, height: int = 360) -> go.Figure:
    """Accuracy of each method at each test length (the first is L), one line per method."""
    labels = ["L" if n == trained else f"{count(n / trained)}L = {count(n)}" for n in lengths]
    table = np.asarray(accuracy, dtype=float)
    fig = go.Figure(
        [percent_line(labels, row, SHORT[m], METHOD_COLOURS[m]) for m, row in zip(methods, table, strict=True)]
    )
    fig.update_xaxes(type="category", title=style.axis_title("test length"))
    fig.update_yaxes(range=[0, 105], ticksuffix="%", title=style.axis_title("next-token accuracy"))
    return _finish(fig, f"RoPE head trained at L = {trained}, scaled at inference only", height, big)


def head_patterns_figure(patterns: dict, trained: int, *, big: bool = False, height: int = 380) -> go.Figure:
    """The trained head's attention weights on one long sequence, one panel per method (0–1 scale)."""
    panels = {title: (np.arange(1, w.shape[0] + 1), w) for title, w in patterns.items()}
    fig = _heatmap_row(panels, scale=style.SEQUENTIAL, low=0, high=1, bar="weight", horizontal=0.03)
    for column in range(1, len(panels) + 1):
        edge = trained + 0.5
        fig.add_shape(
            type="rect",
            x0=0.5,
            y0=0.5,
            x1=edge,
            y1=edge,
            line={"color": style.REUSED, "width": 2, "dash": "dash"},
            row=1,
            col=column,
        )
    return _finish(fig, f"Attention weights on one test sequence (dashed: the first L = {trained})", height, big)


# ----------------------------------------------------------------------------- 5 · Position Interpolation's bound


def pi_figure(bound: PiBound, *, big: bool = False, height: int = 380) -> go.Figure:
    """Chen et al. 2023, Figure 2, recomputed: the fit on [0, L], the same curve on [0, 2L],
    and a stretch between integer positions inside [0, L]."""
    length = bound.length
    window = bound.window
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=[
            f"fit on [0, L = {count(length)}]",
            f"extrapolation: [0, 2L = {count(2 * length)}]",
            f"interpolation: {count(window[0])}–{count(window[-1])}",
        ],
        horizontal_spacing=0.07,
    )
    curve = style.CURVE
    inside = bound.grid <= length
    fig.add_trace(
        go.Scatter(
            x=bound.points,
            y=bound.targets,
            mode="markers",
            name="random targets",
            marker={"color": style.palette().faded_line, "size": 4},
        ),
        row=1,
        col=1,
    )
    fit = go.Scatter(
        x=bound.grid[inside], y=bound.values[inside], mode="lines", name="fitted a(s)", line={"color": style.UNTRAINED}
    )
    fig.add_trace(fit, row=1, col=1)
    fig.add_trace(
        go.Scatter(x=bound.grid, y=bound.values, mode="lines", showlegend=False, line={"color": style.UNTRAINED}),
        row=1,
        col=2,
    )
    _trained_band(fig, length, row=1, col=2)
    fig.add_trace(
        go.Scatter(x=window, y=bound.window_values, mode="lines", showlegend=False, line={"color": curve}),
        row=1,
        col=3,
    )
    for position in range(int(window[0]), int(window[-1]) + 1, 5):
        fig.add_vline(x=position, line={"dash": "dot", "color": style.palette().faint_guide}, row=1, col=3)
    fig.update_xaxes(title=style.axis_title("relative distance s"))
    fig.update_yaxes(title=style.axis_title("a(s)"), col=1)
    return _finish(fig, f"Position Interpolation's bound, recomputed (d = {bound.d})", height, big)
