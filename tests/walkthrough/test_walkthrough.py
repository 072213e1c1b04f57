"""relpos.topics.walkthrough.model (the walkthrough's step logic) and its table and figure builders.

Pure functions: no Streamlit. The arithmetic is checked against tests/support/reference.py.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.plots import heatmaps, style
from relpos.plots.offset_map import offset_map_figure
from relpos.text import explain
from relpos.topics.walkthrough import figures as walkthrough_figures
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import tables as step_tables
from relpos.topics.walkthrough import text as wt_text
from relpos.topics.walkthrough.text import signed
from tests.support import reference
from tests.support.strategies import walkthrough_scenarios

TEXTBOOK = relpos.worked_example()
STEPS = wt.pair_steps(TEXTBOOK)
RESULT = TEXTBOOK.attention()


def row_of(steps, row: int, n: int = 4):
    return steps[row * n : (row + 1) * n]


class TestLessonStops:
    def test_every_row_has_its_pairs_then_its_softmax(self):
        stops = wt.lesson_stops(4)
        assert len(stops) == 20
        assert stops[:5] == tuple(wt.Stop(0, step) for step in range(5))
        assert stops[-1] == wt.Stop(3, 4) and stops[-1].is_softmax(4)

    @given(st.integers(1, 8))
    def test_index_is_position_in_the_lesson(self, n):
        for index, stop in enumerate(wt.lesson_stops(n)):
            assert wt.stop_index(stop, n) == index

    def test_rejects_a_stop_outside_the_lesson(self):
        with pytest.raises(ValueError, match=r"step in 0\.\.4"):
            wt.stop_index(wt.Stop(0, 5), 4)
        with pytest.raises(ValueError, match=r"row in 0\.\.3"):
            wt.reached_cells(wt.Stop(4, 0), 4)


class TestNextAndPreviousStop:
    def test_softmax_follows_the_last_pair_and_leads_to_the_next_row(self):
        assert wt.next_stop(wt.Stop(0, 3), 4) == wt.Stop(0, 4)
        assert wt.next_stop(wt.Stop(0, 4), 4) == wt.Stop(1, 0)
        assert wt.previous_stop(wt.Stop(1, 0), 4) == wt.Stop(0, 4)

    def test_ends_stay_put(self):
        assert wt.previous_stop(wt.Stop(0, 0), 4) == wt.Stop(0, 0)
        assert wt.next_stop(wt.Stop(3, 4), 4) == wt.Stop(3, 4)

    @given(st.integers(1, 6), st.data())
    def test_previous_undoes_next_inside_the_lesson(self, n, data):
        stops = wt.lesson_stops(n)
        stop = data.draw(st.sampled_from(stops[:-1]))
        assert wt.previous_stop(wt.next_stop(stop, n), n) == stop


class TestReachedCells:
    def test_first_stop_reaches_only_the_first_cell(self):
        reached = wt.reached_cells(wt.Stop(0, 0), 4)
        assert reached.sum() == 1 and reached[0, 0]

    def test_softmax_stop_completes_the_row(self):
        reached = wt.reached_cells(wt.Stop(2, 4), 4)
        assert reached[:3].all() and not reached[3].any()

    @given(st.integers(1, 6))
    def test_grows_by_one_cell_per_pair_and_never_shrinks(self, n):
        previous = np.zeros((n, n), dtype=bool)
        for stop in wt.lesson_stops(n):
            reached = wt.reached_cells(stop, n)
            assert (reached | previous).sum() == reached.sum()  # superset
            expected = stop.row * n + min(stop.step + 1, n)
            assert reached.sum() == expected
            previous = reached


class TestPairSteps:
    def test_textbook_first_row(self):
        first = row_of(STEPS, 0)
        assert [s.score for s in first] == pytest.approx([1.0, 0.5, -0.1, 0.7])
        assert [s.content for s in first] == pytest.approx([0.9, 0.7, 0.4, 1.2])
        assert [s.position for s in first] == pytest.approx([0.1, -0.2, -0.5, -0.5])
        assert [round(s.weight, 3) for s in first] == [0.373, 0.226, 0.124, 0.276]

    def test_offset_plus_three_reuses_the_plus_two_entry(self):
        pair = STEPS[3]
        assert (pair.offset, pair.clipped, pair.table_row, pair.embedding) == (3, 2, 4, -0.5)
        assert pair.is_clipped and not STEPS[2].is_clipped

    def test_row_three(self):
        assert [s.score for s in row_of(STEPS, 2)] == pytest.approx([0.48, 0.88, 0.4, 0.8])

    @settings(max_examples=40)
    @given(walkthrough_scenarios())
    def test_matches_the_plain_loop_reference(self, scenario):
        steps = wt.pair_steps(scenario)
        n, k = scenario.n, scenario.k
        q, keys, table = scenario.queries, scenario.keys, scenario.table
        scores = reference.content(q, keys) + reference.biases(q, table, n)
        weights = reference.softmax_rows(scores)
        for step in steps:
            i, j = step.i, step.j
            assert step.clipped == reference.clip(j - i, k)
            assert step.embedding == table[reference.clip(j - i, k) + k]
            assert step.content == pytest.approx(q[i] * keys[j], abs=1e-12)
            assert step.position == pytest.approx(q[i] * step.embedding, abs=1e-12)
            assert step.score == pytest.approx(scores[i, j], abs=1e-12)
            assert step.weight == pytest.approx(weights[i][j], abs=1e-12)


class TestRowShift:
    def test_textbook_row_one(self):
        shift = wt.row_shift(RESULT, 0)
        assert (shift.facts.gainers, shift.facts.losers) == ((0,), (3,))
        assert (shift.facts.content_top, shift.facts.top) == ((3,), (0,))
        assert round(shift.content_weights[0], 3) == 0.265 and round(shift.weights[0], 3) == 0.373
        assert round(shift.content_weights[3], 3) == 0.358 and round(shift.weights[3], 3) == 0.276

    @settings(max_examples=40)
    @given(walkthrough_scenarios(), st.data())
    def test_gainers_gain_and_losers_lose(self, scenario, data):
        row = data.draw(st.integers(0, scenario.n - 1))
        shift = wt.row_shift(scenario.attention(), row)
        assert shift.changes.sum() == pytest.approx(0.0, abs=1e-12)  # both rows sum to 1
        # a row whose bias is one number throughout changes by rounding noise only, e.g. −1.4e−17: nothing named
        facts = shift.facts
        assert all(shift.changes[j] > 0 for j in facts.gainers) and all(shift.changes[j] < 0 for j in facts.losers)
        if facts.gainers:
            assert shift.changes.max() == pytest.approx(shift.changes[facts.gainers[0]], abs=10.0**-facts.decimals)

    def test_k_zero_changes_no_weight(self):
        scenario = relpos.Scenario(TEXTBOOK.queries, TEXTBOOK.keys, (0.7,))
        shift = wt.row_shift(scenario.attention(), 1)
        np.testing.assert_allclose(shift.changes, 0.0, atol=1e-12)
        assert shift.bias_spread == pytest.approx(0.0)

    def test_rejects_a_row_outside_the_matrix(self):
        with pytest.raises(ValueError, match=r"row must be a query index in 0\.\.3"):
            wt.row_shift(RESULT, 4)


class TestTakeaway:
    def test_textbook_row_one_is_computed_from_the_numbers(self):
        sentences = wt_text.takeaway(wt.row_shift(RESULT, 0), row_of(STEPS, 0))
        assert sentences[0].startswith("Key 1 (offset 0) gained the most weight: 0.265 → 0.373 (+0.108), because ")
        assert sentences[1] == (
            "Key 4 (offset +3, clipped to +2) lost the most weight: 0.3576 → 0.2764 (−0.0812), because its position "
            "term −0.50 is below the row's log-mean-exp."
        )
        assert "Content alone would attend most to key 4" in sentences[2] and "key 1 gets the most" in sentences[2]
        derivation = wt_text.takeaway_derivation(wt.row_shift(RESULT, 0), row_of(STEPS, 0))
        assert derivation[1].startswith(
            "Key 4 (offset +3, clipped to +2): its position term −0.50 "
            "is below the row's content-weighted log-mean-exp T = log Σₗ wₗ·e^(bₗ) = −0.2425"
        )

    def test_change_is_the_rounded_true_difference_as_in_the_explorer(self):
        """The takeaway said −0.082 (rounded weights subtracted), the Explorer −0.081; then both printed
        0.358 → 0.276 (−0.081), which a reader subtracts to −0.082 (issue 37): 4 decimals make both agree."""
        captions = explain.explorer_captions(RESULT)["difference"]
        for row in range(4):
            shift = wt.row_shift(RESULT, row)
            for sentence in wt_text.takeaway(shift, row_of(STEPS, row))[:2]:
                key, change = re.search(r"Key (\d).*\(([+−]\d\.(\d+))\)", sentence).groups()[:2]
                true = shift.weights[int(key) - 1] - shift.content_weights[int(key) - 1]
                assert change == signed(true, len(change) - 3, fixed=True)
        assert "(0.3576 → 0.2764), because " in captions and "−0.0812 (0.3576 → 0.2764)" in captions
        assert "(−0.0812)" in wt_text.takeaway(wt.row_shift(RESULT, 0), row_of(STEPS, 0))[1]

    def test_constant_position_term_explains_the_unchanged_weights(self):
        scenario = relpos.Scenario(TEXTBOOK.queries, TEXTBOOK.keys, (0.7,))
        steps = wt.pair_steps(scenario)
        (sentence,) = wt_text.takeaway(wt.row_shift(scenario.attention(), 0), row_of(steps, 0))
        assert sentence.startswith("No weight changed") and "+0.7" in sentence

    def test_no_offset_wording_the_reference_forbids(self):
        for row in range(4):
            text = " ".join(wt_text.takeaway(wt.row_shift(RESULT, row), row_of(STEPS, row)))
            assert "same position" not in text and "anti-diagonal" not in text

    def test_rejects_steps_of_the_wrong_length(self):
        with pytest.raises(ValueError, match="one PairStep per key"):
            wt_text.takeaway(wt.row_shift(RESULT, 0), STEPS[:3])


class TestNumberText:
    @pytest.mark.parametrize(
        ("value", "text"),
        [(1.0, "1.0"), (-0.1, "-0.1"), (0.1 + 0.2, "0.3"), (-0.0, "0.0"), (1e-7, "0.0"), (10, "10.0")],
    )
    def test_short_number(self, value, text):
        assert wt_text.short_number(value) == text

    @pytest.mark.parametrize(
        ("args", "text"), [((0.108, 3), "+0.108"), ((-0.5,), "−0.5"), ((3, 0), "+3"), ((0.0,), "0"), ((-2, 0), "−2")]
    )
    def test_signed(self, args, text):
        assert wt_text.signed(*args) == text


class TestPairLatex:
    def test_substitutes_every_stage_of_the_clipped_pair(self):
        latex = wt_text.pair_latex(STEPS[3])
        for piece in (
            "j - i = 4 - 1 = +3",
            r"\operatorname{clip}(+3,\, 2) = +2",
            "> k = 2",
            "+2 + 2 = 4",
            "a^K_{+2} = -0.5",
            r"q_{1} \cdot k_{4} = 1.0 \times 1.2 = 1.2",
            r"1.0 \times (-0.5) = -0.5",
            "e_{1,4} &= 1.2 + (-0.5) = 0.7",
        ):
            assert piece in latex, piece

    def test_unclipped_pair_says_kept(self):
        assert r"\le k = 2" in wt_text.pair_latex(STEPS[0]) and "kept" in wt_text.pair_latex(STEPS[0])

    def test_every_textbook_score_appears_rounded(self):
        for step in STEPS:
            assert wt_text.pair_latex(step).endswith(f"= {wt_text.short_number(step.score)}" + r"\end{aligned}")


class TestPairSentence:
    def test_wording(self):
        assert (
            wt_text.pair_sentence(STEPS[0]) == "Key 1 is at offset 0 from query 1, so it reads the entry of offset 0."
        )
        assert (
            wt_text.pair_sentence(STEPS[4]) == "Key 1 is 1 position before query 2, so it reads the entry of offset −1."
        )
        assert "reuses the entry of offset −2" in wt_text.pair_sentence(STEPS[12])


class TestOffsetMapNote:
    def test_counts_the_clipped_cells_of_this_k(self):
        note = wt_text.offset_map_note(STEPS)
        assert "The 2 cells marked ✕ are more than k = 2 apart" in note and "+3→+2" in note
        assert "**diagonal**" in note and "anti" not in note
        k_one = relpos.Scenario(TEXTBOOK.queries, TEXTBOOK.keys, (0.4, 0.1, -0.2))
        assert "The 6 cells" in wt_text.offset_map_note(wt.pair_steps(k_one))

    def test_nothing_clipped(self):
        k_three = relpos.Scenario(TEXTBOOK.queries, TEXTBOOK.keys, (0.0,) * 7)
        assert "nothing is clipped" in wt_text.offset_map_note(wt.pair_steps(k_three))

    def test_rejects_no_steps(self):
        with pytest.raises(ValueError, match="at least one"):
            wt_text.offset_map_note([])


class TestSoftmaxLatex:
    def test_row_three_scores_and_weights(self):
        latex = wt_text.softmax_latex(row_of(STEPS, 2))
        assert r"\operatorname{softmax}(0.48,\ 0.88,\ 0.4,\ 0.8)" in latex
        assert r"(0.209,\ 0.311,\ 0.193,\ 0.287)" in latex

    def test_rejects_an_empty_row(self):
        with pytest.raises(ValueError, match="row_steps"):
            wt_text.softmax_latex([])


class TestParseValue:
    @pytest.mark.parametrize(
        ("text", "value"),
        [
            ("2", 2.0),
            ("-0.5", -0.5),
            ("  +1.25 ", 1.25),
            (".5", 0.5),
            ("1e-1", 0.1),
            ("−0.3", -0.3),
            ("0,5", 0.5),
            ("-10", -10.0),
            ("10", 10.0),
            ("-0", 0.0),
        ],
    )
    def test_accepts_plain_numbers(self, text, value):
        parsed, message = wt.parse_value(text, name="q₁")
        assert message is None and parsed == value
        assert math.copysign(1.0, parsed) == math.copysign(1.0, value) or value == 0

    @pytest.mark.parametrize(
        "text", ["abc", "nan", "inf", "-inf", "1_0", "0x1A", "1,000.5", "1.2.3", "2+3", "<b>1</b>", "١", "1e", "--1"]
    )
    def test_rejects_what_is_not_a_number(self, text):
        value, message = wt.parse_value(text, name="k₂")
        assert value is None
        assert message.startswith("k₂: “") and "is not a number" in message and "from −10 to 10" in message

    @pytest.mark.parametrize("text", ["10.01", "-11", "1e3", "1e400"])
    def test_rejects_out_of_range(self, text):
        value, message = wt.parse_value(text, name="q₁")
        assert value is None and "outside the allowed range" in message and "from −10 to 10" in message

    @pytest.mark.parametrize("text", ["", "   ", None])
    def test_rejects_empty(self, text):
        assert wt.parse_value(text, name="q₁") == (None, "q₁ is empty. Type a number from −10 to 10.")

    def test_long_and_hostile_text_is_quoted_short_and_escaped(self):
        _, message = wt.parse_value("[x](http://e.vil)" + "9" * 100_000, name="q₁")
        assert len(message) < 200
        assert "](" not in message and r"\[x\]\(http" in message


class TestResizeTable:
    def test_shrinks_to_the_inner_entries(self):
        assert wt.resize_table(TEXTBOOK.table, 1) == (0.4, 0.1, -0.2)
        assert wt.resize_table(TEXTBOOK.table, 0) == (0.1,)

    def test_grows_with_remembered_values_first(self):
        assert wt.resize_table((0.4, 0.1, -0.2), 2, {-2: -0.3, 2: -0.5, 5: 9.0}) == TEXTBOOK.table
        assert wt.resize_table(TEXTBOOK.table, 3) == (-0.3, -0.3, 0.4, 0.1, -0.2, -0.5, -0.5)

    @settings(max_examples=30)
    @given(walkthrough_scenarios(), st.integers(0, 3))
    def test_growing_with_edge_copies_changes_no_score(self, scenario, extra):
        grown = relpos.Scenario(scenario.queries, scenario.keys, wt.resize_table(scenario.table, scenario.k + extra))
        np.testing.assert_allclose(grown.attention().scores, scenario.attention().scores, atol=1e-12)

    @pytest.mark.parametrize(
        ("table", "k", "message"),
        [
            ((1.0, 2.0), 1, "odd number"),
            ((1.0,), -1, "k must be"),
            ((1.0,), True, "k must be"),
            ((1.0,), 1.5, "k must be"),
        ],
    )
    def test_rejects_bad_arguments(self, table, k, message):
        with pytest.raises(ValueError, match=message):
            wt.resize_table(table, k)


class TestChangesFrom:
    def test_the_textbook_has_no_changes(self):
        assert wt.changes_from(TEXTBOOK, TEXTBOOK) == ()

    def test_names_each_changed_number_from_one(self):
        edited = relpos.Scenario((1.0, 0.5, 0.8, 0.3), (0.9, 0.7, 0.4, 2.0), (-0.3, 0.4, 0.1, -0.25, -0.5))
        assert wt.changes_from(edited, TEXTBOOK) == ("k₄ = 2.0 instead of 1.2", "aᴷ₊₁ = −0.25 instead of −0.2")

    def test_a_new_k_alone_is_one_change(self):
        grown = relpos.Scenario(TEXTBOOK.queries, TEXTBOOK.keys, wt.resize_table(TEXTBOOK.table, 3))
        assert wt.changes_from(grown, TEXTBOOK) == ("k = 3 instead of 2",)

    @settings(max_examples=30)
    @given(walkthrough_scenarios())
    def test_no_changes_exactly_when_equal(self, scenario):
        assert (wt.changes_from(scenario, TEXTBOOK) == ()) == (scenario == TEXTBOOK)


class TestStepFrame:
    def test_sixteen_rows_that_match_relative_attention(self):
        frame = step_tables.step_frame(STEPS)
        assert frame.shape == (16, 12)
        assert list(frame.columns) == list(step_tables.STEP_COLUMNS)
        np.testing.assert_array_equal(frame["i"], np.repeat(np.arange(1, 5), 4))
        np.testing.assert_array_equal(frame["j"], np.tile(np.arange(1, 5), 4))
        np.testing.assert_array_equal(frame["offset j−i"].to_numpy().reshape(4, 4), relpos.relative_offsets(4))
        np.testing.assert_array_equal(frame["clipped offset"].to_numpy().reshape(4, 4), RESULT.offsets)
        for column, field in (
            ("q_i·k_j", "content"),
            ("q_i·aᴷ", "bias"),
            ("score", "scores"),
            ("content-only weight", "content_weights"),
            ("combined weight", "weights"),
        ):
            np.testing.assert_allclose(frame[column].to_numpy().reshape(4, 4), getattr(RESULT, field), atol=1e-15)

    def test_rejects_no_steps(self):
        with pytest.raises(ValueError, match="at least one"):
            step_tables.step_frame([])


class TestPartialScoreHeatmap:
    def test_unreached_cells_are_blank(self):
        reached = wt.reached_cells(wt.Stop(0, 1), 4)
        fig = walkthrough_figures.partial_score_heatmap(RESULT.scores, reached, "t", current=[(0, 1)])
        z = np.array(fig.data[0].z, dtype=float)
        assert np.isnan(z).sum() == 14
        np.testing.assert_allclose(z[0, :2], [1.0, 0.5])
        assert fig.data[0].text[0][:3] == ["1.00", "0.50", ""]
        assert fig.layout.plot_bgcolor == style.LIGHT.blank_cell
        assert {(s.x0, s.y0) for s in fig.layout.shapes} == {(0.5, -0.5)}

    def test_colour_range_is_fixed_by_the_caller(self):
        fig = walkthrough_figures.partial_score_heatmap(RESULT.scores, np.eye(4, dtype=bool), "t", limit=2.0)
        assert (fig.data[0].zmin, fig.data[0].zmax, fig.data[0].zmid) == (-2.0, 2.0, 0.0)

    def test_rejects_mismatched_shapes(self):
        with pytest.raises(ValueError, match="reached must have the shape"):
            walkthrough_figures.partial_score_heatmap(RESULT.scores, np.ones((3, 4), dtype=bool), "t")


class TestWeightBarsFigure:
    def test_grouped_bars_with_printed_values(self):
        shift = wt.row_shift(RESULT, 0)
        fig = walkthrough_figures.weight_bars_figure(shift.content_weights, shift.weights, "t")
        assert fig.layout.barmode == "group"
        assert fig.data[0].text == ("0.265", "0.217", "0.161", "0.358")
        assert fig.data[1].text == ("0.373", "0.226", "0.124", "0.276")
        assert fig.layout.yaxis.range[0] == 0

    def test_rejects_mismatched_rows(self):
        with pytest.raises(ValueError, match="1-D of one length"):
            walkthrough_figures.weight_bars_figure([0.5, 0.5], [1.0], "t")


class TestTableStripFigure:
    def test_one_cell_per_offset_with_the_used_one_outlined(self):
        fig = walkthrough_figures.table_strip_figure(TEXTBOOK.table, "t", used=[2])
        np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), [list(TEXTBOOK.table)])
        assert {s.x0 for s in fig.layout.shapes} == {3.5}

    def test_rejects_an_even_table(self):
        with pytest.raises(ValueError, match="odd number"):
            walkthrough_figures.table_strip_figure([1.0, 2.0], "t")


class TestOffsetMapMarkers:
    def test_clipped_cells_are_marked_in_their_corner(self):
        fig = offset_map_figure(4, 4, 1, title="t")
        markers = fig.data[1]
        cells = {(round(y + 0.3), round(x - 0.32)) for x, y in zip(markers.x, markers.y, strict=True)}
        assert cells == {(0, 2), (0, 3), (1, 3), (2, 0), (3, 0), (3, 1)}


class TestMinimumFonts:
    def test_raises_small_text_and_keeps_larger_text(self):
        fig = walkthrough_figures.highlight_cells(
            heatmaps.score_heatmap([[1.0]], "t", look=style.HeatmapStyle(height=300)), [(0, 0)]
        )
        fig.update_layout(title={"font": {"size": 30}})
        walkthrough_figures.minimum_fonts(fig, 20)
        assert fig.data[0].textfont.size == 20 and fig.layout.font.size == 20
        assert fig.layout.xaxis.tickfont.size == fig.layout.yaxis.title.font.size == 20
        assert fig.layout.title.font.size == 30
        assert fig.layout.height == 300
