"""The Python side of the Explorer panel: its spec, its checked release, its component."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

import relpos
from relpos.plots import panels, style
from relpos.text import explain
from relpos.topics.explorer import panel_spec
from relpos.topics.explorer import schema as explorer_schema
from relpos.topics.explorer.panel_values import apply_panel_values
from tests.support.apptest import ROOT, open_app, panel_release, panel_skeleton, panel_specs, panel_z, texts

sys.path.insert(0, str(ROOT / "bench"))
import spec_size

from tests.support import oracle


def spec_for(query: dict[str, str]) -> tuple[dict, dict]:
    """The state of a link's query and the spec the page builds for it (after release 3)."""
    return explorer_schema.EXPLORER.decode(query).state, spec_size.page_spec(query, seq=3)[0]


def without_path(shape: dict) -> dict:
    return {key: value for key, value in shape.items() if key != "path"}


class TestPanelSpec:
    def test_is_json_and_carries_figure_skeletons_without_cells(self):
        _, spec = spec_for({})
        assert json.loads(json.dumps(spec)) == spec  # what Streamlit sends is what was built
        assert list(spec["figures"]) == list(panels.EXPLORER_PANELS)
        example = relpos.worked_example()
        built = oracle.explorer_panels(
            example.queries, example.keys, example.table, example.attention(), height=panels.panel_height(4)
        )
        for name in spec["figures"]:
            figure, full = panel_skeleton(spec, name), oracle.figure_json(built[name])
            assert not set(panel_spec.CELL_FIELDS) & set(figure["data"][0]), name  # the browser computes the cells
            shapes = full["layout"].get("shapes", [])
            assert figure["layout"].get("shapes", []) == [without_path(shape) for shape in shapes], name
            assert all(shape["path"].startswith("M 3.5,0.5 L 3.5,1.5") for shape in shapes[:1])  # k = 2: outline
            sent = {**figure, "layout": {**figure["layout"], "shapes": shapes}} if shapes else figure
            assert sent == panel_spec.skeleton(full), name  # everything else exactly as Python builds it
            assert set(panel_spec.CELL_FIELDS) & set(full["data"][0]), name  # (which did have cells)
        scores = panel_skeleton(spec, "scores")["data"][0]
        result = example.attention()
        limit = np.abs(np.stack([result.content, result.bias, result.scores])).max()
        assert scores["zmax"] == pytest.approx(limit) and scores["zmin"] == pytest.approx(-limit)  # Python's fit
        assert "q<sub>%{y}</sub>·k<sub>%{x}</sub>" in scores["hovertemplate"] and scores["texttemplate"] == "%{text}"
        assert spec["offsets"] == {"shift": 0, "labels": True, "hover": "text"}
        assert spec["origin"] == 1  # the browser draws the outline paths from n, k and this
        assert len(spec["figures"]["bias"]["layout"]["shapes"]) == 2
        assert {"xaxis", "yaxis", "margin"} <= set(spec["layout"]) and "xaxis" not in spec["figures"]["bias"]["layout"]
        assert spec["seq"] == 3 and spec["drag_repaint"] and not spec["scalar"]

    def test_inputs_are_the_arrays_the_core_used(self):
        state, spec = spec_for({"d": "2", "n": "5", "preset": "random", "seed": "4"})
        inputs = explorer_schema.explorer_inputs(state)
        np.testing.assert_array_equal(spec["queries"], inputs.queries)
        np.testing.assert_array_equal(spec["keys"], inputs.keys)
        np.testing.assert_array_equal(spec["table"], inputs.table)
        assert [g["values"] for g in spec["groups"]] == [state["a"], state["q"], state["keys"]]
        assert all(g["note"].startswith("The sliders set the first coordinate") for g in spec["groups"])
        assert spec["figures"]["content"]["layout"]["title"]["text"].endswith("/√2")

    @pytest.mark.parametrize(("n", "decimals"), [(4, 2), (10, 1), (13, None)])
    def test_cell_decimals_follow_what_python_prints(self, n, decimals):
        _, spec = spec_for({"n": str(n), "k": "2", "preset": "random"})
        assert spec["decimals"]["scores"] == decimals
        assert spec["decimals"]["weights"] == (2 if decimals else None)

    def test_long_sequences_have_notes_instead_of_sliders_and_repaint_on_release(self):
        _, spec = spec_for({"n": "96", "k": "20", "preset": "random"})
        assert not spec["drag_repaint"]
        assert [g["labels"] for g in spec["groups"]] == [[], [], []]
        assert "With k > 16 the 41 table entries are generated" in spec["groups"][0]["note"]
        assert "With more than 16 tokens" in spec["groups"][1]["note"]

    def test_bias_titles_for_the_live_toggle(self):
        _, spec = spec_for({"bias": "scalar"})
        assert spec["scalar"]
        assert spec["bias_titles"]["scalar"] == spec["figures"]["bias"]["layout"]["title"]["text"]
        assert spec["bias_titles"]["shaw"] == panels.EXPLORER_PANELS["bias"]


RELEASE_QUERIES = [
    {},
    {"n": "2", "k": "1"},
    {"n": "3", "k": "0"},
    {"bias": "scalar"},
    {"n": "8", "d": "2", "preset": "random", "seed": "4"},
    {"n": "12", "k": "3", "preset": "random"},
    {"n": "13", "bias": "scalar", "preset": "random"},
    {"n": "16", "k": "0", "preset": "random"},
    {"n": "24", "d": "2", "preset": "random"},
    {"n": "64", "k": "5", "preset": "random"},
    {"n": "96", "k": "20", "preset": "random", "bias": "scalar"},
    {"n": "128", "k": "3", "preset": "random"},
    {"presenter": "1"},
    {"presenter": "1", "n": "8", "bias": "scalar", "d": "2"},
]


def _query_id(query: dict) -> str:
    return "&".join(f"{key}={value}" for key, value in query.items()) or "default"


@pytest.mark.parametrize("query", RELEASE_QUERIES, ids=_query_id)
def test_a_release_builds_the_same_spec_without_building_figures(query):
    """release_spec (the page's path: skeletons straight from the specs, hover recipes, cached
    offset map) sends exactly what spec_from_figures makes of the whole figures, key for key."""
    state, whole = spec_for(query)
    inputs = explorer_schema.explorer_inputs(state)
    if state["bias"] == "scalar":
        result = relpos.scalar_bias_attention(inputs.queries, inputs.keys, inputs.table[:, 0])
    else:
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    captions = explain.explorer_captions(result, scalar=state["bias"] == "scalar")
    released = panel_spec.release_spec(state, inputs, result, captions, seq=3)
    assert json.dumps(released, sort_keys=True) == json.dumps(whole, sort_keys=True)


def _font_sizes(part, parent: str = ""):
    """Every font size in a spec's figures (fonts of titles, ticks, cells, colour bars)."""
    if isinstance(part, dict):
        for key, value in part.items():
            if key == "size" and parent.endswith("font"):
                yield value
            else:
                yield from _font_sizes(value, key)
    elif isinstance(part, list):
        for value in part:
            yield from _font_sizes(value, parent)


class TestPresenterSpec:
    """``presenter=1``: the projector's layout (style.PRESENTER_PANEL) for every panel."""

    def test_scores_and_weights_first_and_no_figure_text_below_20_px(self):
        _, spec = spec_for({"presenter": "1"})
        assert spec["presenter"] and list(spec["figures"]) == list(panel_spec.PRESENTER_ORDER)
        sizes = list(_font_sizes([spec["layout"], spec["trace"], spec["figures"]]))
        assert len(sizes) >= 10 and min(sizes) >= style.PRESENTER_MIN_FONT, sorted(sizes)
        bars = [figure["data"][0].get("colorbar", spec["trace"].get("colorbar")) for figure in spec["figures"].values()]
        assert all(bar.get("orientation", "v") == "v" for bar in bars), "colour bars beside the panels: height is short"
        titles = [figure["layout"]["title"]["text"] for figure in spec["figures"].values()] + list(
            spec["bias_titles"].values()
        )
        scripts = [title for title in titles if "<sub>" in title or "<sup>" in title]
        assert scripts and all('<span style="font-size:22px">' in title for title in scripts), scripts

    def test_cell_numbers_only_where_20_px_numbers_fit(self):
        _, small = spec_for({"presenter": "1", "n": "5"})
        _, large = spec_for({"presenter": "1", "n": "6"})
        assert set(small["decimals"].values()) == {0, 2} and small["offsets"]["labels"]
        assert set(large["decimals"].values()) == {None} and not large["offsets"]["labels"]
        assert all("texttemplate" not in figure["data"][0] for figure in large["figures"].values())

    def test_the_screen_layout_is_unchanged_without_it(self):
        _, spec = spec_for({})
        assert not spec["presenter"] and list(spec["figures"]) == list(panel_spec.PANEL_ORDER)
        assert spec["layout"]["font"] == {"size": style.FONT_SIZE}


def test_each_release_gets_its_own_offset_map_skeleton():
    """The offset map's skeleton is cached by size: one spec's copy changed must not reach the next."""
    state = explorer_schema.EXPLORER.decode({}).state
    inputs = explorer_schema.explorer_inputs(state)
    result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    first = panel_spec.release_spec(state, inputs, result, {})
    first["figures"]["offsets"]["layout"]["title"]["text"] = "changed by one session"
    assert panel_spec.release_spec(state, inputs, result, {})["figures"]["offsets"]["layout"]["title"]["text"] != (
        "changed by one session"
    )


def test_hover_recipes_carry_no_cells():
    example = relpos.worked_example()
    result = example.attention()
    args = (example.queries, example.keys, example.table, result)
    full, recipes = panel_spec.explorer_hovers(*args, cells=True), panel_spec.explorer_hovers(*args)
    assert all(recipe.customdata is None for recipe in recipes.values())
    assert {name: (h.template, h.fields, h.as_text) for name, h in full.items()} == {
        name: (h.template, h.fields, h.as_text) for name, h in recipes.items()
    }


#: Upper bounds (KiB) of one release's spec, a little above what bench/spec_size.py
#: measures (12.4, 14.3, 13.9, 14.5, 12.0, 17.6 KiB); the whole figures were 18.5,
#: 50, 79, 979, 562 and 8609 KiB.
SPEC_KIB = {2: 14, 8: 16, 16: 16, 64: 16, 128: 14, 512: 20}


@pytest.mark.parametrize("n", list(SPEC_KIB))
def test_a_release_sends_a_small_spec_for_any_n(n):
    whole, compact = spec_size.spec_bytes(n)
    assert compact <= SPEC_KIB[n] * 1024, f"n = {n}: {compact / 1024:.1f} KiB"
    spec, _ = spec_size.page_spec({"n": str(n)})
    assert not any(set(panel_spec.CELL_FIELDS) & set(figure["data"][0]) for figure in spec["figures"].values())
    assert whole > compact  # the bench's "before" does carry the cells


STATE = {"a": [0.1, 0.2, 0.3], "q": [1.0, 0.5], "keys": [0.9, 0.7], "bias": "shaw"}


class TestApplyPanelValues:
    STATE = STATE  # never mutated: apply_panel_values returns a new dict

    def test_values_are_clamped_and_put_on_the_slider_grid(self):
        new, problems = apply_panel_values(self.STATE, {"a": [9, -0.0, 0.123456], "q": [-3, 0.5], "bias": "scalar"})
        assert new["a"] == [2.0, 0.0, 0.12] and new["q"] == [-2.0, 0.5] and new["bias"] == "scalar"
        assert math.copysign(1, new["a"][1]) == 1 and problems == []
        assert self.STATE["a"] == [0.1, 0.2, 0.3]  # a new dict; the old state is untouched

    @pytest.mark.parametrize(
        "message",
        [
            {"a": [0.1, float("nan"), 0.3]},
            {"a": [0.1, float("inf"), 0.3]},
            {"a": [0.1, "0.2", 0.3]},
            {"a": [0.1, True, 0.3]},
            {"a": [0.1, 0.2]},
            {"a": "0.1,0.2,0.3"},
            {"bias": "<script>"},
        ],
    )
    def test_hostile_messages_change_nothing(self, message):
        new, problems = apply_panel_values(self.STATE, message)
        assert new == self.STATE and len(problems) == 1

    def test_lists_without_sliders_stay_generated(self):
        new, problems = apply_panel_values(dict(self.STATE, q=None), {"q": [1.0, 2.0]})
        assert new["q"] is None and problems == ["q: expected no values here; the values were kept."]

    def test_not_a_dict(self):
        assert apply_panel_values(self.STATE, [1, 2])[1] == ["the Explorer panel sent no values; the values were kept."]


class TestComponentOnThePage:
    def test_one_live_panel_served_from_the_package(self):
        from relpos.ui import components, explorer_panel

        at = open_app("explorer")
        (element,) = at.get("bidi_component")
        assert element.proto.component_name == explorer_panel.NAME == "relpos.explorer_panel"
        assert (
            element.proto.js_source_path == "explorer_panel.js"
            and element.proto.css_source_path == "explorer_panel.css"
        )
        assert not at.get("plotly_chart")  # the panels are drawn by the component only
        assert (explorer_panel.ASSETS / "attention.js").is_file()
        assert components.plotly_chunk().startswith("static/js/PlotlyChart.")  # Streamlit's own plotly.js

    def test_a_forged_release_is_reported_and_changes_nothing(self):
        at = open_app("explorer")
        before = panel_z(at, "combined score")
        panel_release(at, a={1: float("nan")})
        assert not at.exception
        assert "Some values from the sliders could not be used: a: expected 5 numbers" in texts(at)
        np.testing.assert_array_equal(panel_z(at, "combined score"), before)
        assert at.query_params["a"] == "-0.3,0.4,0.1,-0.2,-0.5"

    def test_release_seq_comes_back_in_the_spec(self):
        at = open_app("explorer")
        panel_release(at, a={0: 1.0})
        (spec,) = panel_specs(at)
        assert spec["seq"] == 1 and spec["groups"][0]["values"][0] == 1.0


def test_with_k_0_the_weight_change_is_not_painted_from_rounding_noise():
    """With k = 0 every row's scores shift by one number: the weight change is zero, computed
    as ~1e-17. A colour range fitted to that painted the noise dark red and blue under cells
    that read 0.00 (seen in a screenshot); the range stays [-1, 1]."""
    state = explorer_schema.EXPLORER.decode({"k": "0"}).state
    inputs = explorer_schema.explorer_inputs(state)
    result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    change = result.weights - result.content_weights
    assert 0 < abs(change).max() < 1e-15  # the noise is there
    trace = panel_spec.release_spec(state, inputs, result, {})["figures"]["difference"]["data"][0]
    assert (trace["zmin"], trace["zmax"]) == (-1.0, 1.0)
