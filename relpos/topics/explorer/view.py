"""The Explorer's widgets and layout (the page file only routes and calls :func:`render`).

The whole view lives in one state dict (:data:`relpos.topics.explorer.schema.EXPLORER`) mirrored
in the URL. The sidebar changes its structure (preset, n, k, d, seed) with Streamlit
widgets; on a phone, where the sidebar is an overlay over the panels, n and k sit right
under the panels instead, so the offset map stays in sight while k moves. The values
(aᴷ, q, k) and the query-independent toggle live in the Explorer panel (:mod:`relpos.ui.explorer_panel`),
which repaints the seven heatmaps in the browser while a slider moves and hands the values
back on release, when this fragment reruns: captions, the diagonal note, the tables, the
exports and the URL follow. Presenter mode (a field of the state, so ``presenter=1`` in a
lesson link) lays the panel out for a projector: the walkthrough's presenter style, the
Explorer panel first, two panels a row.
"""

import streamlit as st

import relpos
from relpos import ui
from relpos.plots import panels
from relpos.server import fragment
from relpos.state.keys import state_key
from relpos.text import explain
from relpos.topics.explorer import panel_spec, panel_values, presets
from relpos.topics.explorer import schema as explorer_schema
from relpos.topics.explorer.schema import EXPLORER, SLIDER_TOKENS
from relpos.topics.explorer.snippet import explorer_snippet
from relpos.ui import explorer_panel

__all__ = ["render"]

PAGE = "explorer"  # url_path
STATE = ui.PageState("explorer", EXPLORER)  # the page state; its widgets are "explorer.<name>"
PANEL = STATE.key("live")  # the Explorer panel (component)
SEQ = state_key(PAGE, "panel_seq")  # number of the last release applied (survives preset changes)
PANEL_PROBLEMS = state_key(PAGE, "panel_problems")


# --- callbacks of the sidebar (structural changes) -------------------------------------
def _on_preset() -> None:
    STATE.replace(explorer_schema.apply_preset(STATE.state(), STATE.value("preset")))


#: The widgets a new n or k re-seeds: n and k themselves (a new n may lower k) and the Explorer
#: panel's values. The others keep theirs: on a phone n and k sit in the fragment, whose run
#: draws nothing else, and a widget forgotten but not drawn again would fire its callback
#: on the next full run as if the learner had changed it.
_RESIZED = ("n", "k", "live")


def _resize(**size: int) -> None:
    STATE.replace(explorer_schema.resize(STATE.state(), **size), forget=_RESIZED)


def _on_n() -> None:
    _resize(n=STATE.value("n"))


def _on_k() -> None:
    _resize(k=STATE.value("k"))


def _on_d() -> None:
    STATE.replace(dict(STATE.state(), d=STATE.value("d")))


def _on_seed() -> None:
    STATE.replace(explorer_schema.reseed(STATE.state(), STATE.value("seed")))


#: Sequence lengths offered: every n with per-token sliders, then a few long ones.
TOKEN_COUNTS = (*range(2, SLIDER_TOKENS + 1), 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def _token_counts(current: int) -> list[int]:
    """The offered lengths, plus one a link asked for if it is not among them."""
    return sorted(set(TOKEN_COUNTS) | {current})


def size_controls(state: dict) -> None:
    """Tokens n and the clipping distance k (k's bounds from the schema: at most n − 1)."""
    st.select_slider(
        "Tokens n",
        _token_counts(state["n"]),
        **STATE.bind("n", on_change=_on_n),
        help=f"Up to {SLIDER_TOKENS} tokens every q and k has a slider; longer sequences are generated "
        "from the preset and seed.",
    )
    st.slider(
        "Clipping distance k",
        *EXPLORER.bounds("k", state),
        **STATE.bind("k", on_change=_on_k),
        help="Offsets j − i beyond ±k share the table entries of ±k.",
    )


def setup_sidebar(state: dict, *, sizes: bool = True) -> None:
    """The scenario's structure; n and k too unless `sizes` is False (a phone has them beside the panels)."""
    with st.sidebar:
        st.subheader("Scenario")
        preset = STATE.bind("preset", on_change=_on_preset)
        st.selectbox("Preset", list(presets.PRESETS), format_func=presets.PRESETS.get, **preset)
        if sizes:
            size_controls(state)
        st.radio(
            "Vector size d",
            (1, 2),
            **STATE.bind("d", on_change=_on_d),
            horizontal=True,
            format_func=lambda d: "d = 1 (textbook)" if d == 1 else "d = 2",
            help="With d = 2 the sliders set the first coordinate; the second comes from the seed.",
        )
        st.number_input(
            "Seed",
            *EXPLORER.bounds("seed", state),
            **STATE.bind("seed", on_change=_on_seed),
            help="Draws the random preset, the values beyond the textbook's four tokens and "
            "the second coordinates for d = 2.",
        )
        ui.scenario_upload(PAGE, EXPLORER, key=STATE.key("upload"), on_loaded=STATE.replace, lazy_key="explorer:load")


# --- the fragment: the Explorer panel and everything a release changes ---------------------
def _on_release() -> None:
    """The Explorer panel handed back its values: apply them (checked) to the page state."""
    message = explorer_panel.values_message(PANEL)
    if message is None:
        return
    state, problems = panel_values.apply_panel_values(STATE.state(), message)
    STATE.replace(state, forget=())  # the panel holds these values already
    if isinstance(message.get("seq"), int):
        st.session_state[SEQ] = message["seq"]
    st.session_state[PANEL_PROBLEMS] = problems


@st.cache_data(max_entries=64, show_spinner=False)
def _generated_inputs(state: dict) -> presets.ExplorerInputs:
    """Drawing a preset's values for up to 512 tokens is worth keeping."""
    return explorer_schema.explorer_inputs(state)


def _inputs(state: dict) -> presets.ExplorerInputs:
    """Arrays of a state: straight from the sliders, or drawn (and cached) when generated."""
    explicit = None not in (state["q"], state["keys"], state["a"]) and state["d"] == 1
    return explorer_schema.explorer_inputs(state) if explicit else _generated_inputs(state)


def _attention(inputs: presets.ExplorerInputs, scalar: bool) -> relpos.AttentionResult:
    if scalar:
        return relpos.scalar_bias_attention(inputs.queries, inputs.keys, inputs.table[:, 0])
    return relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)


@fragment  # fragment runs skip app.py: the same back-pressure and turns here
def explorer_body() -> None:
    """The Explorer panel and everything its release changes: a release reruns only this."""
    state = STATE.state()
    for problem in st.session_state.pop(PANEL_PROBLEMS, ()):
        st.warning(f"Some values from the sliders could not be used: {problem}", icon="⚠️")
    inputs = _inputs(state)
    scalar = state["bias"] == "scalar"
    result = _attention(inputs, scalar)
    d = inputs.queries.shape[1]
    captions = explain.explorer_captions(result, scalar=scalar, d=d, inputs=(inputs.queries, inputs.table))
    seq = st.session_state.get(SEQ, 0)
    # the figures' skeletons and hover recipes only: the browser fills the cells (panel_spec.release_spec)
    spec = panel_spec.release_spec(state, inputs, result, captions, seq=seq)
    explorer_panel.explorer_panel(spec, key=PANEL, on_release=_on_release)
    if ui.phone_screen():  # side by side right under the offset map, on screen with it (not in the sidebar's overlay)
        with st.container(horizontal=True, gap="medium"):
            size_controls(state)
    with st.expander("How the weight changes are computed"):
        ui.markdown("softmax_shift")
        ui.bullets(explain.difference_derivation(result))
    st.info(explain.diagonal_note(inputs.queries, inputs.table, result, scalar=scalar), icon=":material/search:")
    ui.markdown("explorer_offsets")
    matrices = panels.panel_matrices(result)
    titles = {name: panels.plain_title(name, d, scalar=scalar) for name in matrices}
    ui.matrix_tables({titles[name]: matrix for name, matrix in matrices.items()}, key=STATE.key("tables"))
    ui.export_section(
        schema=EXPLORER,
        state=state,
        url_path=PAGE,
        matrices=matrices,
        result=result,
        computed={"queries": inputs.queries, "keys": inputs.keys, "table a^K": inputs.table},
        snippet=explorer_snippet(state, inputs.queries, inputs.keys, inputs.table),
        key=STATE.key("export"),
    )
    STATE.write_url()


def _introduction() -> None:
    ui.markdown("explorer")
    ui.markdown("explorer_questions")


def render() -> None:
    """The whole page: the questions to try first, then the sidebar and the Explorer panel (in
    presenter mode the Explorer panel first, the questions below it)."""
    state = ui.presenter_heading(
        STATE,
        "Explorer: content and position, side by side",
        help="Bigger text and figures for a projector: the combined scores and weights side by side "
        "under the sliders, the sidebar folded away (its arrow brings it back).",
    )
    presenter = state["presenter"]
    if not presenter:
        _introduction()
    STATE.show_problems()
    setup_sidebar(state, sizes=not ui.phone_screen())
    explorer_body()
    if presenter:
        _introduction()
