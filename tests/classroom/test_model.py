"""The pure rules of a live class (relpos.classroom.model, results, records, qr), by property."""

from __future__ import annotations

import csv
import io
import itertools
import random
import re
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from relpos.classroom import codes, model, questions, records, validation
from relpos.classroom.codes import CODE_ALPHABET
from relpos.classroom.errors import InputError
from relpos.classroom.model import Answer, Class, Pace, Student, decide
from relpos.classroom.qr import qr_svg
from relpos.classroom.questions import choice_question, grade_prediction, number_question, quiz_question
from relpos.classroom.quiz import NUMBER_TOLERANCE
from relpos.classroom.results import aggregate, histogram, results_csv, tally
from relpos.quizbank.checking import check_answer, make_quiz
from relpos.text.facts import distance

texts = st.text(max_size=60) | st.sampled_from(["<script>", "\u202e", "A" * 500, "  ", "0O1IL", "abc-234"])
moderate = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
anything_finite = st.floats(allow_nan=False, allow_infinity=False)


# ---------------------------------------------------------------- codes and credentials


def test_the_alphabet_has_no_character_that_reads_as_another():
    assert not set("0O1IL") & set(CODE_ALPHABET)
    assert len(set(CODE_ALPHABET)) == len(CODE_ALPHABET) == 31


@given(st.integers(0, 2**32), st.integers(4, 8))
def test_codes_use_the_alphabet_and_read_back_however_typed(seed, length):
    code = codes.make_code(random.Random(seed), length)
    assert len(code) == length and set(code) <= set(CODE_ALPHABET)
    typed = " ".join(code.lower()[i : i + 3] for i in range(0, length, 3))
    assert codes.normalise_code(typed) == code


@given(texts)
def test_any_typed_code_is_read_or_refused_with_a_message(text):
    try:
        code = codes.normalise_code(text)
    except InputError as error:
        assert "code" in error.message and len(error.message) < 200
    else:
        assert 4 <= len(code) <= 8 and set(code) <= set(CODE_ALPHABET)


def test_make_code_refuses_lengths_outside_4_to_8():
    for length in (3, 9):
        with pytest.raises(ValueError):
            codes.make_code(length=length)


@given(st.text(max_size=200) | st.none() | st.binary(max_size=20) | st.integers())
def test_only_the_credential_itself_matches_its_hash(guess):
    secret = codes.new_credential()
    stored = codes.credential_hash("ABCD23", secret)
    assert codes.credential_matches("ABCD23", secret, stored)
    assert not codes.credential_matches("ABCD24", secret, stored)
    assert not codes.credential_matches("ABCD23", guess, stored)


def test_links_carry_the_code_and_keep_the_page_query():
    assert codes.join_link("http://h:8501/walkthrough?n=4&class=OLD", "ABC234") == (
        "http://h:8501/walkthrough?n=4&class=ABC234"
    )


# ---------------------------------------------------------------- validation


@given(texts | st.none())
def test_a_nickname_is_safe_plain_text_or_refused_with_what_is_allowed(text):
    try:
        name = validation.validate_nickname(text)
    except InputError as error:
        assert "nickname" in error.message and len(error.message) < 200
        return
    if name is not None:
        assert 0 < len(name) <= model.MAX_NICKNAME and name == name.strip()
        assert all(c in " -_.'" or unicodedata.category(c)[0] in "LMN" for c in name)
        assert not re.search(r"[<>&\[\]()$*`\\]", name)
        assert validation.validate_nickname(name) == name


@given(st.integers(0, 10_000), st.text(max_size=50), st.text(max_size=50))
def test_a_pace_is_refused_or_kept_exactly(index, step, state):
    pace = Pace(True, index, step, state)
    try:
        assert validation.validate_pace(pace) == pace
    except InputError as error:
        assert error.message


def test_questions_refuse_what_a_projector_could_not_show():
    for make in (
        lambda: number_question("", 1.0),
        lambda: number_question("Predict", float("nan")),
        lambda: number_question("Predict", "one"),
        lambda: choice_question("Which?", ["a"], "a"),
        lambda: choice_question("Which?", ["a", "a"], "a"),
        lambda: choice_question("Which?", ["a", "b"], "c"),
        lambda: quiz_question(-1, 0),
        lambda: quiz_question(7, 5),
        lambda: quiz_question("seven", 0),
    ):
        with pytest.raises(InputError):
            make()


# ---------------------------------------------------------------- grading


@given(anything_finite, st.floats(min_value=-10, max_value=10, allow_nan=False))
def test_a_prediction_is_right_exactly_when_the_quiz_would_count_it(typed, expected):
    verdict = grade_prediction(repr(typed), expected)
    assert verdict.value == typed
    assert verdict.correct == (distance(typed, expected) <= NUMBER_TOLERANCE)


def test_a_flipped_sign_is_named_and_rubbish_is_refused_with_the_quiz_message():
    assert "sign is flipped" in grade_prediction("0.5", -0.5).message
    assert "sign" not in grade_prediction("0.004", -0.005).message  # near zero a flip is no slip
    with pytest.raises(InputError, match="not a number; type a decimal"):
        grade_prediction("seven", 0.5)


@pytest.mark.parametrize("index", range(5))
def test_quiz_questions_grade_as_the_quiz_page(index):
    quiz = make_quiz(11)[index]
    question = quiz_question(11, index)
    right = questions.grade(question, quiz.answer_text)
    assert right.correct and check_answer(quiz, quiz.answer_text).status == "correct"
    assert questions.grade(question, right.text).correct  # the stored text grades the same


# ---------------------------------------------------------------- resubmits

submissions = st.lists(st.tuples(st.floats(min_value=0, max_value=3), st.sampled_from("abcd")), max_size=60)


def _answer(text: str, now: float) -> Answer:
    return Answer(1, "token", 1, text, None, text == "a", now, now)


@example([(3.0, "a"), (3.0, "b"), (0.5800234639951172, "a"), (0.567471685527617, "a"), (1.0, "b")])
@given(submissions)
def test_the_latest_accepted_answer_counts_and_changes_are_bounded(sequence):
    stored, now, accepted = None, 0.0, []
    for gap, text in sequence:
        now += gap
        keep, ack = decide(stored, _answer(text, now), now)
        if keep is not None:
            stored = keep
            accepted.append(ack)
        assert ack.answer == stored  # the reply always names the answer that counts
    assert len(accepted) <= 1 + model.MAX_CHANGES
    if accepted:
        assert stored == accepted[-1].answer and stored.changes == len(accepted) - 1
        times = [ack.answer.submitted_at for ack in accepted]
        # the rule's own arithmetic: b − a can round to 0.999… where a + 1 − b is exactly 0
        assert all(a + model.RESUBMIT_SECONDS - b <= 0 for a, b in itertools.pairwise(times))


# ---------------------------------------------------------------- results


@given(st.lists(moderate | anything_finite, max_size=80), moderate, st.integers(1, 20))
def test_every_answer_and_the_truth_fall_in_exactly_one_bin(values, truth, target):
    bins = histogram(values, truth, target)
    assert sum(b.count for b in bins) == len(values)
    assert [b.holds_truth for b in bins].count(True) == 1
    assert all(a.high == b.low for a, b in itertools.pairwise(bins))
    assert all(b.low < b.high for b in bins) and len(bins) <= 3 * target + 3
    assert all(b.label for b in bins)


@given(st.lists(st.sampled_from(["1", "2", "3", "x"]), max_size=40))
def test_choice_counts_add_up_and_keep_every_option(texts):
    counts = tally(texts, ["1", "2", "3"], "2")
    assert sum(c.count for c in counts) == len(texts)
    assert [c.label for c in counts[:3]] == ["1", "2", "3"] and [c.correct for c in counts].count(True) == 1


@given(st.lists(st.tuples(st.integers(1, 30), moderate), max_size=30, unique_by=lambda pair: pair[0]))
def test_results_count_every_acknowledged_answer_once(pairs):
    question = number_question("Predict", 0.5)
    students = [Student(f"t{n}", n, None if n % 3 else f"name {n}", 0.0) for n in range(1, 31)]
    answers = [Answer(1, f"t{n}", n, str(v), v, abs(v - 0.5) <= 0.01, float(n), float(n)) for n, v in pairs]
    results = aggregate(question, answers, students)
    assert results.answered == len(pairs) and sum(b.count for b in results.bins) == len(pairs)
    assert results.progress == f"{len(pairs)} of 30 answered"
    assert results.correct == sum(a.correct for a in answers)
    rows = list(csv.DictReader(io.StringIO(results_csv([results]))))
    assert len(rows) == max(1, len(pairs)) and {row["students"] for row in rows} == {"30"}


# ---------------------------------------------------------------- stored form and QR code


def test_records_read_back_equal():
    question = quiz_question(3, 2, stop="quiz-3")
    record = Class("ABC234", "hash", "quiz", 1.0, 2.0, Pace(False, 3, "quiz-3", "seed=3"), question, None, 4)
    assert records.load_class(records.dump(record)) == record
    assert records.load_question(records.dump(choice_question("Which?", ["a", "b"], "b"))).choices == ("a", "b")
    student = Student("t", 1, "محمد", 0.5)
    assert records.load_student(records.dump(student)) == student


def test_the_qr_code_is_a_self_contained_svg():
    svg = qr_svg(codes.join_link("http://relpos.example/walkthrough", "ABC234"))
    assert svg.startswith("<svg") and svg.endswith("</svg>") and "<path" in svg
    assert re.findall(r"https?://[^\"' ]+", svg) == ["http://www.w3.org/2000/svg"]  # the SVG namespace, no CDN
    assert qr_svg("x") != qr_svg("y")
    with pytest.raises(InputError):
        qr_svg("x" * 5000)
