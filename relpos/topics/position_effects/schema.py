"""Position effects' state: its URL schema and the inputs a state stands for. Pure."""

from __future__ import annotations

from relpos.state.codec import Schema, choice_field, float_field, int_field
from relpos.text.answers import MAX_SEED
from relpos.topics.position_effects import model as position_effects_model

POSITION_EFFECTS_DEFAULT_K = 3


def _reconcile_position_effects(state: dict) -> tuple[dict, list[str]]:
    state = dict(state)
    if state["k"] <= state["n"] - 1:
        return state, []
    fixed = min(POSITION_EFFECTS_DEFAULT_K, state["n"] - 1)
    problem = f"k: must be at most n − 1 = {state['n'] - 1}; got {state['k']}. Using {fixed}."
    state["k"] = fixed
    return state, [problem]


#: d_k values offered on the page (any 1..64 is accepted from a link).
D_K_CHOICES = (2, 4, 8, 16, 32, 64)
#: d_model values offered on the page.
D_MODEL_CHOICES = (8, 16, 32, 64)

#: The Position effects page's state.
POSITION_EFFECTS = Schema(
    {
        "preset": choice_field("back", position_effects_model.PRESET_LABELS),
        "n": int_field(6, 2, position_effects_model.MAX_TOKENS),
        "k": int_field(POSITION_EFFECTS_DEFAULT_K, 0, position_effects_model.MAX_TOKENS - 1),
        "dk": int_field(8, 1, 64),
        "dmodel": int_field(16, 1, 128),
        "seed": int_field(0, 0, MAX_SEED),
        "strength": float_field(2.0, 0.0, 5.0),
        "shared": float_field(1.0, 0.0, 3.0),
    },
    reconcile=_reconcile_position_effects,
    limits=lambda state: {"k": (0, state["n"] - 1)},  # the table needs no row beyond n − 1
)


def state_inputs(state: dict, profile=None) -> position_effects_model.PositionEffectsInputs:
    """Draw the experiment for a Position effects state.

    A trained preset needs its learned `profile` (shape (2k+1,), from
    :func:`relpos.core.trained_presets.preset_profile`); the UI caches the training.

    >>> state_inputs(POSITION_EFFECTS.decode({}).state).table.shape
    (7, 8)
    """
    return position_effects_model.position_effects_inputs(
        state["n"],
        state["k"],
        d_model=state["dmodel"],
        d_k=state["dk"],
        seed=state["seed"],
        pattern=state["preset"],
        strength=state["strength"],
        shared=state["shared"],
        profile=profile,
    )
