"""The live class on its pages (AppTest): the teacher's projector and controls, a student's
view that follows, the Overview's join form, and who may do what from a page.

Every test gets a store of its own (a SQLite file in its temporary folder), the one the
app's pages and event streams share (relpos.server.class_events.class_store).
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from relpos.classroom import model
from relpos.classroom.sqlite_store import SqliteStore
from relpos.core.examples import worked_example
from relpos.text.escape import escape_markdown
from relpos.topics.walkthrough import controls as walk
from relpos.topics.walkthrough import model as wt
from relpos.ui import classroom
from tests.classroom.conftest import app_store_at
from tests.support.apptest import open_app


@pytest.fixture
def class_file(tmp_path, monkeypatch):
    """The app's store for this test: a fresh SQLite file (the process's shared store reset)."""
    path = tmp_path / "classes.sqlite3"
    with app_store_at(f"sqlite://{path}", monkeypatch):
        yield path


def _texts(at) -> str:
    parts = [element.value for element in (*at.markdown, *at.caption, *at.info, *at.error, *at.warning, *at.success)]
    return "\n".join(str(part) for part in parts)


def _teacher(query=None):
    at = open_app("worked_example", query=query)
    at.button(key=walk_start()).click().run()
    assert not at.exception, at.exception
    return at


from relpos.topics.walkthrough import live  # noqa: E402


def walk_start() -> str:
    from relpos.topics.walkthrough import live

    return live.START


def _code(at) -> str:
    return at.session_state[classroom.TEACHER]["code"]


def _student(code: str, nickname: str = ""):
    at = open_app("worked_example", query={"class": code})
    at.text_input(key=classroom.JOIN_NICKNAME).input(nickname)
    at.button(key=classroom.JOIN).click().run()
    assert not at.exception, at.exception
    return at


def _button(at, label: str):
    return next(button for button in at.button if button.label == label)


def test_the_teacher_starts_a_class_and_the_projector_shows_code_link_qr_and_students(class_file):
    at = _teacher()
    code = _code(at)
    credential = at.session_state[classroom.TEACHER]["credential"]
    text = _texts(at)
    assert f"Join code: `{code}`" in text
    assert re.search(rf"worked\\?_example\\?\?class\\?={code}", text), text  # the join link (escaped)
    assert "0 students" in text
    assert any(image.proto.imgs[0].url.startswith("data:image/svg+xml") for image in at.get("image"))
    assert at.query_params["class"] == code
    shown = text + repr(dict(at.query_params))
    assert credential not in shown  # never on the projected screen or in its URL
    assert model.credential_matches(code, credential, classroom.store().check_teacher(code, credential).teacher_hash)


def test_a_student_joins_by_link_and_follows_every_move_of_the_teacher(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code, "Ada")
    assert "you follow your teacher" in _texts(student)
    assert _button(student, "Next").disabled and _button(student, "Previous").disabled
    teacher.run()
    assert "1 student" in _texts(teacher)

    for _ in range(5):  # four pairs, then the softmax stop
        teacher.button(key=walk.NEXT).click().run()
    index = classroom.store().get_class(code).pace.index
    assert index == 5
    student.run()  # the push reruns it in a browser
    assert f"**Stop {index + 1} of 20**" in _texts(student)
    assert student.session_state[walk.STOP] == wt.Stop(1, 0)  # row 2's first pair


def test_a_student_cannot_move_the_class_and_is_brought_back(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    before = classroom.store().get_class(code)
    forced = student.button(key=walk.NEXT)
    forced.proto.disabled = False  # a client that sends the click of the disabled button anyway
    forced.click().run()
    assert classroom.store().get_class(code) == before
    assert "**Stop 1 of 20**" in _texts(student)
    assert not [b for b in student.button if b.label in ("Reveal", "End the class", "Start a class")]


def test_released_students_move_on_their_own_and_come_back(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.toggle(key=classroom.PACED).set_value(False).run()
    student.run()
    assert not _button(student, "Next").disabled
    student.button(key=walk.NEXT).click().run()
    student.button(key=walk.NEXT).click().run()
    assert "**Stop 3 of 20**" in _texts(student)
    teacher.toggle(key=classroom.PACED).set_value(True).run()
    student.run()
    assert "**Stop 1 of 20**" in _texts(student)


def test_predict_then_reveal_counts_answers_and_gives_the_quizs_feedback(class_file):
    teacher = _teacher()
    code = _code(teacher)
    students = [_student(code, name) for name in ("Ada", "", "Grace")]
    teacher.run()
    _button(teacher, "Ask: predict e₁₁").click().run()
    question = classroom.store().get_class(code).question
    assert question.kind == "number" and question.truth == pytest.approx(1.0)
    for student, typed in zip(students, ("1.0", "−1", "0.4"), strict=True):
        student.run()
        student.text_input(key=classroom.ANSWER).input(typed)
        student.button(key=classroom.SUBMIT).click().run()
        assert "is in" in _texts(student)
    teacher.run()
    assert "3 of 3 answered" in _texts(teacher)
    teacher.button(key=classroom.REVEAL).click().run()
    assert teacher.get("plotly_chart")
    for student, typed in zip(students, ("1.0", "−1", "0.4"), strict=True):
        student.run()
        assert model.grade(question, typed).message.split(":")[0] in _texts(student)
    assert "flipped" in _texts(students[1])
    csv_text = classroom.store().export_csv(code, teacher.session_state[classroom.TEACHER]["credential"])
    assert "Ada" in csv_text and "Grace" in csv_text and "anonymous 2" in csv_text


def test_a_softmax_stop_asks_which_key_gains_most(class_file):
    teacher = _teacher({"i": "2", "j": "softmax"})
    code = _code(teacher)
    _button(teacher, "Ask: which key gains most?").click().run()
    question = classroom.store().get_class(code).question
    assert question.kind == "choice" and question.choices == ("key 1", "key 2", "key 3", "key 4", live.TIE)
    gains = wt.row_shift(worked_example().attention(), 1).changes
    assert question.expected == f"key {int(np.argmax(gains)) + 1}"


def test_with_k_0_no_key_gains_more_and_the_tie_is_the_answer(class_file):
    """k = 0: one table row for every offset, so the position term shifts a row's scores
    evenly and every key's weight change is 0: "key 1" (argmax's first) would be wrong."""
    teacher = _teacher({"i": "2", "j": "softmax", "k": "0", "a": "0.4"})
    code = _code(teacher)
    _button(teacher, "Ask: which key gains most?").click().run()
    question = classroom.store().get_class(code).question
    assert question.expected == live.TIE
    assert model.grade(question, live.TIE).correct and not model.grade(question, "key 1").correct


def test_the_quiz_as_a_class(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.number_input(key=classroom.QUIZ_SEED).set_value(7).run()
    teacher.selectbox(key=classroom.QUIZ_NUMBER).set_value(1).run()
    teacher.button(key=classroom.QUIZ_ASK).click().run()
    question = classroom.store().get_class(code).question
    assert question.kind == "quiz" and question.quiz == (7, 0)
    student.run()
    assert escape_markdown(question.prompt) in _texts(student)
    truth = question.truth
    student.text_input(key=classroom.ANSWER).input(str(truth)).run()
    student.button(key=classroom.SUBMIT).click().run()
    teacher.button(key=classroom.REVEAL).click().run()
    student.run()
    assert student.success, _texts(student)


def test_joining_by_the_code_typed_on_the_overview(class_file):
    record, _ = classroom.store().create_class()
    at = open_app()
    at.text_input(key=classroom.JOIN_CODE).input(" " + record.code.lower() + " ")
    at.text_input(key=classroom.JOIN_NICKNAME).input("Lin")
    at.button(key=classroom.JOIN).click().run()
    assert not at.exception
    assert at.session_state[classroom.STUDENT]["code"] == record.code
    assert classroom.store().students_count(record.code) == 1


def test_unknown_code_and_hostile_nickname_get_clear_messages(class_file):
    at = open_app()
    at.text_input(key=classroom.JOIN_CODE).input("ZZZZZZ")
    at.button(key=classroom.JOIN).click().run()
    assert "There is no class with the code ZZZZZZ" in _texts(at).replace("\\", "")
    record, _ = classroom.store().create_class()
    at.text_input(key=classroom.JOIN_CODE).input(record.code)
    at.text_input(key=classroom.JOIN_NICKNAME).input("<b>x</b>")
    at.button(key=classroom.JOIN).click().run()
    assert classroom.STUDENT not in at.session_state
    assert "A nickname may use letters" in _texts(at).replace("\\", "")
    assert "<b>" not in _texts(at)  # quoted only escaped


def test_an_expired_code_says_so(class_file):
    past = SqliteStore(class_file, clock=lambda: time.time() - model.CLASS_LIFETIME - 60)
    record, _ = past.create_class()
    past.close()
    at = open_app("worked_example", query={"class": record.code})
    assert "has expired" in _texts(at)
    assert not [b for b in at.button if b.label == "Join the class"]


def test_a_forged_teacher_link_controls_nothing_and_the_real_one_resumes(class_file):
    record, credential = classroom.store().create_class()
    forged = open_app("worked_example", query={"class": record.code, "teacher": "0Z_qCuUC3kUg2Z1SxXe1N-UcAsb3QD39"})
    assert "not valid for class" in _texts(forged)
    assert classroom.TEACHER not in forged.session_state and "teacher" not in forged.query_params
    real = open_app("worked_example", query={"class": record.code, "teacher": credential})
    assert real.session_state[classroom.TEACHER]["code"] == record.code
    assert "teacher" not in real.query_params  # read once, then out of the address bar
    real.button(key=walk.NEXT).click().run()
    assert classroom.store().get_class(record.code).pace.index == 1


def test_a_flooding_student_changes_one_answer_at_most_once_a_second(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.run()
    _button(teacher, "Ask: predict e₁₁").click().run()
    student.run()
    started = time.monotonic()
    replies = []
    for typed in range(1, 12):
        student.text_input(key=classroom.ANSWER).input(str(typed))
        student.button(key=classroom.SUBMIT).click().run()
        replies.append(_texts(student).replace("\\", ""))
    elapsed = time.monotonic() - started
    question = classroom.store().get_class(code).question
    mine = classroom.store().my_answer(code, student.session_state[classroom.STUDENT]["token"], question.id)
    assert mine.changes <= min(model.MAX_CHANGES, elapsed / model.RESUBMIT_SECONDS + 1)
    assert any("Too fast" in reply or "changed this answer" in reply for reply in replies)


def test_ending_the_class_tells_students_and_keeps_the_teachers_results(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.button(key=classroom.END).click().run()
    assert "has ended" in _texts(teacher)
    assert any(b.label == "Download results (CSV)" for b in teacher.get("download_button"))
    student.run()
    assert "has ended" in _texts(student)
    assert classroom.STUDENT not in student.session_state
