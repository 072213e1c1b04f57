"""What the Explorer panel needs in the browser: inputs, sliders and seven figure skeletons.

Python builds what it sends (:func:`release_spec`) and nothing more: each figure's layout,
colour scale, colour range (fitted here), axes and hover and cell templates, but not its
cells: no ``z``, cell ``text`` or ``customdata``, which grow with n², nor the paths of the
clipping window's outline (2n corners), and what all seven share once. A release's spec is
12–18 KiB for any n (``bench/spec_size.py`` prints it beside the whole figures). The
browser fills the cells itself, on the first load, on every release and while a slider
moves: its mirror of :mod:`relpos.core` (``relpos/ui/explorer_panel_assets/attention.js``) computes
the numbers from the inputs sent here, the cell text with the decimals and the hover data
from the recipes sent here, the offset map's cells from
:func:`relpos.plots.offset_map.panel_cells` and the outline from n and k.
tests/explorer/test_explorer_panel.py checks that what it draws equals the whole figures of
the tests' oracle (tests/support/oracle.py), array for array. No Streamlit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from relpos.core.attention import AttentionResult
from relpos.plots import offset_map, panels, style
from relpos.plots.heatmaps import (
    PANEL_ORIGIN,
    WEIGHT_RANGE,
    cell_decimals,
    diverging_range,
    heatmap_spec,
    outline_shapes,
    symmetric_range,
)
from relpos.plots.offset_map import offset_map_figure
from relpos.text import explain, hover, numbers
from relpos.topics.explorer import presets
from relpos.topics.explorer.schema import SLIDER_K, SLIDER_TOKENS

__all__ = [
    "CELL_FIELDS",
    "DRAG_REPAINT_MAX_N",
    "GROUPS",
    "PANEL_ORDER",
    "PRESENTER_ORDER",
    "assemble",
    "explorer_heatmaps",
    "explorer_hovers",
    "explorer_skeletons",
    "figure_decimals",
    "hover_recipes",
    "offset_map_panel",
    "outline_free",
    "panel_layout",
    "release_spec",
    "skeleton",
    "value_labels",
]

#: Up to this many tokens the browser recomputes the panels on every input event;
#: above it the panels repaint on release.
DRAG_REPAINT_MAX_N = 64
#: Slider groups: state key -> tab title (plain Unicode: a screen reader reads it as is).
GROUPS = {"a": "Table aᴷ", "q": "Queries qᵢ", "keys": "Keys kⱼ"}
#: The two bias settings (the state's "bias").
BIAS_MODES = ("shaw", "scalar")
#: The panels in reading order (two rows of three, then the offset map).
PANEL_ORDER = tuple(panels.EXPLORER_PANELS)
#: Presenter mode's order (two panels a row): the combined scores and weights side by side
#: first, so a projector shows the scores and their softmax on one screen.
PRESENTER_ORDER = ("scores", "weights", "content", "bias", "content_weights", "difference", "offsets")
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


def skeleton(figure: dict) -> dict:
    """A figure's JSON without the cells of its heatmap (the first trace): everything but :data:`CELL_FIELDS`.

    >>> skeleton({"data": [{"type": "heatmap", "z": [[1]], "zmax": 1}], "layout": {}})
    {'data': [{'type': 'heatmap', 'zmax': 1}], 'layout': {}}
    """
    first, *others = figure["data"]
    cells_free = {key: value for key, value in first.items() if key not in CELL_FIELDS}
    return {**figure, "data": [cells_free, *others]}


def outline_free(figure: dict, n: int, k: int) -> dict:
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


def figure_decimals(figure: go.Figure) -> int | None:
    """Decimals of the cell numbers the browser must print, or None when Plotly formats them."""
    trace = figure.data[0]
    if trace.text is None:
        return None
    sample = next((cell for row in trace.text for cell in row if cell), "0")
    return len(sample.split(".")[1]) if "." in sample and trace.texttemplate == "%{text}" else 0


def hover_recipes(state: dict, inputs: presets.ExplorerInputs, result: AttentionResult, hovers: dict) -> dict:
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


def panel_layout(state: dict) -> style.PanelLayout:
    """How a state's panels are laid out: for a projector in presenter mode, else for a screen."""
    return style.PRESENTER_PANEL if state.get("presenter") else style.PANEL


def explorer_heatmaps(
    result: AttentionResult,
    d: int,
    *,
    scalar: bool,
    height: int,
    hovers: dict,
    layout: style.PanelLayout = style.PANEL,
) -> dict:
    """What each of the six data panels is drawn from: :func:`relpos.plots.heatmaps.heatmap_spec`'s
    arguments, with the matrices as computed (no cell is sent, in any dtype)."""
    n_q, n_k = result.scores.shape
    detail = panels.panel_detail(max(n_q, n_k), layout)
    matrices = panels.panel_matrices(result)
    titles = panels.explorer_titles(d, scalar=scalar)
    scores_look, weights_look = (
        panels.panel_look(detail, height, detail["score_format"], layout),
        panels.panel_look(detail, height, ".2f", layout),
    )
    score_range = diverging_range(symmetric_range(result.content, result.bias, result.scores))
    clipped = result.k < max(n_q, n_k) - 1
    looks = {
        "content": (score_range, scores_look, None),
        "bias": (score_range, scores_look, result.k if clipped else None),
        "scores": (score_range, scores_look, None),
        "content_weights": (WEIGHT_RANGE, weights_look, None),
        "weights": (WEIGHT_RANGE, weights_look, None),
        "difference": (diverging_range(symmetric_range(matrices["difference"])), weights_look, None),
    }
    return {
        name: {
            "matrix": matrices[name],
            "title": titles[name],
            "colours": colours,
            "look": look,
            "hover": hovers.get(name),
            "outline_k": outline_k,
        }
        for name, (colours, look, outline_k) in looks.items()
    }


def explorer_skeletons(result: AttentionResult, d: int, **options) -> dict:
    """The six data panels as skeletons: plain dicts without the per-cell arrays (``z``, cell
    ``text``, ``customdata``), which are never computed: the browser fills them.

    Returns a dict of panel key to ``(spec, decimals)``: the figure dict (what
    :func:`skeleton` keeps of the figure's JSON) and the decimals of
    the cell numbers the browser prints (None: none, or Plotly formats z). The `options`
    are :func:`explorer_heatmaps`'s; its `hovers` may be recipes (``explorer_hovers(..., cells=False)``).
    """
    specs = explorer_heatmaps(result, d, **options)
    return {
        name: (heatmap_spec(**args, cells=False), cell_decimals(args["matrix"].size, args["look"]))
        for name, args in specs.items()
    }


def explorer_hovers(
    queries, keys, table, result: AttentionResult, *, scalar: bool = False, cells: bool = False
) -> dict[str, hover.Hover]:
    """The hover arithmetic of the six data panels, keyed by panel (empty above ``panels.HOVER_MAX_N``).

    The three score panels share one hover: each cell's content term, position term and sum.
    By default only the recipes (templates and fields): the browser fills ``customdata``;
    ``cells=True`` computes it too (the tests' oracle draws whole figures with it).

    >>> import relpos
    >>> example = relpos.worked_example()
    >>> hovers = explorer_hovers(example.queries, example.keys, example.table, example.attention())
    >>> hovers["content"] is hovers["scores"], hovers["weights"].fields[:2]
    (True, (('logit', '.2f'), ('exp', '.3f')))
    """
    if not panels.panel_detail(max(result.scores.shape))["hover"]:
        return {}
    score_hover = hover.score_hover(queries, keys, table, result, scalar=scalar, cells=cells)
    content_hover, weight_hover, change_hover = hover.weight_hovers(result, cells=cells)
    return {
        "content": score_hover,
        "bias": score_hover,
        "scores": score_hover,
        "content_weights": content_hover,
        "weights": weight_hover,
        "difference": change_hover,
    }


def offset_map_panel(
    n_q: int, n_k: int, k: int, height: int, layout: style.PanelLayout = style.PANEL, *, scalar: bool = False
) -> go.Figure:
    """The Explorer's offset-map panel (it depends only on the sizes and the bias mode, so
    pages may cache it); `scalar`: its hover names the query-independent table b."""
    return offset_map_figure(
        n_q,
        n_k,
        k,
        title=f"{panels.EXPLORER_PANELS['offsets']} (k = {k})",
        outline=True,
        text_size=layout.text.cell,
        panel_height=height,
        panel_layout=layout,
        cell_labels=panels.cell_numbers(max(n_q, n_k), layout),
        validate=False,
        table="b" if scalar else "a<sup>K</sup>",
    )


def release_spec(
    state: dict, inputs: presets.ExplorerInputs, result: AttentionResult, captions: dict[str, str], *, seq: int = 0
) -> dict:
    """The Explorer panel's spec for `state`: inputs, slider groups, the seven figure skeletons and
    the recipes for their cells, built without building the figures.

    The skeletons come straight from the panels' specs (:func:`explorer_skeletons`), the
    hovers as recipes, the offset map's skeleton from a cache by size. No per-cell number,
    string or Plotly object is made, which is most of a release's server time.
    tests/explorer/test_panel_spec.py checks that this equals, key for key, what the tests'
    oracle (``tests/support/oracle.py``, ``spec_from_figures``) makes by stripping the whole figures
    Python would draw.
    """
    n, k, d = state["n"], state["k"], state["d"]
    scalar = state["bias"] == "scalar"
    layout = panel_layout(state)
    height = panels.panel_height(n, layout)
    hovers = explorer_hovers(inputs.queries, inputs.keys, inputs.table, result, scalar=scalar)
    built = explorer_skeletons(result, d, scalar=scalar, height=height, hovers=hovers, layout=layout)
    skeletons = {name: outline_free(_json_ready(spec), n, k) for name, (spec, _) in built.items()}
    skeletons["offsets"], offsets_decimals = json.loads(_offsets_skeleton(n, k, height, layout, scalar))
    decimals = {name: built[name][1] if name in built else offsets_decimals for name in PANEL_ORDER}
    recipes = hover_recipes(state, inputs, result, hovers) if hovers else {}
    return assemble(state, inputs, {name: skeletons[name] for name in PANEL_ORDER}, decimals, captions, recipes, seq)


def _json_ready(spec: dict) -> dict:
    """A figure dict as its JSON reads back (tuples become lists, NumPy numbers plain ones)."""
    return json.loads(pio.json.to_json_plotly(spec))


@lru_cache(maxsize=64)
def _offsets_skeleton(n: int, k: int, height: int, layout: style.PanelLayout, scalar: bool = False) -> str:
    """The offset map's skeleton and cell decimals depend only on the sizes and the layout
    (JSON text: every caller parses its own copy, which it may change)."""
    figure = offset_map_panel(n, n, k, height, layout, scalar=scalar)
    return json.dumps([outline_free(_json_ready(skeleton(figure.to_plotly_json())), n, k), figure_decimals(figure)])


def assemble(state, inputs, skeletons: dict, decimals: dict, captions: dict, recipes: dict, seq: int) -> dict:
    """The spec's JSON-ready dict from the figures' skeletons and the rest of the page's numbers."""
    n, k, d = state["n"], state["k"], state["d"]
    presenter = bool(state.get("presenter"))
    panel = panel_layout(state)
    order = PRESENTER_ORDER if presenter else PANEL_ORDER
    layout, trace, skeletons = _shared({name: skeletons[name] for name in order})
    low, high = presets.VALUE_RANGE
    return {
        "n": n,
        "k": k,
        "d": d,
        "scalar": state["bias"] == "scalar",
        "drag_repaint": n <= DRAG_REPAINT_MAX_N,
        "presenter": presenter,  # the panel's projector layout (two panels a row, larger text)
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
        "offsets": offset_map.panel_cells(n, n, k, labelled=panels.cell_numbers(n, panel)),
        "titles": {name: panels.plain_title(name, d, scalar=state["bias"] == "scalar") for name in PANEL_ORDER},
        # the bias panel's title follows the query-independent toggle while it is live
        "bias_titles": {
            mode: panel.title(panels.explorer_titles(d, scalar=mode == "scalar")["bias"]) for mode in BIAS_MODES
        },
        "captions": {name: captions.get(name, "") for name in PANEL_ORDER},
        "hover": recipes,
        "seq": seq,
    }
