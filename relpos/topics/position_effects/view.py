"""Widgets of the Position effects page (pages/position_effects.py): the experiment's sidebar.

The whole experiment is one state dict (relpos.topics.position_effects.schema.POSITION_EFFECTS) mirrored in the URL;
each sidebar widget copies its value into it.
"""

from __future__ import annotations

import streamlit as st

import relpos
from relpos import ui
from relpos.plots import panels
from relpos.state.keys import state_key
from relpos.topics.position_effects import model as position_effects_model
from relpos.topics.position_effects import presets_view
from relpos.topics.position_effects import schema as position_effects_schema
from relpos.topics.position_effects import text as position_effects_text
from relpos.topics.position_effects.schema import D_K_CHOICES, D_MODEL_CHOICES, POSITION_EFFECTS
from relpos.topics.position_effects.snippet import position_effects_snippet

__all__ = ["PAGE", "STATE", "setup_sidebar"]

PAGE = "position_effects"  # url_path
STATE = ui.PageState("position_effects", POSITION_EFFECTS)  # the experiment; the page's widgets are "effects.<name>"


def _bind(name: str) -> dict:
    """A sidebar widget bound to field `name`; any change re-seeds the k slider (a new n may lower k)."""
    return STATE.bind(name, forget=("k",))


def _options(choices: tuple[int, ...], current: int) -> list[int]:
    """The offered sizes, plus a value a link asked for if it is not among them."""
    return sorted(set(choices) | {current})


def _preset_labels() -> dict[str, str]:
    """The selector's labels, in groups: "hand-made: …", the random table, then "trained: …"."""
    hand_made = {
        name: label if favoured is None else f"hand-made: {label}"
        for name, (label, favoured) in position_effects_model.TABLE_PATTERNS.items()
    }
    return {name: hand_made.get(name, label) for name, label in position_effects_model.PRESET_LABELS.items()}


def _preset_selector() -> None:
    """The table preset: hand-made ones, the random table, then the trained ones."""
    labels = _preset_labels()
    st.selectbox(
        "Table preset (illustrative hand-made tables, or trained live)",
        list(labels),
        format_func=labels.get,
        **_bind("preset"),
        help="Hand-made: built by hand, not trained, a 0/1 profile over the offsets times the queries' mean "
        "direction. Trained: the mean bias per offset that a tiny Shaw head learned on this server "
        "(a copying task, seed 0), times the same direction.",
    )


def _size_sliders(state: dict) -> None:
    """d_k and d_model, each with a one-line gloss."""
    st.select_slider(
        "Query/key size d_k",
        _options(D_K_CHOICES, state["dk"]),
        **_bind("dk"),
        help="d_k: the length of each query, key and table vector; both terms are divided by √d_k.",
    )
    st.select_slider(
        "Embedding size d_model",
        _options(D_MODEL_CHOICES, state["dmodel"]),
        **_bind("dmodel"),
        help="d_model: the length of each token's embedding (a row of X); W_q and W_k map it to d_k.",
    )


def setup_sidebar(state: dict) -> None:
    """The experiment's settings in the sidebar, and a scenario file to load."""
    with st.sidebar:
        st.subheader("Experiment")
        _preset_selector()
        st.slider("Tokens n", *POSITION_EFFECTS.bounds("n", state), **_bind("n"))
        st.slider(
            "Clipping distance k",
            *POSITION_EFFECTS.bounds("k", state),
            **_bind("k"),
            help="Offsets beyond ±k share the edge vectors of the table. Clipping matters once n > k + 1.",
        )
        _size_sliders(state)
        st.number_input("Seed", *POSITION_EFFECTS.bounds("seed", state), **_bind("seed"))
        st.slider(
            "Preset strength",
            *POSITION_EFFECTS.bounds("strength", state),
            step=0.1,
            **_bind("strength"),
            help="Structured presets: the average bias a favoured offset adds. Random: the spread of aᴷ.",
        )
        st.slider(
            "Shared direction in X",
            *POSITION_EFFECTS.bounds("shared", state),
            step=0.1,
            **_bind("shared"),
            help="Real embeddings share a common direction. At 0 the queries point every which way, "
            "and one table cannot favour the same offset for all of them.",
        )
        st.divider()
        loading = {"key": STATE.key("upload"), "lazy_key": state_key("position_effects", "load")}
        ui.scenario_upload(PAGE, POSITION_EFFECTS, on_loaded=STATE.replace, **loading)


#: A panel's height two a row, and stacked on a phone (a 390 px screen's square and its axes).
PANEL_HEIGHT, PHONE_PANEL_HEIGHT = 560, 450


def _panels(state: dict, inputs, result, favoured) -> None:
    """The four heatmaps, two a row, each with its caption at the cells' own decimals."""
    # two panels a row: room for 64 tokens; a phone stacks them, each a square as wide as
    # the screen, and the spare height of 560 px stood empty between a title and its cells
    figures = panels.position_effects_panels(result, height=PHONE_PANEL_HEIGHT if ui.phone_screen() else PANEL_HEIGHT)
    captions = position_effects_text.position_effects_captions(
        result, favoured, d=inputs.queries.shape[1], cell_decimals=panels.position_effects_decimals(state["n"])
    )
    for row in (("content", "bias"), ("content_weights", "weights")):
        for name, column in zip(row, st.columns(2), strict=True):
            with column:
                ui.heatmap_panel(
                    figures[name],
                    captions[name],
                    key=STATE.key(f"fig.{name}"),
                    alt=f"Heatmap: {panels.plain_title(name, position_effects=True)}",
                )


def _how_it_is_built(state: dict, inputs, result) -> None:
    """The formula, the prose, the numbers as tables and the export, below the pictures."""
    st.header("How the experiment is built")
    st.latex(
        r"e_{ij} = \underbrace{\frac{q_i \cdot k_j}{\sqrt{d_k}}}_{\text{content}}"
        r" + \underbrace{\frac{q_i \cdot a^K_{\mathrm{clip}(j-i,\,k)}}{\sqrt{d_k}}}_{\text{position}}"
    )
    ui.markdown("position_effects")
    matrices = {
        "content": result.content,
        "bias": result.bias,
        "content_weights": result.content_weights,
        "weights": result.weights,
    }
    ui.matrix_tables(
        {panels.plain_title(name, position_effects=True): matrix for name, matrix in matrices.items()},
        key=STATE.key("tables"),
    )
    ui.export_section(
        schema=POSITION_EFFECTS,
        state=state,
        url_path=PAGE,
        matrices=matrices,
        result=result,
        computed={"X": inputs.X, "W_q": inputs.W_q, "W_k": inputs.W_k, "table a^K": inputs.table},
        snippet=position_effects_snippet(state),
        key=STATE.key("export"),
    )


def render() -> None:
    """The whole page: one sentence, the four panels, what the position term did, then how the
    experiment is built (the panels within a laptop's first screen)."""

    st.title("Position effects: what the position term does to attention")
    ui.markdown("position_effects_lead")
    state = STATE.state()
    STATE.show_problems()
    setup_sidebar(state)

    profile, trained_note = presets_view.preset_profile(state)  # None, [] for a hand-made or random preset
    inputs = position_effects_schema.state_inputs(state, profile)
    result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)  # both terms / sqrt(d_k)
    favoured = position_effects_model.favoured_offsets(state["preset"], profile)
    _panels(state, inputs, result, favoured)
    if trained_note:
        st.info("\n".join(f"- {sentence}" for sentence in trained_note))

    st.header("What the position term did")
    sentences = position_effects_text.position_effects_summary(
        inputs.queries,
        result,
        favoured,
        inputs.direction,
        trained=position_effects_model.is_trained(state["preset"]),
        table=inputs.table,
    )
    ui.bullets(sentences)
    _how_it_is_built(state, inputs, result)
    STATE.write_url()
