"""Named slips (relpos.quizbank.slips): each slip's value against a plain-Python reference
of the mistaken rule, and the rules for naming one (only when it fits, never the right answer)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relpos.classroom.questions import grade_prediction
from relpos.quizbank import slips
from relpos.quizbank.checking import NUMBER_TOLERANCE, check_answer, check_try, diagnose, make_quiz, question_slips
from relpos.quizbank.model import answer_text

SEEDS = range(0, 300, 3)


def _clip(offset: int, k: int) -> int:
    return max(-k, min(k, offset))


def _by_name(found) -> dict:
    return {slip.name: slip.value for slip in found if slip is not None}


def _softmax(row: list[float]) -> list[float]:
    top = max(row)
    exps = [math.exp(x - top) for x in row]
    return [x / sum(exps) for x in exps]


def _scores_row(scenario, i: int, *, bump=None) -> list[float]:
    """Query i's (from 1) scores e_ij = q_i k_j + q_i a^K_clip(j−i), by hand; `bump(j)` adds to key j's entry."""
    q, k = scenario.queries[i - 1], scenario.k
    row = []
    for j in range(1, scenario.n + 1):
        entry = scenario.table[_clip(j - i, k) + k] + (bump(j) if bump else 0.0)
        row.append(q * scenario.keys[j - 1] + q * entry)
    return row


def _grew(scenario, i: int, bump) -> frozenset[int]:
    before, after = _softmax(_scores_row(scenario, i)), _softmax(_scores_row(scenario, i, bump=bump))
    return frozenset(j + 1 for j in range(scenario.n) if after[j] > before[j] + 1e-12)


class TestScoreSlips:
    @pytest.mark.parametrize("seed", SEEDS)
    def test_each_term_against_plain_arithmetic(self, seed):
        question = make_quiz(seed)[0]
        s, (i, j), k = question.scenario, (question.parameters["i"], question.parameters["j"]), question.k
        q, key = s.queries[i - 1], s.keys[j - 1]
        content = q * key
        position = q * s.table[_clip(j - i, k) + k]
        wrong_row = q * s.table[_clip(i - j, k) + k]
        assert content + position == pytest.approx(question.expected)
        found = _by_name(question_slips(question))
        assert found["you left out the position term"] == pytest.approx(content)
        assert found["you left out the content term"] == pytest.approx(position)
        assert found["you read the table row of i − j"] == pytest.approx(content + wrong_row)
        assert "you forgot to divide by √d" not in found  # d = 1: the scaled score is the score
        if abs(question.expected) > question.tolerance:
            assert found["the sign is flipped"] == pytest.approx(-question.expected)

    def test_the_scale_slip_for_d_2(self):
        queries, keys = [[1.0, 0.5], [0.2, -0.4]], [[0.3, 0.6], [-0.5, 1.0]]
        table = [[0.1, 0.2], [0.3, -0.2], [0.4, 0.7]]  # offsets −1, 0, +1
        found = _by_name(slips.score_slips(queries, keys, table, 1, 2, NUMBER_TOLERANCE))
        content = (1.0 * -0.5 + 0.5 * 1.0) / math.sqrt(2)
        position = (1.0 * 0.4 + 0.5 * 0.7) / math.sqrt(2)  # offset 2 − 1 = +1
        assert found["you left out the position term"] == pytest.approx(content)
        assert found["you left out the content term"] == pytest.approx(position)
        assert found["you forgot to divide by √d"] == pytest.approx((content + position) * math.sqrt(2))
        assert found["you read the table row of i − j"] == pytest.approx(content + (1.0 * 0.1 + 0.5 * 0.2) / 2**0.5)

    def test_seed_42_first_question_typed_content_term_alone(self):
        question = make_quiz(42)[0]
        q, key = question.scenario.queries[0], question.scenario.keys[1]
        assert q * key == pytest.approx(-0.24) and question.expected == pytest.approx(0.48)
        assert [slip.name for slip in diagnose(question, -0.24)] == ["you left out the position term"]


class TestOffsetSlips:
    @given(st.integers(1, 4), st.integers(1, 9), st.integers(1, 9))
    def test_against_plain_clipping(self, k, i, j):
        expected, raw = _clip(j - i, k), j - i
        found = _by_name(slips.offset_slips(expected, k, raw))
        assert found["you used i − j (query minus key)"] == _clip(i - j, k)
        assert found["that is the row's 0-based index in code"] == expected + k  # row r holds offset r − k
        assert found["that counts the rows from the top"] == expected + k + 1
        if abs(raw) > k:
            assert found["you did not clip"] == raw and found["you used i − j and did not clip"] == i - j
        else:  # nothing was clipped: no slip of clipping to name
            assert "you did not clip" not in found

    def test_an_unclipped_offset_is_named(self):
        question = next(
            q for q in (make_quiz(s)[1] for s in range(200)) if abs(q.parameters["j"] - q.parameters["i"]) > q.k
        )
        raw = question.parameters["j"] - question.parameters["i"]
        assert "You did not clip" in check_answer(question, str(raw)).message


class TestWeightGrowsSlips:
    @pytest.mark.parametrize("seed", SEEDS)
    def test_against_a_plain_softmax(self, seed):
        question = make_quiz(seed)[2]
        s, i, k, delta = question.scenario, question.parameters["i"], question.k, question.parameters["delta"]
        assert _grew(s, i, lambda j: delta if _clip(j - i, k) == -1 else 0.0) == question.expected
        found = _by_name(question_slips(question))
        assert found["the sign is flipped"] == _grew(s, i, lambda j: -delta if _clip(j - i, k) == -1 else 0.0)
        assert found["you took the keys at i − j"] == _grew(s, i, lambda j: delta if _clip(i - j, k) == -1 else 0.0)
        assert found["you did not clip"] == _grew(s, i, lambda j: delta if j - i == -1 else 0.0)


def _row_sums(variant: str) -> list[int]:
    return [seed for seed in range(400) if make_quiz(seed)[3].parameters["variant"] == variant][:60]


def _sum_change(scenario, i: int, delta: float, reads) -> float:
    """How much query i's scores add up to more when every key j with `reads(j)` gets `delta` on its entry."""
    bumped = _scores_row(scenario, i, bump=lambda j: delta if reads(j) else 0.0)
    return sum(bumped) - sum(_scores_row(scenario, i))


class TestRowSumSlips:
    @pytest.mark.parametrize("seed", _row_sums("scores"))
    def test_scores_against_plain_sums(self, seed):
        question = make_quiz(seed)[3]
        s, p, k = question.scenario, question.parameters, question.k
        i, offset, delta = p["i"], p["offset"], p["delta"]
        assert _sum_change(s, i, delta, lambda j: _clip(j - i, k) == offset) == pytest.approx(question.expected)
        count = sum(_clip(j - i, k) == offset for j in range(1, s.n + 1))
        found = _by_name(question_slips(question))
        assert found["you counted one key"] == pytest.approx(s.queries[i - 1] * delta)
        assert found["you left out the query"] == pytest.approx(delta * count)
        flipped = _sum_change(s, i, delta, lambda j: _clip(i - j, k) == offset)
        assert found["you counted the keys at i − j"] == pytest.approx(flipped)
        assert found["you did not clip"] == pytest.approx(_sum_change(s, i, delta, lambda j: j - i == offset))

    @pytest.mark.parametrize("seed", _row_sums("weights"))
    def test_weights(self, seed):
        question = make_quiz(seed)[3]
        s, p = question.scenario, question.parameters
        found = _by_name(question_slips(question))
        count = sum(_clip(j - p["i"], question.k) == p["offset"] for j in range(1, s.n + 1))
        assert found["you gave the change, not the sum"] == 0.0
        assert found["the sign is flipped"] == -1.0
        assert found["you answered for the scores"] == pytest.approx(s.queries[p["i"] - 1] * p["delta"] * count)


class TestCellsSlips:
    @pytest.mark.parametrize("seed", SEEDS)
    def test_against_plain_table_lookups(self, seed):
        question = make_quiz(seed)[4]
        n, k_from, k_to = question.n, question.parameters["k_from"], question.parameters["k_to"]
        cells = [(i, j) for i in range(1, n + 1) for j in range(1, n + 1)]
        # row read before and after, by offset label: a change of label is a change of bias
        changed = {(i, j) for i, j in cells if _clip(j - i, k_from) != _clip(j - i, k_to)}
        assert changed == question.expected
        found = [slip.value for slip in question_slips(question)]
        assert frozenset((i, j) for i, j in changed if j > i) in found
        assert frozenset((i, j) for i, j in changed if j < i) in found
        assert frozenset(changed | {(i, j) for i, j in cells if abs(j - i) == k_to}) in found
        assert frozenset((i, j) for i, j in changed if abs(j - i) <= k_from) in found
        assert frozenset(set(cells) - changed) in found


class TestNaming:
    @settings(max_examples=200, deadline=None)
    @given(st.integers(0, 300), st.integers(0, 4), st.integers(-300, 300))
    def test_a_slip_is_named_only_when_it_fits_and_the_answer_does_not(self, seed, number, offset):
        question = make_quiz(seed)[number]
        for slip in question_slips(question):
            if slip is None:
                continue
            typed = slip.value + offset / 10_000 if question.answer_kind == "number" else slip.value
            named = diagnose(question, typed)
            tolerance = question.tolerance
            if question.answer_kind == "number":
                right = abs(typed - question.expected) <= tolerance + 1e-9
                fits = abs(typed - slip.value) <= tolerance - 1e-9
                apart = abs(slip.value - question.expected) > tolerance + 1e-9
            else:
                right, fits, apart = typed == question.expected, True, slip.value != question.expected
            if right:
                assert named == ()
            elif fits and apart:
                assert slip.name in [found.name for found in named]
            for found in named:  # every slip named really gives the typed answer, and is no right answer
                if question.answer_kind == "number":
                    assert abs(found.value - typed) <= tolerance + 1e-9
                    assert abs(found.value - question.expected) > tolerance - 1e-9
                else:
                    assert found.value == typed != question.expected

    def test_two_slips_that_fit_are_both_named(self):
        question = make_quiz(42)[1]  # offset −1 at k = 2: +1 is i − j and the 0-based index
        message = check_answer(question, "+1").message
        assert "fits two slips" in message and "i − j" in message and "0-based index" in message

    @pytest.mark.parametrize("seed", range(0, 120, 4))
    def test_a_first_try_names_the_slip_but_not_the_answer(self, seed):
        for question in make_quiz(seed):
            for slip in filter(None, question_slips(question)):
                typed = "none" if slip.value == frozenset() else answer_text(question.answer_kind, slip.value)
                progress = check_try(question, typed)
                if progress.feedback.status != "retry":
                    continue
                message = progress.feedback.message
                assert slip.name[1:] in message
                for answer in ("the answer is", "the row is", "weights that grow are", "Missing:"):
                    assert answer not in message, message


class TestSignFlip:
    @given(st.floats(-2, 2), st.floats(-2, 2))
    def test_one_rule_for_the_quiz_and_the_live_class(self, value, expected):
        """A flip is named when the value is the expected one negated (within the tolerance, as printed
        to 9 decimals) and the expected value is no zero within the tolerance; the live class's number
        questions name it by the same rule."""
        value = round(value, 6)
        reference = abs(expected) > NUMBER_TOLERANCE and round(abs(value + expected), 9) <= NUMBER_TOLERANCE
        assert slips.flips_sign(value, expected, NUMBER_TOLERANCE) == reference
        if round(abs(value - expected), 9) > NUMBER_TOLERANCE:  # a wrong answer
            assert ("sign is flipped" in grade_prediction(f"{value:.6f}", expected).message) == reference
