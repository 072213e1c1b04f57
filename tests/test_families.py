"""Concrete settings where a sentence is easy to get wrong, one test each, grouped by family.

1. a saturated softmax is not "small position terms"; 2. ties are not a single winner;
3. a verdict agrees with the numbers printed beside it; 4. a label says what is computed
(the 1/√d included). The properties in tests/test_sentences.py guard the families in
general; these pin the examples.
"""

from __future__ import annotations

import re

import numpy as np

import relpos
from relpos.core.examples import Scenario
from relpos.plots import panels
from relpos.quizbank import checking as quiz
from relpos.quizbank.model import Question
from relpos.text import explain
from relpos.topics.position_effects import text as position_effects_text
from relpos.topics.schemes import figures as schemes_plots
from relpos.topics.training import figures as training_plots
from relpos.topics.training import text as training_text
from relpos.topics.value_side.schema import VALUE_SIDE
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import text as wt_text
from tests.support.apptest import open_app

TEXTBOOK = relpos.worked_example()


def takeaway(scenario: Scenario, row: int) -> str:
    result = scenario.attention()
    n = scenario.n
    steps = wt.pair_steps(scenario, result)
    return " ".join(wt_text.takeaway(wt.row_shift(result, row), steps[row * n : (row + 1) * n]))


class TestSaturation:
    """Family 1: weights pinned by content are not blamed on small position terms."""

    def test_walkthrough_row_saturated_by_content(self):
        """q=10,…&keys=10,0,0,0: the terms span 6.0; content (100 vs 0) pins the softmax."""
        scenario = Scenario((10.0, *TEXTBOOK.queries[1:]), (10.0, 0.0, 0.0, 0.0), TEXTBOOK.table)
        text = takeaway(scenario, 0)
        assert "too small" not in text
        assert "saturates" in text and "span 6.00" in text and "key 1" in text

    def test_walkthrough_row_whose_terms_really_are_small(self):
        scenario = Scenario(TEXTBOOK.queries, TEXTBOOK.keys, (0.0, 0.0, 0.0, 0.0001, 0.0))
        text = takeaway(scenario, 0)
        assert "saturates" not in text and "span only 0.0001" in text

    def test_explorer_saturated_rows(self):
        """n=2&k=1&q=2,2&keys=2,-2&a=2,0,-2: the bias spread is 4.0, not "too close to matter"."""
        result = relpos.relative_attention([[2.0], [2.0]], [[2.0], [-2.0]], A_K=[[2.0], [0.0], [-2.0]])
        caption = explain.explorer_captions(result)["difference"]
        assert "too close" not in caption
        assert "saturates" in caption and "4.00" in caption


class TestTies:
    """Family 2: every "most / largest / top" claim names every tied key."""

    K1 = Scenario(TEXTBOOK.queries, TEXTBOOK.keys, wt.resize_table(TEXTBOOK.table, 1))

    def test_textbook_k1_keys_one_and_four_tie(self):
        """Keys 1 and 4 both end at 0.327: both are named, not "key 1 gets the most weight"."""
        text = takeaway(self.K1, 0)
        assert "key 1 gets the most weight" not in text
        assert "keys 1 and 4 tie for the most weight (0.327 each)" in text

    def test_content_tie(self):
        """Content alone ties keys 1 and 4 (equal keys): not "attend most to key 1"."""
        scenario = Scenario(TEXTBOOK.queries, (0.9, 0.7, 0.4, 0.9), TEXTBOOK.table)
        text = takeaway(scenario, 0)
        assert "attend most to key 1;" not in text
        assert "Content alone ties keys 1 and 4" in text

    def test_all_four_equal(self):
        """All four content weights 0.250: no key gets "the most"."""
        scenario = Scenario(TEXTBOOK.queries, (0.5, 0.5, 0.5, 0.5), TEXTBOOK.table)
        text = takeaway(scenario, 0)
        assert "Content alone gives every key the same weight (0.250)" in text
        result = relpos.relative_attention(np.zeros((4, 1)), np.ones((4, 1)), A_K=np.zeros((5, 1)))
        captions = explain.explorer_captions(result)
        assert "key 1" not in captions["content_weights"] and "every key" in captions["content_weights"]
        assert "key 1" not in captions["weights"] and "every key" in captions["weights"]

    def test_scores_caption_new_top_is_a_tie_without_the_old_top(self):
        """Row 1: content tops at key 1; with the biases keys 2 and 3 tie above it."""
        result = relpos.relative_attention([[1.0], [0.0], [0.0]], [[1.0], [0.0], [0.0]], A_K=[[0.0], [0.0], [2.0]])
        caption = explain.explorer_captions(result)["scores"]
        assert "no row changes its top key" not in caption
        assert "In row 1 the top score moves from key 1" in caption and "to keys 2 and 3 (2.00 each)" in caption


class TestVerdicts:
    """Family 3: a verdict agrees with what it shows."""

    QUESTION = Question(
        kind="score",
        title="t",
        prompt="p",
        answer_kind="number",
        expected=-0.28,
        solution=(),
        explanation="",
        n=4,
        k=2,
        tolerance=0.01,
    )

    def test_quiz_shows_what_was_typed(self):
        """A typed −0.2691 is shown as −0.2691 (not −0.27) with its distance 0.0109, so "wrong" is visibly right."""
        feedback = quiz.check_answer(self.QUESTION, "-0.2691")
        assert feedback.status == "wrong"
        assert "−0.27," not in feedback.message
        assert "you typed −0.2691" in feedback.message and "0.0109 from it" in feedback.message

    def test_quiz_correct_states_the_rule_applied(self):
        feedback = quiz.check_answer(self.QUESTION, "-0.2735")
        assert feedback.status == "correct"
        assert "you typed −0.2735, 0.0065 from it" in feedback.message

    def test_weight_grows_solution_shows_every_change(self):
        """Every key's weight prints differently before and after (never 0.22 → 0.22), in the claimed direction."""
        for seed in range(300):
            question = quiz.make_quiz(seed)[2]
            line = next(line for line in question.solution if r"\;\to\;" in line)
            before, after = ([float(v) for v in re.findall(r"-?\d+\.\d+", side)] for side in line.split(r"\;\to\;"))
            grew = {j for j in range(len(before)) if after[j] > before[j]}
            shrank = {j for j in range(len(before)) if after[j] < before[j]}
            assert {j + 1 for j in grew} == set(question.expected), (seed, line)
            assert len(grew) + len(shrank) == len(before), (seed, line)

    def test_huge_factor_is_readable(self):
        """A factor e^(bⱼ − T) of 10^86 prints in E notation, not as 87 digits."""
        text = explain.weight_shift_reason([1 - 1e-100, 1e-100], [0.0, 200.0], 1)
        assert not re.search(r"\d{8}", text), text
        assert "e^(bⱼ − T) = 7.23e86" in text

    def test_out_of_range_entry_is_named_not_counted(self):
        """An entry out of range is named by its place ("entry 3: 3 is …"), not a bare "got 3" (a count?)."""
        (problem,) = VALUE_SIDE.decode({"v": "0,0,3,0"}).problems
        assert "got 3" not in problem
        assert "entry 3: 3 is outside −2 to 2" in problem
        (problem,) = VALUE_SIDE.decode({"v": "0,x,0,0"}).problems
        assert "entry 2: “x” is not a number" in problem


def table_titles(at) -> list[str]:
    """The bold one-line titles of the screen-reader tables."""
    return [element.value for element in at.markdown if element.value.startswith("**") and "\n" not in element.value]


class TestLabels:
    """Family 4: a label says what is computed, 1/√d included."""

    D2 = relpos.relative_attention(
        [[1.0, 0.5], [0.2, -0.4], [0.6, 0.1]],
        [[0.3, 0.2], [0.5, -0.1], [0.2, 0.4]],
        A_K=[[0.3, -0.2], [0.5, 0.4], [-0.1, 0.2]],
    )

    def test_plain_titles_carry_the_scale(self):
        assert panels.plain_title("content", d=2) == "content  q_i·k_j/√2"
        assert panels.plain_title("bias", d=2) == "position bias  q_i·a^K_clip(j−i)/√2"
        assert panels.plain_title("content") == "content  q_i·k_j"
        assert panels.plain_title("bias", scalar=True) == "position bias  b_clip(j−i)  (query-independent)"
        assert panels.plain_title("content", position_effects=True) == "content scores  q_i·k_j/√d_k"

    def test_diagonal_note_and_bias_caption_at_d2(self):
        """At d = 2 the printed biases are qᵢ·aᴷ₀/√2, and the note and caption say so."""
        A = np.array([[0.3, -0.2], [0.5, 0.4], [-0.1, 0.2]])
        Q = np.array([[1.0, 0.5], [0.2, -0.4], [0.6, 0.1]])
        note = explain.diagonal_note(Q, A, self.D2)
        assert "each is qᵢ·aᴷ₀/√2" in note
        caption = explain.explorer_captions(self.D2, d=2)["bias"]
        assert "the bias is qᵢ·aᴷ/√2" in caption
        assert "qᵢ·aᴷ/√16" in position_effects_text.position_effects_captions(self.D2, (), d=16)["bias"]

    def test_explorer_tables_at_d2(self):
        at = open_app("explorer", query={"d": "2"})
        at.session_state["explorer.tables"] = True
        at.run()
        titles = table_titles(at)
        assert "**content  q_i·k_j/√2**" in titles and "**position bias  q_i·a^K_clip(j−i)/√2**" in titles

    def test_explorer_scalar_table(self):
        at = open_app("explorer", query={"bias": "scalar"})
        at.session_state["explorer.tables"] = True
        at.run()
        titles = table_titles(at)
        assert "**position bias  b_clip(j−i)  (query-independent)**" in titles
        assert not any("a^K" in title for title in titles)

    def test_position_effects_tables(self):
        at = open_app("position_effects")
        at.session_state["position_effects.tables"] = True
        at.run()
        titles = table_titles(at)
        assert "**content scores  q_i·k_j/√d_k**" in titles
        assert "**position biases  q_i·a^K_clip(j−i)/√d_k**" in titles


class TestTrainingTies:
    """Family 2 on the training page: biases that print alike are tied, in the sentence and the orange bars."""

    def test_bias_summary_names_a_tie_at_two_decimals(self):
        """2.001 and 1.999 both print 2.00: not "0.00 above the next largest (2.00 …)"."""
        text = training_text.bias_summary([-2, -1, 0], [2.001, 1.999, 0.5], step=10)
        assert "0.00 above" not in text
        assert text.startswith("After 10 steps the largest bias is at offsets −2 to −1 (2.00), 1.50 above")

    def test_trained_preset_note_names_every_tied_offset(self):
        note = position_effects_text.trained_preset_note(
            "previous token",
            length=16,
            steps=400,
            seed=0,
            d=16,
            biases=[0.5, 2.001, 1.999],
            accuracy=1.0,
            k=2,
            strength=2.0,
            flat=False,
        )
        assert "(largest at offsets −1 to 0)" in note[1]

    def test_orange_bars_are_the_tied_largest(self):
        fig = training_plots.offset_bias_figure([-2, -1, 0], [2.001, 1.999, 0.5], title="t", y_title="y")
        colours = fig.data[0].marker.color
        assert colours[0] == colours[1] != colours[2]


def test_translation_bar_of_a_small_change_does_not_read_zero():
    """Family 3: a bar coloured "changed" for a change of 0.0003 does not read 0.000."""
    fig = schemes_plots.translation_bar_figure({"shaw": np.array([[3e-4]]), "rope": np.array([[0.0]])}, 1)
    labels = list(fig.data[0].text)
    assert labels == ["3.00e−4", "0 (unchanged)"]
