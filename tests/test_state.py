"""The lesson-link codec (URL parameters) and scenario files (JSON), without Streamlit."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relpos.state import export
from relpos.state.codec import (
    MAX_PARAM_CHARS,
    Schema,
    StateError,
    bool_field,
    choice_field,
    float_field,
    floats_field,
    int_field,
    read_json,
    shown,
)
from relpos.topics.explorer import schema as explorer_schema
from relpos.topics.explorer.schema import EXPLORER
from relpos.topics.explorer.snippet import explorer_snippet
from relpos.topics.position_effects import schema as position_effects_schema
from relpos.topics.position_effects.schema import POSITION_EFFECTS
from relpos.topics.position_effects.snippet import position_effects_snippet
from tests.support.strategies import hostile_texts

SCHEMA = Schema(
    {
        "n": int_field(4, 2, 16),
        "x": float_field(0.5, -2.0, 2.0),
        "on": bool_field(False),
        "mode": choice_field("a", ("a", "b")),
        "values": floats_field(None, -2.0, 2.0, 5),
    }
)


class TestField:
    @pytest.mark.parametrize(
        ("field", "text", "value"),
        [
            (int_field(4, 2, 16), " 12 ", 12),
            (int_field(4, 2, 16), "+3", 3),
            (float_field(0.0, -2, 2), "−0.25", -0.25),  # a pasted true minus sign
            (float_field(0.0, -2, 2), "-0", 0.0),
            (float_field(0.0, -2, 2), ".5", 0.5),
            (bool_field(False), "On", True),
            (bool_field(True), "0", False),
            (choice_field("a", ("a", "b")), "B", "b"),
            (floats_field(None, -2, 2, 3), "1,-0.5,0.25", [1.0, -0.5, 0.25]),
        ],
    )
    def test_parses(self, field, text, value):
        assert field.parse(text) == value

    @pytest.mark.parametrize(
        ("field", "text"),
        [
            (int_field(4, 2, 16), "1e9"),
            (int_field(4, 2, 16), "17"),
            (int_field(4, 2, 16), "4.0"),
            (int_field(4, 2, 16), "-5"),
            (int_field(4, 2, 16), "9" * 40),
            (float_field(0.0, -2, 2), "nan"),
            (float_field(0.0, -2, 2), "inf"),
            (float_field(0.0, -2, 2), "1e999"),
            (float_field(0.0, -2, 2), "0x1"),
            (float_field(0.0, -2, 2), "2.5"),
            (bool_field(False), "maybe"),
            (choice_field("a", ("a", "b")), "c"),
            (floats_field(None, -2, 2, 3), "1,2,3,4"),
            (floats_field(None, -2, 2, 3), "1,,2"),
            (floats_field(None, -2, 2, 3), ""),
            (floats_field(None, -2, 2, 3), "1," * MAX_PARAM_CHARS),
        ],
    )
    def test_rejects(self, field, text):
        with pytest.raises(ValueError):
            field.parse(text)

    @given(st.lists(st.integers(-40, 40).map(lambda v: v * 0.05), min_size=1, max_size=5))
    def test_floats_round_trip(self, values):
        field = floats_field(None, -2.0, 2.0, 5)
        np.testing.assert_allclose(field.parse(field.format(values)), values)

    def test_json_types_are_strict(self):
        with pytest.raises(ValueError, match=r"an integer .* got a string"):
            int_field(4, 2, 16).check("4")
        with pytest.raises(ValueError, match="got a boolean"):
            int_field(4, 2, 16).check(True)
        with pytest.raises(ValueError, match="entry 2: expected a number"):
            floats_field(None, -2, 2, 5).check([1.0, "x"])
        with pytest.raises(ValueError, match="expected true or false"):
            bool_field(False).check(1)


class TestDecode:
    def test_defaults_when_empty(self):
        decoded = SCHEMA.decode({})
        assert decoded.state == {"n": 4, "x": 0.5, "on": False, "mode": "a", "values": None}
        assert decoded.problems == ()

    def test_round_trip(self):
        state = {"n": 7, "x": -1.25, "on": True, "mode": "b", "values": [0.1, -0.2]}
        assert SCHEMA.decode(SCHEMA.encode(state)).state == state

    def test_bad_values_fall_back_to_defaults_and_are_reported(self):
        decoded = SCHEMA.decode({"n": "1e9", "x": "nan", "values": "1,x"})
        assert decoded.state["n"] == 4 and decoded.state["x"] == 0.5 and decoded.state["values"] is None
        assert len(decoded.problems) == 3
        assert "n: expected an integer from 2 to 16; got '1e9'. Using the default, 4." in decoded.problems

    def test_unknown_keys_are_reported_and_summarised(self):
        decoded = SCHEMA.decode({f"extra{i}": "1" for i in range(10)})
        (problem,) = decoded.problems
        assert problem.startswith("Unknown parameters ignored: 'extra0'") and "and 4 more" in problem

    @pytest.mark.parametrize("tail", [".", ")", ").", ",", "!", "'"])
    def test_trailing_punctuation_of_a_pasted_link_is_tolerated(self, tail):
        # A link pasted in a chat gains "." or ")" after its last parameter, often the `a` table.
        decoded = SCHEMA.decode({"n": "7", "values": "0.1,-0.2,0.3" + tail})
        assert decoded.state["values"] == [0.1, -0.2, 0.3] and decoded.problems == ()
        assert (
            SCHEMA.decode({"mode": "b" + tail, "n": "5" + tail}).state == SCHEMA.decode({"mode": "b", "n": "5"}).state
        )

    def test_repeated_keys_use_the_last_value(self):
        assert SCHEMA.decode({"n": ["3", "9"]}).state["n"] == 9

    @given(st.dictionaries(st.sampled_from(["n", "x", "on", "mode", "values", "zz"]), hostile_texts, max_size=5))
    @settings(max_examples=150)
    def test_never_raises_and_always_valid(self, params):
        decoded = SCHEMA.decode(params)
        state = decoded.state
        assert 2 <= state["n"] <= 16 and -2 <= state["x"] <= 2 and state["mode"] in ("a", "b")
        assert state["values"] is None or all(-2 <= v <= 2 for v in state["values"])
        for problem in decoded.problems:
            assert len(problem) < 400  # long input is cut, never echoed whole
            assert all(char.isprintable() for char in problem)

    def test_shown_cuts_and_cleans(self):
        assert shown("x" * 100_000).endswith("(100000 characters)")
        assert "\x00" not in shown("a\x00b")


class TestJson:
    def test_round_trip(self):
        state = {"n": 7, "x": -1.25, "on": True, "mode": "b", "values": [0.1, -0.2]}
        assert SCHEMA.from_json(json.loads(json.dumps(SCHEMA.to_json(state)))) == state

    def test_lists_every_problem(self):
        with pytest.raises(StateError) as error:
            SCHEMA.from_json({"n": "4", "x": 9, "mode": None, "typo": 1})
        problems = error.value.problems
        assert len(problems) == 4
        assert any("unknown entry 'typo'" in p for p in problems)
        assert any(p.startswith("x: expected a number from -2 to 2; got 9") for p in problems)

    def test_huge_integers_are_refused_with_a_short_message(self):
        # JSON integers are unbounded: 10**400 in a number field must not reach float()
        # (OverflowError), and the message must not print all its digits
        with pytest.raises(StateError) as error:
            SCHEMA.from_json({"n": 10**400, "x": 10**400, "values": [0.5, -(10**400)]})
        assert error.value.problems == (
            "n: expected an integer from 2 to 16; got 100000000000… (401 digits)",
            "x: expected a number from -2 to 2; got 100000000000… (401 digits)",
            "values: entry 2: expected a number from -2 to 2; got -10000000000… (402 digits)",
        )

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ("{", "not valid JSON"),
            ('{"n": NaN}', "NaN and Infinity are not allowed"),
            ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
            (b"\xff\xfe\x00", "not UTF-8"),
            ("x" * 2_000_000, "too large"),
        ],
    )
    def test_read_json_refuses(self, data, message):
        with pytest.raises(StateError, match=message):
            read_json(data)


class TestExplorerSchema:
    def test_default_is_the_textbook_example(self):
        state = EXPLORER.decode({}).state
        assert state["q"] == [1.0, 0.5, 0.8, 0.3] and state["a"] == [-0.3, 0.4, 0.1, -0.2, -0.5]
        assert (state["n"], state["k"], state["d"], state["bias"]) == (4, 2, 1, "shaw")

    def test_k_must_be_below_n(self):
        decoded = EXPLORER.decode({"n": "3", "k": "7"})
        assert decoded.state["k"] == 2
        assert any(p.startswith("k: must be at most n − 1 = 2") for p in decoded.problems)

    def test_value_lists_must_match_n_and_k(self):
        decoded = EXPLORER.decode({"n": "5", "q": "1,2", "a": "0.1"})
        assert len(decoded.state["q"]) == 5 and len(decoded.state["a"]) == 5
        assert len(decoded.problems) == 2

    def test_long_sequences_ignore_per_token_values(self):
        decoded = EXPLORER.decode({"n": "100", "q": "1,2"})
        assert decoded.state["q"] is None and decoded.state["keys"] is None
        assert decoded.state["a"] is not None  # k = 2 still has sliders
        assert "single values are used only up to n = 16" in decoded.problems[0]

    def test_hostile_link(self):
        decoded = EXPLORER.decode(
            {"n": "1000000000", "k": "-1", "q": "nan,inf", "seed": "<script>", "preset": "../../etc", "zz": "1"}
        )
        assert decoded.state == EXPLORER.decode({}).state
        assert len(decoded.problems) == 6

    def test_apply_preset_and_resize(self):
        state = explorer_schema.apply_preset(EXPLORER.decode({"n": "8", "k": "3"}).state, "ahead")
        assert state["n"] == 8 and state["a"][4] == 2.0
        grown = explorer_schema.resize(state, n=10)
        assert grown["q"][:8] == state["q"] and len(grown["q"]) == 10
        shrunk = explorer_schema.resize(state, n=3)
        assert shrunk["k"] == 2 and len(shrunk["a"]) == 5
        long = explorer_schema.resize(state, n=256, k=20)
        assert long["q"] is None and long["a"] is None
        assert explorer_schema.apply_preset(long, "textbook")["n"] == 4

    def test_inputs_of_a_long_sequence_come_from_the_preset(self):
        inputs = explorer_schema.explorer_inputs(EXPLORER.decode({"n": "64", "preset": "random", "d": "2"}).state)
        assert inputs.queries.shape == (64, 2) and inputs.table.shape == (5, 2)


class TestEffectsSchema:
    def test_defaults(self):
        state = POSITION_EFFECTS.decode({}).state
        assert (state["n"], state["k"], state["dk"], state["preset"]) == (6, 3, 8, "back")

    def test_k_below_n(self):
        decoded = POSITION_EFFECTS.decode({"n": "2", "k": "40"})
        assert decoded.state["k"] == 1 and decoded.problems

    @pytest.mark.parametrize("preset", ["trained_previous", "trained_two_back", "trained_first"])
    def test_trained_presets_round_trip(self, preset):
        """The trained presets' keys travel in the URL and in scenario files."""
        decoded = POSITION_EFFECTS.decode({"preset": preset, "k": "2"})
        assert decoded.state["preset"] == preset and not decoded.problems
        assert POSITION_EFFECTS.decode(POSITION_EFFECTS.encode(decoded.state)).state == decoded.state
        text = export.scenario_json("position_effects", POSITION_EFFECTS, decoded.state)
        assert export.load_scenario(text, "position_effects", POSITION_EFFECTS) == decoded.state

    def test_unknown_preset_is_reported(self):
        decoded = POSITION_EFFECTS.decode({"preset": "trained"})
        assert decoded.state["preset"] == "back" and "preset: expected" in decoded.problems[0]


class TestScenarioFiles:
    def test_explorer_round_trip(self):
        state = explorer_schema.apply_preset(EXPLORER.decode({"n": "6", "d": "2", "bias": "scalar"}).state, "random")
        text = export.scenario_json("explorer", EXPLORER, state, {"queries": np.ones((6, 2))})
        assert export.load_scenario(text.encode(), "explorer", EXPLORER) == state

    def test_effects_round_trip(self):
        state = POSITION_EFFECTS.decode({"n": "12", "preset": "local", "strength": "3.5"}).state
        assert (
            export.load_scenario(
                export.scenario_json("position_effects", POSITION_EFFECTS, state), "position_effects", POSITION_EFFECTS
            )
            == state
        )

    @pytest.mark.parametrize(
        ("document", "message"),
        [
            ({"format": "other"}, "not a relpos scenario file"),
            ({"format": "relpos-scenario", "version": 9, "page": "explorer", "state": {}}, "unsupported"),
            (
                {"format": "relpos-scenario", "version": 1, "page": "position_effects", "state": {}},
                "belongs to the Position effects page",
            ),
            ({"format": "relpos-scenario", "version": 1, "page": "explorer"}, 'no "state"'),
            (
                {"format": "relpos-scenario", "version": 1, "page": "explorer", "state": {"n": 4, "q": [1, 2]}},
                "q: expected 4 values for n = 4; got 2",
            ),
            (
                {"format": "relpos-scenario", "version": 1, "page": "explorer", "state": {"q": [[1], [2], [3], [4]]}},
                "q: entry 1: expected a number; got a list",
            ),
            (
                {"format": "relpos-scenario", "version": 1, "page": "explorer", "state": [1, 2]},
                "the state must be a JSON object",
            ),
        ],
    )
    def test_bad_files_are_explained(self, document, message):
        with pytest.raises(StateError, match=message):
            export.load_scenario(json.dumps(document), "explorer", EXPLORER)


class TestSnippets:
    def _run(self, code: str) -> dict:
        import contextlib
        import io

        namespace: dict = {}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, namespace)  # the snippet is our own generated code
        return namespace

    @pytest.mark.parametrize(
        "query",
        [
            {},
            {"d": "2", "n": "6", "preset": "random"},
            {"bias": "scalar"},
            {"n": "40", "preset": "locality", "k": "3"},
            {"n": "64", "k": "20", "preset": "random", "d": "2"},
        ],
    )
    def test_explorer_snippet_reproduces_the_page(self, query):
        state = EXPLORER.decode(query).state
        inputs = explorer_schema.explorer_inputs(state)
        result = self._run(explorer_snippet(state, inputs.queries, inputs.keys, inputs.table))["result"]
        if state["bias"] == "scalar":
            from relpos.core.scalar_bias import scalar_bias_attention

            expected = scalar_bias_attention(inputs.queries, inputs.keys, inputs.table[:, 0])
        else:
            from relpos import relative_attention

            expected = relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        np.testing.assert_allclose(result.weights, expected.weights, atol=1e-6)

    def test_effects_snippet_of_a_trained_preset_reproduces_the_page(self):
        from relpos import relative_attention
        from relpos.core import trained_presets

        state = POSITION_EFFECTS.decode({"preset": "trained_first", "n": "9", "k": "4", "dk": "4"}).state
        profile = trained_presets.preset_profile(trained_presets.train_preset_head("trained_first", 4), 4)
        inputs = position_effects_schema.state_inputs(state, profile)
        result = self._run(position_effects_snippet(state))["result"]
        np.testing.assert_array_equal(
            result.bias, relative_attention(inputs.queries, inputs.keys, A_K=inputs.table).bias
        )

    def test_effects_snippet_reproduces_the_page(self):
        """Both terms divided by sqrt(d_k): the snippet gives the reference's numbers."""
        from tests.support import reference

        state = POSITION_EFFECTS.decode({"preset": "forward", "n": "9", "dk": "4"}).state
        inputs = position_effects_schema.state_inputs(state)
        result = self._run(position_effects_snippet(state))["result"]
        expected = reference.content(inputs.queries, inputs.keys) + reference.biases(inputs.queries, inputs.table, 9)
        np.testing.assert_allclose(result.scores, expected, atol=1e-9)
