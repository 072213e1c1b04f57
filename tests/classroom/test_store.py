"""The ClassStore contract, run on both backends (SQLite and a real Redis; see conftest.py).

What a class does from start to end: pacing, questions, answers, results and the change
counters; then the limits (expiry, the end, a full class) and two stores on one data set
(a restart, a second replica).
"""

from __future__ import annotations

import csv
import io
import re
import threading
import time

import pytest

from relpos.classroom import codes, model
from relpos.classroom.codes import CODE_ALPHABET
from relpos.classroom.errors import (
    ClassEndedError,
    ClassExpiredError,
    ClassroomError,
    InputError,
    NotJoinedError,
    NotTeacherError,
    QuestionClosedError,
    UnknownClassError,
)
from relpos.classroom.model import Pace
from relpos.classroom.questions import choice_question, number_question, quiz_question
from relpos.classroom.store import ClassStore
from relpos.quizbank.checking import check_answer, make_quiz


def _class_with_students(store, code, count):
    return [store.join(code, f"student {chr(65 + i)}" if i % 2 else None) for i in range(count)]


# ---------------------------------------------------------------- starting and joining


def test_a_new_class_has_a_short_unambiguous_code_and_a_secret_credential(store):
    record, credential = store.create_class()
    assert isinstance(store, ClassStore)
    assert len(record.code) == codes.CODE_LENGTH and set(record.code) <= set(CODE_ALPHABET)
    assert credential not in repr(record) and credential not in record.teacher_hash
    assert store.get_class(record.code) == record
    assert store.get_class(record.code.lower()) == record  # a typed code in any case
    assert store.check_teacher(record.code, credential) == record
    assert store.students_count(record.code) == 0


def test_students_join_numbered_and_a_token_rejoins(started):
    store, code, credential = started
    ada, anonymous = store.join(code, " Ada "), store.join(code)
    assert (ada.number, ada.nickname, anonymous.number, anonymous.label) == (1, "Ada", 2, "anonymous 2")
    assert store.join(code, token=ada.token) == ada  # a reloaded page keeps its seat
    assert store.student(code, ada.token) == ada
    assert store.students(code, credential) == (ada, anonymous)
    assert store.students_count(code) == 2
    with pytest.raises(NotJoinedError, match="join with the code"):
        store.student(code, "not-a-token")


def test_an_unknown_or_malformed_code_is_a_clear_error(store):
    with pytest.raises(UnknownClassError, match="no class with the code ABCD23"):
        store.get_class("ABCD23")
    with pytest.raises(UnknownClassError):
        store.join("abcd-23", "Ada")
    for typed in ("", "0O1IL", "x" * 1000, None, 42):
        with pytest.raises(InputError, match="class code"):
            store.get_class(typed)


# ---------------------------------------------------------------- pacing


def test_the_teacher_moves_the_stop_and_students_see_it_with_a_new_version(started):
    store, code, credential = started
    before = store.version(code)
    moved = store.set_stop(code, credential, index=5, step="r1s0", state="n=4&k=2")
    assert moved.pace == Pace(True, 5, "r1s0", "n=4&k=2") and store.get_class(code).pace == moved.pace
    assert store.version(code) == before + 1
    assert store.set_stop(code, credential, index=5, step="r1s0", state="n=4&k=2").version == before + 1  # no change
    released = store.set_paced(code, credential, False)
    assert not released.pace.paced and released.pace.index == 5
    assert store.set_paced(code, credential, True).pace.paced  # everyone back
    assert store.version(code) == before + 3


def test_a_stop_outside_the_limits_is_refused(started):
    store, code, credential = started
    for stop in ({"index": -1}, {"index": 0, "step": "<script>"}, {"index": 0, "state": "x" * 5000}):
        with pytest.raises(InputError):
            store.set_stop(code, credential, **stop)
    with pytest.raises(InputError):
        store.set_paced(code, credential, "yes")


# ---------------------------------------------------------------- predict, then reveal


def test_a_number_question_collects_answers_and_reveals_the_distribution(started):
    store, code, credential = started
    students = _class_with_students(store, code, 4)
    store.set_stop(code, credential, index=2, step="r0s2")
    question = store.ask(code, credential, number_question("Predict e₁₃", -0.25))
    assert (question.id, question.stop, question.status) == (1, "r0s2", "open")
    for student, typed in zip(students, ["-0.25", "−0.251", "0.25", "1/4"], strict=True):
        assert store.submit_answer(code, student.token, question.id, typed).status == "accepted"
    assert store.answered_count(code) == 4
    with pytest.raises(NotTeacherError, match="not revealed"):
        store.results(code)  # a student's page before the reveal
    hidden = store.results(code, credential=credential)
    assert (hidden.progress, hidden.correct, hidden.correct_share) == ("4 of 4 answered", 2, 0.5)
    store.reveal(code, credential)
    shown = store.results(code)
    assert sum(b.count for b in shown.bins) == 4 and [b.holds_truth for b in shown.bins].count(True) == 1
    assert shown.labels == ("anonymous 1", "student B", "anonymous 3", "student D")
    with pytest.raises(QuestionClosedError):
        store.submit_answer(code, students[0].token, question.id, "0")


def test_a_choice_question_counts_each_key(started):
    store, code, credential = started
    students = _class_with_students(store, code, 3)
    question = store.ask(code, credential, choice_question("Which key gains the most weight?", ["1", "2", "3"], "2"))
    for student, typed in zip(students, ["2", " 2 ", "3"], strict=True):
        store.submit_answer(code, student.token, question.id, typed)
    with pytest.raises(InputError, match="Choose one of: 1, 2, 3"):
        store.submit_answer(code, students[0].token, question.id, "4")
    counts = store.results(code, credential=credential).counts
    assert [(c.label, c.count, c.correct) for c in counts] == [("1", 0, False), ("2", 2, True), ("3", 1, False)]


def test_a_quiz_question_is_graded_as_the_quiz_grades_it(started):
    store, code, credential = started
    students = _class_with_students(store, code, 2)
    quiz = make_quiz(7)
    question = store.ask(code, credential, quiz_question(7, 1, stop="quiz-2"))
    typed = [quiz[1].answer_text, "+1"]
    for student, text in zip(students, typed, strict=True):
        store.submit_answer(code, student.token, question.id, text)
    results = store.results(code, credential=credential)
    assert [a.correct for a in results.answers] == [check_answer(quiz[1], t).status == "correct" for t in typed]


def test_reset_asks_again_and_keeps_the_first_round_for_the_csv(started):
    store, code, credential = started
    (student,) = _class_with_students(store, code, 1)
    first = store.ask(code, credential, number_question("Predict e₁₁", 0.5))
    store.submit_answer(code, student.token, first.id, "0.4")
    store.reveal(code, credential)
    assert store.hide(code, credential).status == "hidden"
    with pytest.raises(NotTeacherError):
        store.results(code)
    again = store.reset(code, credential)
    assert (again.id, again.prompt, again.status) == (2, first.prompt, "open")
    assert store.results(code, credential=credential).answered == 0
    store.submit_answer(code, student.token, again.id, "0.5")
    rounds = store.all_results(code, credential)
    assert [(r.question.id, r.answered, r.correct) for r in rounds] == [(1, 1, 0), (2, 1, 1)]
    rows = list(csv.DictReader(io.StringIO(store.export_csv(code, credential))))
    assert [(r["question"], r["answer"], r["correct"], r["correct_share"]) for r in rows] == [
        ("1", "0.4", "no", "0.000"),
        ("2", "0.5", "yes", "1.000"),
    ]


def test_an_answer_to_another_question_than_the_open_one_is_refused(started):
    store, code, credential = started
    (student,) = _class_with_students(store, code, 1)
    with pytest.raises(QuestionClosedError):
        store.submit_answer(code, student.token, 1, "0.5")  # nothing asked yet
    first = store.ask(code, credential, number_question("Predict", 1.0))
    store.ask(code, credential, number_question("Predict again", 2.0))
    with pytest.raises(QuestionClosedError, match="closed"):
        store.submit_answer(code, student.token, first.id, "1")
    with pytest.raises(NotJoinedError):
        store.submit_answer(code, "forged-token", first.id + 1, "2")


def test_a_student_changes_an_answer_a_limited_number_of_times(started, clock):
    store, code, credential = started
    (student,) = _class_with_students(store, code, 1)
    question = store.ask(code, credential, number_question("Predict", 1.0))
    assert store.submit_answer(code, student.token, question.id, "0").status == "accepted"
    assert store.submit_answer(code, student.token, question.id, "0.0").status == "unchanged"  # idempotent
    statuses = []
    for value in range(1, model.MAX_CHANGES + 3):
        clock.advance(model.RESUBMIT_SECONDS)
        statuses.append(store.submit_answer(code, student.token, question.id, str(value)).status)
    assert statuses == ["changed"] * model.MAX_CHANGES + ["limit", "limit"]
    mine = store.my_answer(code, student.token, question.id)
    assert (mine.text, mine.changes) == (str(model.MAX_CHANGES), model.MAX_CHANGES)


# ---------------------------------------------------------------- change counters


def test_activity_counts_joins_and_stored_answers_but_not_refused_ones(started):
    store, code, credential = started
    question = store.ask(code, credential, number_question("Predict", 1.0))
    start = store.version(code, "activity")
    student = store.join(code)
    store.submit_answer(code, student.token, question.id, "1")
    store.submit_answer(code, student.token, question.id, "2")  # throttled
    assert store.version(code, "activity") == start + 2
    with pytest.raises(InputError):
        store.version(code, "everything")


def test_wait_for_change_returns_at_once_times_out_or_wakes_on_a_change(started):
    store, code, credential = started
    now = store.version(code)
    assert store.wait_for_change(code, now - 1, timeout=5) == now
    began = time.monotonic()
    assert store.wait_for_change(code, now, timeout=0.3) == now
    assert 0.25 <= time.monotonic() - began < 2
    threading.Timer(0.2, store.set_stop, (code, credential), {"index": 1}).start()
    began = time.monotonic()
    assert store.wait_for_change(code, now, timeout=10) == now + 1
    assert time.monotonic() - began < 1.0


# ---------------------------------------------------------------- the end of a class


def test_an_expired_class_says_so_then_is_forgotten(started, clock):
    store, code, credential = started
    student = store.join(code)
    clock.advance(model.CLASS_LIFETIME + 1)
    for attempt in (
        lambda: store.get_class(code),
        lambda: store.join(code),
        lambda: store.student(code, student.token),
    ):
        with pytest.raises(ClassExpiredError, match="expired"):
            attempt()
    with pytest.raises(ClassExpiredError):
        store.set_stop(code, credential, index=1)
    assert store.expire() == 1
    with pytest.raises(UnknownClassError):
        store.get_class(code)


def test_an_ended_class_admits_nobody_but_the_teacher_keeps_the_results_for_a_while(started, clock):
    store, code, credential = started
    student = store.join(code)
    question = store.ask(code, credential, number_question("Predict", 1.0))
    store.submit_answer(code, student.token, question.id, "1")
    version = store.version(code)
    assert store.end(code, credential).ended_at == clock.now
    assert store.version(code) == version + 1  # wakes the students, who then read the end
    for attempt in (
        lambda: store.get_class(code),
        lambda: store.join(code),
        lambda: store.submit_answer(code, student.token, question.id, "2"),
        lambda: store.set_stop(code, credential, index=1),
    ):
        with pytest.raises(ClassEndedError, match="has ended"):
            attempt()
    assert "1.0" in store.export_csv(code, credential)
    clock.advance(model.ENDED_KEEP)
    with pytest.raises(ClassEndedError):
        store.export_csv(code, credential)
    assert store.expire() == 1


def test_every_refusal_is_a_classroom_error_with_a_message(started):
    store, code, credential = started
    attempts = [
        lambda: store.get_class("ZZZZZZ"),
        lambda: store.join(code, "<b>"),
        lambda: store.ask(code, credential, "a question"),
        lambda: store.reveal(code, credential),
        lambda: store.results(code, 9, credential=credential),
        lambda: store.ask(code, credential, number_question("x" * 301, 1.0)),
    ]
    for attempt in attempts:
        with pytest.raises(ClassroomError) as caught:
            attempt()
        assert caught.value.message and str(caught.value) == caught.value.message


# ---------------------------------------------------------------- two stores, one class


def test_a_second_store_on_the_same_data_sees_everything(started, make_store):
    store, code, credential = started
    student = store.join(code, "Ada")
    question = store.ask(code, credential, number_question("Predict", 1.0))
    store.submit_answer(code, student.token, question.id, "1")
    store.set_stop(code, credential, index=3, step="r0s3", state="n=4")
    store.close()  # a restart: the first store is gone
    reopened = make_store()
    assert reopened.get_class(code).pace.index == 3
    assert reopened.check_teacher(code, credential).question == question
    assert reopened.student(code, student.token) == student
    assert reopened.results(code, credential=credential).answered == 1
    assert reopened.version(code) == 2 and reopened.version(code, "activity") == 2  # ask, stop; join, answer


def test_two_replicas_see_each_others_changes_and_wake_within_a_second(started, make_store):
    teacher_side, code, credential = started
    student_side = make_store()  # another replica
    student = student_side.join(code)
    assert teacher_side.students_count(code) == 1
    since = student_side.version(code)
    threading.Timer(0.3, teacher_side.set_stop, (code, credential), {"index": 7}).start()
    began = time.monotonic()
    assert student_side.wait_for_change(code, since, timeout=10) == since + 1
    assert time.monotonic() - began < 1.3  # 0.3 s before the change, then under a second
    assert student_side.get_class(code).pace.index == 7
    question = teacher_side.ask(code, credential, number_question("Predict", 1.0))
    student_side.submit_answer(code, student.token, question.id, "1")
    assert teacher_side.answered_count(code) == 1


def test_students_answering_at_once_lose_nothing(started):
    store, code, credential = started
    students = _class_with_students(store, code, 24)
    question = store.ask(code, credential, number_question("Predict", 0.5))
    acks = []

    def answer(student):
        acks.append(store.submit_answer(code, student.token, question.id, f"{student.number / 10}"))

    threads = [threading.Thread(target=answer, args=(student,)) for student in students]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    results = store.results(code, credential=credential)
    assert sum(ack.stored for ack in acks) == results.answered == 24
    assert sum(b.count for b in results.bins) == 24


def test_a_whole_large_class_joining_at_once_gets_in(started):
    """250 join clicks at the same moment on one server (a replica's script threads share its
    store): every one gets in, none is told that the class server cannot be reached."""
    store, code, credential = started
    at_once, joined, refused = threading.Barrier(250), [], []

    def join(number: int) -> None:
        at_once.wait(timeout=30)
        try:
            joined.append(store.join(code, f"s{number}").number)
        except ClassroomError as error:
            refused.append(error.message)

    threads = [threading.Thread(target=join, args=(number,)) for number in range(250)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not refused, f"{len(refused)} refused: {refused[0]}"
    assert sorted(joined) == list(range(1, 251))
    assert len(store.students(code, credential)) == 250


def test_the_csv_opens_cleanly_in_a_spreadsheet(started):
    """Plain decimals (no float noise), the teacher's local times, a quiz question's whole
    text, stops named as on screen, and each student's totals on their rows (issue 34)."""
    store, code, credential = started
    ada, ben = store.join(code, "Ada"), store.join(code, "-Ben")
    first = store.ask(code, credential, number_question("Predict e₁₂", 0.1 + 0.38, stop="r1j2"))
    store.submit_answer(code, ada.token, first.id, "0.48")
    store.submit_answer(code, ben.token, first.id, "0.4")
    quiz = store.ask(code, credential, quiz_question(42, 0))
    store.submit_answer(code, ada.token, quiz.id, str(quiz.truth))
    text = store.export_csv(code, credential, "Asia/Kolkata")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert "0.4800000000000001" not in text and {row["correct_answer"] for row in rows[:2]} == {"0.48"}
    assert rows[0]["stop"] == "pair (1, 2)" and rows[0]["time_zone"] == "Asia/Kolkata"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", rows[0]["asked_at"])
    utc = next(iter(csv.DictReader(io.StringIO(store.export_csv(code, credential)))))["asked_at"]
    assert rows[0]["asked_at"] != utc  # Kolkata is 5:30 ahead of UTC
    assert "With the numbers above" in rows[-1]["prompt"] and "$" not in rows[-1]["prompt"]
    by_student = {row["student"]: (row["student_answered"], row["student_correct"]) for row in rows}
    assert by_student == {"Ada": ("2", "2"), "'-Ben": ("1", "0")}
