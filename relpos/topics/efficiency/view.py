"""The Efficient computation page's widgets: the skewing steps, live timing, memory."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

import relpos
from relpos import ui
from relpos.core import skewing
from relpos.state.keys import state_key, widget_key
from relpos.tables import frames as tables
from relpos.text import numbers
from relpos.topics.efficiency import charts, figures
from relpos.topics.efficiency import model as timing

# ---------------------------------------------------------------- efficiency page

#: Sequence lengths offered for the live timing (the naive gather is skipped past its budget).
TIMING_LENGTHS = (64, 128, 256, 512, 1024, 2048)
_TIMING_KEY = state_key("efficiency", "timing")


def skew_walkthrough(length: int, values=None, *, key: str = "skew") -> None:
    """The four skewing steps as labelled grids, two per row."""
    step_figures = figures.skew_step_figures(length, values)
    for first in (0, 2):
        for column, figure_number in zip(st.columns(2), (first, first + 1), strict=True):
            with column:
                ui.plotly(step_figures[figure_number], key=widget_key(key, f"step{figure_number + 1}"))
    grid_tables(step_figures, key=widget_key(key, "tables"))


def grid_tables(grids, *, key: str) -> None:
    """The labelled grids' cells as tables, named by each grid's title."""
    ui.chart_tables({ui.chart_name(fig): figures.grid_frame(fig) for fig in grids}, key=key)


def timing_panel() -> None:
    """Form for n, d, k; runs the three methods and shows times, speed-ups and checks."""
    with st.form(widget_key("efficiency", "timing_form")):
        left, middle, right = st.columns(3)
        n = left.select_slider(
            "sequence length n", options=TIMING_LENGTHS, value=512, key=widget_key("efficiency", "timing_n")
        )
        d = middle.select_slider(
            "feature size d", options=(16, 32, 64), value=64, key=widget_key("efficiency", "timing_d")
        )
        k_choice = right.select_slider(
            "clipping distance k", options=(1, 4, 16, 64, "n − 1"), value=16, key=widget_key("efficiency", "timing_k")
        )
        submitted = st.form_submit_button("Run the timing", type="primary", key=widget_key("efficiency", "run_timing"))
    if submitted:
        k = n - 1 if k_choice == "n − 1" else min(int(k_choice), n - 1)
        with st.spinner(f"Timing the three methods at n = {n}…"):
            # kept in the session so other widgets' reruns redraw the result without re-timing
            st.session_state[_TIMING_KEY] = {"n": n, "d": d, "k": k, "timings": timing.time_bias_methods(n, d, k)}
    shown = st.session_state.get(_TIMING_KEY)
    if shown is None:
        st.info("Choose n, d and k, then press **Run the timing**: the three methods run on this server.")
        return
    st.markdown(
        f"**Measured** on this server: n = {shown['n']}, d = {shown['d']}, k = {shown['k']}, "
        "float64, best of 3 rounds in which the methods take turns."
    )
    ui.chart(
        charts.timing_figure(shown["timings"]),
        key=widget_key("efficiency", "timing_chart"),
        alt="Best time of each method, in milliseconds on a log scale",
    )
    st.dataframe(ui.named_index(tables.timing_frame(shown["timings"])), width="stretch")


def memory_panel() -> None:
    """Inputs for the memory formula, its table per method, and the growth with n."""
    columns = st.columns(5)
    n = columns[0].number_input(
        "sequence length n",
        min_value=1,
        max_value=1_000_000,
        value=2048,
        step=256,
        key=widget_key("efficiency", "memory_n"),
    )
    heads = columns[1].number_input(
        "heads H", min_value=1, max_value=128, value=8, key=widget_key("efficiency", "memory_heads")
    )
    d_head = columns[2].number_input(
        "d per head", min_value=1, max_value=1024, value=64, key=widget_key("efficiency", "memory_d_head")
    )
    k = columns[3].number_input(
        "clipping distance k", min_value=0, max_value=1_000_000, value=64, key=widget_key("efficiency", "memory_k")
    )
    dtype = columns[4].selectbox(
        "number format",
        ("float32 (4 B)", "float16 (2 B)", "float64 (8 B)"),
        key=widget_key("efficiency", "memory_dtype"),
    )
    itemsize = int(dtype.split("(")[1].split(" ")[0])
    n, heads, d_head, k = int(n), int(heads), int(d_head), min(int(k), int(n) - 1)
    d_model = heads * d_head
    footprint = skewing.memory_footprint(n, d_model, k=k, heads=heads, itemsize=itemsize)
    st.dataframe(
        tables.memory_frame(footprint, n=n, d_model=d_model, k=k, heads=heads, itemsize=itemsize), width="stretch"
    )
    st.caption(f"D = H · d_head = {d_model}; b = {itemsize} bytes per number; k is capped at n − 1 = {n - 1}.")
    lengths = np.unique(np.geomspace(16, max(4 * n, 64), 40).astype(int))
    footprints = [
        skewing.memory_footprint(int(m), d_model, k=min(k, int(m) - 1), heads=heads, itemsize=itemsize) for m in lengths
    ]
    mark = (n, footprint.gathered, f"n = {n}: {tables.format_bytes(footprint.gathered)}  ")
    ui.chart(
        charts.memory_growth_figure(lengths, footprints, mark=mark),
        key=widget_key("efficiency", "memory_growth"),
        alt="Bytes of each method's intermediate against sequence length n, both on log scales",
    )


def published_memory_check() -> None:
    """Music Transformer's 8.5 GB → 4.2 MB, recomputed from the formulas."""
    length, d_model, itemsize = 2048, 512, 4
    footprint = skewing.memory_footprint(length, d_model, heads=8, itemsize=itemsize)

    def tex_bytes(count: int) -> str:
        return (
            f"{count:,}".replace(",", "{,}")
            + r"\,\text{B} \approx "
            + tables.format_bytes(count).replace(" ", r"\,\text{")
            + "}"
        )

    st.latex(
        rf"{length}^2 \cdot {d_model} \cdot {itemsize}\,\text{{B}} = {tex_bytes(footprint.gathered)}, \qquad"
        rf"{length} \cdot {d_model} \cdot {itemsize}\,\text{{B}} = {tex_bytes(footprint.skew_embeddings)}"
    )
    st.dataframe(
        tables.published_memory_frame(footprint, length=length, d_model=d_model, itemsize=itemsize), width="stretch"
    )
    truncated_gb = math.floor(footprint.gathered / 1e8) / 10  # 8.589... GB -> 8.5
    rounded_mb = round(footprint.skew_embeddings / 1e6, 1)  # 4.194... MB -> 4.2
    if truncated_gb == 8.5 and rounded_mb == 4.2:
        st.success(
            f"The formulas give {footprint.gathered:,} B = {tables.format_bytes(footprint.gathered)} "
            f"(exactly 8 GiB; the paper's “8.5 GB” cuts off the third digit) and "
            f"{footprint.skew_embeddings:,} B = {tables.format_bytes(footprint.skew_embeddings)} ≈ 4.2 MB "
            "(exactly 4 MiB): both published figures are reproduced."
        )
    else:  # only if someone changes the formulas
        st.error(f"The formulas give {truncated_gb} GB and {rounded_mb} MB, not the published 8.5 GB and 4.2 MB.")


def render() -> None:
    """The whole page: the naive (n, n, d) gather, Q A_Kᵀ + placement, and skewing."""
    st.title("Efficient computation: the (n, n, d) tensor and two ways around it")
    ui.markdown("efficiency_intro")
    example = relpos.worked_example()
    naive_section()
    placement_section(example)
    skewing_section(example)
    timing_section()
    memory_section()


def naive_section() -> None:
    """1: the (n, n, d) tensor of embeddings that a gather builds, and the biases read from it."""
    st.header("1 · The naive gather")
    ui.markdown("efficiency_naive")
    st.latex(
        r"A_{ij} = a^K_{\operatorname{clip}(j-i,\,k)} \;\;(n \times n \times d), \qquad "
        r"b_{ij} = \frac{q_i \cdot A_{ij}}{\sqrt{d}}"
    )


def placement_section(example: relpos.Scenario) -> None:
    """2: Q A_Kᵀ once, then each logit placed on its diagonal, checked against the naive gather."""
    st.header("2 · Multiply once, then place")
    ui.markdown("efficiency_placement")
    st.latex(
        r"L = \frac{Q A_K^\top}{\sqrt{d}} \;\;(n \times (2k+1)), \qquad "
        r"b_{ij} = L_{i,\; \operatorname{clip}(j-i,\,k) + k}"
    )
    logits_figure, placed_figure = figures.placement_figures(example)
    left, right = st.columns([5, 4])
    with left:
        ui.plotly(logits_figure, key=widget_key("efficiency", "logits"))
    with right:
        ui.plotly(placed_figure, key=widget_key("efficiency", "placed"))
    grid_tables([logits_figure, placed_figure], key=widget_key("efficiency", "placement_tables"))
    naive = skewing.naive_position_biases(example.queries, example.table)
    st.caption(
        "Check: the placed matrix equals the naive gather's and relpos.position_biases' "
        f"(largest difference {numbers.scientific(np.max(np.abs(naive - example.attention().bias)))})."
    )


def skewing_section(example: relpos.Scenario) -> None:
    """3: the skewing steps at a length the learner picks, its memory, then the worked example skewed."""
    st.header("3 · Skewing (Music Transformer)")
    ui.markdown("efficiency_skewing")
    st.latex(
        r"S^{\mathrm{rel}} = \operatorname{skew}\!\left(Q E^\top\right), \qquad "
        r"S^{\mathrm{rel}}_{ij} = q_i \cdot e_{\,j-i} \quad (j \le i)"
    )
    length = st.slider("sequence length L", min_value=3, max_value=6, value=4, key=widget_key("efficiency", "length"))
    skew_walkthrough(length)
    # memory runs down the page in a column of its own width; on a phone it fills the screen
    strip = figures.skew_memory_strip(length)
    ui.chart(strip, key=widget_key("efficiency", "strip"), width=520)
    grid_tables([strip], key=widget_key("efficiency", "strip_table"))

    ui.markdown("efficiency_skewing_numbers")
    queries = np.array(example.queries)
    E = skewing.skew_embeddings(example.table, example.n)  # (4, 1): offsets -3..0, clipped at k = 2
    skew_walkthrough(example.n, np.outer(queries, E[:, 0]), key=widget_key("efficiency", "skew_numbers"))
    skewed = skewing.skewed_position_biases(queries, example.table)
    causal = np.tril(np.ones((example.n, example.n), dtype=bool))
    difference = float(np.max(np.abs(skewed - example.attention().bias)[causal]))
    st.success(
        f"Skewed = relpos.position_biases on all {int(causal.sum())} cells with j ≤ i "
        f"(largest difference {numbers.scientific(difference)})."
    )


def timing_section() -> None:
    """4: the three ways timed live on this machine."""
    st.header("4 · Time it")
    ui.markdown("efficiency_timing")
    timing_panel()


def memory_section() -> None:
    """5: what each way keeps in memory, then the published sizes checked."""
    st.header("5 · Memory")
    ui.markdown("efficiency_memory")
    st.latex(
        r"\underbrace{n^2 D\, b}_{\text{naive gather}} \quad\text{vs}\quad"
        r"\underbrace{H\, n (2k+1)\, b}_{Q A_K^\top} \quad\text{vs}\quad"
        r"\underbrace{n D\, b}_{\text{skewing's } E} \qquad"
        r"\bigl(+\; \underbrace{H n^2 b}_{\text{scores, always}}\bigr)"
    )
    memory_panel()
    ui.markdown("efficiency_published")
    published_memory_check()
