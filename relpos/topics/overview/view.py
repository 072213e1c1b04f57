"""Start page: what relative position encoding is, and the worked example's scores."""

from __future__ import annotations

import streamlit as st

import relpos
from relpos import ui
from relpos.tables import frames as tables
from relpos.text import numbers
from relpos.ui import classroom
from relpos.ui.navigation import PAGES


def render() -> None:
    """The whole page: what relative position encoding is, and the worked example's scores."""
    st.title("Relative position encoding in self-attention")
    classroom.join_form("pages/walkthrough.py")
    ui.markdown("overview")
    st.latex(
        r"e_{ij} \;=\; \underbrace{\frac{q_i \cdot k_j}{\sqrt{d}}}_{\text{content}}"
        r"\;+\; \underbrace{\frac{q_i \cdot a^K_{\operatorname{clip}(j-i,\,k)}}{\sqrt{d}}}_{\text{position}}"
    )
    ui.markdown("overview_after")

    example = relpos.worked_example()
    result = example.attention()
    frames = tables.result_frames(result)

    st.header("Combined scores $e_{ij}$")
    ui.matrix_table(frames["combined score"], caption="Row i = 1 is the textbook's row: 1.0, 0.5, −0.1, 0.7.")

    left, middle, right = st.columns(3)
    with left:
        st.markdown(r"**Content** $q_i \cdot k_j$")
        ui.matrix_table(frames["content q_i·k_j/√d"])
    with middle:
        st.markdown(r"**Position** $q_i \cdot a^K_{\operatorname{clip}(j-i,\,k)}$")
        ui.matrix_table(frames["position bias q_i·aᴷ/√d"])
    with right:
        st.markdown("**Table** $a^K$ (k = 2)")
        ui.matrix_table(tables.table_frame(example.table), decimals=1)

    offset_zero = ", ".join(numbers.number(value) for value in result.bias.diagonal())
    st.caption(
        "Along each diagonal of the position matrix the table row is the same, but the bias is not: "
        f"it is multiplied by each row's own query (the offset-0 diagonal reads {offset_zero})."
    )

    st.header("Where next")
    ui.page_links(PAGES[1:])
