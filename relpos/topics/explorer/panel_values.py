"""Values the Explorer panel hands back on release, checked before they touch the state.

The browser recomputes the panels while a slider moves; when the learner lets go it sends
``{"seq": int, "a": [...], "q": [...], "keys": [...], "bias": "shaw" | "scalar"}``. That
message comes from the client, so it is treated like a link: every list must have the
length the state already has, every number must be finite, it is clamped to the slider
range and rounded to the slider step. No Streamlit.
"""

from __future__ import annotations

import math

from relpos.topics.explorer import presets

__all__ = ["VALUE_LISTS", "apply_panel_values"]

#: The state's per-value lists the Explorer panel may change (table, queries, keys).
VALUE_LISTS = ("a", "q", "keys")
_LOW, _HIGH = presets.VALUE_RANGE


def _value(raw) -> float | None:
    """A slider value: finite, clamped to the range, on the two-decimal grid; None if not a number."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
        return None
    return round(min(_HIGH, max(_LOW, float(raw))), 2) + 0.0  # + 0.0 turns −0.0 into 0.0


def _values(raw, current: list | None) -> list[float] | None:
    """`raw` as the new list for a state list `current`, or None when it cannot be used."""
    if current is None or not isinstance(raw, list) or len(raw) != len(current):
        return None
    values = [_value(item) for item in raw]
    return None if None in values else values


def apply_panel_values(state: dict, message) -> tuple[dict, list[str]]:
    """The state with the Explorer panel's values applied, and what could not be used.

    Parameters
    ----------
    state : dict
        An Explorer state (:data:`relpos.topics.explorer.schema.EXPLORER`).
    message : dict
        What the browser sent; unknown keys are ignored.

    Returns
    -------
    state : dict
        A new dict; lists that did not fit are left as they were.
    problems : list of str
        One sentence per part that was ignored.

    Examples
    --------
    >>> state = {"a": [0.1, 0.2, 0.3], "q": [1.0, 0.5], "keys": [0.9, 0.7], "bias": "shaw"}
    >>> new, problems = apply_panel_values(state, {"a": [0.1, -0.5, 3], "bias": "scalar"})
    >>> new["a"], new["bias"], problems
    ([0.1, -0.5, 2.0], 'scalar', [])
    >>> apply_panel_values(state, {"q": [1.0]})[1]
    ['q: expected 2 numbers; the values were kept.']
    """
    new = dict(state)
    problems: list[str] = []
    if not isinstance(message, dict):
        return new, ["the Explorer panel sent no values; the values were kept."]
    for name in VALUE_LISTS:
        if name not in message:
            continue
        values = _values(message[name], state.get(name))
        if values is None:
            expected = "no values here" if state.get(name) is None else f"{len(state[name])} numbers"
            problems.append(f"{name}: expected {expected}; the values were kept.")
        else:
            new[name] = values
    if "bias" in message:
        if message["bias"] in ("shaw", "scalar"):
            new["bias"] = message["bias"]
        else:
            problems.append("bias: expected 'shaw' or 'scalar'; the setting was kept.")
    return new, problems
