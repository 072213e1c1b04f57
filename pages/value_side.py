"""Go further: Shaw et al.'s value-side embeddings a^V, and how the output splits."""

import dataclasses

import streamlit as st

import relpos
from relpos.plots import value_side as figures
from relpos.server import page_entry
from relpos.tables import frames as tables
from relpos.text import numbers
from relpos.ui import common as ui
from relpos.ui import value_side as value_side_ui

page_entry()

st.title("The value side: relative embeddings $a^V$")
ui.markdown("value_side")
st.latex(
    r"z_i \;=\; \sum_j \alpha_{ij}\,\bigl(v_j + a^V_{\operatorname{clip}(j-i,\,k)}\bigr)"
    r"\;=\; \underbrace{\sum_j \alpha_{ij}\, v_j}_{\text{content part}}"
    r"\;+\; \underbrace{\sum_j \alpha_{ij}\, a^V_{\operatorname{clip}(j-i,\,k)}}_{\text{position part}}"
)
ui.markdown("value_side_after")

example, k, query, variant = value_side_ui.value_side_controls()
# the variant switches tables off by zeroing them, as if the model never had them
zeros = (0.0,) * len(example.key_table)
if variant in ("a^V only", "neither"):
    example = dataclasses.replace(example, key_table=zeros)
if variant in ("a^K only", "neither"):
    example = dataclasses.replace(example, value_table=zeros)

result = example.attention(k)
A_V = relpos.window_table(example.value_table, k)
terms = relpos.query_value_terms(result, example.values, A_V, query)
parts = relpos.value_parts_by_k(example)

st.header(f"Query {query + 1}: its output, key by key (k = {k}, {value_side_ui.latex_names(variant)})")
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
    st.markdown(value_side_ui.offset_mass_sentence(mass, A_V[:, 0], k))
ui.labelled_table(
    tables.value_terms_frame(terms),
    caption="One row per key. The a^V row used is the clipped offset; the last two columns add up to the two parts.",
    stretch=True,
)

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

ui.chart(figures.value_outputs_figure(result))

st.header("Context: Shaw et al.'s ablation")
left, right = st.columns([2, 3])
with left:
    ablation = tables.value_ablation_frame()
    st.dataframe(ablation, width="content")
    score = ablation.loc[variant, "BLEU"]
    st.caption(f"Selected above: {value_side_ui.latex_names(variant)}, which scored {score} in the paper.")
with right:
    ui.markdown("value_side_paper")
