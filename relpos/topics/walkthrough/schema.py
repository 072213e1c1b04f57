"""The walkthrough's state: its URL schema, the stop a state shows, and the state of a stop. Pure."""

from __future__ import annotations

from typing import NamedTuple

from relpos.core.examples import Scenario, worked_example
from relpos.state.codec import Field, Schema, bool_field, choice_field, floats_field, int_field
from relpos.text.numbers import offset_range
from relpos.topics.walkthrough import model as wt

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
