"""The Explorer page (pages/explorer.py), rendered headless with Streamlit's AppTest."""

from __future__ import annotations

import json

import numpy as np
import pytest

import relpos
from relpos.state import export
from relpos.text import explain
from relpos.topics.explorer.schema import EXPLORER
from tests.support.apptest import open_app, panel_release, panel_specs, panel_z, plotly_specs, texts

SCORE_PANELS = (
    "content  q",
    "position bias",
    "combined score",
    "content-only weights",
    "combined weights",
    "weight change",
    "offset map",
)


def explorer(query: dict[str, str] | None = None):
    at = open_app("explorer", query=query)
    assert not at.exception, at.exception
    return at


def all_panels(at) -> dict[str, np.ndarray]:
    return {name: panel_z(at, name) for name in SCORE_PANELS}


def moved(at, group: str, index: int, value: float) -> tuple[dict, dict]:
    """Every panel's z before and after moving one live slider and letting go."""
    before = all_panels(at)
    panel_release(at, **{group: {index: value}})
    assert not at.exception, at.exception
    return before, all_panels(at)


def changed(before: np.ndarray, after: np.ndarray) -> set[tuple[int, int]]:
    return {(int(i), int(j)) for i, j in np.argwhere(~np.isclose(before, after, atol=1e-12))}


class TestDefaultView:
    def test_renders_the_textbook_example(self):
        at = explorer()
        assert at.title[0].value.startswith("Explorer")
        assert len(plotly_specs(at)) == 7
        example = relpos.worked_example().attention()
        np.testing.assert_allclose(panel_z(at, "combined score"), example.scores)
        np.testing.assert_allclose(panel_z(at, "combined weights"), example.weights)
        np.testing.assert_allclose(panel_z(at, "position bias"), example.bias)
        assert not at.warning

    def test_says_what_is_constant_along_a_diagonal(self):
        page = texts(explorer())
        assert "yet its biases are 0.10, 0.05, 0.08, 0.03" in page
        assert "The table row is constant along a diagonal; the Shaw bias is not." in page
        assert "anti-diagonal" not in page

    def test_captions_answer_why_position_4_is_penalised(self):
        page = texts(explorer())
        assert "Largest loss: query 1 → key 4 (offset +3, clipped to +2), −0.0812 (0.3576 → 0.2764)" in page
        assert "its bias −0.50 is below the row's content-weighted log-mean-exp" in page

    def test_hover_template_and_cell_numbers(self):
        scores = next(
            s["data"][0] for s in plotly_specs(explorer()) if s["layout"]["title"]["text"] == "combined score"
        )
        assert "q<sub>%{y}</sub>·k<sub>%{x}</sub>" in scores["hovertemplate"]
        assert scores["texttemplate"] == "%{text}"  # few cells: formatted here, with true minus signs
        assert scores["text"][0] == ["1.00", "0.50", "−0.10", "0.70"]

    def test_one_slider_per_value_in_the_live_panel(self):
        (spec,) = panel_specs(explorer())
        labels = {group["name"]: group["labels"] for group in spec["groups"]}
        assert labels == {
            "a": ["aᴷ₋₂", "aᴷ₋₁", "aᴷ₀", "aᴷ₊₁", "aᴷ₊₂"],
            "q": ["q₁", "q₂", "q₃", "q₄"],
            "keys": ["k₁", "k₂", "k₃", "k₄"],
        }
        assert {group["name"]: group["values"] for group in spec["groups"]}["a"] == [-0.3, 0.4, 0.1, -0.2, -0.5]
        assert not [s for s in explorer().slider if s.key.startswith("explorer.v.")]  # no second set of sliders


class TestOneSlider:
    def test_table_entry_changes_only_its_diagonal(self):
        at = explorer()
        before, after = moved(at, "a", 3, 0.6)  # a^K for offset +1
        diagonal = {(0, 1), (1, 2), (2, 3)}
        assert changed(before["position bias"], after["position bias"]) == diagonal
        assert changed(before["combined score"], after["combined score"]) == diagonal
        for unchanged in ("content  q", "content-only weights", "offset map"):
            np.testing.assert_array_equal(before[unchanged], after[unchanged])
        assert {i for i, _ in changed(before["combined weights"], after["combined weights"])} == {0, 1, 2}
        assert after["position bias"][1, 2] == pytest.approx(0.5 * 0.6)

    def test_edge_entry_also_changes_the_clipped_cells(self):
        at = explorer()
        before, after = moved(at, "a", 4, 0.3)  # a^K for +2, also used by offset +3
        assert changed(before["position bias"], after["position bias"]) == {(0, 2), (1, 3), (0, 3)}

    def test_query_changes_only_its_row(self):
        at = explorer()
        before, after = moved(at, "q", 1, -1.0)
        for name in ("content  q", "position bias", "combined score", "content-only weights", "combined weights"):
            assert {i for i, _ in changed(before[name], after[name])} == {1}
        np.testing.assert_allclose(after["content  q"][1], -1.0 * np.array(relpos.worked_example().keys))

    def test_key_changes_only_its_column_of_content(self):
        at = explorer()
        before, after = moved(at, "keys", 3, 0.0)
        assert changed(before["content  q"], after["content  q"]) == {(i, 3) for i in range(4)}
        np.testing.assert_array_equal(before["position bias"], after["position bias"])


class TestQueryIndependentBias:
    def test_toggle_makes_every_bias_diagonal_constant(self):
        at = explorer()
        _, spread = relpos.diagonal_spread(panel_z(at, "position bias"))
        assert spread.max() > 0.1  # Shaw: the bias follows each row's query
        panel_release(at, bias="scalar")
        bias = panel_z(at, "position bias")
        _, spread = relpos.diagonal_spread(bias)
        assert not spread.any()
        np.testing.assert_allclose(np.diagonal(bias), 0.1)  # b_0 = the a^K_0 slider value
        np.testing.assert_array_equal(panel_z(at, "content  q"), relpos.worked_example().attention().content)
        assert at.query_params["bias"] == "scalar"
        assert "exactly b₀ = 0.10" in texts(at)


class TestPresets:
    def choose(self, preset: str, **query):
        at = explorer({"n": "8", **query})
        at.selectbox(key="explorer.preset").select(preset).run()
        assert not at.exception
        return at

    def test_previous_token_puts_the_weight_one_back(self):
        weights = panel_z(self.choose("previous"), "combined weights")
        assert [int(np.argmax(row)) for row in weights[1:]] == list(range(7))  # key i - 1 for every query i > 1

    def test_look_ahead_puts_the_weight_one_forward(self):
        weights = panel_z(self.choose("ahead"), "combined weights")
        assert [int(np.argmax(row)) for row in weights[:-1]] == list(range(1, 8))

    def test_locality_favours_nearby_keys(self):
        at = self.choose("locality")
        near = np.abs(relpos.relative_offsets(8)) <= 1
        assert (panel_z(at, "combined weights") * near).sum() > 1.5 * (panel_z(at, "content-only weights") * near).sum()

    def test_no_position_leaves_content_alone(self):
        at = self.choose("none")
        assert not panel_z(at, "position bias").any()
        np.testing.assert_allclose(panel_z(at, "combined weights"), panel_z(at, "content-only weights"))

    def test_random_depends_on_the_seed(self):
        at = self.choose("random")
        first = panel_z(at, "combined score")
        at.number_input(key="explorer.seed").set_value(7).run()
        assert not np.allclose(first, panel_z(at, "combined score"))
        assert at.query_params["seed"] == "7"

    def test_textbook_restores_the_example(self):
        at = self.choose("random")
        at.selectbox(key="explorer.preset").select("textbook").run()
        np.testing.assert_allclose(panel_z(at, "combined score"), relpos.worked_example().attention().scores)


class TestSizes:
    def test_k_changes_the_table_and_the_clipping(self):
        at = explorer()
        at.slider(key="explorer.k").set_value(0).run()
        (spec,) = panel_specs(at)
        assert spec["groups"][0]["labels"] == ["aᴷ₀"]
        assert not panel_z(at, "offset map").any()  # every pair uses the one entry
        assert "nothing is clipped" not in texts(at)

    def test_long_sequence(self):
        at = explorer({"n": "512", "k": "3", "preset": "random"})
        specs = plotly_specs(at)
        assert len(specs) == 7
        scores = next(s["data"][0] for s in specs if s["layout"]["title"]["text"] == "combined score")
        assert scores["z"]["dtype"] == "f4" and "customdata" not in scores and "texttemplate" not in scores
        (spec,) = panel_specs(at)
        queries = spec["groups"][1]
        assert queries["labels"] == [] and "generated from the preset and seed" in queries["note"]
        assert not spec["drag_repaint"]  # beyond 64 tokens the panels repaint on release

    def test_d2_divides_both_terms_by_sqrt_2(self):
        at = explorer({"d": "2", "n": "5", "preset": "random"})
        state = EXPLORER.decode(at.query_params).state
        from relpos.topics.explorer.schema import explorer_inputs

        inputs = explorer_inputs(state)
        expected = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        np.testing.assert_allclose(panel_z(at, "content  q"), inputs.queries @ inputs.keys.T / np.sqrt(2))
        np.testing.assert_allclose(panel_z(at, "combined score"), expected.scores)


class TestLessonLinks:
    def test_round_trip(self):
        at = explorer()
        at.selectbox(key="explorer.preset").select("random").run()
        at.select_slider(key="explorer.n").set_value(6).run()
        at.slider(key="explorer.k").set_value(1).run()
        panel_release(at, a={0: 1.5})
        panel_release(at, bias="scalar")
        at.radio(key="explorer.d").set_value(2).run()
        params = dict(at.query_params)
        assert params["a"].startswith("1.5,") and params["n"] == "6" and params["bias"] == "scalar"
        reopened = explorer(params)
        assert dict(reopened.query_params) == params
        for name in SCORE_PANELS:
            np.testing.assert_array_equal(panel_z(reopened, name), panel_z(at, name))

    @pytest.mark.parametrize(
        ("query", "problem"),
        [
            ({"n": "1000000000"}, "n: expected an integer from 2 to 512; got '1000000000'"),
            ({"k": "-1"}, "k: expected an integer from 0 to 511"),
            ({"q": "nan,inf,1,2"}, "q: expected 1 to 16 comma-separated numbers"),
            ({"bias": "sometimes"}, "bias: expected one of shaw, scalar"),
            ({"zz": "1", "utm_source": "x"}, "Unknown parameters ignored: 'zz', 'utm_source'"),
            ({"n": "x" * 100_000}, "(100000 characters)"),
        ],
    )
    def test_malformed_links_warn_and_fall_back(self, query, problem):
        at = explorer(query)
        (warning,) = at.warning
        unescaped = warning.value.replace("\\", "")
        assert problem in unescaped
        np.testing.assert_allclose(panel_z(at, "combined score"), relpos.worked_example().attention().scores)

    def test_user_text_is_escaped(self):
        at = explorer({"preset": "[click](http://evil.example) $x$ <b>", "seed": ":red[x]"})
        (warning,) = at.warning
        assert "[click](http" not in warning.value and "\\[click\\]" in warning.value
        assert "$x$" not in warning.value and ":red[" not in warning.value

    def test_warning_is_shown_once(self):
        at = explorer({"n": "abc"})
        assert at.warning
        at.run()
        assert not at.warning


class TestPresenterMode:
    def test_a_presenter_link_lays_the_live_panel_out_for_a_projector(self):
        at = explorer({"presenter": "1"})
        (spec,) = panel_specs(at)
        assert spec["presenter"] and list(spec["figures"])[:2] == ["scores", "weights"]
        assert at.toggle(key="explorer.presenter").value
        (style,) = [html for html in at.html if "<style>" in html.proto.body and "font-size: 22px" in html.proto.body]
        assert "--relpos-presenter: 1" in style.proto.body  # the page helpers fold the sidebar
        assert dict(at.query_params)["presenter"] == "1"

    def test_the_toggle_switches_it_and_a_release_keeps_it(self):
        at = explorer()
        (spec,) = panel_specs(at)
        assert not spec["presenter"]
        at.toggle(key="explorer.presenter").set_value(True).run()
        assert not at.exception
        panel_release(at, a={2: 1.5})
        (spec,) = panel_specs(at)
        assert spec["presenter"] and dict(at.query_params)["presenter"] == "1"
        at.selectbox(key="explorer.preset").select("random").run()  # the page state is replaced
        assert at.toggle(key="explorer.presenter").value and panel_specs(at)[0]["presenter"]
        at.toggle(key="explorer.presenter").set_value(False).run()
        assert not panel_specs(at)[0]["presenter"] and dict(at.query_params)["presenter"] == "0"


class TestScenarioFiles:
    def open_upload(self, at):
        at.session_state["explorer:load"] = True
        at.run()
        return at.get("file_uploader")[0]

    def test_good_file_restores_the_scenario(self):
        state = EXPLORER.decode({"n": "6", "k": "1", "preset": "ahead", "bias": "scalar"}).state
        from relpos.topics.explorer.schema import apply_preset

        state = apply_preset(state, "ahead")
        at = explorer()
        self.open_upload(at).upload(
            "scenario.json", export.scenario_json("explorer", EXPLORER, state).encode(), "application/json"
        )
        at.run()
        assert not at.exception and at.success
        assert at.query_params["n"] == "6" and at.query_params["preset"] == "ahead"
        assert panel_z(at, "combined score").shape == (6, 6)

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            (b"{not json", "not valid JSON"),
            (b"[]", "not a relpos scenario file"),
            (
                json.dumps(
                    {"format": "relpos-scenario", "version": 1, "page": "explorer", "state": {"n": 4, "q": [1.0, 2.0]}}
                ).encode(),
                "q: expected 4 values for n = 4; got 2",
            ),
            (
                json.dumps(
                    {"format": "relpos-scenario", "version": 1, "page": "explorer", "state": {"n": "four"}}
                ).encode(),
                "n: expected an integer from 2 to 512; got a string",
            ),
            (
                json.dumps(
                    {"format": "relpos-scenario", "version": 1, "page": "position_effects", "state": {}}
                ).encode(),
                "belongs to the Position effects page",
            ),
            (
                b'{"format": "relpos-scenario", "version": 1, "page": "explorer", "state": {"a": [NaN]}}',
                "NaN and Infinity are not allowed",
            ),
        ],
    )
    def test_bad_files_are_explained_and_change_nothing(self, content, message):
        at = explorer()
        before = dict(at.query_params)
        self.open_upload(at).upload("bad.json", content, "application/json")
        at.run()
        assert not at.exception
        (error,) = at.error
        assert message in error.value.replace("\\", "")
        assert dict(at.query_params) == before


class TestAccessibilityAndExport:
    def test_tables_for_screen_readers(self):
        at = explorer()
        assert not at.table  # built only when the expander is open
        at.session_state["explorer.tables"] = True
        at.run()
        assert len(at.table) == 7
        content = at.table[0].value
        np.testing.assert_allclose(content.to_numpy(dtype=float), relpos.worked_example().attention().content)
        assert list(content.index) == ["i = 1", "i = 2", "i = 3", "i = 4"]

    def test_everything_shown_on_release_follows_the_live_values(self):
        """Tables, captions, the diagonal note and the export link follow a release of aᴷ₀."""
        at = explorer()
        at.session_state["explorer.tables"] = True
        at.session_state["explorer.export"] = True
        at.run()
        (before,) = panel_specs(at)
        note = at.info[0].value
        panel_release(at, a={2: 1.5})
        assert not at.exception, at.exception
        example = relpos.worked_example()
        expected = relpos.relative_attention(example.queries, example.keys, A_K=np.array([-0.3, 0.4, 1.5, -0.2, -0.5]))
        tables = {table.value.to_numpy(dtype=float).shape: table.value for table in at.table}  # all 4 × 4
        assert len(at.table) == 7 and list(tables) == [(4, 4)]
        np.testing.assert_allclose(at.table[1].value.to_numpy(dtype=float), expected.bias, atol=5e-5)
        np.testing.assert_allclose(at.table[4].value.to_numpy(dtype=float), expected.weights, atol=5e-5)
        (after,) = panel_specs(at)
        assert after["captions"]["weights"] != before["captions"]["weights"]
        assert after["captions"] == explain.explorer_captions(expected)
        assert "aᴷ₀ = 0.10" in note and "aᴷ₀ = 1.50" in at.info[0].value
        link = at.code[0].value
        assert link.endswith("&a=-0.3,0.4,1.5,-0.2,-0.5&presenter=0")
        assert dict(at.query_params)["a"] == "-0.3,0.4,1.5,-0.2,-0.5"

    def test_export_section(self):
        at = explorer()
        at.session_state["explorer.export"] = True
        at.run()
        assert len(at.get("download_button")) == 3
        link, snippet = (code.value for code in at.code)
        assert link.endswith(
            "/explorer?preset=textbook&n=4&k=2&d=1&seed=0&bias=shaw&q=1,0.5,0.8,0.3"
            "&keys=0.9,0.7,0.4,1.2&a=-0.3,0.4,0.1,-0.2,-0.5&presenter=0"
        )
        assert "relpos.relative_attention(Q, K, A_K=A_K)" in snippet


class TestCaching:
    def test_nothing_is_shared_between_sessions_as_a_resource(self):
        """st.cache_resource hands every session the same object; the app caches data only."""
        from pathlib import Path

        sources = [*Path("relpos").rglob("*.py"), *Path("pages").glob("*.py"), Path("app.py")]
        assert [str(p) for p in sources if "cache_resource" in p.read_text(encoding="utf-8")] == []


class TestWeightChangeArithmetic:
    def test_the_caption_is_plain_and_the_derivation_is_in_an_expander(self):
        at = explorer()
        (spec,) = panel_specs(at)
        caption = spec["captions"]["difference"]
        assert "because its bias −0.50 is below the row's log-mean-exp." in caption
        assert "T = " not in caption and "e^(b" not in caption
        (expander,) = [box for box in at.expander if box.label == "How the weight changes are computed"]
        derivation = " ".join(m.value for m in expander.markdown)
        assert (
            "Query 1 → key 4 (largest loss): its bias −0.50 is below the row's content-weighted log-mean-exp "
            "T = log Σₗ wₗ·e^(bₗ) = −0.2425, so its weight is multiplied by e^(bⱼ − T) = 0.773." in derivation
        )


class TestPhoneLayout:
    """On a phone the sidebar is an overlay over the panels: n and k sit in the main area instead."""

    @pytest.fixture
    def phone(self, monkeypatch):
        from relpos import ui
        from relpos.ui import layout

        monkeypatch.setattr(layout, "phone_screen", lambda: True)  # the kit's charts and presenter mode
        monkeypatch.setattr(ui, "phone_screen", lambda: True)  # the view's own question
        return explorer()

    def test_n_and_k_are_in_the_main_area_once(self, phone):
        main = [w.key for kind in ("slider", "select_slider") for w in getattr(phone.main, kind)]
        side = [w.key for kind in ("slider", "select_slider") for w in getattr(phone.sidebar, kind)]
        assert main.count("explorer.n") == 1 and main.count("explorer.k") == 1, main
        assert "explorer.n" not in side and "explorer.k" not in side, side
        assert phone.slider(key="explorer.k").max == 3  # bounds from the schema: k ≤ n − 1

    def test_moving_k_redraws_the_offset_map_and_keeps_the_other_settings(self, phone):
        phone.radio(key="explorer.d").set_value(2).run()
        phone.slider(key="explorer.k").set_value(1).run()
        assert not phone.exception
        (spec,) = panel_specs(phone)
        assert "(k = 1)" in spec["figures"]["offsets"]["layout"]["title"]["text"]
        assert dict(phone.query_params)["k"] == "1" and dict(phone.query_params)["d"] == "2"
        phone.select_slider(key="explorer.n").set_value(6).run()
        assert phone.slider(key="explorer.k").max == 5 and phone.slider(key="explorer.k").value == 1
        assert dict(phone.query_params)["n"] == "6" and phone.radio(key="explorer.d").value == 2
