"""Comparing position schemes: its URL schema, with bounds that depend on the scheme. Pure."""

from __future__ import annotations

from relpos.state.codec import Schema, choice_field, int_field
from relpos.text.answers import MAX_SEED

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
        "seed": int_field(0, 0, MAX_SEED, label="seed (tokens, projections, tables)", noun="seed"),
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
