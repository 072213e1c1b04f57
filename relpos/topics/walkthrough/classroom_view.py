"""The walkthrough as a live class: the teacher's stop on every student's screen.

The teacher starts a class here (**Start a class**); every stop the teacher reaches is
stored as the class's pace (the stop's index, an id such as ``r2j3`` and the lesson's
numbers as the walkthrough's URL state, :data:`~relpos.topics.walkthrough.schema.WALKTHROUGH`
without presenter mode, which each screen keeps for itself). A joined student's run first
applies that stop and those numbers (:func:`follow`), so while the class is paced the
student sees what the projector shows and the stepping controls are disabled; the push
channel (:mod:`relpos.ui.class_events`) reruns the student's page when the stop moves.

At a pair stop the teacher can ask the class to predict e_ij, at a softmax stop which key
gains the most weight; the questions, answers and results are :mod:`relpos.ui.classroom`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

import streamlit as st

from relpos import ui
from relpos.class_routes.events import session_client
from relpos.classroom import questions
from relpos.classroom.errors import ClassOverError, ClassroomError, StoreUnavailableError, ends_identity
from relpos.classroom.model import Class, Pace
from relpos.server import turns
from relpos.state.keys import START_CLASS, state_key, widget_key
from relpos.text.numbers import as_written, subscript
from relpos.topics.walkthrough import controls_view
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import schema as walkthrough_schema
from relpos.topics.walkthrough.controls_view import PAGE, Lesson
from relpos.topics.walkthrough.schema import WALKTHROUGH
from relpos.ui import class_events as events
from relpos.ui import class_follow, classroom

__all__ = [
    "InClass",
    "asked",
    "class_panel",
    "follow",
    "follow_page",
    "join_page",
    "pace_of",
    "push",
    "start_button",
    "student_panel",
]

#: The stop last stored as the class's pace by this session (saves a write per rerun).
_PUSHED = state_key(PAGE, "pushed")
#: The stop this session is storing: set before the write, so that a run cut short after
#: the store has it still counts the class's stop as this tab's (not another tab's move).
_PUSHING = state_key(PAGE, "pushing")
#: This session's last run drew the follow view (its next ordinary run starts at the teacher's stop).
_FOLLOWED = state_key(PAGE, "followed")
START = START_CLASS
FOLLOW = widget_key(PAGE, "follow")
#: The teacher's console (an expander whose open state the session keeps).
CONSOLE = widget_key(PAGE, "class_console")


@dataclass(frozen=True)
class InClass:
    """This run's part in a live class: who (None: no class), the class as read, and an
    error to show instead (an unknown or ended code)."""

    who: classroom.Role | None = None
    record: Class | None = None
    error: ClassroomError | None = None

    @property
    def locked(self) -> bool:
        """A student of a paced class: the stop is the teacher's."""
        return bool(self.who and self.who.student and self.record and self.record.pace.paced)

    @property
    def invited(self) -> bool:
        """A join link opened by someone not in the class yet (and the class is there to join)."""
        return bool(self.who and self.who.kind == "invited" and self.error is None)

    @property
    def following(self) -> bool:
        """A student of a paced walkthrough class that is on: the browser draws each stop."""
        record = self.record
        return self.locked and record.ended_at is None and record.lesson == "walkthrough" and bool(record.pace.state)

    @property
    def reconnecting(self) -> bool:
        """The store could not be used: who this session is stands, and the page tries again."""
        return isinstance(self.error, StoreUnavailableError)


def pace_of(link_state: dict) -> Pace:
    """The class pace of a walkthrough view (its stop and numbers; presenter mode stays per screen).

    >>> from relpos.core.examples import worked_example
    >>> pace = pace_of(walkthrough_schema.walkthrough_state(worked_example(), wt.Stop(1, 4), True))
    >>> pace.index, pace.step, "presenter" in pace.state
    (9, 'r2softmax', False)
    """
    view = walkthrough_schema.walkthrough_view(link_state)
    n, stop = view.scenario.n, view.stop
    step = wt.stop_id(stop, n)
    encoded = {key: value for key, value in WALKTHROUGH.encode(link_state).items() if key != "presenter"}
    return Pace(index=wt.stop_index(stop, n), step=step, state=urlencode(encoded, safe=","))


def _view_of(pace: Pace) -> walkthrough_schema.WalkthroughView:
    return walkthrough_schema.walkthrough_view(WALKTHROUGH.decode(dict(parse_qsl(pace.state))).state)


def follow() -> InClass:
    """Before the lesson is read: who this session is, and for a paced student the
    teacher's stop and numbers applied."""
    who = classroom.role()
    if who is None:
        return InClass()
    try:
        if who.teacher:  # an ended class stays the teacher's for its results
            record = classroom.store().check_teacher(who.code, who.secret)
        elif who.student:  # the session's seat: not a guess, never throttled
            record = classroom.store().get_class(who.code)
        else:  # a code from a link: wrong ones are throttled per client (guessing codes)
            record = classroom.store().look_up(who.code, session_client())
    except StoreUnavailableError as error:  # says nothing about the class: keep who this is
        return InClass(who, None, _reconnecting(who, error))
    except ClassroomError as error:
        if (who.teacher or who.student) and ends_identity(error):
            classroom.class_over(who, error)  # said on every run from now on, not once
            classroom.forget()
        return InClass(who, None, error)
    if classroom.removed_from(who, record):  # the teacher took the seat back: the join box, and why
        return InClass(classroom.Role("invited", who.code), record)
    in_class = InClass(who, record)
    turns.go_first(bool(who.teacher and record.ended_at is None))  # a join flood must not hold up the Next
    followed = st.session_state.pop(_FOLLOWED, False)  # handed back by the follow view: start at its stop
    if record.pace.state and (in_class.locked or followed) and not in_class.following:
        view = _view_of(record.pace)
        controls_view.follow_view(view.scenario, view.stop)
    if who.teacher and record.pace.state and record.ended_at is None:
        _take_up(record)
    return in_class


def _take_up(record: Class) -> None:
    """A teacher's tab shows the class where it is: a tab that opens a running class (the
    private link, a restart) starts at the class's stop, not its URL's; a tab whose class
    another of the teacher's tabs moved since it last led shows where the class is now,
    and says so (the last tab to move the class leads it)."""
    pushed = st.session_state.get(_PUSHED)
    mine = {kept[1][2] for kept in (pushed, st.session_state.get(_PUSHING)) if kept is not None}
    if controls_view.SCENARIO in st.session_state and (pushed is None or record.pace.state in mine):
        return  # this tab leads (or has not led yet, and opened this class itself)
    controls_view.open_link_once()  # presenter mode from the link: a screen's own choice
    view = _view_of(record.pace)
    controls_view.follow_view(view.scenario, view.stop)
    st.session_state[_PUSHED] = (record.code, (record.pace.index, record.pace.step, record.pace.state))
    if pushed is not None:
        index = record.pace.index + 1
        classroom.flash(f"Another of your tabs moved the class to stop {index}; this tab shows it now and leads again.")


def join_page(in_class: InClass) -> None:
    """A join link opened: the join box, on top of an otherwise empty page (the lesson
    follows once joined; a phone sees the box without scrolling, and no teacher's button)."""
    st.title("Walkthrough: one pair at a time")
    classroom.show_flash()
    classroom.join_prompt(in_class.who.code)
    classroom.ask_identity(in_class.who.code)


def asked(lesson: Lesson, in_class: InClass) -> str | None:
    """What the class's open question hides at this stop (:func:`wt.asked_part`), for everyone in the class."""
    question = in_class.record.question if in_class.record else None
    if question is None or not question.is_open:
        return None
    return wt.asked_part(question.kind, question.stop, lesson.stop, lesson.n)


def follow_page(in_class: InClass) -> None:
    """A following student's page: drawn once; the browser draws each of the teacher's stops.

    The follow view (:mod:`relpos.ui.class_follow`) holds the stop, the question and the
    results; the page around it is static, so the teacher's Next costs no run of it.
    """
    who, record = in_class.who, in_class.record
    st.session_state[_FOLLOWED] = True
    st.title("Walkthrough: one pair at a time")
    classroom.show_flash()
    st.caption(f"Class {who.code}: your screen follows your teacher's. Answer questions here when they are asked.")
    class_follow.follow_view(who.code, record.version, who.secret, key=FOLLOW)
    classroom.keep_identity(who)
    st.divider()
    ui.markdown("walkthrough_background")


def _reconnecting(who: classroom.Role, error: StoreUnavailableError) -> StoreUnavailableError:
    """`error` said to someone in class `who.code`: their place is kept and the page tries again."""
    kept = "your place in the class is kept" if who.kind in ("teacher", "student") else "nothing is lost"
    return type(error)(f"Reconnecting to class {who.code}: {error.message} This page tries again by itself; {kept}.")


def push(lesson: Lesson, in_class: InClass) -> Class | None:
    """The teacher's stop becomes the class's (only when it moved); the class as stored."""
    if not (in_class.who and in_class.who.teacher and in_class.record) or in_class.record.ended_at is not None:
        return in_class.record
    pace = pace_of(lesson.link_state)
    current = (pace.index, pace.step, pace.state)
    if st.session_state.get(_PUSHED) == (in_class.who.code, current) and in_class.record.pace.state == pace.state:
        return in_class.record
    st.session_state[_PUSHING] = (in_class.who.code, current)
    try:
        record = classroom.store().set_stop(
            in_class.who.code, in_class.who.secret, index=pace.index, step=pace.step, state=pace.state
        )
    except ClassroomError as error:
        classroom.show_error(error)
        return in_class.record
    st.session_state[_PUSHED] = (in_class.who.code, current)
    return record


def _start(link_state: dict) -> None:
    classroom.start_class("walkthrough", pace_of(link_state))


#: The choice for "two or more keys gain the same, at the decimals shown".
TIE = "a tie: equal gains"
#: The choice for "no weight gains visibly" (k = 0, a constant table, a saturated row): no tie, no gain.
NO_GAIN = "no key gains visibly"


def start_button(lesson: Lesson, in_class: InClass) -> None:
    """**Start a class** (outside a class; a student sees the class instead)."""
    if in_class.who and in_class.who.kind in ("teacher", "student"):
        return
    st.button(
        "Start a class",
        key=START,
        on_click=_start,
        args=(lesson.link_state,),
        icon=":material/groups:",
        help="Students join with a code or QR code, follow your Next and Previous, and answer questions.",
    )


def ask_options(lesson: Lesson) -> list[tuple[str, object]]:
    """What the teacher can ask at this stop: predict e_ij, or the key that gains most."""
    stop, n = lesson.stop, lesson.n
    i = stop.row + 1
    if lesson.at_softmax:
        # the takeaway's own facts (row_facts' gainers) decide the answer, its reveal and the feedback
        gained = wt.row_shift(lesson.result, stop.row).facts
        keys = [f"key {j + 1}" for j in range(n)] + [TIE, NO_GAIN]
        verdict = gained.gain_verdict
        answer = keys[gained.gainers[0]] if verdict == "one" else TIE if verdict == "tie" else NO_GAIN
        prompt = f"Row {i}: which key gains the most attention weight from the position term?"
        step = f"r{i}softmax"
        return [("Ask: which key gains most?", lambda: questions.choice_question(prompt, keys, answer, stop=step))]
    pair = lesson.steps[stop.row * n + stop.step]
    j = stop.step + 1
    # no slip (a term left out, the row of i − j, the sign) may land within the tolerance
    tolerance = wt.prediction_tolerance(lesson.scenario, pair)
    rule = f"within ±{as_written(tolerance)} counts" if tolerance else "give it exactly"
    prompt = f"Predict e{subscript(i)}{subscript(j)} = content + position for query {i}, key {j} ({rule})."
    return [
        (
            f"Ask: predict e{subscript(i)}{subscript(j)}",
            lambda: questions.number_question(prompt, pair.score, tolerance=tolerance, stop=f"r{i}j{j}"),
        )
    ]


def class_panel(lesson: Lesson, in_class: InClass) -> None:
    """The teacher's join panel above the stop: code, link, QR code, students."""
    said = classroom.over_notice()  # the class ended under this student: what now
    if in_class.error is not None and not (said and isinstance(in_class.error, ClassOverError)):
        classroom.show_error(in_class.error)
    if not (in_class.who and in_class.who.student):  # a student's messages go with the answer box
        classroom.show_flash()
    if not (in_class.who and in_class.who.teacher and in_class.record):
        return
    if in_class.record.ended_at is not None:
        classroom.ended_notice(in_class.who)
        return
    classroom.projector(in_class.who, PAGE, compact=lesson.presenter)


def teacher_questions(lesson: Lesson, in_class: InClass) -> None:
    """Under the stop: ask, count, reveal; the console below it, folded until the teacher
    opens it. Its open state is the session's (a widget's), not the browser's: an Ask, a
    Reveal or a Next adds or removes what is above it, and an untracked expander that moves
    is drawn anew, folded."""
    if not (in_class.who and in_class.who.teacher and in_class.record) or in_class.record.ended_at is not None:
        return
    classroom.question_panel(in_class.who, in_class.record, ask_options(lesson), presenter=lesson.presenter)
    with st.expander(
        "Class console: students, quiz, results, end", icon=":material/settings:", key=CONSOLE, on_change="rerun"
    ):
        classroom.console(in_class.who, in_class.record, PAGE)
        classroom.quiz_round(in_class.who)


def student_panel(lesson: Lesson, in_class: InClass) -> None:
    """A student's status and the current question; a join link opened: the join box."""
    who = in_class.who
    if who is None:
        return
    if who.kind == "invited":
        if in_class.error is None:
            classroom.join_prompt(who.code)
        return
    if not who.student or in_class.record is None:
        return
    classroom.show_flash()
    if in_class.locked:
        st.caption(f"Class {who.code}: you follow your teacher's stop.")
    else:
        st.caption(f"Class {who.code}: move at your own pace.")
    classroom.answer_box(who, in_class.record)


def listen(in_class: InClass, record: Class | None) -> None:
    """The push receiver for this session's class (after the teacher's push: its version)."""
    if in_class.who is None:
        return
    if record is None:
        if in_class.reconnecting:
            _listen_until_back(in_class.who)
        elif in_class.error is not None and ends_identity(in_class.error):  # never for a malformed (crafted) code
            classroom.listen(in_class.who, -1, over=True)
        return
    classroom.listen(in_class.who, record.version, over=record.ended_at is not None)


def _listen_until_back(who: classroom.Role) -> None:
    """While the store cannot be used: keep the browser's copy of who this is, and watch the
    class's stream (the teacher's tab too): its first version, once the store answers again,
    reruns the page (until then the stream is refused and reopened ever more slowly)."""
    remember = {"code": who.code, "kind": who.kind, "secret": who.secret} if who.kind != "invited" else None
    seat = who.secret if who.student else None
    events.class_events(who.code, -1, key=classroom.EVENTS, remember=remember, ask=who.kind == "invited", seat=seat)
