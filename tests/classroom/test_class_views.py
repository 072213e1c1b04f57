"""The live class on its pages (AppTest): the teacher's projector and controls, a student's
view that follows, the Overview's join form, and who may do what from a page.

Every test gets a store of its own (a SQLite file in its temporary folder), the one the
app's pages and event streams share (relpos.class_routes.events.class_store).
"""

from __future__ import annotations

import json
import re
import time

import numpy as np
import pytest

from relpos.class_routes import following, identity
from relpos.classroom import codes, model, questions
from relpos.classroom.errors import ClassroomError
from relpos.classroom.presence import seat_tag
from relpos.classroom.sqlite_store import SqliteStore
from relpos.core.examples import worked_example
from relpos.quizbank.checking import make_quiz
from relpos.state.keys import widget_key
from relpos.topics.walkthrough import controls_view, spec
from relpos.topics.walkthrough import model as wt
from relpos.ui import classroom
from tests.classroom.conftest import app_store_at
from tests.support.apptest import open_app
from tests.support.routes import call


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
    at = open_app("walkthrough", query=query)
    at.button(key=walk_start()).click().run()
    assert not at.exception, at.exception
    return at


from relpos.topics.walkthrough import classroom_view  # noqa: E402


def walk_start() -> str:
    from relpos.topics.walkthrough import classroom_view

    return classroom_view.START


def _code(at) -> str:
    return at.session_state[classroom.TEACHER]["code"]


def _student(code: str, nickname: str = ""):
    at = open_app("walkthrough", query={"class": code})
    at.text_input(key=classroom.JOIN_NICKNAME).input(nickname)
    at.button(key=classroom.JOIN).click().run()
    assert not at.exception, at.exception
    return at


def _button(at, label: str):
    return next(button for button in at.button if button.label == label)


def _follow_data(at) -> dict | None:
    """The data the page's follow view was drawn with (None: the page draws no follow view)."""
    for element in at.get("bidi_component"):
        proto = element.proto
        if proto.component_name == "relpos.class_follow":
            return json.loads(proto.json or proto.mixed.json)
    return None


def _view(code: str) -> dict:
    """The class's view, as every following student's browser fetches it (app.py's stops)."""
    _, body, _ = following.view_bytes(code, {"walkthrough": spec.follow_view})
    return json.loads(body)


def _token(at) -> str:
    return at.session_state[classroom.STUDENT]["token"]


def _here(code: str, *students, holder: str = "tabs", gone=()) -> None:
    """The students' tabs are open (or, `gone`, closed): what their pages' streams tell the store."""
    classroom.store().note_presence(
        code, holder, here=[_token(at) for at in students], gone=[_token(at) for at in gone]
    )


def _submit(code: str, at, text: str) -> dict:
    """A student's answer, as their follow view's form sends it (the route's own call)."""
    question = classroom.store().get_class(code).question
    try:
        return following._submit(code, _token(at), question.id, text)
    except ClassroomError as error:
        return {"message": error.message, "stored": False}


def _mine(code: str, at) -> dict:
    question = classroom.store().get_class(code).question
    return following._mine(code, _token(at), question.id)


def test_the_teacher_starts_a_class_and_the_projector_shows_code_link_qr_and_students(class_file):
    at = _teacher()
    code = _code(at)
    credential = at.session_state[classroom.TEACHER]["credential"]
    text = _texts(at)
    assert "Join code:" in text and f">{code}</div>" in text  # the code, large
    assert re.search(rf"j\\*/{code}\*\*", text), text  # the short join link (escaped)
    assert "0 students" in text
    assert any(image.proto.imgs[0].url.startswith("data:image/svg+xml") for image in at.get("image"))
    assert at.query_params["class"] == code
    shown = text + repr(dict(at.query_params))
    assert credential not in shown  # never on the projected screen or in its URL
    assert codes.credential_matches(code, credential, classroom.store().check_teacher(code, credential).teacher_hash)


def test_a_student_joins_by_link_and_follows_every_move_of_the_teacher(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code, "Ada")
    assert "follows your teacher" in _texts(student)
    data = _follow_data(student)
    assert data["code"] == code and data["token"] == _token(student)
    assert not [b for b in student.button if b.label in ("Next", "Previous", "Start a class")]
    teacher.run()
    assert "1 student" in _texts(teacher)

    for _ in range(5):  # four pairs, then the softmax stop
        teacher.button(key=controls_view.NEXT).click().run()
    index = classroom.store().get_class(code).pace.index
    assert index == 5
    view = _view(code)  # what the student's browser draws: no run of the student's page
    assert (view["stop"]["index"], view["stop"]["where"]) == (5, "pair (2, 1)")
    assert view["stop"]["stage"][0]["cols"][0][0]["text"] == "Query i = 2, key j = 1"


def test_a_student_cannot_move_the_class_and_is_brought_back(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    before = classroom.store().get_class(code)
    student.run()
    assert classroom.store().get_class(code) == before
    assert _view(code)["stop"]["index"] == 0
    assert not [b for b in student.button if b.label in ("Next", "Reveal", "End the class", "Start a class")]


def test_released_students_move_on_their_own_and_come_back(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.button(key=controls_view.NEXT).click().run()
    teacher.toggle(key=classroom.PACED).set_value(False).run()
    assert _view(code)["paced"] is False  # the follow view hands the page back
    student.run()
    assert _follow_data(student) is None
    assert "**Stop 2 of 20**" in _texts(student)  # released where the teacher was
    assert not _button(student, "Next").disabled
    student.button(key=controls_view.NEXT).click().run()
    student.button(key=controls_view.NEXT).click().run()
    assert "**Stop 4 of 20**" in _texts(student)
    teacher.toggle(key=classroom.PACED).set_value(True).run()
    student.run()
    assert _follow_data(student) is not None
    assert _view(code)["stop"]["index"] == 1


def test_predict_then_reveal_counts_answers_and_gives_the_quizs_feedback(class_file):
    teacher = _teacher()
    code = _code(teacher)
    students = [_student(code, name) for name in ("Ada", "", "Grace")]
    teacher.run()
    _button(teacher, "Ask: predict e₁₁").click().run()
    question = classroom.store().get_class(code).question
    assert question.kind == "number" and question.truth == pytest.approx(1.0)
    view = _view(code)
    assert view["question"] == {"id": question.id, "kind": "number", "prompt": question.prompt, "status": "open",
                                "input": "number", "label": f"Question 1: {question.prompt}"}  # fmt: skip
    for student, typed in zip(students, ("1.0", "−1", "0.4"), strict=True):
        assert "is in" in _submit(code, student, typed)["message"]
    _here(code, *students)
    teacher.run()
    assert "3 of 3 here answered" in _texts(teacher)
    teacher.button(key=classroom.REVEAL).click().run()
    assert teacher.get("plotly_chart")
    assert _view(code)["results"]["caption"].startswith("1 of 3 right")
    for student, typed in zip(students, ("1.0", "−1", "0.4"), strict=True):
        assert _mine(code, student)["message"] == questions.grade(question, typed).message
    assert "flipped" in _mine(code, students[1])["message"]
    csv_text = classroom.store().export_csv(code, teacher.session_state[classroom.TEACHER]["credential"])
    assert "Ada" in csv_text and "Grace" in csv_text and "anonymous 2" in csv_text


def test_a_softmax_stop_asks_which_key_gains_most(class_file):
    teacher = _teacher({"i": "2", "j": "softmax"})
    code = _code(teacher)
    _button(teacher, "Ask: which key gains most?").click().run()
    question = classroom.store().get_class(code).question
    assert question.kind == "choice"
    assert question.choices == ("key 1", "key 2", "key 3", "key 4", classroom_view.TIE, classroom_view.NO_GAIN)
    gains = wt.row_shift(worked_example().attention(), 1).changes
    assert question.expected == f"key {int(np.argmax(gains)) + 1}"


def test_with_k_0_no_key_gains_and_that_is_the_answer(class_file):
    """k = 0: one table row for every offset, so the position term shifts a row's scores
    evenly and every key's weight change is 0: "key 1" (argmax's first) would be wrong, and
    so would "a tie: equal gains" (nothing gains at all)."""
    teacher = _teacher({"i": "2", "j": "softmax", "k": "0", "a": "0.4"})
    code = _code(teacher)
    _button(teacher, "Ask: which key gains most?").click().run()
    question = classroom.store().get_class(code).question
    assert question.expected == classroom_view.NO_GAIN
    assert (
        questions.grade(question, classroom_view.NO_GAIN).correct
        and not questions.grade(question, classroom_view.TIE).correct
    )


def test_the_quiz_as_a_class(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.number_input(key=classroom.QUIZ_SEED).set_value(7).run()
    teacher.selectbox(key=classroom.QUIZ_NUMBER).set_value(1).run()
    teacher.button(key=classroom.QUIZ_ASK).click().run()
    question = classroom.store().get_class(code).question
    assert question.kind == "quiz" and question.quiz == (7, 0)
    shown = _view(code)["question"]
    assert shown["prompt"] == question.prompt and shown["body"]
    # headed by its place in the quiz, once: not "Question 1: Question 1: …" (the prompt is numbered already)
    label = f"Quiz question 1: {make_quiz(7)[0].title}"
    assert shown["label"] == label
    said = re.sub(r"[*\\]", "", _texts(teacher))  # the words as read (bold, escapes)
    assert label in said and not re.search(r"Question \d+: Question", said), said
    assert _submit(code, student, str(question.truth))["stored"]
    teacher.button(key=classroom.REVEAL).click().run()
    assert _mine(code, student)["correct"]


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
    at = open_app("walkthrough", query={"class": record.code})
    assert "has expired" in _texts(at)
    assert not [b for b in at.button if b.label == "Join the class"]


def _resumed(monkeypatch, code: str, credential: str, *, presenter: bool = False):
    """A tab opened by the private link: its page trades the link's token for the identity
    cookie (relpos.class_routes.identity), then loads the lesson at the address it is given, with
    that cookie (AppTest cannot send cookies: the page's cookie jar is patched in)."""
    query = "presenter=1" if presenter else ""
    link = identity.teach_link("http://x", code, credential, presenter=presenter)
    token = link.partition("#")[2]
    answer = call(
        identity.redeem_route,
        f"/relpos/class/{code}/teach",
        body=token.encode(),
        headers={"X-Relpos-Identity": "1"},
        query=query,
        path_params={"code": code},
    )
    assert answer.status == 200, answer.body
    jar = dict(cookie.split(";", 1)[0].split("=", 1) for cookie in answer.set_cookies)
    original = identity.kept
    monkeypatch.setattr(identity, "kept", lambda cookies, wanted: original({**dict(cookies), **jar}, wanted))
    target = json.loads(answer.body)["next"]
    return open_app("walkthrough", query=dict(pair.split("=", 1) for pair in target.split("?", 1)[1].split("&")))


def test_an_old_style_teacher_link_is_refused_and_the_private_link_resumes(class_file, monkeypatch):
    record, credential = classroom.store().create_class()
    old = open_app("walkthrough", query={"class": record.code, "teacher": credential})
    assert classroom.TEACHER not in old.session_state  # the credential in a URL opens nothing now
    assert "teacher" not in old.query_params  # and is taken out of the address bar
    assert "no longer accepted" in _texts(old)
    real = _resumed(monkeypatch, record.code, credential)
    assert real.session_state[classroom.TEACHER]["code"] == record.code
    real.button(key=controls_view.NEXT).click().run()
    assert classroom.store().get_class(record.code).pace.index == 1


def test_a_flooding_student_changes_one_answer_at_most_once_a_second(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.run()
    _button(teacher, "Ask: predict e₁₁").click().run()
    started = time.monotonic()
    replies = [_submit(code, student, str(typed))["message"] for typed in range(1, 12)]
    elapsed = time.monotonic() - started
    question = classroom.store().get_class(code).question
    mine = classroom.store().my_answer(code, student.session_state[classroom.STUDENT]["token"], question.id)
    assert mine.changes <= min(model.MAX_CHANGES, elapsed / model.RESUBMIT_SECONDS + 1)
    assert any("Too fast" in reply or "changed this answer" in reply for reply in replies)


def _results_links(at) -> str:
    """The results link(s) the page draws (HTML: relpos.ui.classroom.results_link)."""
    return " ".join(element.proto.body for element in at.get("html") if "Download results (CSV)" in element.proto.body)


def test_the_results_csv_is_not_a_media_file_anyone_may_fetch(class_file):
    """Issue 38, point 13: Streamlit's download_button put the CSV at a /media/ address that
    needs no session; the console links to the teacher-only route instead."""
    teacher = _teacher()
    code = _code(teacher)
    teacher.context["timezone"] = "Europe/Paris"  # the teacher's browser's zone: the CSV's times
    teacher.run()
    assert not [b for b in teacher.get("download_button") if "results" in b.label.lower()]
    link = _results_links(teacher)
    assert f'href="/relpos/class/{code}/results.csv?tz=Europe%2FParis"' in link
    assert f'download="relpos_class_{code}.csv"' in link


def test_ending_the_class_tells_students_and_keeps_the_teachers_results(class_file):
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.button(key=classroom.END).click().run()
    assert classroom.store().get_class(code).ended_at is None  # asked first: "End the class?"
    teacher.button(key=widget_key(classroom.PAGE, "end_confirmed")).click().run()
    assert "has ended" in _texts(teacher)
    assert f"/relpos/class/{code}/results.csv" in _results_links(teacher)
    student.run()
    assert "has ended" in _texts(student)
    assert classroom.STUDENT not in student.session_state
    # said on every run after (a rerun of the page, a slider moved), with what the student can do now
    for _ in range(2):
        said = re.sub(r"[*\\]", "", _texts(student.run()))
        assert f"Class {code} has ended" in said and "This lesson is yours now" in said, said
    assert [link.label for link in student.get("page_link")] == ["Join another class"]
    student.button(key=classroom.OVER_DISMISS).click().run()
    assert "has ended" not in _texts(student)


def test_the_private_teacher_link_resumes_at_the_class_stop_and_mode_and_the_old_tab_yields(class_file, monkeypatch):
    teacher = _teacher({"presenter": "1"})
    code = _code(teacher)
    credential = teacher.session_state[classroom.TEACHER]["credential"]
    for _ in range(4):
        teacher.button(key=controls_view.NEXT).click().run()
    assert classroom.store().get_class(code).pace.index == 4
    resumed = _resumed(monkeypatch, code, credential, presenter=True)
    assert not resumed.exception, resumed.exception
    assert classroom.store().get_class(code).pace.index == 4  # not back to stop 1
    assert "**Stop 5 of 20**" in _texts(resumed)
    assert resumed.session_state[controls_view.PRESENTER]
    resumed.button(key=controls_view.NEXT).click().run()
    resumed.button(key=controls_view.NEXT).click().run()
    assert classroom.store().get_class(code).pace.index == 6
    teacher.button(key=controls_view.NEXT).click().run()  # the old tab, still at stop 5
    assert classroom.store().get_class(code).pace.index == 6  # it did not drag the class back
    assert "**Stop 7 of 20**" in _texts(teacher)
    assert "Another of your tabs moved the class" in _texts(teacher)
    teacher.button(key=controls_view.NEXT).click().run()  # now it leads again
    assert classroom.store().get_class(code).pace.index == 7


def test_a_next_cut_short_after_the_store_has_it_is_still_this_tabs(class_file):
    """A run cut short between storing the class's stop and noting it (a join flood reruns
    the teacher's page) must not make the tab think another tab moved the class: it
    would take the class's stop back and undo the next click (the flood bench lost a Next)."""
    teacher = _teacher()
    code = _code(teacher)
    teacher.button(key=controls_view.NEXT).click().run()
    pushed = teacher.session_state[classroom_view._PUSHED]
    teacher.button(key=controls_view.NEXT).click().run()
    assert classroom.store().get_class(code).pace.index == 2
    teacher.session_state[classroom_view._PUSHED] = pushed  # as if cut short after the store write
    teacher.button(key=controls_view.NEXT).click().run()
    assert classroom.store().get_class(code).pace.index == 3
    assert "**Stop 4 of 20**" in _texts(teacher)
    assert "Another of your tabs moved the class" not in _texts(teacher)


def _score_cells(at) -> list:
    """The cell texts of the walkthrough's score matrix, as drawn on the page."""
    for chart in at.get("plotly_chart"):
        figure = json.loads(chart.proto.spec)
        title = figure["layout"].get("title", {}).get("text", "")
        if title.startswith("Scores e"):
            return figure["data"][0]["text"], figure["data"][0]["hovertext"]
    raise AssertionError("no score matrix on the page")


def test_an_open_prediction_hides_its_answer_on_the_projector_until_the_reveal(class_file):
    teacher = _teacher({"i": "1", "j": "4"})
    _code(teacher)
    _button(teacher, "Ask: predict e₁₄").click().run()
    formulas = " ".join(element.value for element in teacher.latex)
    assert "= 0.7" not in formulas and r"\;?" in formulas  # e₁₄ = 0.7 and its two terms: question marks
    text, hover = _score_cells(teacher)
    assert text[0][3] == "" and hover[0][3] == "not computed yet"
    assert not teacher.table  # the table of all pairs holds every score
    assert "appears when the answers are revealed" in _texts(teacher)
    teacher.button(key=classroom.REVEAL).click().run()
    assert "= 0.7" in " ".join(element.value for element in teacher.latex)
    assert _score_cells(teacher)[0][0][3] == "0.70"
    assert teacher.table


def test_an_open_gains_question_hides_the_takeaway_and_combined_weights_until_the_reveal(class_file):
    teacher = _teacher({"i": "1", "j": "softmax"})
    code = _code(teacher)
    _button(teacher, "Ask: which key gains most?").click().run()
    assert "gained the most weight" not in _texts(teacher)
    formulas = " ".join(element.value for element in teacher.latex)
    assert "0.373" not in formulas  # the combined weights
    bars = [json.loads(c.proto.spec) for c in teacher.get("plotly_chart")]
    weights = next(f for f in bars if f["layout"].get("title", {}).get("text", "").startswith("Weights of query"))
    assert [trace["name"] for trace in weights["data"]] == ["content only"]
    view = _view(code)  # the students' view: the same
    assert "gained the most" not in json.dumps(view, ensure_ascii=False)
    teacher.button(key=classroom.REVEAL).click().run()
    assert "gained the most weight" in _texts(teacher)


def test_a_released_student_answers_in_the_pages_form(class_file):
    """Released to their own pace, a student answers on the ordinary page: a form, so the
    keyboard's Enter submits (the follow view's form does the same for a following one)."""
    teacher = _teacher()
    code = _code(teacher)
    student = _student(code)
    teacher.toggle(key=classroom.PACED).set_value(False).run()
    _button(teacher, "Ask: predict e₁₁").click().run()
    student.run()
    assert _follow_data(student) is None
    student.text_input(key=classroom.ANSWER).input("1.0")
    student.button(key=classroom.SUBMIT).click().run()
    assert not student.exception, student.exception
    assert "is in" in _texts(student)
    question = classroom.store().get_class(code).question
    assert classroom.store().my_answer(code, _token(student), question.id).text == "1"


# ---------------------------------------------------------------- who is here, removing and locking


def test_the_count_is_of_the_students_here_and_a_closed_tab_leaves_it(class_file):
    teacher = _teacher()
    code = _code(teacher)
    ada, bo, cy = (_student(code, name) for name in ("Ada", "Bo", "Cy"))
    _here(code, ada, bo, cy)
    _button(teacher, "Ask: predict e₁₁").click().run()
    _submit(code, ada, "1.0")
    _here(code, gone=[ada])  # Ada closed her tab after answering
    teacher.run()
    text = _texts(teacher)
    assert "**0 of 2 here answered · 1 left (1 of them answered)**" in text, text
    assert "2 students here · 1 left" in text
    assert classroom.store().results(code, credential=_credential(teacher)).answered == 1  # her answer counts


def test_two_students_called_mia_are_told_apart_in_the_roster(class_file):
    teacher = _teacher()
    code = _code(teacher)
    mias = [_student(code, "Mia"), _student(code, "Mia")]
    _here(code, *mias)
    teacher.run()
    labels = [row["label"] for row in _roster(teacher)]
    assert labels == ["Mia", "Mia (2)"]
    assert classroom.store().student(code, _token(mias[1])).label == "Mia (2)"


def test_a_removed_student_is_told_and_gets_the_join_box(class_file):
    teacher = _teacher()
    code = _code(teacher)
    ada, _ = _student(code, "Ada"), _student(code, "Bo")
    token = _token(ada)
    classroom.store().remove_student(code, _credential(teacher), 1)
    assert seat_tag(token) in _view(code)["removed"]  # the follow view hands the page back
    ada.run()
    text = _texts(ada)
    assert "Your teacher removed you from class" in text, text
    assert _button(ada, "Join the class") is not None and _follow_data(ada) is None
    assert classroom.STUDENT not in ada.session_state
    teacher.run()
    assert [row["label"] for row in _roster(teacher)] == ["Bo"]


def test_a_locked_class_refuses_new_students_and_keeps_those_who_joined(class_file):
    teacher = _teacher()
    code = _code(teacher)
    ada = _student(code, "Ada")
    _button(teacher, "Lock the class").click().run()
    assert classroom.store().get_class(code).locked
    assert "locked: nobody new can join" in _texts(teacher)
    late = open_app("walkthrough", query={"class": code})
    assert "is locked" in _texts(late)
    late.text_input(key=classroom.JOIN_NICKNAME).input("Bo")
    late.button(key=classroom.JOIN).click().run()
    assert "is locked" in _texts(late) and classroom.STUDENT not in late.session_state
    ada.run()
    assert _follow_data(ada) is not None  # who joined stays
    _button(teacher, "Unlock").click().run()
    late.button(key=classroom.JOIN).click().run()
    assert classroom.STUDENT in late.session_state


def _credential(teacher) -> str:
    return teacher.session_state[classroom.TEACHER]["credential"]


def _roster(teacher) -> list[dict]:
    """The rows the teacher's roster component was given."""
    for element in teacher.get("bidi_component"):
        proto = element.proto
        if proto.component_name == "relpos.class_roster":
            return json.loads(proto.json or proto.mixed.json)["rows"]
    raise AssertionError("no roster on the teacher's page")
