"""Go further: Shaw et al.'s relative positions next to five other position schemes."""

import streamlit as st

import relpos
from relpos.plots import schemes as scheme_figures
from relpos.tables import frames as tables
from relpos.ui import common as ui
from relpos.ui import schemes as schemes_ui
from relpos.ui.routing import require_app_entry

require_app_entry()

st.title("Comparing position schemes")
ui.markdown("schemes")

setup, slopes, head = schemes_ui.scheme_sidebar()
results = relpos.scheme_scores(setup)

st.header("1 · Six schemes, the same tokens")
ui.markdown("schemes_compare")
schemes_ui.scheme_rows(results, scheme_figures.position_heatmaps(results), scheme_figures.weight_heatmaps(results))
ui.matrix_tables(scheme_figures.score_matrices(results), key="schemes.tables.scores")

st.header("2 · The translation test")
ui.markdown("schemes_translation")
shift = schemes_ui.scheme_slider("shift", "shift s: the tokens move to positions s + 1 .. s + n", 0, 32)
changes = relpos.translation_changes(setup, shift)
ui.chart(scheme_figures.translation_bar_figure(changes, shift))
st.caption(f"Each panel: score after moving the tokens {shift} places minus the score before, same colour range.")
change_figures = scheme_figures.translation_heatmaps(changes, before=results, shift=shift)
ui.chart_row([change_figures[name] for name in ("sinusoidal", "shaw", "t5")], key_prefix="schemes.change.a")
ui.chart_row([change_figures[name] for name in ("alibi", "rope", "none")], key_prefix="schemes.change.b")
ui.matrix_tables(scheme_figures.change_matrices(changes), key="schemes.tables.changes")
ui.labelled_table(tables.scheme_summary_frame(results, changes), decimals=3, stretch=True)
ui.markdown("schemes_translation_after")

st.header("3 · Length generalization")
ui.markdown("schemes_length")
length = schemes_ui.scheme_slider("L", "trained length L (the model is asked about 2L)", 2, 32)
report = relpos.length_generalization(setup, length, slopes)
ui.chart_row(
    [
        scheme_figures.shaw_curve_figure(report, setup.k),
        scheme_figures.t5_curve_figure(report),
        scheme_figures.alibi_curve_figure(report, head),
    ],
    key_prefix="schemes.length.a",
)
ui.chart_row(
    [scheme_figures.rope_curve_figure(report), scheme_figures.sinusoid_figure(report)],
    key_prefix="schemes.length.b",
)
ui.labelled_table(tables.length_frame(report, k=setup.k, slope=setup.alibi_slope, head=head), stretch=True)

schemes_ui.save_scheme_settings()
