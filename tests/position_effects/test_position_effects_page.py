"""The Position effects page (pages/position_effects.py), rendered headless with AppTest."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import relpos
from relpos.core import trained_presets
from relpos.state import export
from relpos.text import explain, numbers
from relpos.topics.position_effects import model as position_effects_model
from relpos.topics.position_effects import presets_view
from relpos.topics.position_effects import schema as position_effects_schema
from relpos.topics.position_effects.schema import POSITION_EFFECTS
from tests.support.apptest import heatmap_panels, open_app, panel_z, plotly_specs, texts

PANELS = ("content scores", "position biases", "content-only weights", "combined weights")


def position_effects_page(query: dict[str, str] | None = None):
    at = open_app("position_effects", query=query)
    assert not at.exception, at.exception
    return at


def expected(query: dict[str, str]):
    inputs = position_effects_schema.state_inputs(POSITION_EFFECTS.decode(query).state)
    return inputs, relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)


class TestDefaultView:
    def test_renders_four_panels_with_both_terms_scaled(self):
        at = position_effects_page()
        assert at.title[0].value.startswith("Position effects")
        assert len(plotly_specs(at)) == 4
        inputs, result = expected({})
        np.testing.assert_allclose(panel_z(at, "content scores"), inputs.queries @ inputs.keys.T / np.sqrt(8))
        np.testing.assert_allclose(panel_z(at, "position biases"), result.bias)
        np.testing.assert_allclose(panel_z(at, "combined weights"), result.weights)

    def test_every_panel_has_a_caption(self):
        captions = [caption.value for caption in position_effects_page().caption]
        assert any(c.startswith("Content depends on what the tokens are") for c in captions)
        assert any("changes down the diagonal" in c for c in captions)
        assert any(c.startswith("Softmax of the combined scores. Weight on offsets −2, −1:") for c in captions)

    def test_text_is_computed_from_the_numbers(self):
        at = position_effects_page()
        _, result = expected({})
        before = relpos.attention_distance(result.content_weights).mean()
        after = relpos.attention_distance(result.weights).mean()
        page = texts(at)
        assert f"{before:.2f} with content only, {after:.2f} with positions" in page
        share = relpos.weight_on_offsets(result.weights, (-2, -1)).mean()
        assert f"→ {share:.0%} on average" in page
        assert "anti-diagonal" not in page


class TestPresets:
    @pytest.mark.parametrize(("preset", "favoured"), [("back", (-2, -1)), ("forward", (1, 2)), ("local", (-1, 0, 1))])
    def test_presets_pull_weight_to_their_offsets(self, preset, favoured):
        at = position_effects_page()
        at.selectbox(key="position_effects.preset").select(preset).run()
        content_only = relpos.weight_on_offsets(panel_z(at, "content-only weights"), favoured).mean()
        combined = relpos.weight_on_offsets(panel_z(at, "combined weights"), favoured).mean()
        assert combined > content_only + 0.15
        assert at.query_params["preset"] == preset

    def test_back_and_forward_shift_the_average_offset(self):
        shifts = {}
        for preset in ("back", "forward"):
            at = position_effects_page({"preset": preset, "n": "10"})
            shifts[preset] = (
                relpos.mean_offset(panel_z(at, "combined weights")).mean()
                - relpos.mean_offset(panel_z(at, "content-only weights")).mean()
            )
        assert shifts["back"] < -0.1 and shifts["forward"] > 0.1  # back looks earlier, forward later

    def test_random_table_says_which_row_the_queries_prefer(self):
        """At seed 6 the shared direction makes all six queries favour offset −1: the page says so."""
        at = position_effects_page({"preset": "random", "seed": "6"})
        page = texts(at)
        assert "A random table has no preferred offset" not in page
        assert "all 6 queries score the row of offset −1 highest" in page


def _cells(at, prefix: str) -> list[list[str]]:
    """The numbers a panel prints in its cells, as printed."""
    (trace,) = [trace for title, trace in heatmap_panels(at).items() if title.startswith(prefix)]
    return trace["text"]


def _value(text: str) -> float:
    return float(text.replace("−", "-"))


def _decimals(text: str) -> set[int]:
    """The decimals of every number with a decimal point in `text`."""
    return {len(digits) for digits in re.findall(r"\d\.(\d+)", text)}


class TestCaptionsSpeakTheCellsPrecision:
    """A caption prints its numbers as the cells beside it do, and what it says holds at that
    precision: the largest is the largest printed, ties printed alike are named together."""

    @pytest.mark.parametrize(
        "query",
        [{}, {"n": "10"}, {"preset": "random", "seed": "6"}, {"preset": "local", "n": "12", "seed": "3"}, {"n": "2"}],
    )
    def test_caption_numbers_match_the_cells(self, query):
        at = position_effects_page(query)
        captions = [caption.value for caption in at.caption]
        (content,) = [c for c in captions if c.startswith("Content depends")]
        (bias,) = [c for c in captions if c.startswith(("Each diagonal", "Every ", "The bias is 0"))]
        (weights,) = [c for c in captions if c.startswith("Softmax of content alone")]
        scores, printed_weights = _cells(at, "content scores"), _cells(at, "content-only weights")
        (score_decimals,) = _decimals(" ".join(scores[0]))
        (weight_decimals,) = _decimals(" ".join(printed_weights[0]))
        assert _decimals(content) == {score_decimals}, (content, scores[0])
        assert _decimals(bias) <= {score_decimals}, bias
        assert _decimals(weights) == {weight_decimals}, (weights, printed_weights[0])

        largest = max(_value(v) for row in scores for v in row)
        tied = [(i + 1, j + 1) for i, row in enumerate(scores) for j, v in enumerate(row) if _value(v) == largest]
        if match := re.search(r"Largest: query (\d+) → key (\d+), (\S+)\.$", content):
            assert [(int(match[1]), int(match[2]))] == tied and _value(match[3]) == largest, (content, tied)
        else:
            assert f"Largest, {numbers.number(largest, score_decimals)}, in {len(tied)} tied cells" in content

        if match := re.search(r"along offset (\S+) it runs from (\S+) to (\S+)\.", bias):
            diagonal = [_value(v) for v in np.diagonal(np.array(_cells(at, "position biases")), int(_value(match[1])))]
            assert (_value(match[2]), _value(match[3])) == (min(diagonal), max(diagonal)) and match[2] != match[3]

        match = re.search(r"Query (\d+)'s largest weight: (.+?), (\d\.\d+)(?: each)?\.", weights)
        row = [_value(v) for v in printed_weights[int(match[1]) - 1]]
        keys = [j + 1 for j, v in enumerate(row) if v == max(row)]
        named = [int(j) for j in re.findall(r"\d+", match[2])] if "every key" not in match[2] else keys
        assert named == keys and _value(match[3]) == max(row), (weights, row)


class TestClipping:
    def test_small_k_lets_two_back_leak_to_every_earlier_key(self):
        at = position_effects_page({"n": "8"})
        at.slider(key="position_effects.k").set_value(1).run()
        bias = panel_z(at, "position biases")
        np.testing.assert_allclose(bias[7, :6], bias[7, 6])  # offsets -7..-2 all use the -1 row
        assert "Raise k to 3" in texts(at)
        bias_spec = next(s for s in plotly_specs(at) if s["layout"]["title"]["text"].startswith("position"))
        assert len(bias_spec["layout"]["shapes"]) == 2  # the dashed clipping window

    def test_large_k_does_not_clip(self):
        at = position_effects_page({"n": "5", "k": "4"})
        assert "further apart than k" not in texts(at)

    def test_n_lowers_k(self):
        at = position_effects_page({"k": "5"})
        at.slider(key="position_effects.n").set_value(3).run()
        assert not at.exception and at.query_params["k"] == "2"


class TestLessonLinks:
    def test_round_trip(self):
        at = position_effects_page()
        at.selectbox(key="position_effects.preset").select("local").run()
        at.slider(key="position_effects.n").set_value(9).run()
        at.select_slider(key="position_effects.dk").set_value(16).run()
        at.number_input(key="position_effects.seed").set_value(4).run()
        at.slider(key="position_effects.strength").set_value(3.5).run()
        params = dict(at.query_params)
        reopened = position_effects_page(params)
        assert dict(reopened.query_params) == params
        for name in PANELS:
            np.testing.assert_array_equal(panel_z(reopened, name), panel_z(at, name))

    def test_malformed_link(self):
        at = position_effects_page({"n": "65", "dk": "nan", "strength": "1e9", "unknown": "1"})
        (warning,) = at.warning
        text = warning.value.replace("\\", "")
        for problem in (
            "n: expected an integer from 2 to 64",
            "dk: expected an integer from 1 to 64",
            "strength: expected a number from 0 to 5",
            "Unknown parameter ignored: 'unknown'",
        ):
            assert problem in text
        assert at.query_params["n"] == "6"

    def test_unusual_d_k_from_a_link_is_offered(self):
        at = position_effects_page({"dk": "5"})
        assert at.select_slider(key="position_effects.dk").value == 5


class TestScenarioFiles:
    def upload(self, at, content: bytes):
        at.session_state["position_effects:load"] = True
        at.run()
        at.get("file_uploader")[0].upload("scenario.json", content, "application/json")
        at.run()
        assert not at.exception

    def test_good_file(self):
        state = POSITION_EFFECTS.decode({"preset": "forward", "n": "11", "k": "2"}).state
        at = position_effects_page()
        self.upload(at, export.scenario_json("position_effects", POSITION_EFFECTS, state).encode())
        assert at.success and at.query_params["n"] == "11" and at.query_params["preset"] == "forward"

    @pytest.mark.parametrize(
        ("document", "message"),
        [
            (
                {"format": "relpos-scenario", "version": 1, "page": "position_effects", "state": {"n": 4.5}},
                "n: expected an integer from 2 to 64; got a number",
            ),
            (
                {"format": "relpos-scenario", "version": 1, "page": "position_effects", "state": {"n": 3, "k": 9}},
                "k: must be at most n − 1 = 2",
            ),
            (
                {"format": "relpos-scenario", "version": 1, "page": "explorer", "state": {}},
                "belongs to the Explorer page",
            ),
        ],
    )
    def test_bad_files(self, document, message):
        at = position_effects_page()
        self.upload(at, json.dumps(document).encode())
        (error,) = at.error
        assert message in error.value.replace("\\", "")
        assert at.query_params["n"] == "6"


class TestExport:
    def test_export_section(self):
        at = position_effects_page()
        assert not at.get("download_button")  # built only when opened
        at.session_state["position_effects.export"] = True
        at.run()
        assert len(at.get("download_button")) == 3
        link, snippet = (code.value for code in at.code)
        assert link.endswith("/position_effects?preset=back&n=6&k=3&dk=8&dmodel=16&seed=0&strength=2&shared=1")
        assert "position_effects_inputs(6, 3, d_model=16, d_k=8, seed=0" in snippet


def trained_expected(query: dict[str, str]):
    """The page's numbers for a trained preset, rebuilt without Streamlit from the lessons layer."""
    state = POSITION_EFFECTS.decode(query).state
    profile = trained_presets.preset_profile(trained_presets.train_preset_head(state["preset"], state["k"]), state["k"])
    inputs = position_effects_schema.state_inputs(state, profile)
    return profile, inputs, relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)


class TestTrainedPresets:
    """Presets from a head trained live, next to the hand-made ones."""

    @pytest.mark.parametrize("preset", list(trained_presets.TRAINED_PRESETS))
    def test_each_trained_preset_draws_its_learned_table(self, preset):
        at = position_effects_page()
        at.selectbox(key="position_effects.preset").select(preset).run()
        assert not at.exception and at.query_params["preset"] == preset
        profile, _, result = trained_expected({"preset": preset})
        np.testing.assert_allclose(panel_z(at, "position biases"), result.bias)
        np.testing.assert_allclose(panel_z(at, "combined weights"), result.weights)
        (note,) = at.info
        label = trained_presets.TRAINED_PRESETS[preset][0].removeprefix("trained: ")
        assert "trained live on this server: one causal attention head with Shaw's a^K (k = 3, d = 16)" in note.value
        assert f'trained on the "{label}" task with L = 16, 400 steps, seed 0' in note.value
        assert "never trained" in note.value
        favoured = position_effects_model.favoured_offsets(preset, profile)
        share = relpos.weight_on_offsets(result.weights, favoured).mean()
        page = texts(at)
        named = ("offset " if len(favoured) == 1 else "offsets ") + ", ".join(explain.offset_label(o) for o in favoured)
        assert f"Weight on {named}: " in page  # issue 37: "offsets −1" for one offset
        assert f"→ {share:.0%} on average" in page

    def test_previous_token_pulls_weight_to_minus_one(self):
        at = position_effects_page({"preset": "trained_previous", "n": "10"})
        before = relpos.weight_on_offsets(panel_z(at, "content-only weights"), (-1,)).mean()
        after = relpos.weight_on_offsets(panel_z(at, "combined weights"), (-1,)).mean()
        assert after > before + 0.15
        assert "(largest at offset −1)" in texts(at)

    def test_keys_after_the_query_get_no_learned_bias(self):
        at = position_effects_page({"preset": "trained_two_back", "n": "8", "k": "7"})
        profile, _, _ = trained_expected({"preset": "trained_two_back", "n": "8", "k": "7"})
        assert not np.any(profile[8:])
        bias = panel_z(at, "position biases")
        np.testing.assert_allclose(bias[np.triu_indices(8, 1)], 0.0, atol=1e-12)  # j > i: rows +1..+7 are 0

    def test_hand_made_presets_show_no_training_note(self):
        at = position_effects_page({"preset": "back"})
        assert not at.info and "trained live" not in texts(at)

    def test_k_zero_says_the_head_cannot_tell_offsets_apart(self):
        at = position_effects_page({"preset": "trained_first", "k": "0"})
        assert "With k = 0 the head has one row" in at.info[0].value
        assert "The bias is 0 in every cell" in texts(at)

    def test_k_beyond_the_trained_length_says_which_rows_are_reused(self):
        at = position_effects_page({"preset": "trained_first", "n": "24", "k": "20"})
        assert "the rows of offsets −20 to −16 reuse row −15" in at.info[0].value

    def test_one_training_run_per_preset_and_k(self, monkeypatch):
        """A class choosing the same preset shares one run: n, d_k, seed and strength do not retrain."""
        calls = []
        real = trained_presets.train_preset_head
        monkeypatch.setattr(trained_presets, "train_preset_head", lambda *args: calls.append(args) or real(*args))
        presets_view.learned_run.clear()
        position_effects_page({"preset": "trained_two_back", "k": "2"})
        position_effects_page({"preset": "trained_two_back", "k": "2", "n": "9", "dk": "16", "seed": "5"})
        assert calls == [("trained_two_back", 2)]

    def test_round_trip(self):
        at = position_effects_page({"preset": "trained_first"})
        at.slider(key="position_effects.n").set_value(9).run()
        at.slider(key="position_effects.strength").set_value(3.5).run()
        params = dict(at.query_params)
        assert params["preset"] == "trained_first" and params["n"] == "9"
        reopened = position_effects_page(params)
        assert dict(reopened.query_params) == params
        for name in PANELS:
            np.testing.assert_array_equal(panel_z(reopened, name), panel_z(at, name))

    def test_snippet_trains_the_same_head(self):
        at = position_effects_page({"preset": "trained_previous"})
        at.session_state["position_effects.export"] = True
        at.run()
        link, snippet = (code.value for code in at.code)
        assert link.endswith(
            "/position_effects?preset=trained_previous&n=6&k=3&dk=8&dmodel=16&seed=0&strength=2&shared=1"
        )
        assert "train_preset_head('trained_previous', 3)" in snippet and "profile=profile" in snippet
