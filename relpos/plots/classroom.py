"""What a class answered, as one bar chart with the true value marked (no Streamlit).

One figure for both kinds of question: a histogram's bins or the per-answer counts arrive
as plain bars (label, count, holds the truth); the bar holding the true value is drawn in
the accent colour and labelled "true value", the others grey, so the mark survives a
black-and-white projector (the label says it, not only the colour).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from relpos.plots import style

__all__ = ["TRUTH_COLOUR", "answer_bars"]

#: The bar that holds the true value; the others are grey.
TRUTH_COLOUR = style.OKABE_ITO[2]
OTHER_COLOUR = style.LEFTOVER_GREY


def answer_bars(
    labels: Sequence[str], counts: Sequence[int], truth: Sequence[bool], title: str, *, height: int = 320
) -> go.Figure:
    """Bars of how many answered each bin or choice; the true value's bar marked.

    Parameters
    ----------
    labels : sequence of str
        A histogram bin's range (``0.5 to 1``) or a choice (``key 2``), in order.
    counts : sequence of int
        Answers per bar.
    truth : sequence of bool
        Whether each bar holds the true value.
    title : str

    Examples
    --------
    >>> fig = answer_bars(["below 0", "0 to 1"], [2, 5], [False, True], "t")
    >>> fig.data[0].marker.color[1] == TRUTH_COLOUR, fig.data[0].text
    (True, ('2', '5 ✓ true value'))
    """
    if not len(labels) == len(counts) == len(truth):
        raise ValueError(f"labels, counts and truth need one length; got {len(labels)}, {len(counts)}, {len(truth)}")
    text = [f"{count} ✓ true value" if right else str(count) for count, right in zip(counts, truth, strict=True)]
    fig = go.Figure(
        go.Bar(
            x=list(labels),
            y=list(counts),
            marker={"color": [TRUTH_COLOUR if right else OTHER_COLOUR for right in truth]},
            text=text,
            textposition="outside",
            textfont={"size": style.FONT_SIZE},  # in the theme's text colour
            cliponaxis=False,
            hovertemplate="%{x}: %{y} answers<extra></extra>",
        )
    )
    top = max(counts, default=0)
    fig.update_layout(
        title=style.centred_title(title),
        height=height,
        font={"size": style.FONT_SIZE},
        margin=style.CHART_MARGIN.plotly(),
        showlegend=False,
        bargap=0.15,
        # Plotly would shrink a label wider than its bar (the true value's): keep it readable
        uniformtext={"minsize": style.SMALL_FONT_SIZE, "mode": "show"},
    )
    fig.update_yaxes(
        title=style.axis_title("answers"),
        range=[0, max(1, top) * 1.25],
        gridcolor=style.palette().grid,
        rangemode="tozero",
        dtick=max(1, round(top / 5)) if top else 1,
    )
    # a phone's narrow chart turns the bins' labels on end: the margin grows to hold them
    fig.update_xaxes(title=style.axis_title("answer"), type="category", automargin=True)
    return fig
