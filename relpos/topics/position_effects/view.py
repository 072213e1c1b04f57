"""Widgets of the Position effects page (pages/position_effects.py): the experiment's sidebar.

The whole experiment is one state dict (relpos.state.schemas.EFFECTS) mirrored in the URL;
each sidebar widget copies its value into it.
"""

from __future__ import annotations

import streamlit as st

from relpos.lessons import effects
from relpos.state.keys import state_key
from relpos.state.schemas import D_K_CHOICES, D_MODEL_CHOICES, EFFECTS
from relpos.ui import common as ui

__all__ = ["PAGE", "STATE", "W", "setup_sidebar"]

PAGE = "position_effects"  # url_path
STATE = "effects"  # st.session_state key of the state dict
W = "effects."  # prefix of this page's widget keys


def _state() -> dict:
    return st.session_state[STATE]


def _on_change(name: str) -> None:
    """Copy one widget into the state; a new n may lower k."""
    state = dict(_state(), **{name: st.session_state[W + name]})
    state["k"] = min(state["k"], state["n"] - 1)
    ui.set_page_state(STATE, state, widget_prefix=W + "k")  # re-seed only the k slider
    st.session_state[STATE] = state


def _on_upload(state: dict) -> None:
    ui.set_page_state(STATE, state, widget_prefix=W)


def _options(choices: tuple[int, ...], current: int) -> list[int]:
    """The offered sizes, plus a value a link asked for if it is not among them."""
    return sorted(set(choices) | {current})


def _preset_labels() -> dict[str, str]:
    """The selector's labels, in groups: "hand-made: …", the random table, then "trained: …"."""
    hand_made = {
        name: label if favoured is None else f"hand-made: {label}"
        for name, (label, favoured) in effects.TABLE_PATTERNS.items()
    }
    return {name: hand_made.get(name, label) for name, label in effects.PRESET_LABELS.items()}


def _preset_selector() -> None:
    """The table preset: hand-made ones, the random table, then the trained ones."""
    labels = _preset_labels()
    st.selectbox(
        "Table preset (illustrative hand-made tables, or trained live)",
        list(labels),
        format_func=labels.get,
        key=W + "preset",
        args=("preset",),
        help="Hand-made: built by hand, not trained, a 0/1 profile over the offsets times the queries' mean "
        "direction. Trained: the mean bias per offset that a tiny Shaw head learned on this server "
        "(a copying task, seed 0), times the same direction.",
        on_change=_on_change,
    )


def _size_sliders(state: dict, common: dict) -> None:
    """d_k and d_model, each with a one-line gloss."""
    st.select_slider(
        "Query/key size d_k",
        _options(D_K_CHOICES, state["dk"]),
        key=W + "dk",
        args=("dk",),
        **common,
        help="d_k: the length of each query, key and table vector; both terms are divided by √d_k.",
    )
    st.select_slider(
        "Embedding size d_model",
        _options(D_MODEL_CHOICES, state["dmodel"]),
        key=W + "dmodel",
        args=("dmodel",),
        **common,
        help="d_model: the length of each token's embedding (a row of X); W_q and W_k map it to d_k.",
    )


def setup_sidebar(state: dict) -> None:
    """The experiment's settings in the sidebar, and a scenario file to load."""
    with st.sidebar:
        st.subheader("Experiment")
        for name in EFFECTS.fields:
            ui.seed_widget(W + name, state[name])
        common = {"on_change": _on_change}
        _preset_selector()
        st.slider("Tokens n", 2, effects.MAX_TOKENS, key=W + "n", args=("n",), **common)
        st.slider(
            "Clipping distance k",
            0,
            state["n"] - 1,
            key=W + "k",
            args=("k",),
            **common,
            help="Offsets beyond ±k share the edge vectors of the table. Clipping matters once n > k + 1.",
        )
        _size_sliders(state, common)
        st.number_input("Seed", 0, 999_999, key=W + "seed", args=("seed",), **common)
        st.slider(
            "Preset strength",
            0.0,
            5.0,
            step=0.1,
            key=W + "strength",
            args=("strength",),
            **common,
            help="Structured presets: the average bias a favoured offset adds. Random: the spread of aᴷ.",
        )
        st.slider(
            "Shared direction in X",
            0.0,
            3.0,
            step=0.1,
            key=W + "shared",
            args=("shared",),
            **common,
            help="Real embeddings share a common direction. At 0 the queries point every which way, "
            "and one table cannot favour the same offset for all of them.",
        )
        st.divider()
        ui.scenario_upload(PAGE, EFFECTS, key=W + "upload", on_loaded=_on_upload, lazy_key=state_key("effects", "load"))
