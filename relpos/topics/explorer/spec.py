"""What the Explorer's live panel needs in the browser: inputs, sliders and seven figure skeletons.

Python stays the reference: it builds the figures (:func:`relpos.plots.panels.explorer_panels`)
and sends each one's layout, colour scale, colour range (fitted here), axes and hover and
cell templates, but not its cells: no ``z``, cell ``text`` or ``customdata``, which grow
with n², nor the paths of the clipping window's outline (2n corners), and what all seven
share once. A release's spec is 12–18 KiB for any n; the whole figures were 50 KiB at
n = 8, 979 KiB at n = 64 and 8.6 MiB at n = 512 (``bench/spec_size.py``). The browser fills
the cells itself, on the first load and on every release as while a slider moves: its
mirror of :mod:`relpos.core` (``relpos/ui/live_assets/attention.js``) computes the numbers
from the inputs sent here, the cell text with the decimals and the hover data from the
recipes sent here, the offset map's cells from :func:`relpos.plots.offset_map.panel_cells`
and the outline from n and k. tests/explorer/test_live_panel.py checks that what it draws equals
what the Python builders make, array for array. No Streamlit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from relpos.core.attention import AttentionResult
from relpos.plots import offset_map, panels
from relpos.plots.heatmaps import PANEL_ORIGIN, outline_shapes
from relpos.text import explain, hover, numbers
from relpos.topics.explorer import presets
from relpos.topics.explorer.schema import SLIDER_K, SLIDER_TOKENS

__all__ = [
    "CELL_FIELDS",
    "GROUPS",
    "LIVE_MAX_N",
    "PANEL_ORDER",
    "figure_json",
    "live_spec",
    "release_spec",
    "skeleton",
    "value_labels",
]

#: Up to this many tokens the browser recomputes the panels on every input event;
#: above it the panels repaint on release.
LIVE_MAX_N = 64
#: Slider groups: state key -> tab title (plain Unicode: a screen reader reads it as is).
GROUPS = {"a": "Table aᴷ", "q": "Queries qᵢ", "keys": "Keys kⱼ"}
#: The two bias settings (the state's "bias").
BIAS_MODES = ("shaw", "scalar")
#: The panels in reading order (two rows of three, then the offset map).
PANEL_ORDER = tuple(panels.EXPLORER_PANELS)
#: The per-cell arrays of a panel's heatmap trace: the browser computes them, Python does not send them.
CELL_FIELDS = ("z", "text", "customdata")


def value_labels(name: str, n: int, k: int) -> list[str]:
    """The slider labels of a group, as on the page before (``aᴷ₋₁``, ``q₁``, ``k₁``).

    >>> value_labels("a", 4, 1), value_labels("q", 2, 1)
    (['aᴷ₋₁', 'aᴷ₀', 'aᴷ₊₁'], ['q₁', 'q₂'])
    """
    if name == "a":
        return [f"aᴷ{numbers.offset_subscript(o)}" for o in range(-k, k + 1)]
    symbol = "q" if name == "q" else "k"
    return [f"{symbol}{numbers.subscript(i + 1)}" for i in range(n)]


def figure_json(figure: go.Figure, *, cells: bool = True) -> dict:
    """A figure as the JSON plotly.js reads (NumPy arrays become typed arrays, ``bdata``).

    With ``cells=False`` its :func:`skeleton`, left out before encoding (at n = 512 the
    cells are megabytes of JSON that would only be thrown away).
    """
    if cells:
        return json.loads(figure.to_json())
    return json.loads(pio.json.to_json_plotly(skeleton(figure.to_plotly_json())))


def skeleton(figure: dict) -> dict:
    """A figure's JSON without the cells of its heatmap (the first trace): everything but :data:`CELL_FIELDS`.

    >>> skeleton({"data": [{"type": "heatmap", "z": [[1]], "zmax": 1}], "layout": {}})
    {'data': [{'type': 'heatmap', 'zmax': 1}], 'layout': {}}
    """
    first, *others = figure["data"]
    cells_free = {key: value for key, value in first.items() if key not in CELL_FIELDS}
    return {**figure, "data": [cells_free, *others]}


def _outline_free(figure: dict, n: int, k: int) -> dict:
    """A skeleton without the paths of its clipping-window outline, when they are the ones the
    browser draws from n and k (:func:`relpos.plots.heatmaps.outline_shapes` of an n × n
    panel): two staircases of ~2n corners each, 28 KiB per figure at n = 512."""
    shapes = figure["layout"].get("shapes")
    expected = [shape["path"] for shape in outline_shapes(n, n, k, origin=PANEL_ORIGIN)]
    if not shapes or [shape.get("path") for shape in shapes] != expected:
        return figure
    pathless = [{key: value for key, value in shape.items() if key != "path"} for shape in shapes]
    return {**figure, "layout": {**figure["layout"], "shapes": pathless}}


def _shared(figures: dict[str, dict]) -> tuple[dict, dict, dict[str, dict]]:
    """Layout and first-trace properties that every figure has with the same value, sent once.

    Returns the shared layout, the shared trace properties and the figures without them;
    the browser draws ``{**layout, **figure layout}`` and ``{**trace, **figure trace}``
    (about 3.7 KiB a spec: fonts, margins, axes, cell gaps).
    """
    first = next(iter(figures.values()))
    missing = object()

    def common(part: Callable[[dict], dict]) -> dict:
        return {
            key: value
            for key, value in part(first).items()
            if all(part(f).get(key, missing) == value for f in figures.values())
        }

    layout, trace = common(lambda f: f["layout"]), common(lambda f: f["data"][0])
    rest = {
        name: {
            **figure,
            "data": [{k: v for k, v in figure["data"][0].items() if k not in trace}, *figure["data"][1:]],
            "layout": {k: v for k, v in figure["layout"].items() if k not in layout},
        }
        for name, figure in figures.items()
    }
    return layout, trace, rest


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


def _cell_decimals(figure: go.Figure) -> int | None:
    """Decimals of the cell numbers the browser must print, or None when Plotly formats them."""
    trace = figure.data[0]
    if trace.text is None:
        return None
    sample = next((cell for row in trace.text for cell in row if cell), "0")
    return len(sample.split(".")[1]) if "." in sample and trace.texttemplate == "%{text}" else 0


def _hover_recipes(state: dict, inputs: presets.ExplorerInputs, result: AttentionResult, hovers: dict) -> dict:
    """What the browser needs to rebuild each panel's hover data: the fields behind the template.

    The score panels' template depends on the bias; both are sent so the toggle stays live.
    """
    if not hovers:
        return {"fields": {}, "scores": {}}
    scalar = state["bias"] == "scalar"
    # only its template and fields are sent: no per-cell strings
    toggled = hover.score_hover(inputs.queries, inputs.keys, inputs.table, result, scalar=not scalar, cells=False)
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
        The seven panels keyed as :data:`PANEL_ORDER`; the spec carries their skeletons
        (:func:`skeleton`: no cells), with the recipes the browser fills the cells from
        (``decimals``, ``hover``, ``offsets``); the clipping window's dashed outline
        comes without its path, which the browser draws from n, k and ``origin``.
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

    >>> state = explorer_schema.EXPLORER.decode({}).state
    >>> inputs = explorer_schema.explorer_inputs(state)
    >>> result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    >>> figures = panels.explorer_panels(inputs.queries, inputs.keys, inputs.table, result)
    >>> spec = live_spec(state, inputs, figures, {})
    >>> spec["n"], spec["k"], spec["live"], [group["labels"][0] for group in spec["groups"]]
    (4, 2, True, ['aᴷ₋₂', 'q₁', 'k₁'])
    """
    n, k = state["n"], state["k"]
    skeletons = {name: _outline_free(figure_json(figures[name], cells=False), n, k) for name in PANEL_ORDER}
    decimals = {name: _cell_decimals(figures[name]) for name in PANEL_ORDER}
    recipes = _hover_recipes(state, inputs, result, hovers) if result is not None and hovers else {}
    return _spec(state, inputs, skeletons, decimals, captions, recipes, seq)


def release_spec(
    state: dict, inputs: presets.ExplorerInputs, result: AttentionResult, captions: dict[str, str], *, seq: int = 0
) -> dict:
    """:func:`live_spec` of the figures :func:`relpos.plots.panels.explorer_panels` would build,
    without building them: the skeletons come straight from the panels' specs
    (:func:`relpos.plots.panels.explorer_skeletons`), the hovers as recipes, the offset
    map's skeleton from a cache by size. No per-cell number, string or Plotly object is
    made, which is most of a release's server time; tests/explorer/test_live_spec.py checks that
    both give the same spec.
    """
    n, k, d = state["n"], state["k"], state["d"]
    scalar = state["bias"] == "scalar"
    height = panels.panel_height(n)
    hovers = panels.explorer_hovers(inputs.queries, inputs.keys, inputs.table, result, scalar=scalar, cells=False)
    built = panels.explorer_skeletons(result, d, scalar=scalar, height=height, hovers=hovers)
    skeletons = {name: _outline_free(_json_ready(spec), n, k) for name, (spec, _) in built.items()}
    skeletons["offsets"], offsets_decimals = json.loads(_offsets_skeleton(n, k, height))
    decimals = {name: built[name][1] if name in built else offsets_decimals for name in PANEL_ORDER}
    recipes = _hover_recipes(state, inputs, result, hovers) if hovers else {}
    return _spec(state, inputs, {name: skeletons[name] for name in PANEL_ORDER}, decimals, captions, recipes, seq)


def _json_ready(spec: dict) -> dict:
    """A figure dict as its JSON reads back (tuples become lists, NumPy numbers plain ones)."""
    return json.loads(pio.json.to_json_plotly(spec))


@lru_cache(maxsize=64)
def _offsets_skeleton(n: int, k: int, height: int) -> str:
    """The offset map's skeleton and cell decimals depend only on the sizes (JSON text:
    every caller parses its own copy, which it may change)."""
    figure = panels.offset_map(n, n, k, height)
    return json.dumps([_outline_free(figure_json(figure, cells=False), n, k), _cell_decimals(figure)])


def _spec(state, inputs, skeletons: dict, decimals: dict, captions: dict, recipes: dict, seq: int) -> dict:
    """The spec's JSON-ready dict from the figures' skeletons and the rest of the page's numbers."""
    n, k, d = state["n"], state["k"], state["d"]
    layout, trace, skeletons = _shared(skeletons)
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
        "figures": skeletons,
        "layout": layout,  # what every figure's layout has, and
        "trace": trace,  # every figure's heatmap trace, sent once
        "origin": PANEL_ORIGIN,  # cell (i, j) is drawn at x = j + origin, y = i + origin
        "decimals": decimals,
        "offsets": offset_map.panel_cells(n, n, k),
        "titles": {name: panels.plain_title(name, d, scalar=state["bias"] == "scalar") for name in PANEL_ORDER},
        # the bias panel's title follows the query-independent toggle while it is live
        "bias_titles": {mode: panels.explorer_titles(d, scalar=mode == "scalar")["bias"] for mode in BIAS_MODES},
        "captions": {name: captions.get(name, "") for name in PANEL_ORDER},
        "hover": recipes,
        "seq": seq,
    }
