"""Who may do what, on both backends: forged credentials, a flooding client, hostile nicknames,
and the CSV a spreadsheet opens.
"""

from __future__ import annotations

import contextlib
import csv
import io
import string
import unicodedata

import pytest

from relpos.classroom import model
from relpos.classroom.errors import ClassroomError, InputError, NotTeacherError
from relpos.classroom.questions import number_question

FORGED = {
    "none": None,
    "empty": "",
    "guess": "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39",
    "the hash": "HASH",  # replaced by the stored hash itself in the test
    "bytes": b"credential",
    "long": "x" * 100_000,
    "number": 12345,
}


def _teacher_actions(store, code, credential):
    return {
        "set_stop": lambda: store.set_stop(code, credential, index=1),
        "set_paced": lambda: store.set_paced(code, credential, False),
        "ask": lambda: store.ask(code, credential, number_question("Predict", 1.0)),
        "reveal": lambda: store.reveal(code, credential),
        "hide": lambda: store.hide(code, credential),
        "reset": lambda: store.reset(code, credential),
        "end": lambda: store.end(code, credential),
        "students": lambda: store.students(code, credential),
        "results": lambda: store.results(code, credential=credential),
        "all_results": lambda: store.all_results(code, credential),
        "export_csv": lambda: store.export_csv(code, credential),
        "check_teacher": lambda: store.check_teacher(code, credential),
    }


@pytest.mark.parametrize("forged", FORGED, ids=list(FORGED))
def test_a_forged_credential_controls_nothing(started, forged):
    store, code, credential = started
    store.ask(code, credential, number_question("Predict", 1.0))
    before = store.get_class(code)
    guess = before.teacher_hash if forged == "the hash" else FORGED[forged]
    for name, action in _teacher_actions(store, code, guess).items():
        with pytest.raises(NotTeacherError, match=r"not valid for class|not revealed yet") as caught:
            action()
        assert not guess or str(guess)[:40] not in caught.value.message, name  # no echo of the secret
    assert store.get_class(code) == before


def test_one_classes_credential_does_not_open_another(store):
    first, first_credential = store.create_class()
    second, _ = store.create_class()
    with pytest.raises(NotTeacherError):
        store.set_stop(second.code, first_credential, index=1)
    assert store.check_teacher(first.code, first_credential).code == first.code


def test_a_client_sending_a_thousand_answers_leaves_exactly_one(started, clock):
    store, code, credential = started
    flooder, other = store.join(code, "flood"), store.join(code, "calm")
    question = store.ask(code, credential, number_question("Predict", 0.5))
    activity = store.version(code, "activity")
    acks = [store.submit_answer(code, flooder.token, question.id, f"{i / 1000}") for i in range(1000)]
    assert [ack.status for ack in acks].count("accepted") == 1
    assert {ack.status for ack in acks[1:]} == {"throttled"}
    assert all(ack.answer.text == "0" and ack.retry_after > 0 for ack in acks[1:])
    store.submit_answer(code, other.token, question.id, "0.5")
    results = store.results(code, credential=credential)
    assert results.answered == 2 and store.version(code, "activity") == activity + 2


def test_a_flood_over_seconds_changes_one_answer_at_most_five_times(started, clock):
    store, code, credential = started
    flooder = store.join(code)
    question = store.ask(code, credential, number_question("Predict", 0.5))
    statuses = []
    for i in range(1000):  # 1,000 a second for 10 s
        clock.advance(0.01)
        statuses.append(store.submit_answer(code, flooder.token, question.id, f"{i}").status)
    assert statuses.count("accepted") == 1 and statuses.count("changed") == model.MAX_CHANGES
    assert set(statuses) == {"accepted", "changed", "throttled", "limit"}
    (answer,) = store.results(code, credential=credential).answers
    assert answer.changes == model.MAX_CHANGES


HOSTILE_NICKNAMES = {
    "script": "<script>alert(1)</script>",
    "img": '<img src=x onerror="alert(1)">',
    "markdown link": "[click](javascript:alert(1))",
    "latex": "$\\href{x}{y}$",
    "right-to-left override": "\u202eevil\u202c",
    "isolate": "a\u2067b",
    "zero width": "a\u200bb",
    "nul": "a\x00b",
    "very long": "A" * 10_000,
    "long after spaces": "A " * 20,
    "formula": "=HYPERLINK(1)",
    "emoji": "🙂",
}
#: What a stored nickname may contain besides letters, marks and digits.
SAFE_PUNCTUATION = set(" -_.'")


@pytest.mark.parametrize("name", HOSTILE_NICKNAMES, ids=list(HOSTILE_NICKNAMES))
def test_a_hostile_nickname_is_refused_with_a_reason_and_stores_nothing(started, name):
    store, code, _ = started
    with pytest.raises(InputError) as caught:
        store.join(code, HOSTILE_NICKNAMES[name])
    assert "nickname" in caught.value.message and len(caught.value.message) < 200
    assert store.students_count(code) == 0


@pytest.mark.parametrize(
    "typed, stored",
    [
        ("  Ada  ", "Ada"),
        ("José", "José"),
        ("محمد", "محمد"),
        ("O'Brien-Smith", "O'Brien-Smith"),
        ("Jo\u0301", "Jó"),
        ("Ada\nLovelace", "Ada Lovelace"),
    ],
)
def test_real_nicknames_of_any_script_are_kept(started, typed, stored):
    store, code, credential = started
    student = store.join(code, typed)
    assert student.nickname == stored == store.students(code, credential)[0].nickname
    assert all(c in SAFE_PUNCTUATION or unicodedata.category(c)[0] in "LMN" for c in student.nickname)


def test_an_answer_too_long_or_not_text_is_refused_before_it_is_stored(started):
    store, code, credential = started
    student = store.join(code)
    question = store.ask(code, credential, number_question("Predict", 0.5))
    for typed in ("9" * 10_000, None, ["0.5"], "<b>0.5</b>", "nan", "1e999"):
        with pytest.raises(InputError, match="answer"):
            store.submit_answer(code, student.token, question.id, typed)
    assert store.answered_count(code) == 0


def test_the_csv_neither_runs_formulas_nor_breaks_rows(started):
    store, code, credential = started
    prompt = "=cmd|' /C calc'!A0, @SUM(1) +1\t" + string.punctuation
    question = store.ask(code, credential, number_question(prompt, -0.5))
    store.submit_answer(code, store.join(code, "-Ada").token, question.id, "-0.5")
    (row,) = list(csv.DictReader(io.StringIO(store.export_csv(code, credential))))
    assert row["prompt"].startswith("'=") and row["student"] == "'-Ada"
    assert row["answer"] == "-0.5" and row["correct_answer"] == "-0.5"  # numbers stay numbers


def test_no_refusal_leaks_anything_but_a_classroom_error(started):
    store, code, credential = started
    question = store.ask(code, credential, number_question("Predict", 0.5))
    weird = [None, 0, -1, 1.5, "", "x" * 100_000, b"\xff", ["a"], {"a": 1}, "\ud800"]
    for value in weird:
        for attempt in (
            lambda v=value: store.get_class(v),
            lambda v=value: store.join(code, v),
            lambda v=value: store.join(code, token=v),
            lambda v=value: store.student(code, v),
            lambda v=value: store.submit_answer(code, v, question.id, "0.5"),
            lambda v=value: store.version(v),
        ):
            with contextlib.suppress(ClassroomError):
                attempt()
