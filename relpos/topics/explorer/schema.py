"""The Explorer's state: its URL schema, presets applied, resizing to a new n or k, and the
arrays a state stands for. Pure: no Streamlit."""

from __future__ import annotations

import numpy as np

from relpos.state.codec import Schema, bool_field, choice_field, floats_field, int_field
from relpos.text.answers import MAX_SEED
from relpos.topics.explorer import presets

#: Up to this many tokens every q_i and k_j has its own slider.
SLIDER_TOKENS = 16
#: Up to this clipping distance every a^K entry has its own slider.
SLIDER_K = 16
_LOW, _HIGH = presets.VALUE_RANGE


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

#: The Explorer's state: preset, sizes, seed, bias kind, every slider value and presenter mode.
EXPLORER = Schema(
    {
        "preset": choice_field("textbook", presets.PRESETS),
        "n": int_field(4, 2, presets.MAX_TOKENS),
        "k": int_field(EXPLORER_DEFAULT_K, 0, presets.MAX_TOKENS - 1),
        "d": int_field(1, 1, 2),
        "seed": int_field(0, 0, MAX_SEED),
        "bias": choice_field("shaw", ("shaw", "scalar")),
        "q": floats_field(None, _LOW, _HIGH, SLIDER_TOKENS),
        "keys": floats_field(None, _LOW, _HIGH, SLIDER_TOKENS),
        "a": floats_field(None, _LOW, _HIGH, 2 * SLIDER_K + 1),
        "presenter": bool_field(False),
    },
    reconcile=_reconcile_explorer,
    limits=lambda state: {"k": (0, state["n"] - 1)},  # the table needs no row beyond n − 1
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


def reseed(state: dict, seed: int) -> dict:
    """New state with another seed: the preset's values are drawn again for the same n and k.

    >>> reseed(apply_preset(EXPLORER.decode({}).state, "random"), 1)["q"] != apply_preset(
    ...     EXPLORER.decode({}).state, "random")["q"]
    True
    """
    return resize(dict(state, seed=seed, q=None, keys=None, a=None))
