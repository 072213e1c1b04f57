"""The Value side page's figures: each output split into its content and position parts (no Streamlit).

Content is blue, position orange and hatched, their sum (the output) a dark diamond
(colours from :mod:`relpos.plots.style`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from relpos.plots import style
from relpos.text import numbers as num

__all__ = ["value_outputs_figure", "value_parts_by_k_figure", "value_split_figure"]


def _with_sum(terms, part) -> list[float]:
    """Each key's term, then their sum (the part)."""
    return [*(float(t) for t in terms), float(part[0])]


def _split_hovers(terms) -> tuple[list[str], list[str]]:
    """Each bar's arithmetic: α·v for the content bars, α·a^V for the position bars, then the sums."""
    content = np.asarray(terms.content_terms)[:, 0]  # (n_k,)
    position = np.asarray(terms.position_terms)[:, 0]  # (n_k,)
    content_hover = [
        f"α = {num.number(terms.weights[j], 3)}, v = {num.number(terms.values[j, 0])}"
        f"<br>α·v = {num.number(content[j], 3)}"
        for j in range(len(content))
    ] + [f"content part Σ α·v = {num.number(float(terms.content_part[0]), 3)}"]
    position_hover = [
        f"α = {num.number(terms.weights[j], 3)}, a<sup>V</sup><sub>{num.offset(int(terms.clipped[j]))}</sub> = "
        f"{num.number(terms.value_embeddings[j, 0])}<br>α·a<sup>V</sup> = {num.number(position[j], 3)}"
        for j in range(len(position))
    ] + [f"position part Σ α·a<sup>V</sup> = {num.number(float(terms.position_part[0]), 3)}"]
    return content_hover, position_hover


def _part_bars(name: str, labels, values, hover, *, colour: str = style.CONTENT_COLOUR, pattern: str = "") -> go.Bar:
    """One part's bars, values printed above them."""
    return go.Bar(
        name=name,
        x=labels,
        y=values,
        marker_color=colour,
        marker_pattern_shape=pattern,
        text=[num.number(v) for v in values],
        textposition="outside",
        hovertext=hover,
        hoverinfo="text",
    )


def value_split_figure(terms, *, title: str | None = None, height: int = 380) -> go.Figure:
    """One query's output key by key: ``α_ij v_j`` next to ``α_ij a^V`` (d = 1).

    Parameters
    ----------
    terms : relpos.QueryValueTerms
        From :func:`relpos.query_value_terms` (d must be 1).

    The last group holds the sums, the content part and the position part, and a
    diamond marks the output ``z_i`` (their sum).
    """
    content = np.asarray(terms.content_terms)[:, 0]  # (n_k,)
    n_k = len(content)
    labels = [f"key {j + 1}<br>j − i = {num.offset(int(o))}" for j, o in enumerate(terms.offsets)] + ["sum"]
    content_hover, position_hover = _split_hovers(terms)
    fig = go.Figure(
        [
            _part_bars(
                "content α<sub>ij</sub>·v<sub>j</sub>", labels, _with_sum(content, terms.content_part), content_hover
            ),
            _part_bars(
                "position α<sub>ij</sub>·a<sup>V</sup>",
                labels,
                _with_sum(np.asarray(terms.position_terms)[:, 0], terms.position_part),
                position_hover,
                colour=style.POSITION_COLOUR,
                pattern="/",
            ),
            go.Scatter(
                name=f"output z<sub>{terms.query + 1}</sub>",
                x=[labels[-1]],
                y=[float(terms.output[0])],
                mode="markers+text",
                marker={"symbol": "diamond", "size": 14, "color": style.palette().ink},
                text=[f"z = {num.number(float(terms.output[0]))}"],
                textposition="top center",
                hoverinfo="skip",
            ),
        ]
    )
    fig.add_vline(x=n_k - 0.5, line_dash="dot", line_color=style.GUIDE_GREY)
    fig.add_hline(y=0, line_color=style.GUIDE_GREY, line_width=1)
    fig.update_layout(
        title=style.centred_title(title or f"output of query {terms.query + 1}, key by key"),
        barmode="group",
        height=height,
        margin=style.VALUE_MARGIN.plotly(),
        legend={"orientation": "h", "y": -0.15},
        yaxis={"title": style.axis_title("contribution")},
        font={"size": style.FONT_SIZE},
    )
    return fig


def value_parts_by_k_figure(parts, query: int, *, current_k: int | None = None, height: int = 340) -> go.Figure:
    """Content part, position part and output of one query for every k (d = 1).

    Parameters
    ----------
    parts : relpos.ValueParts
        From :func:`relpos.value_parts_by_k`.
    query : int
        0-based query index.
    current_k : int, optional
        Marked with a vertical line.
    """
    ks = np.asarray(parts.ks)
    series = (
        ("content part Σ α·v", np.asarray(parts.content)[:, query, 0], style.CONTENT_COLOUR, "solid", "circle"),
        (
            "position part Σ α·a<sup>V</sup>",
            np.asarray(parts.position)[:, query, 0],
            style.POSITION_COLOUR,
            "dash",
            "square",
        ),
        (
            f"output z<sub>{query + 1}</sub>",
            np.asarray(parts.output)[:, query, 0],
            style.palette().ink,
            "solid",
            "diamond",
        ),
    )
    fig = go.Figure(
        [
            go.Scatter(
                name=name,
                x=ks,
                y=values,
                mode="lines+markers",
                line={"color": colour, "dash": dash, "width": 3 if name.startswith("output") else 2},
                marker={"symbol": symbol, "size": 9},
                hovertext=[f"{name}<br>k = {k}: {num.number(value, 4)}" for k, value in zip(ks, values, strict=True)],
                hoverinfo="text",
            )
            for name, values, colour, dash, symbol in series
        ]
    )
    if current_k is not None:
        fig.add_vline(x=current_k, line_dash="dot", line_color=style.GUIDE_GREY, annotation_text=f"k = {current_k}")
    fig.add_hline(y=0, line_color=style.palette().faint_guide, line_width=1)
    fig.update_layout(
        title=style.centred_title(f"query {query + 1}: the two parts as k changes"),
        height=height,
        margin=style.VALUE_MARGIN.plotly(),
        legend={"orientation": "h", "y": -0.25},
        xaxis={"title": style.axis_title("clipping distance k"), "tickvals": ks.tolist()},
        yaxis={"title": style.axis_title("value")},
        font={"size": style.FONT_SIZE},
    )
    return fig


def value_outputs_figure(result, *, height: int = 340) -> go.Figure:
    """Every query's output split into content and position parts (d = 1)."""
    content = np.asarray(result.output_content)[:, 0]  # (n_q,)
    position = np.asarray(result.output_position)[:, 0]  # (n_q,)
    output = np.asarray(result.output)[:, 0]  # (n_q,)
    labels = [f"query {i + 1}" for i in range(len(output))]
    fig = go.Figure(
        [
            go.Bar(name="content part", x=labels, y=content, marker_color=style.CONTENT_COLOUR),
            go.Bar(
                name="position part", x=labels, y=position, marker_color=style.POSITION_COLOUR, marker_pattern_shape="/"
            ),
            go.Scatter(
                name="output z<sub>i</sub>",
                x=labels,
                y=output,
                mode="markers+text",
                marker={"symbol": "diamond", "size": 13, "color": style.palette().ink},
                text=[num.number(v) for v in output],
                textposition="middle right",
            ),
        ]
    )
    fig.add_hline(y=0, line_color=style.GUIDE_GREY, line_width=1)
    fig.update_layout(
        title={
            "text": "every query's output z<sub>i</sub> = content part + position part",
            "x": 0.5,
            "xanchor": "center",
        },
        barmode="group",
        height=height,
        margin=style.VALUE_MARGIN.plotly(),
        legend={"orientation": "h", "y": -0.2},
        font={"size": style.FONT_SIZE},
    )
    return fig
