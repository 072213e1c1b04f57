"""Who a browser session is in a live class, and the class's address.

The store (:func:`store`), its refusals said plainly (:func:`show_error`), one-run messages
(:func:`flash`), the session's part (:class:`Role`, :func:`role`: session state, else what the
browser kept, sealed by the server in an HttpOnly cookie or local storage, never the URL),
the events receiver that keeps it (:func:`listen`, :func:`keep_identity`), and the join
link's address (:func:`public_base_url`). The widget and state keys of every class view are here."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import streamlit as st

from relpos.class_routes import identity
from relpos.class_routes.store import class_store
from relpos.classroom import codes
from relpos.classroom.errors import ClassroomError
from relpos.classroom.model import Class
from relpos.classroom.presence import seat_tag
from relpos.classroom.store import ClassStore
from relpos.server import internals
from relpos.state.keys import state_key, widget_key
from relpos.text.escape import escape_markdown
from relpos.ui import class_events as events

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


def store() -> ClassStore:
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
        return codes.normalise_code(raw)
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
