"""What the Explorer's live panel needs in the browser: inputs, sliders and the seven figures.

Python stays the reference and builds the figures: the browser receives them as Plotly
JSON (layout, colour scales, axes, hover templates, exactly as :func:`relpos.plots.panels.
explorer_panels` makes them) plus the arrays they were computed from. While a slider
moves, the browser recomputes the numbers with its mirror of :mod:`relpos.core`
(``relpos/ui/live_assets/attention.js``) and swaps only ``z`` and the cell text; on release
the page rebuilds this spec from the new state and the browser draws it as sent. No
Streamlit.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go

from relpos.core.attention import AttentionResult
from relpos.lessons import presets
from relpos.plots import panels
from relpos.state.schemas import SLIDER_K, SLIDER_TOKENS
from relpos.text import explain, hover, numbers

__all__ = ["GROUPS", "LIVE_MAX_N", "PANEL_ORDER", "figure_json", "live_spec", "value_labels"]

#: Up to this many tokens the browser recomputes the panels on every input event;
#: above it the panels repaint on release.
LIVE_MAX_N = 64
#: Slider groups: state key -> tab title (plain Unicode: a screen reader reads it as is).
GROUPS = {"a": "Table aᴷ", "q": "Queries qᵢ", "keys": "Keys kⱼ"}
#: The two bias settings (the state's "bias").
BIAS_MODES = ("shaw", "scalar")
#: The panels in reading order (two rows of three, then the offset map).
PANEL_ORDER = tuple(panels.EXPLORER_PANELS)


def value_labels(name: str, n: int, k: int) -> list[str]:
    """The slider labels of a group, as on the page before (``aᴷ₋₁``, ``q₁``, ``k₁``).

    >>> value_labels("a", 4, 1), value_labels("q", 2, 1)
    (['aᴷ₋₁', 'aᴷ₀', 'aᴷ₊₁'], ['q₁', 'q₂'])
    """
    if name == "a":
        return [f"aᴷ{numbers.offset_subscript(o)}" for o in range(-k, k + 1)]
    symbol = "q" if name == "q" else "k"
    return [f"{symbol}{numbers.subscript(i + 1)}" for i in range(n)]


def figure_json(figure: go.Figure) -> dict:
    """A figure as the JSON plotly.js reads (NumPy arrays become typed arrays, ``bdata``)."""
    return json.loads(figure.to_json())


def _group_note(name: str, state: dict, matrix: np.ndarray) -> str:
    """What the learner should know about a group whose values have no sliders or two coordinates."""
    k = state["k"]
    if state[name] is None and name == "a":
        return f"With k > {SLIDER_K} the {2 * k + 1} table entries are generated from the preset and seed."
    if state[name] is None:
        return (
            f"With more than {SLIDER_TOKENS} tokens the values are generated from the preset and seed "
            f"(range {explain.number(matrix[:, 0].min())} to {explain.number(matrix[:, 0].max())})."
        )
    if state["d"] == 2:
        second = ", ".join(explain.number(v) for v in matrix[:, 1])
        return f"The sliders set the first coordinate; the second comes from the seed: {second}"
    return ""


def _groups(state: dict, inputs: presets.ExplorerInputs) -> list[dict]:
    matrices = {"a": inputs.table, "q": inputs.queries, "keys": inputs.keys}
    return [
        {
            "name": name,
            "title": title,
            "labels": value_labels(name, state["n"], state["k"]) if state[name] is not None else [],
            "values": list(state[name]) if state[name] is not None else [],
            "note": _group_note(name, state, matrices[name]),
        }
        for name, title in GROUPS.items()
    ]


def _cell_decimals(figure: dict) -> int | None:
    """Decimals of the cell numbers the browser must print, or None when Plotly formats them."""
    trace = figure["data"][0]
    if "text" not in trace:
        return None
    template = trace.get("texttemplate", "")
    sample = next((cell for row in trace["text"] for cell in row if cell), "0")
    return len(sample.split(".")[1]) if "." in sample and template == "%{text}" else 0


def _hover_recipes(state: dict, inputs: presets.ExplorerInputs, result: AttentionResult, hovers: dict) -> dict:
    """What the browser needs to rebuild each panel's hover data: the fields behind the template.

    The score panels' template depends on the bias; both are sent so the toggle stays live.
    """
    if not hovers:
        return {"fields": {}, "scores": {}}
    scalar = state["bias"] == "scalar"
    toggled = hover.score_hover(inputs.queries, inputs.keys, inputs.table, result, scalar=not scalar)
    modes = {state["bias"]: hovers["scores"], BIAS_MODES[not scalar]: toggled}  # BIAS_MODES[True] == "scalar"
    return {
        "fields": {name: {"fields": [list(f) for f in h.fields], "text": h.as_text} for name, h in hovers.items()},
        "scores": {mode: {"template": h.template, "fields": [list(f) for f in h.fields]} for mode, h in modes.items()},
    }


def live_spec(
    state: dict,
    inputs: presets.ExplorerInputs,
    figures: dict[str, go.Figure],
    captions: dict[str, str],
    *,
    result: AttentionResult | None = None,
    hovers: dict[str, hover.Hover] | None = None,
    seq: int = 0,
) -> dict:
    """Everything the live panel draws, as JSON-ready data.

    Parameters
    ----------
    state : dict
        The Explorer state the figures were built from.
    inputs : ExplorerInputs
        Its arrays: queries and keys (n, d), table (2k+1, d).
    figures : dict of str to Figure
        The seven panels keyed as :data:`PANEL_ORDER`.
    captions : dict of str to str
        One "what to notice" sentence per panel.
    result, hovers : AttentionResult and dict, optional
        The result the figures show and their :func:`relpos.plots.panels.explorer_hovers`:
        with both, the browser keeps the hover arithmetic live too.
    seq : int
        The number of the last release the page has applied (the browser ignores
        figures older than its last release).

    Examples
    --------
    >>> import relpos
    >>> from relpos.state import schemas
    >>> state = schemas.EXPLORER.decode({}).state
    >>> inputs = schemas.explorer_inputs(state)
    >>> result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    >>> figures = panels.explorer_panels(inputs.queries, inputs.keys, inputs.table, result)
    >>> spec = live_spec(state, inputs, figures, {})
    >>> spec["n"], spec["k"], spec["live"], [group["labels"][0] for group in spec["groups"]]
    (4, 2, True, ['aᴷ₋₂', 'q₁', 'k₁'])
    """
    n, k, d = state["n"], state["k"], state["d"]
    encoded = {name: figure_json(figures[name]) for name in PANEL_ORDER}
    low, high = presets.VALUE_RANGE
    return {
        "n": n,
        "k": k,
        "d": d,
        "scalar": state["bias"] == "scalar",
        "live": n <= LIVE_MAX_N,
        "low": low,
        "high": high,
        "step": presets.VALUE_STEP,
        "queries": inputs.queries.tolist(),
        "keys": inputs.keys.tolist(),
        "table": inputs.table.tolist(),
        "groups": _groups(state, inputs),
        "toggle": explain.SCALAR_TOGGLE_LABEL,
        "figures": encoded,
        "decimals": {name: _cell_decimals(figure) for name, figure in encoded.items()},
        "titles": {name: panels.plain_title(name) for name in PANEL_ORDER},
        # the bias panel's title follows the query-independent toggle while it is live
        "bias_titles": {mode: panels.explorer_titles(d, scalar=mode == "scalar")["bias"] for mode in BIAS_MODES},
        "captions": {name: captions.get(name, "") for name in PANEL_ORDER},
        "hover": _hover_recipes(state, inputs, result, hovers) if result is not None and hovers else {},
        "seq": seq,
    }
