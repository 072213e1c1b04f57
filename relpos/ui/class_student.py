"""A student's side of a live class: join by code (:func:`join_form`) or link
(:func:`join_prompt`), answer (:func:`answer_box`), and once the class is over, a notice
that stays until the student moves on (:func:`class_over`, :func:`over_notice`)."""

from __future__ import annotations

import streamlit as st

from relpos.class_routes.events import session_client
from relpos.classroom import codes, model, questions
from relpos.classroom.errors import ClassEndedError, ClassOverError, ClassroomError, NotJoinedError
from relpos.classroom.model import Class, Question
from relpos.state.keys import state_key, widget_key
from relpos.text.escape import escape_markdown
from relpos.ui.class_identity import (
    _OVER,
    _REMOVED,
    ANSWER,
    CLASS_PARAM,
    JOIN,
    JOIN_CODE,
    JOIN_NICKNAME,
    OVER_DISMISS,
    OVER_NOTICE,
    OVERVIEW_PAGE,
    PAGE,
    STUDENT,
    SUBMIT,
    TEACHER,
    TYPED,
    Role,
    flash,
    show_error,
    show_flash,
    store,
)
from relpos.ui.class_teacher import quiz_body, results_chart
from relpos.ui.tables import BOX_INSET_PX

# ---------------------------------------------------------------- students


def _join(code_key: str | None, code: str | None, switch_to: str | None) -> None:
    state = st.session_state
    try:
        code = codes.normalise_code(state.get(code_key, "") if code_key else code)
        seat = state.get(STUDENT) if (state.get(STUDENT) or {}).get("code") == code else None
        if seat:  # one session, one seat: joining again keeps it
            student = store().join(code, token=seat["token"])
        else:
            student = store().join(code, state.get(JOIN_NICKNAME) or None, client=session_client())
    except ClassroomError as error:
        if isinstance(error, NotJoinedError):  # a seat the class no longer knows: the next Join takes a new one
            state.pop(STUDENT, None)
        flash(error.message)
        return
    state.pop(TEACHER, None)
    state.pop(_REMOVED, None)
    state.pop(_OVER, None)
    state[STUDENT] = {"code": code, "token": student.token}
    state[state_key(PAGE, "switch")] = (switch_to, code) if switch_to else None
    flash(f"You joined class {code} as {student.label}.")


def join_form(page_path: str) -> None:
    """The Overview's "Join a class": a code and an optional nickname, then the lesson."""
    pending = st.session_state.pop(state_key(PAGE, "switch"), None)
    if pending:
        target, code = pending
        st.switch_page(target, query_params={CLASS_PARAM: code})
    with st.container(border=True):
        st.markdown("**Join a class**: type the code on the projector.")
        show_flash()
        with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
            st.text_input("Class code", key=JOIN_CODE, max_chars=16, placeholder="e.g. K7QX2M")
            st.text_input("Nickname (optional)", key=JOIN_NICKNAME, max_chars=model.MAX_NICKNAME)
            st.button("Join", key=JOIN, type="primary", on_click=_join, args=(JOIN_CODE, None, page_path))


def join_prompt(code: str) -> None:
    """A join link was opened: join this class (optional nickname), or say why not."""
    try:
        record = store().get_class(code)
    except ClassroomError as error:
        show_error(error)
        return
    with st.container(border=True):
        st.markdown(f"**Class {record.code}** is running. Join to follow your teacher and answer questions.")
        if record.locked:
            st.warning(
                f"Class {record.code} is locked: your teacher admits nobody new just now.", icon=":material/lock:"
            )
        with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
            st.text_input("Nickname (optional)", key=JOIN_NICKNAME, max_chars=model.MAX_NICKNAME)
            st.button("Join the class", key=JOIN, type="primary", on_click=_join, args=(None, record.code, None))


def class_over(who: Role, error: ClassroomError) -> bool:
    """Whether `error` says this student's class is over (ended, or past its lifetime): then
    it is kept, so that every run of the page says so (:func:`over_notice`) until the student
    dismisses it or joins or starts a class; the session has left the class by then."""
    if not (who.student and isinstance(error, ClassOverError)):
        return False
    st.session_state[_OVER] = (who.code, "ended" if isinstance(error, ClassEndedError) else "expired")
    return True


def _dismiss_over() -> None:
    st.session_state.pop(_OVER, None)


def over_notice() -> bool:
    """The class this student was in is over: what happened, and what they can do now (the
    lesson is theirs; another class is joined on the Overview). False: nothing to say."""
    over = st.session_state.get(_OVER)
    if not over:
        return False
    code, why = over
    said = "Your teacher ended it; thank you for taking part." if why == "ended" else "It ran for its whole day."
    with st.container(border=True, key=OVER_NOTICE):
        st.markdown(f":material/event_busy: **Class {code} has ended.** {said}")
        st.markdown(
            "This lesson is yours now: step through it with **Previous** and **Next**, and change its numbers "
            "in the sidebar. To join another class, type its code on the Overview."
        )
        with st.container(horizontal=True, gap="small", vertical_alignment="center"):
            st.page_link(OVERVIEW_PAGE, label="Join another class", icon=":material/groups:")
            st.button("Dismiss", key=OVER_DISMISS, on_click=_dismiss_over)
    return True


def _submit(who: Role, question_id: int, key: str = ANSWER) -> None:
    try:
        ack = store().submit_answer(who.code, who.secret, question_id, st.session_state.get(key, ""))
    except NotJoinedError as error:
        st.session_state.pop(STUDENT, None)
        flash(error.message)
        return
    except ClassroomError as error:
        flash(error.message)
        return
    flash(ack.message)


def answer_box(who: Role, record: Class) -> None:
    """The current question on a student's device: the field, then the feedback and the
    class's results once the teacher reveals them."""
    question = record.question
    if question is None or question.status == "hidden":
        return
    with st.container(border=True):
        st.markdown(f"**{escape_markdown(questions.question_label(question))}**")
        if question.kind == "quiz":
            quiz_body(question, inset_px=BOX_INSET_PX)  # inside the answer box
        try:
            mine = store().my_answer(who.code, who.secret, question.id)
        except ClassroomError as error:
            show_error(error)
            return
        if question.is_open:
            _answer_field(who, question)
        elif mine is None:
            st.caption("This question is closed.")
        show_flash()
        if question.revealed:
            if mine is not None:
                verdict = questions.grade(question, mine.text)
                (st.success if verdict.correct else st.warning)(escape_markdown(verdict.message))
            try:
                results_chart(store().results(who.code))
            except ClassroomError as error:
                show_error(error)
        elif mine is not None:
            st.caption(f"Your answer {escape_markdown(mine.text)} is in; the teacher reveals the results.")


def _answer_field(who: Role, question: Question) -> None:
    """The answer and its Submit, in a form: Enter (a phone keyboard's Go) submits too."""
    key = ANSWER if question.kind != "quiz" or isinstance(question.truth, float) else TYPED
    form = st.form(widget_key(PAGE, "answer_form", question.id), border=False, enter_to_submit=True)
    with form, st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        if question.kind == "choice":
            st.segmented_control("Your answer", list(question.choices), key=key)
        else:
            placeholder = "e.g. 0.25" if key == ANSWER else None
            st.text_input("Your answer", key=key, max_chars=64, placeholder=placeholder)
        st.form_submit_button("Submit", key=SUBMIT, type="primary", on_click=_submit, args=(who, question.id, key))
