"""Go further: Shaw et al.'s relative positions next to five other position schemes."""

import streamlit as st

import relpos
from relpos.plots import schemes as scheme_figures
from relpos.server import page_entry
from relpos.ui import common as ui
from relpos.ui import schemes as schemes_ui

page_entry()

st.title("Comparing position schemes")
ui.markdown("schemes")

setup, slopes, head = schemes_ui.scheme_sidebar()
results = relpos.scheme_scores(setup)

st.header("1 · Six schemes, the same tokens")
ui.markdown("schemes_compare")
schemes_ui.scheme_rows(results, scheme_figures.position_heatmaps(results), scheme_figures.weight_heatmaps(results))
ui.matrix_tables(scheme_figures.score_matrices(results), key=schemes_ui.SCORE_TABLES)

schemes_ui.translation_section(setup, results)
schemes_ui.length_section(setup, slopes, head)

schemes_ui.save_scheme_settings()
