"""Plotly figures of a training run (no Streamlit): the loss curve, the learned bias per
offset, absolute position vectors, attention patterns and "train short, test long".

Heatmaps reuse :mod:`relpos.plots.heatmaps`: matrix orientation (query rows top to
bottom), weights on the 0–1 sequential scale, parameters on the diverging scale
centred on 0. Colours are Okabe–Ito (colour-blind safe).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.core.training_model import TRAINING_SCHEMES
from relpos.plots import style
from relpos.plots.heatmaps import score_heatmap, symmetric_range, weight_heatmap
from relpos.plots.panels import percent_line
from relpos.plots.style import HeatmapStyle
from relpos.text import facts
from relpos.text.explain import offset_label
from relpos.text.facts import SCORE_DECIMALS
from relpos.topics.training.text import length_label

__all__ = [
    "SCHEME_COLOURS",
    "accuracy_figure",
    "attention_figure",
    "bias_range",
    "loss_figure",
    "offset_bias_figure",
    "position_vectors_figure",
]

#: One colour per scheme (the same on every chart of the page).
SCHEME_COLOURS = style.SCHEME_COLOURS
#: Bars: the largest bias, the others, the offsets beyond −k that share the edge row.
WINNER, OTHER = style.UNTRAINED, style.CURVE
CLIPPED_OPACITY = 0.45
#: Heatmaps print their numbers up to this many rows, and separate cells up to this many.
TEXT_MAX_N = 12
GAPS_MAX_N = 16
#: The dashed L × L square on a longer attention pattern (Okabe–Ito orange: visible on Viridis).
SQUARE = style.REUSED


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str, height: int) -> go.Figure:
    fig.update_layout(
        title=style.centred_title(title),
        height=height,
        margin=style.CHART_MARGIN.plotly(),
        font={"size": style.FONT_SIZE},
        xaxis_title=style.axis_title(x_title),
        yaxis_title=style.axis_title(y_title),
        legend={"orientation": "h", "y": -0.25, "x": 0.5, "xanchor": "center"},
    )
    return fig


def loss_figure(losses: dict[str, np.ndarray], *, vocab: int | None = None, height: int = 360) -> go.Figure:
    """Training loss per step, one line per scheme.

    Parameters
    ----------
    losses : dict of str to ndarray, shape (steps,)
        Scheme key to its loss history.
    vocab : int, optional
        Draws the loss of a uniform guess, ``ln V``, as a dotted line.
    """
    fig = go.Figure()
    for scheme, values in losses.items():
        values = np.asarray(values, dtype=float)
        fig.add_trace(
            go.Scatter(
                x=np.arange(1, values.size + 1),
                y=values,
                mode="lines",
                name=TRAINING_SCHEMES[scheme],
                line={"color": SCHEME_COLOURS[scheme], "width": 2},
                hovertemplate="step %{x}: loss %{y:.3f}<extra>" + TRAINING_SCHEMES[scheme] + "</extra>",
            )
        )
    if vocab:
        fig.add_hline(
            y=float(np.log(vocab)),
            line={"dash": "dot", "color": style.palette().strong_guide},
            annotation_text=f"uniform guess: ln {vocab}",
            annotation_position="top right",
        )
    fig.update_yaxes(rangemode="tozero")
    return _layout(fig, "Training loss (cross-entropy)", "training step", "loss", height)


def bias_range(snapshots: np.ndarray) -> tuple[float, float]:
    """A fixed y range for every snapshot of the bias bars (so bars visibly grow), 0 included.

    >>> bias_range(np.array([[0.0, 1.0], [-2.0, 3.0]]))
    (-2.25, 3.25)
    """
    values = np.asarray(snapshots, dtype=float)
    low, high = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    pad = 0.05 * (high - low) or 1.0
    return low - pad, high + pad


def offset_bias_figure(
    offsets,
    biases,
    *,
    title: str,
    y_title: str,
    k: int | None = None,
    y_range: tuple[float, float] | None = None,
    height: int = 360,
) -> go.Figure:
    """Bars of the position bias per offset ``j − i``; the largest in orange.

    Parameters
    ----------
    offsets : array_like of int, shape (n,)
    biases : array_like of float, shape (n,)
    k : int, optional
        Shaw's clipping distance: bars of offsets below −k (which share the row of −k)
        are drawn paler. With k = 0 every bar reads the one row, so none is set apart.
    y_range : (float, float), optional
        Fixed y axis (see :func:`bias_range`).
    """
    offsets = np.asarray(offsets, dtype=int)
    values = np.asarray(biases, dtype=float)  # (n,)
    leaders = np.zeros(values.shape, bool)
    leaders[list(facts.top(values, SCORE_DECIMALS))] = True  # the offsets the sentence names, tied at 2 decimals
    leaders &= not leaders.all()  # all alike: no bar is the largest
    colours = np.where(leaders, WINNER, OTHER)
    opacity = np.where(offsets < -k, CLIPPED_OPACITY, 1.0) if k else np.ones(values.shape)
    labels = [offset_label(int(o)) for o in offsets]
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=values,
            marker={"color": colours.tolist(), "opacity": opacity.tolist()},
            hovertemplate="offset %{x}: bias %{y:.3f}<extra></extra>",
        )
    )
    fig.update_xaxes(type="category")
    if y_range is not None:
        fig.update_yaxes(range=list(y_range))
    fig.add_hline(y=0, line={"color": style.palette().strong_guide, "width": 1})
    return _layout(fig, title, "offset j − i (key minus query)", y_title, height)


def position_vectors_figure(positions, *, title: str, limit: float | None = None, height: int = 380) -> go.Figure:
    """Heatmap of learned absolute position vectors: position rows (from 1) top to bottom, features across."""
    matrix = np.asarray(positions, dtype=float)  # (L, d)
    fig = score_heatmap(
        matrix, title, limit=limit or symmetric_range(matrix), look=HeatmapStyle(height=height, text=False)
    )
    fig.update_traces(hovertemplate="position %{customdata[0]}, feature %{customdata[1]}<br>%{z:.3f}<extra></extra>")
    fig.update_layout(xaxis_title_text="feature", yaxis_title_text="position")
    fig.update_yaxes(scaleanchor=None)
    return fig


def attention_figure(weights, *, title: str, trained_length: int | None = None, height: int = 460) -> go.Figure:
    """Attention weights of a trained head on one sequence (0–1 scale, matrix orientation).

    With `trained_length` below the sequence length, a dashed square marks the
    top-left L × L block: the part of the sequence as long as the training sequences.
    """
    matrix = np.asarray(weights, dtype=float)  # (n, n)
    n = matrix.shape[0]
    fig = weight_heatmap(
        matrix, title, look=HeatmapStyle(height=height, text=n <= TEXT_MAX_N, text_size=style.SMALL_TEXT_SIZE)
    )
    if n > GAPS_MAX_N:  # cell gaps would be most of the picture
        fig.update_traces(xgap=0, ygap=0)
    if trained_length is not None and trained_length < n:
        edge = trained_length - 0.5
        fig.add_shape(
            type="rect", x0=-0.5, y0=-0.5, x1=edge, y1=edge, line={"color": SQUARE, "width": 3, "dash": "dash"}
        )
    return fig


def accuracy_figure(schemes, lengths, accuracy, *, vocab: int | None = None, height: int = 380) -> go.Figure:
    """Accuracy of each scheme at each test length, one line per scheme (the first length is L)."""
    lengths = [int(n) for n in lengths]
    table = np.asarray(accuracy, dtype=float).reshape(len(schemes), len(lengths))  # (n_schemes, n_lengths)
    labels = [length_label(n, lengths[0]) for n in lengths]
    fig = go.Figure(
        [
            percent_line(labels, row, TRAINING_SCHEMES[scheme], SCHEME_COLOURS[scheme])
            for scheme, row in zip(schemes, table, strict=True)
        ]
    )
    if vocab:
        fig.add_hline(
            y=100 / vocab,
            line={"dash": "dot", "color": style.palette().strong_guide},
            annotation_text="random guess",
            annotation_position="bottom right",
        )
    fig.update_xaxes(type="category")
    fig.update_yaxes(range=[0, 105], ticksuffix="%")
    return _layout(fig, "Trained at L, tested at longer lengths", "test length", "next-token accuracy", height)
