"""Issue 37's families: one verdict per claim, printed arithmetic that adds up, tolerances that
never accept a slip, and advice only where it holds.

Each family has a property over the adversarial strategies of tests/support/strategies.py (or a
grid of quiz seeds), and each example of the issue a test that failed before its fix.
"""

from __future__ import annotations

import re

from hypothesis import given, settings

from relpos.classroom import model as class_model
from relpos.core.examples import Scenario
from relpos.topics.walkthrough import live
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import text as wt_text
from relpos.topics.walkthrough.controls import Lesson
from tests.support.strategies import hard_scenarios

# ---------------------------------------------------------------- one verdict per claim


def lesson_at(scenario: Scenario, stop: wt.Stop) -> Lesson:
    """The walkthrough's lesson at `stop`, as the page builds it."""
    result = scenario.attention()
    return Lesson(scenario, result, wt.pair_steps(scenario, result), stop, False, ())


def class_question(scenario: Scenario, stop: wt.Stop) -> class_model.Question:
    """The one question the teacher can ask at `stop`, as :func:`live.ask_options` makes it."""
    ((_, ask),) = live.ask_options(lesson_at(scenario, stop))
    return ask()


def takeaway_text(scenario: Scenario, row: int) -> str:
    result, n = scenario.attention(), scenario.n
    steps = wt.pair_steps(scenario, result)
    return " ".join(wt_text.takeaway(wt.row_shift(result, row), steps[row * n : (row + 1) * n]))


#: A takeaway's gain claim: ``Key 2 (offset 0) gained the most weight[, tied with key 3]:``.
GAINED = re.compile(r"Key (\d+) \([^)]*\) gained the most weight(, tied with [^:]+)?:")


def check_verdict_agrees(scenario: Scenario, row: int) -> str:
    """The class question's true answer, a right student's feedback and the takeaway say one thing."""
    question = class_question(scenario, wt.Stop(row, scenario.n))
    claims = GAINED.findall(takeaway_text(scenario, row))
    if not claims:
        assert question.expected == live.NO_GAIN, (question.expected, takeaway_text(scenario, row))
    elif len(claims) == 1:
        assert not claims[0][1] and question.expected == f"key {claims[0][0]}", (question.expected, claims)
    else:
        assert question.expected == live.TIE, (question.expected, claims)
    assert class_model.grade(question, question.expected).correct
    wrong = [other for other in question.choices if other != question.expected]
    assert not any(class_model.grade(question, other).correct for other in wrong)
    return question.expected


class TestOneVerdict:
    """Family 1: the class's "which key gains most" answer is the takeaway's."""

    def test_issue_example_key_2_gains_most(self):
        """/worked_example?i=2&j=softmax&k=1&q=-0.4,0.02,-0.51,-0.62&keys=1.46,1.97,-0.53,-0.25&a=0.29,0.47,-0.02:
        the takeaway says key 2 gained most (+0.0015 against +0.0005), so key 2 is right, not a tie."""
        scenario = Scenario((-0.4, 0.02, -0.51, -0.62), (1.46, 1.97, -0.53, -0.25), (0.29, 0.47, -0.02))
        assert check_verdict_agrees(scenario, 1) == "key 2"
        question = class_question(scenario, wt.Stop(1, 4))
        assert class_model.grade(question, "key 2").message == "Right."

    def test_k_0_offers_no_tie_of_gains(self):
        """k = 0: nothing moves, so the answer says no key gains, not "a tie: equal gains"."""
        scenario = Scenario((0.5, 1.0, -1.0, 0.2), (0.3, -0.2, 1.0, 0.0), (0.4,))
        assert check_verdict_agrees(scenario, 1) == live.NO_GAIN

    def test_constant_table_and_saturated_row(self):
        constant = Scenario((0.5, 1.0, -1.0, 0.2), (0.3, -0.2, 1.0, 0.0), (0.7, 0.7, 0.7))
        saturated = Scenario((10.0, 1.0, -1.0, 0.2), (10.0, -10.0, -10.0, -10.0), (0.5, 0.0, -0.5))
        assert check_verdict_agrees(constant, 0) == live.NO_GAIN
        assert check_verdict_agrees(saturated, 0) == live.NO_GAIN

    @settings(max_examples=300, deadline=None)
    @given(hard_scenarios())
    def test_every_softmax_stop_agrees_with_its_takeaway(self, drawn):
        scenario = drawn[0]
        for row in range(scenario.n):
            check_verdict_agrees(scenario, row)
