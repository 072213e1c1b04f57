"""State schemas of the pages with lesson links (Explorer, Position effects, Walkthrough,
Train a tiny head, Comparing position schemes, The value side).

Each page's whole view is one flat dict, described by a :class:`relpos.state.codec.Schema`
so it can travel in a lesson link or a scenario file. This module also holds the pure
state transitions the pages need (apply a preset, resize to a new n or k) and turns a
state into the arrays the core computes with. No Streamlit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from relpos.core.examples import Scenario, worked_example
from relpos.core.training_model import TRAINING_SCHEMES
from relpos.core.training_tasks import TRAINING_TASKS
from relpos.core.value_side import value_example
from relpos.lessons import answers, effects, presets
from relpos.lessons import walkthrough as wt
from relpos.state.codec import Field, Schema, bool_field, choice_field, float_field, floats_field, int_field, shown
from relpos.text.numbers import offset_range

__all__ = [
    "ALL_SCHEMES",
    "EFFECTS",
    "EXPLORER",
    "SCHEMES",
    "SLIDER_K",
    "SLIDER_TOKENS",
    "TRAINING",
    "TRAINING_STEP_CHOICES",
    "VALUE_SIDE",
    "VALUE_VARIANTS",
    "WALKTHROUGH",
    "WalkthroughView",
    "apply_preset",
    "effects_inputs",
    "explorer_inputs",
    "reseed",
    "resize",
    "walkthrough_state",
    "walkthrough_view",
]

#: Up to this many tokens every q_i and k_j has its own slider.
SLIDER_TOKENS = 16
#: Up to this clipping distance every a^K entry has its own slider.
SLIDER_K = 16
_SEEDS = 999_999
_LOW, _HIGH = presets.VALUE_RANGE


# --- Explorer ----------------------------------------------------------------------
def _generated(state: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return presets.preset_values(state["preset"], state["n"], state["k"], state["seed"])


def _reconcile_explorer(state: dict) -> tuple[dict, list[str]]:
    """Make k, q, keys and a agree with n: per-token lists up to 16 tokens, a up to k = 16."""
    state = dict(state)
    problems: list[str] = []
    n = state["n"]
    if state["k"] > n - 1:
        fixed = min(EXPLORER_DEFAULT_K, n - 1)
        problems.append(f"k: must be at most n − 1 = {n - 1}; got {state['k']}. Using {fixed}.")
        state["k"] = fixed
    q, keys, table = _generated(state)
    for name, generated, needed, limit in (
        ("q", q, n, ("n", n, SLIDER_TOKENS)),
        ("keys", keys, n, ("n", n, SLIDER_TOKENS)),
        ("a", table, 2 * state["k"] + 1, ("k", state["k"], SLIDER_K)),
    ):
        size_name, size, most = limit
        given = state.get(name)
        if size > most:
            if given is not None:
                problems.append(
                    f"{name}: single values are used only up to {size_name} = {most} "
                    f"(here {size_name} = {size}); ignored, the preset's values are used."
                )
            state[name] = None
        elif given is None:
            state[name] = generated.tolist()
        elif len(given) != needed:
            problems.append(
                f"{name}: expected {needed} values for {size_name} = {size}; got {len(given)}. "
                "Using the preset's values."
            )
            state[name] = generated.tolist()
    return state, problems


EXPLORER_DEFAULT_K = 2

#: The Explorer's state: preset, sizes, seed, bias kind and every slider value.
EXPLORER = Schema(
    {
        "preset": choice_field("textbook", presets.PRESETS),
        "n": int_field(4, 2, presets.MAX_TOKENS),
        "k": int_field(EXPLORER_DEFAULT_K, 0, presets.MAX_TOKENS - 1),
        "d": int_field(1, 1, 2),
        "seed": int_field(0, 0, _SEEDS),
        "bias": choice_field("shaw", ("shaw", "scalar")),
        "q": floats_field(None, _LOW, _HIGH, SLIDER_TOKENS),
        "keys": floats_field(None, _LOW, _HIGH, SLIDER_TOKENS),
        "a": floats_field(None, _LOW, _HIGH, 2 * SLIDER_K + 1),
    },
    reconcile=_reconcile_explorer,
)


def apply_preset(state: dict, preset: str) -> dict:
    """New state with the preset's values; the textbook preset also restores n = 4, k = 2, d = 1.

    >>> state = apply_preset(EXPLORER.decode({}).state, "previous")
    >>> state["a"], state["n"]
    ([0.0, 2.0, 0.0, 0.0, 0.0], 4)
    """
    fresh = dict(state, preset=preset, q=None, keys=None, a=None)
    if preset == "textbook":
        fresh.update(n=4, k=EXPLORER_DEFAULT_K, d=1)
    return _reconcile_explorer(fresh)[0]


def _centred(old: list[float] | None, new: np.ndarray) -> list[float]:
    """`new` with its centre replaced by `old` (both odd-length tables centred on offset 0)."""
    result = new.copy()
    if old is not None:
        keep = min(len(old), len(new))
        start_old, start_new = (len(old) - keep) // 2, (len(new) - keep) // 2
        result[start_new : start_new + keep] = old[start_old : start_old + keep]
    return result.tolist()


def _prefix(old: list[float] | None, new: np.ndarray) -> list[float]:
    """`new` with its first entries replaced by `old` (per-token values)."""
    result = new.copy()
    if old is not None:
        keep = min(len(old), len(new))
        result[:keep] = old[:keep]
    return result.tolist()


def resize(state: dict, *, n: int | None = None, k: int | None = None) -> dict:
    """New state for a new n and/or k, keeping every value that still has a place.

    New tokens and new offsets get the preset's values; k is lowered to n − 1 if needed.

    >>> state = EXPLORER.decode({}).state
    >>> resize(state, n=3)["q"], resize(state, n=3)["k"]
    ([1.0, 0.5, 0.8], 2)
    >>> resize(state, k=3)["a"]
    [-0.3, -0.3, 0.4, 0.1, -0.2, -0.5, -0.5]
    """
    new = dict(state)
    if n is not None:
        new["n"] = n
    if k is not None:
        new["k"] = k
    new["k"] = min(new["k"], new["n"] - 1)
    q, keys, table = _generated(new)
    new["q"] = _prefix(state.get("q"), q) if new["n"] <= SLIDER_TOKENS else None
    new["keys"] = _prefix(state.get("keys"), keys) if new["n"] <= SLIDER_TOKENS else None
    new["a"] = _centred(state.get("a"), table) if new["k"] <= SLIDER_K else None
    return new


def explorer_inputs(state: dict) -> presets.ExplorerInputs:
    """The (n, d) queries and keys and the (2k+1, d) table of an Explorer state.

    >>> inputs = explorer_inputs(EXPLORER.decode({}).state)
    >>> inputs.queries.ravel(), inputs.k
    (array([1. , 0.5, 0.8, 0.3]), 2)
    """
    q, keys, table = _generated(state) if None in (state["q"], state["keys"], state["a"]) else (None,) * 3
    return presets.explorer_inputs(
        state["q"] if state["q"] is not None else q,
        state["keys"] if state["keys"] is not None else keys,
        state["a"] if state["a"] is not None else table,
        d=state["d"],
        preset=state["preset"],
        seed=state["seed"],
    )


# --- Position effects --------------------------------------------------------------
EFFECTS_DEFAULT_K = 3


def _reconcile_effects(state: dict) -> tuple[dict, list[str]]:
    state = dict(state)
    if state["k"] <= state["n"] - 1:
        return state, []
    fixed = min(EFFECTS_DEFAULT_K, state["n"] - 1)
    problem = f"k: must be at most n − 1 = {state['n'] - 1}; got {state['k']}. Using {fixed}."
    state["k"] = fixed
    return state, [problem]


#: d_k values offered on the page (any 1..64 is accepted from a link).
D_K_CHOICES = (2, 4, 8, 16, 32, 64)
#: d_model values offered on the page.
D_MODEL_CHOICES = (8, 16, 32, 64)

#: The Position effects page's state.
EFFECTS = Schema(
    {
        "preset": choice_field("back", effects.PRESET_LABELS),
        "n": int_field(6, 2, effects.MAX_TOKENS),
        "k": int_field(EFFECTS_DEFAULT_K, 0, effects.MAX_TOKENS - 1),
        "dk": int_field(8, 1, 64),
        "dmodel": int_field(16, 1, 128),
        "seed": int_field(0, 0, _SEEDS),
        "strength": float_field(2.0, 0.0, 5.0),
        "shared": float_field(1.0, 0.0, 3.0),
    },
    reconcile=_reconcile_effects,
)


def effects_inputs(state: dict, profile=None) -> effects.EffectsInputs:
    """Draw the experiment for a Position effects state.

    A trained preset needs its learned `profile` (shape (2k+1,), from
    :func:`relpos.lessons.trained_presets.preset_profile`); the UI caches the training.

    >>> effects_inputs(EFFECTS.decode({}).state).table.shape
    (7, 8)
    """
    return effects.position_effects_inputs(
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


def reseed(state: dict, seed: int) -> dict:
    """New state with another seed: the preset's values are drawn again for the same n and k.

    >>> reseed(apply_preset(EXPLORER.decode({}).state, "random"), 1)["q"] != apply_preset(
    ...     EXPLORER.decode({}).state, "random")["q"]
    True
    """
    return resize(dict(state, seed=seed, q=None, keys=None, a=None))


# --- Walkthrough -------------------------------------------------------------------
# The textbook's four tokens (n is fixed on this page); the stop is written 1-based, as
# on screen: ?i=3&j=2 is pair (3, 2), ?i=3&j=softmax the softmax step of row 3.
_TEXTBOOK = worked_example()
WALKTHROUGH_TOKENS = _TEXTBOOK.n
_SOFTMAX = "softmax"


def _walkthrough_table(k: int) -> list[float]:
    """The textbook's a^K for clipping distance k (edge entries copied beyond ±2, as on the page)."""
    return list(wt.resize_table(_TEXTBOOK.table, k))


def _reconcile_walkthrough(state: dict) -> tuple[dict, list[str]]:
    """The table a^K must hold 2k + 1 values; without them (or with another count) the textbook's."""
    state = dict(state)
    k, table = state["k"], state.get("a")
    if table is None:
        state["a"] = _walkthrough_table(k)
        return state, []
    if len(table) == 2 * k + 1:
        return state, []
    offsets = f"offsets {offset_range(k)}" if k else "offset 0 only"
    count = f"{2 * k + 1} value{'s' if k else ''}"
    problem = f"a: expected {count} for k = {k} ({offsets}); got {len(table)}. Using the textbook's values."
    state["a"] = _walkthrough_table(k)
    return state, [problem]


def _token_values(default) -> Field:
    n, limit = WALKTHROUGH_TOKENS, wt.VALUE_LIMIT
    return floats_field(list(default), -limit, limit, n, min_items=n)


#: The walkthrough's state: the current stop (query row i, key j or "softmax", 1-based),
#: presenter mode, the clipping distance k and every number of the example.
WALKTHROUGH = Schema(
    {
        "i": int_field(1, 1, WALKTHROUGH_TOKENS),
        "j": choice_field("1", (*(str(j) for j in range(1, WALKTHROUGH_TOKENS + 1)), _SOFTMAX)),
        "presenter": bool_field(False),
        "k": int_field(_TEXTBOOK.k, min(wt.K_CHOICES), max(wt.K_CHOICES)),
        "q": _token_values(_TEXTBOOK.queries),
        "keys": _token_values(_TEXTBOOK.keys),
        "a": floats_field(None, -wt.VALUE_LIMIT, wt.VALUE_LIMIT, 2 * max(wt.K_CHOICES) + 1),
    },
    reconcile=_reconcile_walkthrough,
)


class WalkthroughView(NamedTuple):
    """What a walkthrough state opens: the numbers, the current stop, presenter mode."""

    scenario: Scenario
    stop: wt.Stop
    presenter: bool


def walkthrough_view(state: dict) -> WalkthroughView:
    """The scenario, stop (0-based) and presenter mode of a valid walkthrough state.

    >>> view = walkthrough_view(WALKTHROUGH.decode({"i": "3", "j": "softmax", "k": "1"}).state)
    >>> view.stop, view.scenario.table, view.presenter
    (Stop(row=2, step=4), (0.4, 0.1, -0.2), False)
    """
    scenario = Scenario(queries=tuple(state["q"]), keys=tuple(state["keys"]), table=tuple(state["a"]))
    step = scenario.n if state["j"] == _SOFTMAX else int(state["j"]) - 1
    return WalkthroughView(scenario, wt.Stop(state["i"] - 1, step), bool(state["presenter"]))


def walkthrough_state(scenario: Scenario, stop: wt.Stop, presenter: bool) -> dict:
    """The walkthrough state (lesson link, scenario file) of a view; inverse of :func:`walkthrough_view`.

    >>> state = walkthrough_state(worked_example(), wt.Stop(2, 1), True)
    >>> WALKTHROUGH.encode(state)["i"], WALKTHROUGH.encode(state)["j"], WALKTHROUGH.encode(state)["presenter"]
    ('3', '2', '1')
    """
    return {
        "i": stop.row + 1,
        "j": _SOFTMAX if stop.is_softmax(scenario.n) else str(stop.step + 1),
        "presenter": bool(presenter),
        "k": scenario.k,
        "q": [float(v) for v in scenario.queries],
        "keys": [float(v) for v in scenario.keys],
        "a": [float(v) for v in scenario.table],
    }


# --- Train a tiny head ---------------------------------------------------------------
#: Training steps offered on the page (any 50..1000 is accepted from a link).
TRAINING_STEP_CHOICES = (50, 100, 200, 400, 600, 800, 1000)
#: "all" trains every scheme at once (the same runs as the "train short, test long" table).
ALL_SCHEMES = "all"

#: The training page's settings: task, scheme (or all), training length L, Shaw's k,
#: steps and seed. Ranges keep the largest "train short, test long" table (7 schemes,
#: 1000 steps at L = 32, tests up to 4L = 128) within a few tens of seconds.
TRAINING = Schema(
    {
        "task": choice_field("previous", TRAINING_TASKS),
        "scheme": choice_field("shaw", (*TRAINING_SCHEMES, ALL_SCHEMES)),
        "L": int_field(16, 4, 32),
        "k": int_field(4, 0, 16),
        "steps": int_field(400, min(TRAINING_STEP_CHOICES), max(TRAINING_STEP_CHOICES)),
        "seed": int_field(0, 0, _SEEDS),
    }
)


# --- Comparing position schemes -----------------------------------------------------
# Each setting is declared once, with the label its widget shows and the noun its
# messages use; the page draws every widget from these fields.
_SCHEME_TOKENS = (4, 16)
_SCHEME_HEADS = (1, 16)


def _scheme_limits(state) -> dict[str, tuple[int, int]]:
    """Shaw's k stays below n, and the ALiBi head shown is one of the H heads."""
    return {"k": (0, state["n"] - 1), "head": (1, state["heads"])}


def _reconcile_schemes(state: dict) -> tuple[dict, list[str]]:
    """Clamp k and the head shown to what n and H allow, and say why."""
    state = dict(state)
    problems: list[str] = []
    n, heads = state["n"], state["heads"]
    if state["k"] > n - 1:
        problems.append(
            f"Shaw clipping distance k must be at most n − 1 = {n - 1} for n = {n}; got {state['k']} (used {n - 1})"
        )
        state["k"] = n - 1
    if state["head"] > heads:
        problems.append(
            f"ALiBi head must be at most the number of heads H = {heads}; got {state['head']} (used {heads})"
        )
        state["head"] = heads
    return state, problems


#: The scheme comparison page's scenario (sidebar) and its two section sliders.
SCHEMES = Schema(
    {
        "n": int_field(8, *_SCHEME_TOKENS, label="sequence length n"),
        "seed": int_field(0, 0, 9999, label="seed (tokens, projections, tables)", noun="seed"),
        "k": int_field(2, 0, _SCHEME_TOKENS[1] - 1, label="Shaw: clipping distance k", noun="Shaw clipping distance k"),
        "buckets": choice_field("16", ("8", "16", "32"), label="T5: buckets", noun="T5 buckets"),
        "maxdist": choice_field("32", ("16", "32", "64", "128"), label="T5: max_distance", noun="T5 max_distance"),
        "heads": int_field(8, *_SCHEME_HEADS, label="ALiBi: heads H", noun="ALiBi heads H"),
        "head": int_field(1, *_SCHEME_HEADS, label="ALiBi: head shown", noun="ALiBi head"),
        "shift": int_field(3, 0, 32, label="shift s: the tokens move to positions s + 1 .. s + n", noun="shift s"),
        "L": int_field(8, 2, 32, label="trained length L (the model is asked about 2L)", noun="trained length L"),
    },
    reconcile=_reconcile_schemes,
    limits=_scheme_limits,
)


# --- The value side ----------------------------------------------------------------
#: The variants' URL codes and what the page calls them (Shaw et al.'s Table 3).
VALUE_VARIANTS = {"both": "a^K and a^V", "key": "a^K only", "value": "a^V only", "neither": "neither"}
_VALUE_EXAMPLE = value_example()
_VALUE_TOKENS = _VALUE_EXAMPLE.n
_VALUE_LIMIT = 2.0


def _example_numbers(default, noun: str) -> Field:
    """One of the example's lists: a slider per entry, each from −2 to 2."""
    count = len(default)
    return floats_field(list(default), -_VALUE_LIMIT, _VALUE_LIMIT, count, min_items=count, noun=noun, step=0.05)


#: The value-side page's settings, with the example's numbers as defaults. The example's
#: n is fixed, so k's bound n − 1 is too.
VALUE_SIDE = Schema(
    {
        "k": int_field(2, 0, _VALUE_TOKENS - 1, label="clipping distance k"),
        "query": int_field(1, 1, _VALUE_TOKENS, label="query i", noun="query"),
        "variant": choice_field(
            "both", VALUE_VARIANTS, label="relative tables in use (Shaw et al.'s Table 3)", noun="variant"
        ),
        "v": _example_numbers(_VALUE_EXAMPLE.values, "values v"),
        "av": _example_numbers(_VALUE_EXAMPLE.value_table, "aⱽ table"),
        "q": _example_numbers(_VALUE_EXAMPLE.queries, "queries q"),
        "kk": _example_numbers(_VALUE_EXAMPLE.keys, "keys k"),
        "ak": _example_numbers(_VALUE_EXAMPLE.key_table, "aᴷ table"),
    }
)


# ---------------------------------------------------------------------------- quiz

#: The quiz's one URL parameter, ``?seed=``: read by the same codec as every other page's.
QUIZ_SEED = int_field(None, 0, answers.MAX_SEED)


def read_quiz_seed(text: str) -> int:
    """The quiz seed in a link's ``seed=`` text, or ValueError saying what a seed is.

    >>> read_quiz_seed(" 42 ")
    42
    >>> read_quiz_seed("1_000")
    Traceback (most recent call last):
    ...
    ValueError: the seed must be a whole number from 0 to 4294967295; got '1_000'
    """
    try:
        return QUIZ_SEED.parse(text)
    except ValueError:
        raise ValueError(f"the seed must be a whole number from 0 to {answers.MAX_SEED}; got {shown(text)}") from None
