"""The teacher's side of a live class: start it, the join panel a room reads
(:func:`projector`), the question with its count and controls (:func:`question_panel`), the
console (pace, roster, lock, CSV, private link, end: :func:`console`), the quiz as a class
(:func:`quiz_round`) and the ended class's notice. A quiz question's numbers
(:func:`quiz_body`) and the class's results (:func:`results_chart`) are drawn for students too."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Sequence

import streamlit as st

from relpos import ui
from relpos.class_routes import identity, results_csv
from relpos.class_routes.events import session_client
from relpos.class_routes.following import results_figure
from relpos.classroom import codes, model, questions
from relpos.classroom.errors import ClassroomError
from relpos.classroom.model import Class, Question
from relpos.classroom.presence import Attendance
from relpos.classroom.qr import qr_svg
from relpos.classroom.quiz import quiz_questions
from relpos.classroom.results import Results
from relpos.server import fragment
from relpos.state.keys import widget_key
from relpos.text.answers import MAX_SEED
from relpos.text.escape import escape_markdown
from relpos.ui import class_events as events
from relpos.ui import class_roster
from relpos.ui.class_identity import (
    _ENDED,
    _FLASH,
    _OVER,
    ACTIVITY,
    AGAIN,
    CLASS_PARAM,
    COUNT,
    END,
    HIDE,
    LINK,
    LOCK,
    PACED,
    PAGE,
    QUESTION_ROW,
    REVEAL,
    ROSTER,
    ROSTER_LIST,
    STUDENT,
    TEACHER,
    Role,
    flash,
    forget,
    public_base_url,
    show_error,
    show_flash,
    store,
)

# ---------------------------------------------------------------- the teacher


def start_class(lesson: str, pace: model.Pace) -> None:
    """Start a class at `pace` (call from the Start button's callback)."""
    try:
        record, credential = store().create_class(lesson, pace, client=session_client())
    except ClassroomError as error:
        flash(error.message)
        return
    st.session_state.pop(STUDENT, None)
    st.session_state.pop(_OVER, None)
    st.session_state[TEACHER] = {"code": record.code, "credential": credential}
    st.query_params[CLASS_PARAM] = record.code  # a restart finds the class again (the code is public)


def _svg_image(svg: str) -> str:
    """An SVG as a Markdown image (a data URI: nothing typed by anyone is in it)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def short_link(base_url: str, code: str) -> str:
    """The join link a room reads off the projector: ``192.168.1.7:8501/j/K7QX2M`` (no scheme).

    >>> short_link("http://192.168.1.7:8501", "K7QX2M")
    '192.168.1.7:8501/j/K7QX2M'
    """
    return f"{base_url.split('://', 1)[-1]}/j/{code}"


#: The join code as a room reads it from the back: at least a tenth of a 720 px screen's
#: height, in the theme's text colour on its secondary background (the code is generated
#: from CODE_ALPHABET: nothing typed by anyone is in this HTML).
_CODE_STYLE = (
    "font: 800 max(76px, 11vh)/1.05 ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; "
    "letter-spacing: 0.08em; color: var(--st-text-color, #111318); display: inline-block; "
    "background: var(--st-secondary-background-color, #f0f2f6); border-radius: 0.4rem; padding: 0.05em 0.25em;"
)


def _code_html(code: str, style: str = _CODE_STYLE) -> str:
    codes.normalise_code(code)  # only the code alphabet reaches this HTML
    return f'<div role="text" aria-label="Join code {" ".join(code)}" style="{style}">{code}</div>'


def projector(who: Role, page: str, *, compact: bool = False) -> None:
    """The join panel: the code (large), the short join link, its QR code, and how many
    joined (live); a full-screen join view for the start of a lesson.

    Drawn in a fragment that reruns when someone joins or answers (the activity stream).
    """
    base = public_base_url()
    link = codes.join_link(f"{base}/{page}", who.code)
    _projector_fragment(who, link, short_link(base, who.code), compact)


@st.dialog("Join the class", width="large")
def join_screen(code: str, link: str, short: str) -> None:
    """The join view for a room: the code and the QR code as large as the screen allows."""
    big = _CODE_STYLE.replace("max(76px, 11vh)", "min(20vh, 9.5vw)")
    words, square = st.columns([3, 2], vertical_alignment="center")
    with words:
        st.markdown(_code_html(code, big), unsafe_allow_html=True)
        st.markdown(f"### Open {escape_markdown(short)}")
        st.markdown("or scan the code, then press **Join the class**.")
    with square:
        st.image(_svg_image(qr_svg(link)), width="stretch")


@fragment
def _projector_fragment(who: Role, link: str, short: str, compact: bool) -> None:
    try:
        activity = store().version(who.code, "activity")  # first: a change after it reruns again
        record, attendance = store().get_class(who.code), store().attendance(who.code, who.secret)
    except ClassroomError as error:
        show_error(error)
        return
    events.class_events(who.code, activity, key=ACTIVITY, watch="activity", min_interval_ms=250)
    code_column, qr_column = st.columns([2, 1], vertical_alignment="center")
    with code_column:
        st.markdown("**Join code:**")
        st.markdown(_code_html(who.code), unsafe_allow_html=True)
        st.markdown(f"Open **{escape_markdown(short)}**")
        st.markdown(_joined_line(record, attendance))
    with qr_column:
        st.image(_svg_image(qr_svg(link)), width=160 if compact else 220, caption="Scan to join")
        if st.button("Join screen", key=widget_key(PAGE, "join_screen"), icon=":material/fullscreen:"):
            join_screen(who.code, link, short)


def _joined_line(record: Class, attendance: Attendance) -> str:
    """How many are here (and left), "a of N here answered" while a question is open, and
    whether the class is locked."""
    line = f"**{attendance.headcount()}**"
    if record.question and record.question.is_open:
        line += f" · **{attendance.progress(away=False)}**"  # who left and answered: beside Reveal
    return line + (" · :material/lock: locked: nobody new can join" if record.locked else "")


def question_panel(who: Role, record: Class, ask: Sequence[tuple[str, Callable[[], Question]]], *, presenter: bool):
    """Ask buttons for this stop, then the current question (a quiz question with its
    numbers), and under it one row: "a of N here answered" (live, while open), Reveal, Hide and
    Ask again, so the count and its controls share one screen; the results once revealed."""
    show_flash()
    with st.container(horizontal=True, gap="small"):
        for number, (label, make) in enumerate(ask):
            st.button(label, key=widget_key(PAGE, "ask", number), on_click=_ask, args=(who, make))
    question = record.question
    if question is None:
        return
    st.markdown(f"**{escape_markdown(questions.question_label(question))}** ({question.status})")
    if question.kind == "quiz":  # the projector shows what the students answer
        quiz_body(question)
    with st.container(horizontal=True, vertical_alignment="center", gap="small", key=QUESTION_ROW):
        if question.is_open:  # the count beside Reveal, live: no scrolling up to the join panel
            with st.container(width="content"):  # a fragment's own container would take the row
                _answered_count(who)
        if question.is_open or question.status == "hidden":
            st.button("Reveal", key=REVEAL, type="primary", on_click=_teacher_action, args=("reveal", who))
        if question.revealed:
            st.button("Hide", key=HIDE, on_click=_teacher_action, args=("hide", who))
        st.button("Reset & ask again", key=AGAIN, on_click=_teacher_action, args=("reset", who))
    if question.revealed:
        try:
            results_chart(store().results(who.code, credential=who.secret), presenter=presenter)
        except ClassroomError as error:
            show_error(error)


@fragment
def _answered_count(who: Role) -> None:
    """ "a of N here answered" for the open question (N: the students here now), rerun when
    someone joins, answers or leaves."""
    attendance = _live_attendance(who, COUNT)
    if attendance is not None:
        st.markdown(f"**{attendance.progress()}**", width="content")


def _live_attendance(who: Role, key: str) -> Attendance | None:
    """Who is here, for a fragment that the class's activity stream (listened to under
    `key`) reruns when someone joins, answers or leaves; None (said) when the store refuses."""
    try:
        activity = store().version(who.code, "activity")  # first: a change after it reruns again
        attendance = store().attendance(who.code, who.secret)
    except ClassroomError as error:
        show_error(error)
        return None
    events.class_events(who.code, activity, key=key, watch="activity", min_interval_ms=250)
    return attendance


def _ask(who: Role, make: Callable[[], Question]) -> None:
    try:
        store().ask(who.code, who.secret, make())
    except ClassroomError as error:
        flash(error.message)


def _teacher_action(action: str, who: Role) -> None:
    try:
        getattr(store(), action)(who.code, who.secret)
    except ClassroomError as error:
        flash(error.message)


def results_chart(results: Results, *, presenter: bool = False) -> None:
    """The class's answers with the true value marked, and how many were right."""
    fig, caption = results_figure(results, presenter=presenter)
    ui.chart(fig, key=widget_key(PAGE, "results", results.question.id), toolbar=False)
    if caption:
        st.caption(escape_markdown(caption))


def _set_paced(who: Role) -> None:
    try:
        store().set_paced(who.code, who.secret, bool(st.session_state.get(PACED)))
    except ClassroomError as error:
        flash(error.message)


def _end(who: Role) -> None:
    try:
        store().end(who.code, who.secret)
    except ClassroomError as error:
        flash(error.message)
        return
    flash(f"Class {who.code} has ended; its results stay downloadable for an hour.")
    # said by the next run's ended_notice: a toast made here is lost to the dialog's st.rerun
    st.session_state[_ENDED] = who.code


def console(who: Role, record: Class, page: str) -> None:
    """The teacher's console: pace, who answered, the CSV, the private link, end the class.
    (`page` is kept for the callers: the private link opens the live class's own page.)"""
    st.session_state[PACED] = record.pace.paced
    st.toggle(
        "Students follow my stop",
        key=PACED,
        on_change=_set_paced,
        args=(who,),
        help="Off: every student moves on their own. On again: everyone comes back to your stop.",
    )
    roster(who, record)
    # the private link opens in the mode this screen is in (presenter mode is a screen's own)
    presenter = st.query_params.get("presenter") in ("1", "true")
    with st.container(horizontal=True, gap="small"):
        results_link(who)
        st.download_button(
            "Save my private teacher link",
            # made at the click: a fresh link, good for RESUME_SECONDS
            lambda: identity.teach_link(public_base_url(), who.code, who.secret, presenter=presenter) + "\n",
            file_name=f"relpos_teacher_{who.code}.txt",
            mime="text/plain",
            key=LINK,
            on_click=_link_saved,
            args=(who.code,),
            icon=":material/key:",
            help=(
                "Opens this class as its teacher from another tab or device, within "
                f"{identity.RESUME_SECONDS // 60} minutes. Keep it private: never project it."
            ),
        )
        if st.button("End the class", key=END, icon=":material/stop_circle:"):
            confirm_end(who)


def roster(who: Role, record: Class) -> None:
    """Lock or unlock the class, then who is here, live (:func:`_roster`)."""
    if record.locked:
        st.button("Unlock", key=LOCK, icon=":material/lock_open:", on_click=_set_locked, args=(who, False))
        st.caption(":material/lock: Locked: nobody new can join; students who joined can come back.")
    else:
        help = "Nobody new can join; students who joined can still come back (a reload, a new tab)."
        st.button("Lock the class", key=LOCK, icon=":material/lock:", on_click=_set_locked, args=(who, True), help=help)
    _roster(who)


@fragment
def _roster(who: Role) -> None:
    """Who joined, who is here, who answered, each with Remove; rerun when someone joins,
    answers or leaves (the class's activity stream), and scrolled in a box of fixed height."""
    attendance = _live_attendance(who, ROSTER)
    if attendance is None:
        return
    st.markdown(f"**Students**: {attendance.headcount()} (✓ answered the current question)")
    class_roster.roster_list(attendance, key=ROSTER_LIST, on_remove=_remove, args=(who,))


def _remove(who: Role) -> None:
    number = class_roster.removal(ROSTER_LIST)
    if number is None:
        return
    try:
        student = store().remove_student(who.code, who.secret, number)
    except ClassroomError as error:
        flash(error.message)
        return
    st.toast(f"Removed {student.label} from the class.", icon=":material/person_remove:")


def _set_locked(who: Role, locked: bool) -> None:
    try:
        store().set_locked(who.code, who.secret, locked)
    except ClassroomError as error:
        flash(error.message)


#: The results link, drawn like Streamlit's secondary buttons (the theme's colours).
_RESULTS_STYLE = (
    "display: inline-flex; align-items: center; min-height: 2.5rem; padding: 0.25rem 0.75rem; "
    "border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); border-radius: 0.5rem; "
    "color: var(--st-text-color, inherit); background: var(--st-background-color, transparent); "
    "text-decoration: none; font: inherit;"
)


def results_link(who: Role) -> None:
    """The class's results for a spreadsheet, from :mod:`relpos.class_routes.results_csv`: made
    at the click (every answer so far), in the teacher's time zone (the browser's), and
    served only to this browser's teacher cookie (not at a ``/media/`` address anyone may fetch)."""
    href = html.escape(results_csv.results_path(who.code, st.context.timezone), quote=True)
    name = results_csv.file_name(who.code)  # the code alphabet only: nothing typed by anyone
    link = f'<a href="{href}" download="{name}" style="{_RESULTS_STYLE}">Download results (CSV)</a>'
    st.html(link, width="content")


def _link_saved(code: str) -> None:
    st.toast(
        f"Saved relpos_teacher_{code}.txt. Open its link within {identity.RESUME_SECONDS // 60} minutes "
        "in another tab or device to teach this class from there; keep it private.",
        icon=":material/key:",
    )


@st.dialog("End the class?")
def confirm_end(who: Role) -> None:
    """Ending is for good: students lose their answer boxes. Asked once more, in the middle of the screen."""
    st.markdown(
        f"Class **{who.code}** ends for every student: they can no longer answer. Its results stay "
        "downloadable here for an hour."
    )
    with st.container(horizontal=True, gap="small"):
        # a callback: it runs whether the click reruns the dialog alone (a browser) or the page
        confirmed = widget_key(PAGE, "end_confirmed")
        st.button("End the class now", key=confirmed, type="primary", on_click=_end, args=(who,))
        cancelled = st.button("Keep the class going", key=widget_key(PAGE, "end_cancelled"))
    if cancelled or st.session_state.get(_FLASH, "").startswith(f"Class {who.code} has ended"):
        st.rerun()  # the dialog closes; the page shows the ended class


def ended_notice(who: Role) -> None:
    """An ended class on the teacher's screen: the results, and the way out. Just ended, it
    is said in a toast too, wherever the teacher is on the page (the notice is at its top,
    the console that ended it below the lesson)."""
    if st.session_state.pop(_ENDED, None) == who.code:
        said = f"Class {who.code} has ended. Its results are at the top of the page."
        st.toast(said, icon=":material/stop_circle:")
    st.info(f"Class {who.code} has ended. Its results stay downloadable for an hour.")
    with st.container(horizontal=True, gap="small"):
        results_link(who)
        st.button("Leave the class", key=widget_key(PAGE, "leave"), on_click=forget)


def _ask_quiz(who: Role) -> None:
    seed, number = st.session_state.get(QUIZ_SEED), st.session_state.get(QUIZ_NUMBER)
    try:
        store().ask(who.code, who.secret, questions.quiz_question(int(seed), int(number) - 1))
    except (ClassroomError, TypeError, ValueError) as error:
        flash(getattr(error, "message", "Choose a quiz seed and a question number."))


QUIZ_SEED, QUIZ_NUMBER, QUIZ_ASK = (widget_key(PAGE, name) for name in ("quiz_seed", "quiz_number", "quiz_ask"))
#: The quiz a class takes unless the teacher picks another: README's ``/quiz?seed=42``.
QUIZ_DEFAULT_SEED = 42


def quiz_round(who: Role) -> None:
    """The seeded quiz as a class: pick the seed (the quiz page's ``?seed=``) and a question;
    students answer it on their device and get the quiz's own feedback after the reveal."""
    st.markdown("**The quiz, as a class**")
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        st.number_input("Quiz seed", min_value=0, max_value=MAX_SEED, value=QUIZ_DEFAULT_SEED, step=1, key=QUIZ_SEED)
        bank = quiz_questions(int(st.session_state.get(QUIZ_SEED) or 0))
        titles = {number: f"{number}. {question.title}" for number, question in enumerate(bank, start=1)}
        st.selectbox("Question", list(titles), key=QUIZ_NUMBER, format_func=titles.get)
        st.button("Ask this quiz question", key=QUIZ_ASK, on_click=_ask_quiz, args=(who,))


def quiz_body(question: Question, *, inset_px: int = 0) -> None:
    """A quiz question as the quiz page shows it: its numbers, then its text (generated
    text, no user input). "With the numbers above" needs the numbers above. `inset_px`:
    what its container takes of the screen's width (:func:`relpos.ui.tables.scenario_tables`)."""
    seed, index = question.quiz
    quiz = quiz_questions(seed)[index]
    if quiz.scenario is not None:
        ui.scenario_tables(quiz.scenario, inset_px=inset_px)
    st.markdown(quiz.prompt)
