"""Every limit holds in the store itself, on SQLite and on Redis: a client that skips the
page's widgets (a script speaking the protocol, a hand-made request) meets the same rules."""

from __future__ import annotations

import contextlib
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest

from relpos.classroom import codes, model, questions, validation
from relpos.classroom.errors import ClassFullError, InputError, NotJoinedError, NotTeacherError
from relpos.classroom.redis_store import RedisStore
from relpos.classroom.sqlite_store import _TABLES as TABLES
from tests.support.streamlit_client import run_in_own_loop


def test_a_2_mb_nickname_is_refused_and_nothing_is_stored(started):
    store, code, _ = started
    with pytest.raises(InputError, match="2,000,000 characters long; a nickname has at most 24"):
        store.join(code, "A" * 2_000_000)
    assert store.students_count(code) == 0


def test_a_nickname_is_stored_nfkc_normalised(started):
    store, code, _ = started
    assert store.join(code, "Ａｄａ\u3000Ｌ.").nickname == "Ada L."  # full-width letters and space


@pytest.mark.parametrize(
    "name",
    [
        "\u3164",  # Hangul filler: a name nobody sees
        "\u115f\u1160",
        "Ada\u200b",  # zero-width space: "Ada" beside another "Ada"
        "Ad\u034fa",  # combining grapheme joiner
        "Ada\ufe0f",  # variation selector
        "\u0301\u0301",  # marks on nothing
        "a\u0301\u0302\u0303\u0304\u0305",  # a pile of marks
    ],
)
def test_an_invisible_nickname_is_refused(started, name):
    store, code, _ = started
    with pytest.raises(InputError, match="nickname"):
        store.join(code, name)
    assert store.students_count(code) == 0


@pytest.mark.parametrize("name", ["\u0410da", "Ad\u0430", "P\u0430ypal", "\u0391da"])  # Cyrillic А, а; Greek Α
def test_a_word_mixing_alphabets_is_refused(started, name):
    store, code, _ = started
    with pytest.raises(InputError, match="mixes letters of two alphabets"):
        store.join(code, name)


@pytest.mark.parametrize("name", ["Nguyễn Thị", "Ada Иванова", "山田 たろう", "김민준", "José-María", "O'Neil"])
def test_real_names_of_every_script_still_join(started, name):
    store, code, _ = started
    assert store.join(code, name).nickname == name


def test_two_students_with_one_nickname_are_told_apart(started):
    store, code, credential = started
    names = [store.join(code, typed).nickname for typed in ("Ada", "Ada", "ADA", "Bo", None, "Ada")]
    assert names == ["Ada", "Ada (2)", "ADA (3)", "Bo", None, "Ada (4)"]
    labels = [student.label for student in store.students(code, credential)]
    assert len(set(labels)) == len(labels)


def test_students_joining_at_once_with_one_nickname_still_get_distinct_ones(started):
    store, code, credential = started
    with ThreadPoolExecutor(max_workers=8) as pool:
        joined = list(pool.map(lambda _: store.join(code, "Ada"), range(24)))
    names = {student.nickname for student in joined}
    assert len(names) == 24 and "Ada" in names and "Ada (24)" in names
    assert {s.nickname for s in store.students(code, credential)} == names


def test_the_page_limits_are_the_models():
    assert validation.validate_nickname("x" * model.MAX_NICKNAME) == "x" * model.MAX_NICKNAME
    with pytest.raises(InputError):
        validation.validate_nickname("x" * (model.MAX_NICKNAME + 1))


# ---------------------------------------------------------------- data kept no longer than its time


def _left_of(store, code: str) -> int:
    """Rows (SQLite) or keys (Redis) the store still holds for class `code`."""
    if isinstance(store, RedisStore):
        return sum(1 for _ in store._redis.scan_iter(match=f"relpos:class:{code}*")) + (
            store._redis.zscore("relpos:classes", code) is not None
        )
    with sqlite3.connect(store.path) as db:
        return sum(
            db.execute(f"SELECT COUNT(*) FROM {table} WHERE code = ?", (code,)).fetchone()[0] for table in TABLES
        )


def _lesson(store) -> tuple[str, str]:
    record, credential = store.create_class()
    student = store.join(record.code, "Ada")
    question = store.ask(record.code, credential, questions.number_question("Predict e₁₂", -0.25))
    store.submit_answer(record.code, student.token, question.id, "-0.25")
    return record.code, credential


def test_a_class_that_is_over_is_purged_within_minutes_without_a_new_class(store, clock):
    old, _ = _lesson(store)
    clock.advance(model.CLASS_LIFETIME - 1800)
    young, _ = _lesson(store)  # the last start of a class (which used to be the only purge)
    assert _left_of(store, old) > 0
    clock.advance(1800 + store.purge_grace + 1)  # the old class expired five minutes ago
    store.get_class(young)  # any read of any class
    assert _left_of(store, old) == 0
    assert _left_of(store, young) > 0


def test_an_ended_class_is_purged_an_hour_after_its_end_by_the_health_check_alone(store, clock):
    code, credential = _lesson(store)
    store.end(code, credential)
    clock.advance(model.ENDED_KEEP + store.purge_grace + 1)
    store.check()  # what the server's health check does: nobody opens a class
    assert _left_of(store, code) == 0


def test_the_server_purges_on_schedule_with_no_traffic_at_all(store, clock, monkeypatch):
    import asyncio

    from relpos.class_routes import events
    from relpos.class_routes import store as shared

    code, credential = _lesson(store)
    store.end(code, credential)
    clock.advance(model.ENDED_KEEP + store.purge_grace + 1)
    monkeypatch.setattr(shared, "_store", store)

    async def run_a_while() -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(events.purge_on_schedule(every=0.05), 0.3)

    run_in_own_loop(run_a_while())
    assert _left_of(store, code) == 0


# ---------------------------------------------------------------- one browser, one seat; a locked class


def test_a_made_up_token_takes_no_seat(started):
    store, code, _ = started
    for made_up in ("madeUpStudentToken1234", codes.new_token()):
        with pytest.raises(NotJoinedError):
            store.join(code, token=made_up)
    assert store.students_count(code) == 0
    ada = store.join(code, "Ada")
    assert store.join(code, token=ada.token) == ada  # the same seat again, however often
    assert store.join(code, "Ada again", token=ada.token) == ada
    assert store.students_count(code) == 1


def test_the_teacher_locks_the_class_and_nobody_new_joins(started):
    store, code, credential = started
    ada = store.join(code, "Ada")
    with pytest.raises(NotTeacherError):
        store.set_locked(code, "not-the-credential", True)
    version = store.version(code)
    assert store.set_locked(code, credential, True).locked
    assert store.version(code) == version + 1
    with pytest.raises(ClassFullError, match="locked"):
        store.join(code, "Bo")
    assert store.join(code, token=ada.token) == ada  # who joined comes back
    store.set_locked(code, credential, False)
    assert store.join(code, "Bo").nickname == "Bo"  # not "Bo (2)": the refused join claimed nothing


def test_the_teacher_takes_a_seat_back_with_its_answers(started):
    store, code, credential = started
    question = store.ask(code, credential, questions.number_question("Predict e₁₂", -0.25))
    ada, bo = store.join(code, "Ada"), store.join(code, "Bo")
    for student in (ada, bo):
        store.submit_answer(code, student.token, question.id, "-0.25")
    activity = store.version(code, "activity")
    with pytest.raises(NotTeacherError):
        store.remove_student(code, "not-the-credential", ada.number)
    assert store.remove_student(code, credential, ada.number) == ada
    assert store.version(code, "activity") > activity  # the projector's count moves
    assert [s.nickname for s in store.students(code, credential)] == ["Bo"]
    assert store.answered_count(code) == 1
    with pytest.raises(NotJoinedError):
        store.join(code, token=ada.token)
    with pytest.raises(NotJoinedError):
        store.submit_answer(code, ada.token, question.id, "0.5")
    assert store.join(code, "Ada").nickname == "Ada"  # the name is free again
    with pytest.raises(InputError, match="no student 99"):
        store.remove_student(code, credential, 99)
