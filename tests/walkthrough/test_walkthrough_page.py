"""The walkthrough page (pages/walkthrough.py), rendered headless with AppTest."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import relpos
from relpos.topics.walkthrough import controls_view
from relpos.ui.navigation import PAGES
from tests.support.apptest import captured_downloads, decode_z, download_bytes, open_app, plotly_specs
from tests.support.hostile import APP_HTML

TEXTBOOK = relpos.worked_example()
TEXTBOOK_TABLE = ["-0.3", "0.4", "0.1", "-0.2", "-0.5"]  # as the editor shows a^K


def open_walkthrough():
    at = open_app(page="walkthrough")
    assert not at.exception
    return at


def step_table(at) -> pd.DataFrame:
    (frame,) = [df.value for df in at.table if "combined weight" in df.value.columns]
    return frame


def row(frame: pd.DataFrame, i: int) -> pd.DataFrame:
    return frame[frame["i"] == i]


def figure(at, title_part: str) -> dict:
    (spec,) = [s for s in plotly_specs(at) if title_part in s["layout"]["title"]["text"]]
    return spec


def filled_scores(at) -> np.ndarray:
    return decode_z(figure(at, "computed so far")["data"][0])


def click(at, key: str, times: int = 1):
    for _ in range(times):
        at.button(key=key).click().run()
        assert not at.exception
    return at


def type_into(at, key: str, text: str):
    at.text_input(key=key).input(text).run()
    assert not at.exception
    return at


def table_fields(at, k: int) -> list[str]:
    """The editor's a^K fields for offsets -k..+k."""
    return [at.text_input(key=controls_view.input_key("a", offset)).value for offset in range(-k, k + 1)]


def all_messages(at) -> str:
    return " ".join(element.value for element in [*at.warning, *at.error])


def edited_notes(at) -> list[str]:
    return [box.value for box in at.info if "Edited example" in box.value]


@pytest.fixture
def at():
    return open_walkthrough()


class TestNavigationEntry:
    def test_registered_in_learn_right_after_overview(self):
        paths = [spec.path for spec in PAGES]
        spec = PAGES[paths.index("pages/walkthrough.py")]
        assert (spec.section, spec.url_path) == ("Learn", "walkthrough")
        assert paths[paths.index("pages/overview.py") + 1] == "pages/walkthrough.py"


class TestFirstLoad:
    def test_row_one_scores_and_weights(self, at):
        first = row(step_table(at), 1)
        np.testing.assert_allclose(first["score"], [1.0, 0.5, -0.1, 0.7], atol=1e-12)
        assert first["combined weight"].round(3).tolist() == [0.373, 0.226, 0.124, 0.276]

    def test_starts_at_the_first_pair(self, at):
        latex = at.latex[0].value
        assert "j - i = 1 - 1 = 0" in latex and r"1.0 \times 0.9 = 0.9" in latex and "= 0.9 + 0.1 = 1.0" in latex
        z = filled_scores(at)
        assert np.isnan(z).sum() == 15 and z[0, 0] == pytest.approx(1.0)
        assert at.button(key=controls_view.PREVIOUS).disabled and not at.button(key=controls_view.NEXT).disabled

    def test_says_offsets_are_key_minus_query(self, at):
        assert any("Offsets are j − i: key position minus query position" in info.value for info in at.info)

    def test_textbook_numbers_in_the_editor(self, at):
        values = [at.text_input(key=controls_view.input_key("q", i)).value for i in range(4)]
        assert values == ["1.0", "0.5", "0.8", "0.3"]
        assert at.segmented_control(key=controls_view.K).value == 2
        assert table_fields(at, 2) == TEXTBOOK_TABLE


class TestStepping:
    def test_next_advances_one_pair_and_previous_goes_back(self, at):
        click(at, controls_view.NEXT)
        latex = at.latex[0].value
        assert "j - i = 2 - 1 = +1" in latex and "= 0.7 + (-0.2) = 0.5" in latex
        z = filled_scores(at)
        assert (~np.isnan(z)).sum() == 2 and z[0, 1] == pytest.approx(0.5)
        assert at.segmented_control(key=controls_view.STEP).value == 1
        click(at, controls_view.PREVIOUS)
        assert "j - i = 1 - 1 = 0" in at.latex[0].value
        assert (~np.isnan(filled_scores(at))).sum() == 1

    def test_clipped_pair_shows_the_reused_entry(self, at):
        click(at, controls_view.NEXT, 3)
        latex = at.latex[0].value
        assert r"\operatorname{clip}(+3,\, 2) = +2" in latex and "a^K_{+2} = -0.5" in latex
        assert any("reuses the entry of offset +2" in m.value for m in at.markdown)
        offsets = figure(at, "Offset map")
        outlined = {(s["x0"], s["y0"]) for s in offsets["layout"]["shapes"]}
        assert outlined == {(2.5, -0.5)}

    def test_past_the_last_pair_comes_the_softmax_step(self, at):
        click(at, controls_view.NEXT, 4)
        latex = at.latex[0].value
        assert r"\operatorname{softmax}(1.0,\ 0.5,\ -0.1,\ 0.7)" in latex
        assert r"(0.373,\ 0.226,\ 0.124,\ 0.276)" in latex and r"(0.265,\ 0.217,\ 0.161,\ 0.358)" in latex
        bars = figure(at, "content only vs combined")
        assert [trace["name"] for trace in bars["data"]] == ["content only", "combined"]
        assert bars["data"][1]["text"] == ["0.373", "0.226", "0.124", "0.276"]
        takeaway = " ".join(m.value for m in at.markdown)
        assert "Key 1 (offset 0) gained the most weight: 0.265 → 0.373" in takeaway
        assert "Key 4 (offset +3, clipped to +2) lost the most weight: 0.3576 → 0.2764" in takeaway
        z = filled_scores(at)
        np.testing.assert_allclose(z[0], [1.0, 0.5, -0.1, 0.7])
        assert np.isnan(z[1:]).all()

    def test_next_after_a_softmax_starts_the_next_row(self, at):
        click(at, controls_view.NEXT, 5)
        assert at.segmented_control(key=controls_view.ROW).value == 1
        assert "j - i = 1 - 2 = -1" in at.latex[0].value

    def test_choosing_row_three(self, at):
        at.segmented_control(key=controls_view.ROW).set_value(2).run()
        at.segmented_control(key=controls_view.STEP).set_value(4).run()
        assert not at.exception
        assert r"\operatorname{softmax}(0.48,\ 0.88,\ 0.4,\ 0.8)" in at.latex[0].value
        z = filled_scores(at)
        np.testing.assert_allclose(z[2], [0.48, 0.88, 0.4, 0.8])
        assert not np.isnan(z[:2]).any() and np.isnan(z[3]).all()

    def test_pair_picker_jumps_to_any_pair(self, at):
        at.segmented_control(key=controls_view.ROW).set_value(3).run()
        at.segmented_control(key=controls_view.STEP).set_value(0).run()
        latex = at.latex[0].value
        assert "j - i = 1 - 4 = -3" in latex and r"\operatorname{clip}(-3,\, 2) = -2" in latex
        assert "0.27 + (-0.09) = 0.18" in latex

    def test_last_stop_disables_next(self, at):
        at.segmented_control(key=controls_view.ROW).set_value(3).run()
        at.segmented_control(key=controls_view.STEP).set_value(4).run()
        assert at.button(key=controls_view.NEXT).disabled
        assert not np.isnan(filled_scores(at)).any()


class TestEditing:
    def test_q1_to_two_changes_the_first_row(self, at):
        type_into(at, controls_view.input_key("q", 0), "2.0")
        first = row(step_table(at), 1)
        np.testing.assert_allclose(first["score"], [2.0, 1.0, -0.2, 1.4], atol=1e-12)
        expected = relpos.relative_attention([2.0, 0.5, 0.8, 0.3], TEXTBOOK.keys, A_K=TEXTBOOK.table)
        np.testing.assert_allclose(first["combined weight"], expected.weights[0])
        np.testing.assert_allclose(row(step_table(at), 2)["score"], [0.65, 0.4, 0.1, 0.35], atol=1e-12)
        assert "2.0 \\times 0.9 = 1.8" in at.latex[0].value

    def test_k_one_resizes_the_table_and_the_clipped_cells(self, at):
        at.segmented_control(key=controls_view.K).set_value(1).run()
        assert not at.exception
        assert table_fields(at, 1) == ["0.4", "0.1", "-0.2"]
        with pytest.raises(KeyError):
            at.text_input(key=controls_view.input_key("a", 2))
        strip = figure(at, "2k + 1 = 3 entries")
        np.testing.assert_allclose(decode_z(strip["data"][0]), [[0.4, 0.1, -0.2]])
        offsets = figure(at, "Offset map")
        assert decode_z({"z": offsets["data"][1]["x"]}).size == 6  # |j − i| > 1: six clipped cells
        frame = step_table(at)
        np.testing.assert_array_equal(frame["clipped offset"], np.clip(frame["offset j−i"], -1, 1))
        expected = relpos.relative_attention(TEXTBOOK.queries, TEXTBOOK.keys, A_K=[0.4, 0.1, -0.2])
        np.testing.assert_allclose(frame["score"].to_numpy().reshape(4, 4), expected.scores)

    def test_k_back_to_two_restores_the_outer_entries(self, at):
        at.segmented_control(key=controls_view.K).set_value(0).run()
        at.segmented_control(key=controls_view.K).set_value(2).run()
        assert table_fields(at, 2) == TEXTBOOK_TABLE

    def test_k_zero_leaves_every_weight_unchanged(self, at):
        at.segmented_control(key=controls_view.K).set_value(0).run()
        at.segmented_control(key=controls_view.STEP).set_value(4).run()
        assert any("No weight changed" in m.value for m in at.markdown)
        frame = step_table(at)
        np.testing.assert_allclose(frame["combined weight"], frame["content-only weight"])

    def test_k_three_with_edge_copies_keeps_the_scores(self, at):
        at.segmented_control(key=controls_view.K).set_value(3).run()
        assert at.text_input(key=controls_view.input_key("a", 3)).value == "-0.5"
        np.testing.assert_allclose(row(step_table(at), 1)["score"], [1.0, 0.5, -0.1, 0.7], atol=1e-12)
        assert len(figure(at, "Offset map")["data"]) == 1  # nothing clipped any more

    def test_an_edit_is_named_under_the_introduction(self, at):
        assert edited_notes(at) == [], "the introduction describes the textbook example"
        type_into(at, controls_view.input_key("q", 0), "2.0")
        at.segmented_control(key=controls_view.K).set_value(1).run()
        (note,) = edited_notes(at)
        assert "k = 1 instead of 2" in note and "q₁ = 2.0 instead of 1.0" in note
        click(at, controls_view.RESET)
        assert edited_notes(at) == []

    def test_reset_restores_the_textbook(self, at):
        type_into(at, controls_view.input_key("q", 0), "2.0")
        type_into(at, controls_view.input_key("k", 3), "abc")
        at.segmented_control(key=controls_view.K).set_value(1).run()
        click(at, controls_view.RESET)
        assert at.text_input(key=controls_view.input_key("q", 0)).value == "1.0"
        assert at.text_input(key=controls_view.input_key("k", 3)).value == "1.2"
        assert at.segmented_control(key=controls_view.K).value == 2
        np.testing.assert_allclose(step_table(at)["score"].to_numpy().reshape(4, 4), TEXTBOOK.attention().scores)
        assert any("Restored the textbook example" in s.value for s in at.success)
        assert not at.warning


class TestBadInput:
    @pytest.mark.parametrize("text", ["abc", "", "nan", "1,2,3", "<script>alert(1)</script>"])
    def test_not_a_number_is_flagged_and_the_last_good_value_kept(self, at, text):
        type_into(at, controls_view.input_key("q", 0), "2")
        type_into(at, controls_view.input_key("q", 0), text)
        assert at.warning and at.error
        message = all_messages(at)
        assert "q₁" in message and "from −10 to 10" in message and "Still using 2.0" in message
        np.testing.assert_allclose(row(step_table(at), 1)["score"], [2.0, 1.0, -0.2, 1.4], atol=1e-12)
        # no HTML element but the app's own static ones (its helpers' script tag, its style sheets)
        assert not [h.proto.body for h in at.html if h.proto.body.strip() not in APP_HTML and "script" in h.proto.body]

    @pytest.mark.parametrize(
        ("key", "text"), [(controls_view.input_key("k", 1), "11"), (controls_view.input_key("a", -2), "-1e9")]
    )
    def test_out_of_range_is_flagged_and_the_last_good_value_kept(self, at, key, text):
        type_into(at, key, text)
        message = all_messages(at)
        assert "outside the allowed range" in message and "from −10 to 10" in message
        np.testing.assert_allclose(step_table(at)["score"].to_numpy().reshape(4, 4), TEXTBOOK.attention().scores)

    def test_fixing_the_field_clears_the_message(self, at):
        type_into(at, controls_view.input_key("k", 0), "x")
        type_into(at, controls_view.input_key("k", 0), "0.5")
        assert not at.warning and not at.error
        assert row(step_table(at), 1)["q_i·k_j"].iloc[0] == pytest.approx(0.5)


class TestStepTableDownload:
    def test_csv_holds_sixteen_rows_matching_relative_attention(self):
        with captured_downloads() as files:
            at = open_walkthrough()
            data = download_bytes(at, files, controls_view.CSV)
        frame = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
        assert frame.shape == (16, 12)
        result = relpos.relative_attention(TEXTBOOK.queries, TEXTBOOK.keys, A_K=TEXTBOOK.table)
        for column, field in (
            ("clipped offset", "offsets"),
            ("q_i·k_j", "content"),
            ("q_i·aᴷ", "bias"),
            ("score", "scores"),
            ("content-only weight", "content_weights"),
            ("combined weight", "weights"),
        ):
            np.testing.assert_allclose(frame[column].to_numpy().reshape(4, 4), getattr(result, field), atol=1e-12)
        np.testing.assert_array_equal(frame["offset j−i"].to_numpy().reshape(4, 4), relpos.relative_offsets(4))

    def test_csv_follows_the_edits(self):
        with captured_downloads() as files:
            at = open_walkthrough()
            type_into(at, controls_view.input_key("q", 0), "2.0")
            frame = pd.read_csv(io.BytesIO(download_bytes(at, files, controls_view.CSV)), encoding="utf-8-sig")
        np.testing.assert_allclose(frame["score"][:4], [2.0, 1.0, -0.2, 1.4], atol=1e-12)


class TestPresenterMode:
    def test_enlarges_figure_text_injects_the_style_and_hides_the_intro(self, at):
        intro = [m.value for m in at.markdown if m.value.startswith("This page works through")]
        assert intro and "font-size: 22px" not in at.html[0].proto.body
        at.toggle(key=controls_view.PRESENTER).set_value(True).run()
        assert not at.exception
        for spec in plotly_specs(at):  # readable from the back row
            assert spec["layout"]["font"]["size"] >= controls_view.PRESENTER_FIGURE_FONT
            assert spec["layout"]["xaxis"]["tickfont"]["size"] >= controls_view.PRESENTER_FIGURE_FONT
        (style,) = [html for html in at.html if "<style>" in html.proto.body]  # and the Copy link button
        assert "font-size: 22px" in style.proto.body and ".st-key-lesson-nav" in style.proto.body
        assert not [m.value for m in at.markdown if m.value.startswith("This page works through")]
        click(at, controls_view.NEXT)  # the buttons still work in presenter mode
        assert "j - i = 2 - 1 = +1" in at.latex[0].value

    def test_numbers_are_edited_in_the_main_area_and_the_note_stays(self, at):
        at.toggle(key=controls_view.PRESENTER).set_value(True).run()
        assert not [w for w in at.sidebar.text_input if w.key == controls_view.input_key("q", 0)]
        assert [w for w in at.main.text_input if w.key == controls_view.input_key("q", 0)]
        type_into(at, controls_view.input_key("q", 0), "2.0")
        (note,) = edited_notes(at)
        assert "q₁" in note or "q_1" in note or "q 1" in note, note
        assert "below the stop" in note and "sidebar" not in note


class TestLeavingAndComingBack:
    def test_position_edits_and_presenter_mode_survive_a_page_switch(self, at):
        click(at, controls_view.NEXT, 2)
        type_into(at, controls_view.input_key("q", 0), "2.0")
        at.toggle(key=controls_view.PRESENTER).set_value(True).run()
        at.switch_page("pages/overview.py").run()
        assert not at.exception
        at.switch_page("pages/walkthrough.py").run()
        assert not at.exception
        assert "j - i = 3 - 1 = +2" in at.latex[0].value
        assert at.text_input(key=controls_view.input_key("q", 0)).value == "2.0"
        assert at.toggle(key=controls_view.PRESENTER).value
        np.testing.assert_allclose(row(step_table(at), 1)["score"], [2.0, 1.0, -0.2, 1.4], atol=1e-12)


class TestSoftmaxArithmeticOnRequest:
    """A softmax stop says why in one plain clause; the log-mean-exp arithmetic sits in an expander."""

    def test_the_derivation_is_inside_the_expander_and_only_there(self):
        at = open_app(page="walkthrough", query={"i": "1", "j": "softmax"})
        assert not at.exception
        (expander,) = [box for box in at.expander if box.label == "How this is computed"]
        inside = [m.value for m in expander.markdown]
        derivation = " ".join(inside)
        assert "T = log Σₗ wₗ·e^(bₗ) = −0.2425, so its weight is multiplied by e^(bⱼ − T) = 1.4085" in derivation
        assert "Key 4 (offset +3, clipped to +2): its position term −0.50 is below" in derivation
        assert "content-weighted log-mean-exp" in derivation  # the general explanation, from content/
        (takeaway,) = [m.value for m in at.main.markdown if "the most weight" in m.value and m.value not in inside]
        assert (
            "Key 1 (offset 0) gained the most weight: 0.265 → 0.373 (+0.108), because its position term 0.10 "
            "is above the row's log-mean-exp." in takeaway
        )
        assert "T = " not in takeaway and "e^(b" not in takeaway and "Σₗ" not in takeaway

    def test_a_pair_stop_has_no_softmax_expander(self):
        at = open_app(page="walkthrough", query={"i": "1", "j": "2"})
        assert not [box for box in at.expander if box.label == "How this is computed"]
