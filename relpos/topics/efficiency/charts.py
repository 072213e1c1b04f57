"""The Efficient computation page's measured charts: best times per method and bytes per
layer against sequence length (no Streamlit). The cell-by-cell pictures of skewing and
placement are in :mod:`relpos.topics.efficiency.figures`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.plots import style

__all__ = ["memory_growth_figure", "timing_figure"]


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
            marker={"color": [style.SLOW_METHOD if "naive" in t.method else style.FAST_METHOD for t in measured]},
            hovertemplate="%{y}: %{x:.3f} ms<extra></extra>",
        )
    )
    top = max(milliseconds) if milliseconds else 1.0
    bottom = min(milliseconds) if milliseconds else 1.0
    fig.update_layout(margin=style.BAR_MARGIN.plotly(), height=height, font={"size": style.FONT_SIZE}, showlegend=False)
    fig.update_xaxes(
        type="log",
        title=style.axis_title("best time (ms, log scale)"),
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
    colours = [style.SLOW_METHOD, style.NEEDED_ANYWAY, style.FAST_METHOD, style.FASTEST_METHOD]
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
                marker={"size": 11, "color": style.palette().ink, "symbol": "diamond"},
                name="published",
                showlegend=False,
            )
        )
    fig.update_layout(
        margin=style.GROWTH_MARGIN.plotly(),
        height=height,
        font={"size": style.FONT_SIZE},
        legend={"orientation": "h", "y": -0.25},
    )
    fig.update_xaxes(type="log", title=style.axis_title("sequence length n"))
    fig.update_yaxes(type="log", title=style.axis_title("bytes per layer"), exponentformat="SI")
    return fig
