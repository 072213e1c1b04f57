"""Efficient computation: the naive (n, n, d) gather, Q A_Kᵀ + placement, and skewing."""

import numpy as np
import streamlit as st

import relpos
from relpos.core import skewing
from relpos.plots import efficiency as figures
from relpos.server import page_entry
from relpos.state.keys import widget_key
from relpos.text import numbers
from relpos.ui import common as ui
from relpos.ui import efficiency as efficiency_ui

page_entry()

st.title("Efficient computation: the (n, n, d) tensor and two ways around it")
ui.markdown("efficiency_intro")

st.header("1 · The naive gather")
ui.markdown("efficiency_naive")
st.latex(
    r"A_{ij} = a^K_{\operatorname{clip}(j-i,\,k)} \;\;(n \times n \times d), \qquad "
    r"b_{ij} = \frac{q_i \cdot A_{ij}}{\sqrt{d}}"
)

st.header("2 · Multiply once, then place")
ui.markdown("efficiency_placement")
st.latex(
    r"L = \frac{Q A_K^\top}{\sqrt{d}} \;\;(n \times (2k+1)), \qquad "
    r"b_{ij} = L_{i,\; \operatorname{clip}(j-i,\,k) + k}"
)
example = relpos.worked_example()
logits_figure, placed_figure = figures.placement_figures(example)
left, right = st.columns([5, 4])
with left:
    ui.plotly(logits_figure, key=widget_key("efficiency", "logits"))
with right:
    ui.plotly(placed_figure, key=widget_key("efficiency", "placed"))
efficiency_ui.grid_tables([logits_figure, placed_figure], key=widget_key("efficiency", "placement_tables"))
naive = skewing.naive_position_biases(example.queries, example.table)
st.caption(
    "Check: the placed matrix equals the naive gather's and relpos.position_biases' "
    f"(largest difference {numbers.scientific(np.max(np.abs(naive - example.attention().bias)))})."
)

st.header("3 · Skewing (Music Transformer)")
ui.markdown("efficiency_skewing")
st.latex(
    r"S^{\mathrm{rel}} = \operatorname{skew}\!\left(Q E^\top\right), \qquad "
    r"S^{\mathrm{rel}}_{ij} = q_i \cdot e_{\,j-i} \quad (j \le i)"
)
length = st.slider("sequence length L", min_value=3, max_value=6, value=4, key=widget_key("efficiency", "length"))
efficiency_ui.skew_walkthrough(length)
# memory runs down the page in a column of its own width; on a phone it fills the screen
strip = figures.skew_memory_strip(length)
ui.chart(strip, key=widget_key("efficiency", "strip"), width=520)
efficiency_ui.grid_tables([strip], key=widget_key("efficiency", "strip_table"))

ui.markdown("efficiency_skewing_numbers")
queries = np.array(example.queries)
E = skewing.skew_embeddings(example.table, example.n)  # (4, 1): offsets -3..0, clipped at k = 2
efficiency_ui.skew_walkthrough(example.n, np.outer(queries, E[:, 0]), key=widget_key("efficiency", "skew_numbers"))
skewed = skewing.skewed_position_biases(queries, example.table)
causal = np.tril(np.ones((example.n, example.n), dtype=bool))
difference = float(np.max(np.abs(skewed - example.attention().bias)[causal]))
st.success(
    f"Skewed = relpos.position_biases on all {int(causal.sum())} cells with j ≤ i "
    f"(largest difference {numbers.scientific(difference)})."
)

st.header("4 · Time it")
ui.markdown("efficiency_timing")
efficiency_ui.timing_panel()

st.header("5 · Memory")
ui.markdown("efficiency_memory")
st.latex(
    r"\underbrace{n^2 D\, b}_{\text{naive gather}} \quad\text{vs}\quad"
    r"\underbrace{H\, n (2k+1)\, b}_{Q A_K^\top} \quad\text{vs}\quad"
    r"\underbrace{n D\, b}_{\text{skewing's } E} \qquad"
    r"\bigl(+\; \underbrace{H n^2 b}_{\text{scores, always}}\bigr)"
)
efficiency_ui.memory_panel()
ui.markdown("efficiency_published")
efficiency_ui.published_memory_check()
