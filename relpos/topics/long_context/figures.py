"""Plotly figures of the long-context lesson (no Streamlit). Each group of small panels is
one figure (a grid of subplots), so the page draws one chart per group.

Figures are built from plain dicts in one constructor call
(:func:`relpos.plots.heatmaps.figure_from_spec`): the grid's layout comes from
``make_subplots`` once per shape (cached), traces and shapes are dicts naming their
subplot's axes. ``VALIDATE`` (False on the page) turns Plotly's checks on; the tests
build every figure with it on.

Colours are Okabe–Ito (colour-blind safe) from :mod:`relpos.plots.style`; scores use the
diverging scale centred on 0, attention weights the 0–1 sequential scale. Positions on
axes count from 1; pairs are numbered i = 0 .. d/2 − 1 as in θ_i = b^(−2i/d).
"""

from __future__ import annotations

import copy
import functools
import math
import textwrap

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from relpos.core.rope_scaling import ROPE_SCALINGS, RopeFrequencies
from relpos.plots import style
from relpos.plots.heatmaps import figure_from_spec, symmetric_range
from relpos.plots.panels import percent_line
from relpos.topics.long_context.model import BANDS, PiBound
from relpos.topics.long_context.text import SHORT, count

__all__ = [
    "BAND_COLOURS",
    "METHOD_COLOURS",
    "VALIDATE",
    "accuracy_figure",
    "decay_figure",
    "frequency_figure",
    "hands_figure",
    "head_patterns_figure",
    "pattern_figure",
    "pi_figure",
    "wavelength_figure",
]

#: Run Plotly's per-property checks while building (the tests turn them on).
VALIDATE = False
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


# ----------------------------------------------------------------------------- building blocks


@functools.lru_cache(maxsize=16)
def _grid_layout(rows: int, cols: int, horizontal: float, vertical: float, shared: bool) -> dict:
    """The layout ``make_subplots`` builds for this grid (axes domains, title slots), as a dict."""
    titles = [f"{index}" for index in range(rows * cols)]
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles,
        horizontal_spacing=horizontal,
        vertical_spacing=vertical,
        shared_xaxes=shared,
        shared_yaxes=shared,
    )
    return fig.layout.to_plotly_json()


def _axes(panel: int) -> tuple[str, str]:
    """The x and y axis names of subplot `panel` (1-based, row by row): ``x``/``y``, ``x2``/``y2`` …"""
    suffix = "" if panel == 1 else str(panel)
    return f"x{suffix}", f"y{suffix}"


def _axis(layout: dict, panel: int, letter: str, **settings) -> None:
    """Merge `settings` into subplot `panel`'s x or y axis."""
    key = f"{letter}axis" + ("" if panel == 1 else str(panel))
    layout[key] = {**layout.get(key, {}), **settings}


def _layout(titles, rows: int, cols: int, *, horizontal: float, vertical: float = 0.12, shared: bool = False) -> dict:
    """A grid layout with `titles` over its panels (panels beyond the titles have none)."""
    layout = copy.deepcopy(_grid_layout(rows, cols, horizontal, vertical, shared))
    slots = layout.get("annotations", [])
    layout["annotations"] = [dict(slot, text=title) for slot, title in zip(slots, titles, strict=False)]
    return layout


def _in(trace: dict, panel: int) -> dict:
    """`trace` drawn in subplot `panel`."""
    x, y = _axes(panel)
    return {**trace, "xaxis": x, "yaxis": y}


def _line_shape(panel: int, *, y: float | None = None, x: float | None = None, colour: str, dash: str) -> dict:
    """A horizontal (at `y`) or vertical (at `x`) line across subplot `panel`."""
    xa, ya = _axes(panel)
    line = {"color": colour, "dash": dash, "width": 1.5}
    if y is not None:
        return {"type": "line", "xref": f"{xa} domain", "x0": 0, "x1": 1, "yref": ya, "y0": y, "y1": y, "line": line}
    return {"type": "line", "yref": f"{ya} domain", "y0": 0, "y1": 1, "xref": xa, "x0": x, "x1": x, "line": line}


def _band_shape(panel: int, x0: float, x1: float) -> dict:
    """Shade x0 .. x1 of subplot `panel` (what training showed)."""
    xa, ya = _axes(panel)
    return {
        "type": "rect",
        "xref": xa,
        "yref": f"{ya} domain",
        "x0": x0,
        "x1": x1,
        "y0": 0,
        "y1": 1,
        "fillcolor": style.TRAINED_FILL,
        "line": {"width": 0},
        "layer": "below",
    }


def _label(panel: int, y: float, text: str) -> dict:
    """A note at the left end of the line y of subplot `panel`."""
    xa, ya = _axes(panel)
    return {
        "text": text,
        "xref": f"{xa} domain",
        "x": 0,
        "yref": ya,
        "y": y,
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom",
    }


def _markers(x, y, *, name: str, colour: str, hover: str, **extra) -> dict:
    """Points of one colour, 8 px (a band of pairs, a group of wavelengths)."""
    return {
        "type": "scatter",
        "x": np.asarray(x),
        "y": np.asarray(y),
        "mode": "markers",
        "name": name,
        "marker": {"color": colour, "size": 8},
        "hovertemplate": hover,
        **extra,
    }


def _lines(x, y, *, colour: str, width: float = 2, **extra) -> dict:
    return {"type": "scatter", "x": np.asarray(x), "y": np.asarray(y), "mode": "lines", **extra} | {
        "line": {"color": colour, "width": width, **extra.get("line", {})}
    }


def _font(big: bool) -> dict:
    return {"size": style.PRESENTER_MIN_FONT if big else style.FONT_SIZE}


def _title_size(big: bool) -> int:
    return style.PRESENTER_TEXT.title if big else style.TITLE_SIZE


def _grid(panels: int, wide: int, narrow: bool) -> tuple[int, int]:
    """Rows and columns for `panels` small panels: up to `wide` a row, 2 on a phone."""
    columns = min(panels, 2 if narrow else wide)
    return math.ceil(panels / columns), columns


def _wrapped(title: str, narrow: bool, width: int = 40) -> str:
    """A phone's title broken into lines of at most `width` characters (Plotly titles never wrap).

    >>> _wrapped("Wavelength of every pair against the training length", True)
    'Wavelength of every pair against the<br>training length'
    """
    return "<br>".join(textwrap.wrap(title, width)) if narrow else title


def _figure(
    data: list, layout: dict, title: str, height: int, big: bool, *, legend: bool = True, narrow: bool = False
) -> go.Figure:
    """The figure, in one constructor call, with the page's title, margins, fonts and legend.

    Presenter mode (`big`) draws every text at the presenter size, axis titles included;
    a legend sits below the axis titles.
    """
    font = _font(big)
    for note in layout.get("annotations", []):
        note["font"] = font
        if narrow and note.get("xref") == "paper" and "<br>" not in note["text"]:  # a subplot's title
            note["text"] = _wrapped(note["text"], narrow, width=22)  # over half a phone's width
    if big:  # the template draws ticks, legends and colour bars smaller than the body text
        for key, axis in layout.items():
            if key.startswith(("xaxis", "yaxis")):
                axis["tickfont"] = font
                if axis.get("type") == "log":  # powers of 10 only: Plotly draws the 2s and 5s smaller
                    axis["dtick"] = 1
                if "title" in axis:
                    axis["title"] = {**axis["title"], "font": font}
        for trace in data:
            if isinstance(trace, dict) and "colorbar" in trace:
                bar = trace["colorbar"]
                trace["colorbar"] = {**bar, "tickfont": font, "title": {**bar.get("title", {}), "font": font}}
    margin = (style.LEGEND_BELOW_MARGIN if legend else style.CHART_MARGIN).plotly()
    title = _wrapped(title, narrow)
    # a wrapped title's and subplot titles' extra lines (the title hangs from the top edge)
    extra = title.count("<br>") + max((note["text"].count("<br>") for note in layout.get("annotations", [])), default=0)
    margin["t"] += extra * style.PRESENTER_MIN_FONT
    place = {"orientation": "h", "y": 0, "yref": "container", "yanchor": "bottom", "x": 0.5, "xanchor": "center"}
    layout.update(
        # the title's size set here: a template's default title size can be below the presenter minimum
        title=style.centred_title(
            title, y=1, yref="container", yanchor="top", pad={"t": 12}, font={"size": _title_size(big)}
        ),
        height=height + margin["t"] - style.CHART_MARGIN.top,
        margin=margin,
        font=font,
        showlegend=legend,
        legend={**place, "font": font},
    )
    return figure_from_spec({"data": data, "layout": layout}, VALIDATE)


# ----------------------------------------------------------------------------- 1 · RoPE as rotations


def hands_figure(
    freq: RopeFrequencies, m: int, pairs, *, big: bool = False, narrow: bool = False, height: int = 250
) -> go.Figure:
    """One clock face per chosen pair: the hand at angle m·θ_i, one panel each, in one figure."""
    pairs = [int(i) for i in pairs]
    joint = "<br>" if narrow else ": "
    titles = [f"pair {i}{joint}λ = {count(round(2 * math.pi / freq.inv_freq[i], 1))}" for i in pairs]
    rows, columns = _grid(len(pairs), 6, narrow)
    columns = 3 if narrow and len(pairs) > 4 else columns
    rows = math.ceil(len(pairs) / columns)
    layout = _layout(titles, rows, columns, horizontal=0.03, vertical=0.2)
    circle = np.linspace(0, 2 * math.pi, 121)
    data = []
    for panel, i in enumerate(pairs, start=1):
        angle = m * freq.inv_freq[i]
        data.append(
            _in(_lines(np.cos(circle), np.sin(circle), colour=style.palette().faint_guide, hoverinfo="skip"), panel)
        )
        hand = _lines([0, math.cos(angle)], [0, math.sin(angle)], colour=METHOD_COLOURS["yarn"], width=4)
        hand.update(
            mode="lines+markers",
            marker={"size": [4, 10]},
            hovertemplate=f"pair {i}: angle m·θ = {angle / (2 * math.pi):.3f} turns<extra></extra>",
        )
        data.append(_in(hand, panel))
        x, _ = _axes(panel)
        _axis(layout, panel, "x", range=[-1.2, 1.2], visible=False)
        _axis(layout, panel, "y", range=[-1.2, 1.2], visible=False, scaleanchor=x)
    title = f"Each pair's hand at index m = {count(m)} (angle m·θᵢ)"
    return _figure(data, layout, title, height * rows, big, legend=False, narrow=narrow)


def wavelength_figure(
    freq: RopeFrequencies, length: int, *, big: bool = False, narrow: bool = False, height: int = 380
) -> go.Figure:
    """Wavelength λ_i = 2π/θ_i of every pair (log scale) against the training length L₀."""
    pairs = np.arange(len(freq.inv_freq))
    wavelengths = 2 * math.pi / freq.original_inv_freq
    longer = wavelengths > length
    hover = "pair %{x}: λ = %{y:,.1f}<extra></extra>"
    data = [
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
    layout = {
        "xaxis": {"title": style.axis_title("pair i")},
        "yaxis": {"type": "log", "title": style.axis_title("wavelength λᵢ (positions)")},
        "shapes": [_line_shape(1, y=length, colour=style.palette().strong_guide, dash="dash")],
        "annotations": [_label(1, math.log10(length), f"L₀ = {count(length)}")],
    }
    return _figure(data, layout, "Wavelength of every pair against the training length", height, big, narrow=narrow)


def decay_figure(
    curves: dict,
    length: int,
    top: int,
    *,
    title: str | None = None,
    shade: bool = True,
    big: bool = False,
    narrow: bool = False,
    height: int = 230,
) -> go.Figure:
    """Score e(Δ) of q = k = (1, …, 1) against distance, one small panel per method (one figure).

    `curves` maps a method to ``(distances, scores)``; with `shade`, the band 1 .. L₀ is
    shaded (what training showed). Every panel has the same y range.
    """
    methods = list(curves)
    rows, columns = _grid(len(methods), 3, narrow)
    layout = _layout([SHORT[m] for m in methods], rows, columns, horizontal=0.04, vertical=0.3 / rows, shared=True)
    values = np.concatenate([scores for _, scores in curves.values()])
    pad = 0.05 * (values.max() - values.min()) or 0.1
    data, shapes = [], []
    for panel, method in enumerate(methods, start=1):
        distances, scores = curves[method]
        trace = _lines(np.maximum(distances, 1), scores, colour=METHOD_COLOURS[method], width=1.5)
        hover = f"distance %{{x:,}}: score %{{y:.3f}}<extra>{SHORT[method]}</extra>"
        trace.update(name=ROPE_SCALINGS[method], hovertemplate=hover)
        data.append(_in(trace, panel))
        if shade:
            shapes.append(_band_shape(panel, 1, length))
    for panel in range(1, rows * columns + 1):
        _axis(layout, panel, "x", type="log", range=[0, math.log10(max(top, 2))])
        _axis(layout, panel, "y", range=[float(values.min() - pad), float(values.max() + pad)])
    for panel in range((rows - 1) * columns + 1, rows * columns + 1):
        _axis(layout, panel, "x", title=style.axis_title("distance n − m (log)"))
    for row in range(rows):
        _axis(layout, row * columns + 1, "y", title=style.axis_title("score"))
    layout["shapes"] = shapes
    title = title or f"Score against distance, out to s·L₀ = {count(top)} (shaded: 1 .. L₀ = {count(length)})"
    return _figure(data, layout, title, 80 + height * rows, big, legend=False, narrow=narrow)


# ----------------------------------------------------------------------------- 2 · context extension


def frequency_figure(
    freq: RopeFrequencies, bands, length: int, *, big: bool = False, narrow: bool = False, height: int = 440
) -> go.Figure:
    """Left: each pair's new frequency against its old one, coloured by band. Right: full turns
    per pair in L₀ before (open grey) and after (band colour), with the one-turn line."""
    titles = ["new θ′ against old θ (log–log)", f"full turns in L₀ = {count(length)}: L₀ / λᵢ"]
    rows, columns = (2, 1) if narrow else (1, 2)
    layout = _layout(titles, rows, columns, horizontal=0.1, vertical=0.2)
    pairs = np.arange(len(freq.inv_freq))
    old, new = freq.original_inv_freq, freq.inv_freq
    guide = style.palette().strong_guide
    data = [_in(_lines(old, old, colour=guide, width=1, name="θ′ = θ", line={"dash": "dot"}), 1)]
    if freq.factor > 1:
        data.append(
            _in(_lines(old, old / freq.factor, colour=guide, width=1, name="θ′ = θ/s", line={"dash": "dash"}), 1)
        )
    before = _markers(
        pairs,
        length * old / (2 * math.pi),
        name="before",
        colour=style.palette().faded_line,
        hover="pair %{x}: %{y:.3g} turns before<extra></extra>",
    )
    before["marker"]["symbol"] = "circle-open"
    data.append(_in(before, 2))
    for band, label in BANDS.items():
        chosen = np.asarray(bands) == band
        if not chosen.any():
            continue
        colour = BAND_COLOURS[band]
        hover = "pair %{customdata}: θ = %{x:.3g}, θ′ = %{y:.3g}<extra></extra>"
        data.append(
            _in(_markers(old[chosen], new[chosen], name=label, colour=colour, hover=hover, customdata=pairs[chosen]), 1)
        )
        turns = length * new[chosen] / (2 * math.pi)
        hover = "pair %{x}: %{y:.3g} turns after<extra></extra>"
        data.append(_in(_markers(pairs[chosen], turns, name=label, colour=colour, hover=hover, showlegend=False), 2))
    layout["shapes"] = [_line_shape(2, y=1, colour=guide, dash="dash")]
    _axis(layout, 1, "x", type="log", title=style.axis_title("old θᵢ"))
    _axis(layout, 1, "y", type="log", title=style.axis_title("new θ′ᵢ"))
    _axis(layout, 2, "x", title=style.axis_title("pair i"))
    _axis(layout, 2, "y", type="log", title=style.axis_title("turns"))
    title = f"{ROPE_SCALINGS[freq.scaling]} at s = {count(freq.factor)}"
    return _figure(data, layout, title, height * rows, big, narrow=narrow)


def _heatmap_row(
    panels: dict, *, scale: str, low: float, high: float, bar: str, horizontal: float, narrow: bool
) -> tuple[list, dict, int]:
    """Matrices side by side (two a row on a phone) on one colour scale, query rows top to
    bottom; `panels` maps a title to ``(position labels, matrix)``. Returns the traces, the
    layout and the number of rows."""
    rows, columns = _grid(len(panels), len(panels), narrow)
    layout = _layout(list(panels), rows, columns, horizontal=horizontal, vertical=0.3 / rows)
    data = []
    for panel, (labels, matrix) in enumerate(panels.values(), start=1):
        trace = {
            "type": "heatmap",
            "z": matrix,
            "x": labels,
            "y": labels,
            "colorscale": scale,
            "zmin": low,
            "zmax": high,
            "showscale": panel == len(panels),
            "colorbar": {"title": {"text": bar}, "len": 0.8},
            "hovertemplate": "query %{y}, key %{x}: %{z:.3f}<extra></extra>",
        }
        data.append(_in(trace, panel))
        first = (panel - 1) % columns == 0
        _axis(layout, panel, "x", showgrid=False)
        if panel > (rows - 1) * columns:  # the bottom row names the keys
            _axis(layout, panel, "x", title=style.axis_title("key position"))
        _axis(layout, panel, "y", autorange="reversed", showticklabels=first, showgrid=False)
        if first:
            _axis(layout, panel, "y", title=style.axis_title("query position"))
    return data, layout, rows


def pattern_figure(patterns: dict, *, big: bool = False, narrow: bool = False, height: int = 360) -> go.Figure:
    """Score patterns e(j − i) at sampled positions, side by side on one diverging scale centred on 0.

    `patterns` maps a panel title to ``(positions, scores)`` (0-based positions; NaN above
    the diagonal).
    """
    limit = symmetric_range(*[np.nan_to_num(scores) for _, scores in patterns.values()])
    panels = {title: ([str(p + 1) for p in positions], scores) for title, (positions, scores) in patterns.items()}
    data, layout, rows = _heatmap_row(
        panels, scale=style.DIVERGING, low=-limit, high=limit, bar="score", horizontal=0.05, narrow=narrow
    )
    for panel in range(1, len(panels) + 1):
        _axis(layout, panel, "x", type="category", nticks=5)
        _axis(layout, panel, "y", type="category", nticks=5)
    title = "Scores of q = k = (1, …, 1) at evenly spread positions (causal: keys up to the query)"
    return _figure(data, layout, title, 60 + height * rows, big, legend=False, narrow=narrow)


# ----------------------------------------------------------------------------- 4 · train short, test long


def accuracy_figure(
    methods, lengths, accuracy, trained: int, *, big: bool = False, narrow: bool = False, height: int = 400
) -> go.Figure:
    """Accuracy of each method at each test length (the first is L), one line per method."""
    labels = ["L" if n == trained else f"{count(n / trained)}L = {count(n)}" for n in lengths]
    table = np.asarray(accuracy, dtype=float)
    data = [percent_line(labels, row, SHORT[m], METHOD_COLOURS[m]) for m, row in zip(methods, table, strict=True)]
    layout = {
        "xaxis": {"type": "category", "title": style.axis_title("test length")},
        "yaxis": {"range": [0, 105], "ticksuffix": "%", "title": style.axis_title("next-token accuracy")},
    }
    title = f"RoPE head trained at L = {trained}, scaled at inference only"
    return _figure(data, layout, title, height, big, narrow=narrow)


def head_patterns_figure(
    patterns: dict, trained: int, *, big: bool = False, narrow: bool = False, height: int = 340
) -> go.Figure:
    """The trained head's attention weights on one long sequence, one panel per method (0–1 scale)."""
    panels = {title: (np.arange(1, w.shape[0] + 1), w) for title, w in patterns.items()}
    data, layout, rows = _heatmap_row(
        panels, scale=style.SEQUENTIAL, low=0, high=1, bar="weight", horizontal=0.03, narrow=narrow
    )
    edge = trained + 0.5
    square = {"color": style.REUSED, "width": 2, "dash": "dash"}
    layout["shapes"] = [
        {"type": "rect", "xref": x, "yref": y, "x0": 0.5, "y0": 0.5, "x1": edge, "y1": edge, "line": square}
        for x, y in (_axes(panel) for panel in range(1, len(panels) + 1))
    ]
    title = f"Attention weights on one test sequence (dashed: the first L = {trained})"
    return _figure(data, layout, title, 60 + height * rows, big, legend=False, narrow=narrow)


# ----------------------------------------------------------------------------- 5 · Position Interpolation's bound


def pi_figure(bound: PiBound, *, big: bool = False, narrow: bool = False, height: int = 420) -> go.Figure:
    """Chen et al. 2023, Figure 2, recomputed: the fit on [0, L], the same curve on [0, 2L],
    and a stretch between integer positions inside [0, L]."""
    length, window = bound.length, bound.window
    titles = [
        f"fit on [0, L = {count(length)}]",
        f"extrapolation: [0, 2L = {count(2 * length)}]",
        f"interpolation: {count(window[0])}–{count(window[-1])}",
    ]
    rows, columns = (3, 1) if narrow else (1, 3)
    layout = _layout(titles, rows, columns, horizontal=0.07, vertical=0.12)
    inside = bound.grid <= length
    dots = _markers(bound.points, bound.targets, name="random targets", colour=style.palette().faded_line, hover="")
    dots["marker"]["size"] = 4
    dots.pop("hovertemplate")
    data = [
        _in(dots, 1),
        _in(_lines(bound.grid[inside], bound.values[inside], colour=style.UNTRAINED, name="fitted a(s)"), 1),
        _in(_lines(bound.grid, bound.values, colour=style.UNTRAINED, showlegend=False), 2),
        _in(_lines(window, bound.window_values, colour=style.CURVE, showlegend=False), 3),
    ]
    faint = style.palette().faint_guide
    ticks = range(math.ceil(window[0]), math.floor(window[-1]) + 1)
    layout["shapes"] = [_band_shape(2, 0, length)] + [_line_shape(3, x=x, colour=faint, dash="dot") for x in ticks]
    for panel in (1, 2, 3):
        _axis(layout, panel, "x", title=style.axis_title("relative distance s"))
    for panel in range(1, 4) if narrow else (1,):
        _axis(layout, panel, "y", title=style.axis_title("a(s)"))
    title = f"Chen et al. 2023, Figure 2, recomputed (d = {bound.d}, L = {count(length)})"
    return _figure(data, layout, title, (height - 60) * rows + 60, big, narrow=narrow)
