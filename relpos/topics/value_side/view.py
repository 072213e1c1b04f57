"""The value-side page's widgets: the example's numbers, k, the query and the variant."""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

import relpos
from relpos import ui
from relpos.core.value_side import ValueExample
from relpos.tables import frames as tables
from relpos.text import notation, numbers
from relpos.text import numbers as num
from relpos.topics.value_side import figures
from relpos.topics.value_side.schema import VALUE_SIDE, VALUE_VARIANTS

VALUE_PAGE = "value_side"
#: The page's settings (schema :data:`relpos.topics.value_side.schema.VALUE_SIDE`) and their widgets.
STATE = ui.PageState(VALUE_PAGE, VALUE_SIDE)


def offset_window(k: int) -> str:
    """The offsets a clipping distance keeps apart, in words: "offset 0" or "offsets −2..+2"."""
    return "offset 0" if k == 0 else f"offsets {num.offset_range(k)}"


def latex_names(text: str) -> str:
    """Our own labels with a^K / a^V typeset by Streamlit's Markdown LaTeX."""
    return text.replace("a^K", "$a^K$").replace("a^V", "$a^V$")


def offset_mass_sentence(mass, table, k: int) -> str:
    """Markdown: the position part as attention mass per clipped offset times the a^V row.

    Parameters
    ----------
    mass : array_like, shape (2k+1,)
        One query's attention mass per clipped offset (relpos.weight_per_offset).
    table : array_like, shape (2k+1,)
        The a^V rows for offsets −k..+k (d = 1).
    """
    terms = [f"{num.number(w, 3)}·({num.number(a, sign=True)})" for w, a in zip(mass, table, strict=True) if w > 0]
    total = float(np.dot(mass, table))
    return (
        "Grouped by offset, the position part is each $a^V$ row times the attention that lands on that "
        f"offset ({offset_window(k)}, zero-weight rows left out): "
        + " + ".join(terms)
        + f" = **{num.number(total, 4)}**"
    )


def _table_label(side: str, offset: int) -> str:
    """Slider label of one table entry in plain text (``aⱽ₋₂``): announced as words."""
    return notation.entry(side, offset)


def _choice_row() -> int:
    """k, the query and which relative tables are in use, side by side; returns k."""
    top = st.columns([2, 2, 3])
    with top[0]:
        k = STATE.slider("k")
    with top[1]:
        STATE.radio("query")
    with top[2]:
        STATE.radio("variant", format_func=lambda code: latex_names(VALUE_VARIANTS[code]))
    return k


def value_side_controls():
    """Draw the value-side controls; return (example, k, query index 0-based, variant name).

    ``variant`` is what the page calls the chosen variant (a value of
    :data:`relpos.topics.value_side.schema.VALUE_VARIANTS`); the tables it leaves out are zeroed
    by the page, not forgotten, so switching back restores them.
    """
    STATE.show_problems()
    n = len(VALUE_SIDE.fields["v"].default)
    k = _choice_row()
    offsets = range(-(n - 1), n)
    st.markdown("**Values $v_j$** (one number per token, d = 1)")
    STATE.sliders("v", [f"v{num.subscript(j + 1)}" for j in range(n)])
    st.markdown(
        f"**Value-side table $a^V$** (offsets {num.offset_range(n - 1)}; at k = {k} only {offset_window(k)} "
        f"{'is' if k == 0 else 'are'} used, "
        "the others are greyed out)"
    )
    STATE.sliders("av", [_table_label("V", o) for o in offsets], disabled=[abs(o) > k for o in offsets])
    with st.expander("Queries, keys and $a^K$ (the textbook's numbers)"):
        st.caption(
            "The textbook gives aᴷ only for offsets −2..+2; the ±3 entries start equal to the ±2 ones, "
            "so k = 3 changes nothing on the key side until you edit them."
        )
        STATE.sliders("q", [f"q{num.subscript(i + 1)}" for i in range(n)])
        STATE.sliders("kk", [f"k{num.subscript(j + 1)}" for j in range(n)])
        STATE.sliders("ak", [_table_label("K", o) for o in offsets], disabled=[abs(o) > k for o in offsets])
    st.button("Reset to the example's numbers", on_click=STATE.reset)
    values = STATE.write_url()
    example = ValueExample(
        queries=tuple(values["q"]),
        keys=tuple(values["kk"]),
        values=tuple(values["v"]),
        key_table=tuple(values["ak"]),
        value_table=tuple(values["av"]),
    )
    return example, values["k"], values["query"] - 1, VALUE_VARIANTS[values["variant"]]


def render() -> None:
    """The whole page: Shaw et al.'s value-side embeddings a^V, and how the output splits."""
    _introduction()
    example, k, query, variant = value_side_controls()
    example = with_variant(example, variant)
    result = example.attention(k)
    A_V = relpos.window_table(example.value_table, k)  # (2k+1, 1)
    _query_output(result, relpos.query_value_terms(result, example.values, A_V, query), A_V, k, query, variant)
    _parts_by_k(example, relpos.value_parts_by_k(example), k, query)
    ui.chart(figures.value_outputs_figure(result))
    _ablation(variant)


def _introduction() -> None:
    """The page's title, the output's split into content and position parts, and the prose."""
    st.title("The value side: relative embeddings $a^V$")
    ui.markdown("value_side")
    st.latex(
        r"z_i \;=\; \sum_j \alpha_{ij}\,\bigl(v_j + a^V_{\operatorname{clip}(j-i,\,k)}\bigr)"
        r"\;=\; \underbrace{\sum_j \alpha_{ij}\, v_j}_{\text{content part}}"
        r"\;+\; \underbrace{\sum_j \alpha_{ij}\, a^V_{\operatorname{clip}(j-i,\,k)}}_{\text{position part}}"
    )
    ui.markdown("value_side_after")


def with_variant(example: ValueExample, variant: str) -> ValueExample:
    """`example` with the tables `variant` leaves out set to zero, as if the model never had them."""
    zeros = (0.0,) * len(example.key_table)
    if variant in ("a^V only", "neither"):
        example = dataclasses.replace(example, key_table=zeros)
    if variant in ("a^K only", "neither"):
        example = dataclasses.replace(example, value_table=zeros)
    return example


def _query_output(result, terms, A_V, k: int, query: int, variant: str) -> None:
    """One query's output key by key: the chart, its two parts as a formula, the offset mass, the table."""
    st.header(f"Query {query + 1}: its output, key by key (k = {k}, {latex_names(variant)})")
    left, right = st.columns([3, 2])
    with left:
        ui.chart(figures.value_split_figure(terms))
    with right:
        st.latex(
            rf"z_{{{query + 1}}} = \underbrace{{{numbers.tex_number(terms.content_part[0], 4)}}}"
            rf"_{{\sum_j \alpha_{{{query + 1}j}} v_j}}"
            rf" + \underbrace{{{numbers.tex_number(terms.position_part[0], 4)}}}_{{\sum_j \alpha_{{{query + 1}j}} a^V}}"
            rf" = {numbers.tex_number(terms.output[0], 4)}"
        )
        mass = relpos.weight_per_offset(result.weights, k)[query]
        st.markdown(offset_mass_sentence(mass, A_V[:, 0], k))
    ui.labelled_table(
        tables.value_terms_frame(terms),
        caption=(
            "One row per key. The a^V row used is the clipped offset; the last two columns add up to the two parts."
        ),
        stretch=True,
    )


def _parts_by_k(example: ValueExample, parts, k: int, query: int) -> None:
    """How the query's two parts change with k, and the k = 0 numbers computed here."""
    st.header("How the two parts change with k")
    left, right = st.columns([3, 2])
    with left:
        ui.chart(figures.value_parts_by_k_figure(parts, query, current_k=k))
    with right:
        ui.markdown("value_side_k")
        st.caption(
            f"Computed here: at k = 0 the position part of query {query + 1} is "
            f"{numbers.number(parts.position[0, query, 0], 4)}, "
            f"and $a^V_0$ = {numbers.number(example.value_table[len(example.values) - 1], 4)}."
        )


def _ablation(variant: str) -> None:
    """Shaw et al.'s ablation table, with the BLEU of the variant chosen above."""
    st.header("Context: Shaw et al.'s ablation")
    left, right = st.columns([2, 3])
    with left:
        ablation = tables.value_ablation_frame()
        st.dataframe(ablation, width="content")
        score = ablation.loc[variant, "BLEU"]
        st.caption(f"Selected above: {latex_names(variant)}, which scored {score} in the paper.")
    with right:
        ui.markdown("value_side_paper")
