"""The live class's widgets, shared by the lessons that run as a class.

Who this browser session is lives in session state (:data:`TEACHER`, :data:`STUDENT`) and,
so that a server restart or another replica does not take it away, in the browser's own
storage and an HttpOnly cookie through :func:`relpos.ui.class_events.class_events`, sealed
by the server (:mod:`relpos.class_routes.identity`; never in the URL: the teacher's address bar
is on the projector). The teacher credential is never drawn: the
private teacher link is offered as a download only.

* the teacher: :func:`start_class`, :func:`projector` (code, join link, QR code, how many
  are here), :func:`question_panel` (ask, "a of N here answered", reveal, hide, ask again,
  the results) and :func:`console` (pace, the live roster with Remove, lock, CSV, private
  link, end);
* a student: :func:`join_form` (the Overview's "Join a class"), :func:`join_prompt` (a join
  link opened), :func:`answer_box` and the feedback after the reveal;
* the join link's address: :func:`public_base_url` (a configured public address, else the
  machine's network address when the teacher's browser says localhost).

Every message of the store is a :class:`~relpos.classroom.errors.ClassroomError` whose text
is shown escaped (:func:`show_error`); nicknames are validated by the store and escaped here.
"""

from __future__ import annotations

import base64
import html
import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import streamlit as st

from relpos import ui
from relpos.class_routes import identity, results_csv
from relpos.class_routes.events import session_client
from relpos.class_routes.following import results_figure
from relpos.class_routes.store import class_store
from relpos.classroom import model
from relpos.classroom.errors import ClassEndedError, ClassOverError, ClassroomError, NotJoinedError
from relpos.classroom.model import Class, Question
from relpos.classroom.presence import Attendance, seat_tag
from relpos.classroom.qr import qr_svg
from relpos.classroom.results import Results
from relpos.classroom.store import BaseStore
from relpos.server import fragment, internals
from relpos.state.keys import state_key, widget_key
from relpos.tables import frames
from relpos.text.answers import MAX_SEED
from relpos.text.escape import escape_markdown
from relpos.topics.quiz.checking import make_quiz
from relpos.ui import class_events as events
from relpos.ui import class_roster

__all__ = [
    "ANSWER",
    "JOIN_CODE",
    "JOIN_NICKNAME",
    "START",
    "STUDENT",
    "TEACHER",
    "TYPED",
    "Role",
    "answer_box",
    "ask_identity",
    "console",
    "join_form",
    "join_prompt",
    "keep_identity",
    "network_base_url",
    "projector",
    "public_base_url",
    "question_panel",
    "role",
    "show_error",
    "start_class",
]

PAGE = "classroom"
#: Session values: ``{"code", "credential"}`` of the class this session teaches,
#: ``{"code", "token"}`` of the class it joined.
TEACHER, STUDENT = state_key(PAGE, "teacher"), state_key(PAGE, "student")
_FLASH = state_key(PAGE, "flash")
_REMEMBERED = state_key(PAGE, "remembered")  # codes whose identity the browser was asked for
_REMOVED = state_key(PAGE, "removed")  # the code of the class whose teacher took this session's seat back
_ENDED = state_key(PAGE, "ended")  # the class this session has just ended (said once, in a toast)
_OVER = state_key(PAGE, "over")  # (code, why) of the class that ended under this student: said until they move on
#: Widgets. The answer field's key holds "answer": phones get the decimal keypad for it.
START, SUBMIT = widget_key(PAGE, "start"), widget_key(PAGE, "submit")
#: The answer field: a number (its key is in relpos.state.keys.NUMBER_FIELDS, so a phone
#: opens its decimal keyboard) or a choice; a quiz answer such as cells "(1,4), (4,1)" is
#: typed in TYPED, which keeps the full keyboard.
ANSWER, TYPED = widget_key(PAGE, "answer", "number"), widget_key(PAGE, "typed")
JOIN_CODE, JOIN_NICKNAME, JOIN = (widget_key(PAGE, name) for name in ("join_code", "join_nickname", "join"))
EVENTS, ACTIVITY, COUNT = (widget_key(PAGE, name) for name in ("events", "activity", "count"))
PACED, END, LINK = (widget_key(PAGE, name) for name in ("paced", "end", "teacher_link"))
REVEAL, HIDE, AGAIN = (widget_key(PAGE, name) for name in ("reveal", "hide", "again"))
ROSTER, ROSTER_LIST, LOCK = (widget_key(PAGE, name) for name in ("roster", "roster_list", "lock"))
#: The notice a student keeps once their class has ended, and its Dismiss.
OVER_NOTICE, OVER_DISMISS = widget_key(PAGE, "over_notice"), widget_key(PAGE, "over_dismiss")
#: Where another class is joined.
OVERVIEW_PAGE = "pages/overview.py"
#: The open question's row: its count and its controls.
QUESTION_ROW = widget_key(PAGE, "question_row")
#: The URL parameter a join link carries (and that keeps a class across a server restart).
CLASS_PARAM, TEACHER_PARAM = "class", "teacher"
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", ""}


def store() -> BaseStore:
    """The server's live-class store (one per process, shared with the event streams)."""
    return class_store()


def show_error(error: ClassroomError) -> None:
    """A store's refusal, said plainly (its message may quote what someone typed: escaped)."""
    st.error(escape_markdown(error.message), icon=":material/error:")


def flash(message: str) -> None:
    """Say `message` once, on the next run (call from a callback)."""
    st.session_state[_FLASH] = message


def show_flash() -> None:
    message = st.session_state.pop(_FLASH, None)
    if message:
        st.info(escape_markdown(message))


# ---------------------------------------------------------------- who this session is


@dataclass(frozen=True)
class Role:
    """What this session is in a class: ``teacher``, ``student``, or ``invited`` (a join
    link opened, not joined yet)."""

    kind: str
    code: str
    secret: str = field(default="", repr=False)  # credential or token (never drawn)

    @property
    def teacher(self) -> bool:
        return self.kind == "teacher"

    @property
    def student(self) -> bool:
        return self.kind == "student"


def _identity_from_url() -> None:
    """An old-style private link (``?teacher=<credential>``): refused, and taken out of the
    address bar. A private link now opens :func:`relpos.class_routes.identity.teach_page`, which
    keeps the credential out of every URL, history entry and Referer."""
    params = st.query_params
    if TEACHER_PARAM not in params:
        return
    del params[TEACHER_PARAM]
    flash(
        "That kind of teacher link is no longer accepted (it put your credential in the address bar). "
        "In the teaching tab, save a new private teacher link from the class console."
    )


def _kept_identity(code: str) -> dict | None:
    """What the browser kept for `code`, sealed by the server: its HttpOnly cookie (sent with
    this session's first request, so known in the first run), else its local storage (handed
    back by the events component). Anything not sealed by this server for `code` is ignored."""
    found = identity.kept(st.context.cookies, code)
    if found is None:
        result = st.session_state.get(EVENTS)
        given = result.get("identity") if hasattr(result, "get") else None
        if isinstance(given, dict) and given.get("code") == code:
            found = identity.unseal(given.get("sealed"), code)
    if found is None or found[0] not in ("teacher", "student"):
        return None
    return {"code": code, "kind": found[0], "secret": found[1]}


def _identity_from_browser(code: str) -> None:
    """Who the browser was in `code` before this session (a server restart, another replica)."""
    given = _kept_identity(code)
    if given is None:
        return
    secret, kind = given.get("secret"), given.get("kind")
    try:
        if kind == "teacher":
            store().check_teacher(code, secret)
            st.session_state[TEACHER] = {"code": code, "credential": secret}
        elif kind == "student":
            student = store().join(code, token=secret)
            st.session_state[STUDENT] = {"code": code, "token": student.token}
    except ClassroomError:
        return  # a stale entry (the class is over): the page offers to join again


def role() -> Role | None:
    """This session's part in a class, from its state, a private teacher link, or what the
    browser remembered; None outside any class."""
    _identity_from_url()
    state = st.session_state
    code = _linked_code()
    if code and TEACHER not in state and STUDENT not in state:
        _identity_from_browser(code)
    if TEACHER in state:
        return Role("teacher", state[TEACHER]["code"], state[TEACHER]["credential"])
    if STUDENT in state and (not code or code == state[STUDENT]["code"]):
        return Role("student", state[STUDENT]["code"], state[STUDENT]["token"])
    return Role("invited", code) if code else None


def _linked_code() -> str | None:
    raw = st.query_params.get(CLASS_PARAM)
    if not raw:
        return None
    try:
        return model.normalise_code(raw)
    except ClassroomError:
        return raw[:16]  # shown escaped by the join prompt's error


def forget() -> None:
    """Leave the class (the session forgets its part; the browser forgets it on the next run)."""
    st.session_state.pop(TEACHER, None)
    st.session_state.pop(STUDENT, None)
    if CLASS_PARAM in st.query_params:
        del st.query_params[CLASS_PARAM]


def ask_identity(code: str) -> None:
    """Ask the browser who it was in class `code` (a join link reopened after joining), with no
    stream; after the teacher took this session's seat back, make it forget that seat instead."""
    removed = st.session_state.get(_REMOVED) == code
    events.class_events(code, 0, key=EVENTS, watch=None, ask=not removed, forget=removed)


def removed_from(who: Role, record: Class) -> bool:
    """Whether the teacher took this student's seat back (``record.removed``): then the
    session leaves it, keeps the class's link (the join box shows) and says why."""
    if not who.student or seat_tag(who.secret) not in record.removed:
        return False
    st.session_state.pop(STUDENT, None)
    st.session_state[_REMOVED] = who.code
    flash(f"Your teacher removed you from class {who.code}. Join again below if your teacher asks you to.")
    return True


def keep_identity(who: Role) -> None:
    """Keep the browser's copy of who this session is, with no stream (a follow view has its own)."""
    remember = {"code": who.code, "kind": who.kind, "secret": who.secret}
    events.class_events(who.code, 0, key=EVENTS, watch=None, remember=remember)


def listen(who: Role, version: int, *, over: bool = False) -> None:
    """Mount the events receiver for a class (reruns the page when `version` moves on) and
    keep the browser's copy of who this session is; `over`: the class has ended or gone."""
    remember = None
    if who.kind in ("teacher", "student") and not over:
        remember = {"code": who.code, "kind": who.kind, "secret": who.secret}
    watch = None if who.teacher else "state"  # the teacher's tab makes the changes: no rerun of its own
    seat = who.secret if who.student and not over else None  # a student's open page: here
    events.class_events(
        who.code, version, key=EVENTS, watch=watch, remember=remember, ask=who.kind == "invited", forget=over, seat=seat
    )


# ---------------------------------------------------------------- the join address


def lan_address() -> str:
    """This machine's address on its network (the one ``streamlit run`` prints as Network URL).

    Connecting a UDP socket sends nothing; it only makes the system pick the interface
    it would route through. Without a network: 127.0.0.1.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def network_base_url(
    page_url: str, *, public: str = "", server_address: str = "", server_port: int | None = None, lan: str = ""
) -> str:
    """The app's address as a student's phone reaches it (no page, no query).

    A configured public address wins (`public`: ``RELPOS_PUBLIC_URL``; else
    `server_address`: Streamlit's ``browser.serverAddress`` when set); else the address
    the teacher's browser used, with a localhost host replaced by `lan`.

    >>> network_base_url("http://localhost:8501/walkthrough?i=2", lan="192.168.1.7")
    'http://192.168.1.7:8501'
    >>> network_base_url("http://localhost:8501/x", public="https://relpos.example/app/")
    'https://relpos.example/app'
    >>> network_base_url("http://localhost:8501/", server_address="class.example", server_port=80)
    'http://class.example'
    """
    if public:
        return public.rstrip("/")
    parts = urlsplit(page_url or "")
    scheme = parts.scheme if parts.scheme in ("http", "https") else "http"
    path = parts.path.rsplit("/", 1)[0] if parts.path.count("/") > 1 else ""
    if server_address:
        port = server_port or parts.port
        default = {"http": 80, "https": 443}[scheme]
        netloc = server_address if port in (None, default) else f"{server_address}:{port}"
        return urlunsplit((scheme, netloc, path, "", "")).rstrip("/")
    host = parts.hostname or ""
    if host in _LOCAL_HOSTS and lan:
        host = lan
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((scheme, netloc, path, "", "")).rstrip("/")


def public_base_url() -> str:
    """:func:`network_base_url` of this session's page, with this server's settings."""
    server_address = internals.option_if_set("browser.serverAddress") or ""
    port = internals.option_if_set("browser.serverPort") if server_address else None
    return network_base_url(
        st.context.url or "",
        public=os.environ.get("RELPOS_PUBLIC_URL", ""),
        server_address=server_address,
        server_port=port,
        lan=lan_address(),
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
    model.normalise_code(code)  # only the code alphabet reaches this HTML
    return f'<div role="text" aria-label="Join code {" ".join(code)}" style="{style}">{code}</div>'


def projector(who: Role, page: str, *, compact: bool = False) -> None:
    """The join panel: the code (large), the short join link, its QR code, and how many
    joined (live); a full-screen join view for the start of a lesson.

    Drawn in a fragment that reruns when someone joins or answers (the activity stream).
    """
    base = public_base_url()
    link = model.join_link(f"{base}/{page}", who.code)
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
    st.markdown(f"**{escape_markdown(model.question_label(question))}** ({question.status})")
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
        store().ask(who.code, who.secret, model.quiz_question(int(seed), int(number) - 1))
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
        questions = make_quiz(int(st.session_state.get(QUIZ_SEED) or 0))
        titles = {number: f"{number}. {question.title}" for number, question in enumerate(questions, start=1)}
        st.selectbox("Question", list(titles), key=QUIZ_NUMBER, format_func=titles.get)
        st.button("Ask this quiz question", key=QUIZ_ASK, on_click=_ask_quiz, args=(who,))


# ---------------------------------------------------------------- students


def _join(code_key: str | None, code: str | None, switch_to: str | None) -> None:
    state = st.session_state
    try:
        code = model.normalise_code(state.get(code_key, "") if code_key else code)
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


def quiz_body(question: Question) -> None:
    """A quiz question as the quiz page shows it: its numbers, then its text (generated
    text, no user input). "With the numbers above" needs the numbers above."""
    seed, index = question.quiz
    quiz = make_quiz(seed)[index]
    if quiz.scenario is not None:
        st.dataframe(ui.named_index(frames.scenario_frame(quiz.scenario)), width="content")
        st.dataframe(ui.named_index(frames.offset_row_frame(quiz.scenario.table)), width="content")
    st.markdown(quiz.prompt)


def answer_box(who: Role, record: Class) -> None:
    """The current question on a student's device: the field, then the feedback and the
    class's results once the teacher reveals them."""
    question = record.question
    if question is None or question.status == "hidden":
        return
    with st.container(border=True):
        st.markdown(f"**{escape_markdown(model.question_label(question))}**")
        if question.kind == "quiz":
            quiz_body(question)
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
                verdict = model.grade(question, mine.text)
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
