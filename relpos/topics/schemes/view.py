"""The scheme comparison page's widgets: the scenario sidebar, section sliders, the scheme cards."""

from __future__ import annotations

import math

import streamlit as st

import relpos
from relpos import ui
from relpos.core.scheme_comparison import length_generalization, translation_changes
from relpos.server import fragment
from relpos.state.keys import widget_key
from relpos.tables import frames as tables
from relpos.text import numbers as num
from relpos.topics.schemes import figures as scheme_figures
from relpos.topics.schemes.schema import SCHEMES

SCHEME_PAGE = "schemes"
#: The page's settings (schema :data:`relpos.topics.schemes.schema.SCHEMES`) and their widgets.
STATE = ui.PageState(SCHEME_PAGE, SCHEMES)
#: The expander with section 1's numbers as tables.
SCORE_TABLES = widget_key(SCHEME_PAGE, "tables", "scores")

#: Each scheme's score formula, shown above its heatmaps.
SCHEME_FORMULAS = {
    "none": r"e_{ij} = \frac{q_i \cdot k_j}{\sqrt d}",
    "sinusoidal": r"e_{ij} = \frac{(x_i + p_i) W^Q \cdot (x_j + p_j) W^K}{\sqrt d}",
    "shaw": r"e_{ij} = \frac{q_i \cdot k_j + q_i \cdot a^K_{\operatorname{clip}(j-i,\,k)}}{\sqrt d}",
    "t5": r"e_{ij} = \frac{q_i \cdot k_j}{\sqrt d} + \beta_{\operatorname{bucket}(j-i)}",
    "alibi": r"e_{ij} = \frac{q_i \cdot k_j}{\sqrt d} - m\,\lvert j-i \rvert",
    "rope": r"e_{ij} = \frac{(R_i\, q_i) \cdot (R_j\, k_j)}{\sqrt d}",
}


#: What the symbols of each formula are (Markdown, with LaTeX).
SCHEME_SYMBOLS = {
    "none": "$q_i = x_i W^Q$, $k_j = x_j W^K$: the same tokens and projections in every row.",
    "sinusoidal": "$p_i$: sines and cosines of position $i$, added to the token before the projections.",
    "shaw": "$a^K$: a learned vector for each clipped offset $-k..k$.",
    "t5": (
        "$\\beta$: one learned number per bucket of offsets. T5 itself does not divide $q_i \\cdot k_j$ by "
        "$\\sqrt d$ (its attention uses a scale of 1); this page divides every scheme's dot product by "
        "$\\sqrt d$ so the schemes compare on one scale."
    ),
    "alibi": (
        "$m$: the head's fixed slope, chosen in the sidebar. ALiBi is defined for causal models, "
        "$-m\\,(i-j)$ for keys $j \\le i$; the symmetric $-m\\,\\lvert j-i \\rvert$ used here is an extension "
        "for bidirectional attention."
    ),
    "rope": "$R_i$ turns feature pair $(2t, 2t+1)$ by the angle $i\\,\\theta_t$, $\\theta_t = 10000^{-2t/d}$.",
}


def scheme_sidebar():
    """Draw the scenario controls in the sidebar; return (setup, ALiBi slopes, head index 0-based).

    Everything random comes from one seeded generator (see relpos.random_scheme_setup).
    """
    from relpos.core.schemes import alibi_slopes

    STATE.show_problems()
    with st.sidebar:
        st.markdown("**Scenario** (shared by every scheme)")
        n = STATE.slider("n")
        seed = STATE.number_input("seed")
        k = STATE.slider("k")
        buckets = STATE.select_slider("buckets")
        max_distance = STATE.select_slider("maxdist")
        st.caption("T5 itself uses 32 buckets and max_distance 128; smaller values show the log buckets sooner.")
        heads = STATE.slider("heads")
        head = STATE.slider("head") if heads > 1 else 1
        slopes = alibi_slopes(heads)
        exponent = num.number(math.log2(slopes[head - 1]), 3, trim=0)
        st.caption(f"slope m of head {head}: {slopes[head - 1]:.4g} = 2^{exponent}")
    setup = cached_scheme_setup(n, int(seed), k, int(buckets), int(max_distance), float(slopes[head - 1]))
    return setup, slopes, head - 1


@st.cache_data(show_spinner=False, max_entries=64)
def cached_scheme_setup(n: int, seed: int, k: int, buckets: int, max_distance: int, slope: float):
    from relpos.core.scheme_comparison import random_scheme_setup

    return random_scheme_setup(n, k=k, num_buckets=buckets, max_distance=max_distance, alibi_slope=slope, seed=seed)


def save_scheme_settings() -> None:
    """Write the comparison page's settings into the URL (call at the end of the page)."""
    STATE.write_url()


def scheme_rows(results, position_figures, weight_figures) -> None:
    """One card per scheme: name, parameter count and what to notice next to its formula;
    below them its two heatmaps, each half the card wide so the cell numbers stay legible."""
    from relpos.core.schemes import SCHEMES
    from relpos.tables.frames import constant_diagonals

    for name, result in results.items():
        with st.container(border=True):
            text, formula = st.columns([1, 1.2], vertical_alignment="center")
            with text:
                st.markdown(f"### {SCHEMES[name]}")
                count = result.n_params
                st.markdown(f"**{count}** learned position parameter{'s' if count != 1 else ''}")
                if name == "none":
                    st.caption(
                        "Its position part is zero; the left panel shows the scores every other scheme starts from."
                    )
                else:
                    constant = constant_diagonals(result.position)
                    st.caption(
                        "Position part constant along every diagonal: "
                        + ("yes, it depends on j − i alone." if constant else "no.")
                    )
            with formula:
                st.latex(SCHEME_FORMULAS[name])
                st.caption(SCHEME_SYMBOLS[name])
            position, weights = st.columns(2)
            with position:
                ui.chart(position_figures[name], key=widget_key(SCHEME_PAGE, "position", name))
            with weights:
                ui.chart(weight_figures[name], key=widget_key(SCHEME_PAGE, "weights", name))


# Each section's slider reruns only its section (a fragment): one step of the shift slider
# redraws the translation test's 7 charts, not the page's 30.


@fragment
def translation_section(setup, results) -> None:
    """Section 2: every token moved s places; which schemes' scores change."""
    st.header("2 · The translation test")
    ui.markdown("schemes_translation")
    shift = STATE.slider("shift")
    changes = translation_changes(setup, shift)
    ui.chart(scheme_figures.translation_bar_figure(changes, shift))
    st.caption(f"Each panel: score after moving the tokens {shift} places minus the score before, same colour range.")
    change_figures = scheme_figures.translation_heatmaps(changes, before=results, shift=shift)
    ui.chart_row(
        [change_figures[name] for name in ("sinusoidal", "shaw", "t5")],
        key_prefix=widget_key(SCHEME_PAGE, "change", "a"),
    )
    ui.chart_row(
        [change_figures[name] for name in ("alibi", "rope", "none")], key_prefix=widget_key(SCHEME_PAGE, "change", "b")
    )
    ui.matrix_tables(scheme_figures.change_matrices(changes), key=widget_key(SCHEME_PAGE, "tables", "changes"))
    ui.labelled_table(tables.scheme_summary_frame(results, changes), decimals=3, stretch=True)
    ui.markdown("schemes_translation_after")
    save_scheme_settings()


@fragment
def length_section(setup, slopes, head: int) -> None:
    """Section 3: each scheme at offsets (or positions) a model trained at length L never saw."""
    st.header("3 · Length generalization")
    ui.markdown("schemes_length")
    length = STATE.slider("L")
    report = length_generalization(setup, length, slopes)
    curves = [
        scheme_figures.shaw_curve_figure(report, setup.k),
        scheme_figures.t5_curve_figure(report),
        scheme_figures.alibi_curve_figure(report, head),
    ]
    ui.chart_row(curves, key_prefix=widget_key(SCHEME_PAGE, "length", "a"))
    ui.chart_row(
        [scheme_figures.rope_curve_figure(report), scheme_figures.sinusoid_figure(report)],
        key_prefix=widget_key(SCHEME_PAGE, "length", "b"),
    )
    ui.labelled_table(tables.length_frame(report, k=setup.k, slope=setup.alibi_slope, head=head), stretch=True)
    save_scheme_settings()


def render() -> None:
    """The whole page: Shaw et al.'s relative positions next to five other position schemes."""
    st.title("Comparing position schemes")
    ui.markdown("schemes")

    setup, slopes, head = scheme_sidebar()
    results = relpos.scheme_scores(setup)

    st.header("1 · Six schemes, the same tokens")
    ui.markdown("schemes_compare")
    scheme_rows(results, scheme_figures.position_heatmaps(results), scheme_figures.weight_heatmaps(results))
    ui.matrix_tables(scheme_figures.score_matrices(results), key=SCORE_TABLES)

    translation_section(setup, results)
    length_section(setup, slopes, head)

    save_scheme_settings()
