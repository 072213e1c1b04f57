"""The class store under faults: a Redis that stops mid-lesson and comes back.

A store that cannot be reached says so (:class:`StoreUnavailableError`) and nothing else:
not that the class is unknown, so no page forgets who it is. With docs/hosting.md's Redis
options (append-only file) a restart keeps every class; the same Redis without them empties.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from relpos.classroom import codes, questions
from relpos.classroom.errors import (
    InputError,
    StoreFaultError,
    StoreUnavailableError,
    UnknownClassError,
    ends_identity,
)
from relpos.classroom.redis_store import RedisStore
from relpos.ui import classroom
from tests.classroom.conftest import app_store_at, redis_server_binary
from tests.support import redis_server
from tests.support.apptest import ROOT, open_app
from tests.support.browser import free_port
from tests.support.streamlit_client import run_in_own_loop


def documented_redis_settings() -> tuple[str, ...]:
    """The redis-server options of docs/hosting.md's ``docker run … redis:7 …`` line."""
    for line in (ROOT / "docs" / "hosting.md").read_text().splitlines():
        if line.startswith("docker run") and "relpos-redis" in line:
            words = shlex.split(line)
            return tuple(words[words.index("redis:7") + 1 :])
    raise AssertionError("docs/hosting.md has no docker run line for relpos-redis")


class Redis:
    """A redis-server this test may stop and start again (same port, same folder)."""

    def __init__(self, folder: Path, settings: tuple[str, ...]):
        self.folder, self.settings, self.port = folder, settings, free_port()
        self.binary = redis_server_binary()
        self.url, self._running = f"redis://127.0.0.1:{self.port}/0", None

    def start(self) -> None:
        self._running = redis_server.redis_server(
            self.folder, binary=self.binary, port=self.port, settings=self.settings
        )
        self._running.__enter__()

    def stop(self) -> None:
        """SIGTERM, as a supervisor stops it (Redis writes what it holds first)."""
        running, self._running = self._running, None
        if running is not None:
            running.__exit__(None, None, None)


@pytest.fixture
def make_redis(tmp_path):
    started = []

    def make(settings: tuple[str, ...]) -> Redis:
        server = Redis(tmp_path / f"redis-{len(started)}", settings)
        server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


def _lesson(store: RedisStore) -> tuple[str, str, str, int]:
    record, credential = store.create_class()
    student = store.join(record.code, "Ada")
    question = store.ask(record.code, credential, questions.number_question("Predict e₁₂", -0.25))
    assert store.submit_answer(record.code, student.token, question.id, "-0.25").stored
    return record.code, credential, student.token, question.id


def test_the_documented_redis_keeps_the_lesson_when_it_is_stopped_and_started_again(make_redis):
    settings = documented_redis_settings()
    assert "--appendonly" in settings and settings[settings.index("--appendonly") + 1] == "yes"
    server = make_redis(settings)
    store = RedisStore(server.url)
    try:
        code, credential, token, question = _lesson(store)
        server.stop()
        for call in (
            lambda: store.get_class(code),
            lambda: store.check_teacher(code, credential),
            lambda: store.student(code, token),
            lambda: store.submit_answer(code, token, question, "0.5"),
        ):
            with pytest.raises(StoreUnavailableError, match="cannot be reached") as raised:
                call()
            assert not ends_identity(raised.value)  # a page keeps who it is
        server.start()
        assert store.check_teacher(code, credential).question.id == question
        assert store.student(code, token).nickname == "Ada"
        assert store.my_answer(code, token, question).text == "−0.25"
        assert store.set_stop(code, credential, index=3, step="r1j4").pace.index == 3
    finally:
        store.close()


def test_without_the_append_only_file_a_redis_restart_forgets_every_class(make_redis):
    """Why docs/hosting.md asks for it: the suite's own setting loses the lesson."""
    server = make_redis(redis_server.NOT_PERSISTENT)
    store = RedisStore(server.url)
    try:
        code, *_ = _lesson(store)
        server.stop()
        server.start()
        with pytest.raises(UnknownClassError):
            store.get_class(code)
    finally:
        store.close()


# ---------------------------------------------------------------- the pages


@pytest.fixture
def redis_app(make_redis, monkeypatch):
    """The app's store on a persistent Redis this test stops and starts again."""
    server = make_redis(documented_redis_settings())
    with app_store_at(server.url, monkeypatch):
        yield server


def _texts(at) -> str:
    parts = [element.value for element in (*at.markdown, *at.caption, *at.info, *at.error, *at.warning)]
    return "\n".join(str(part) for part in parts)


def _receivers(at) -> list[dict]:
    """The data of every class-events receiver on the page."""
    datas = [json.loads(element.proto.json) for element in at.get("bidi_component") if element.proto.json]
    return [data for data in datas if "identityUrl" in data and "forget" in data]


def _teacher():
    from relpos.topics.walkthrough import classroom_view

    at = open_app("walkthrough")
    at.button(key=classroom_view.START).click().run()
    assert not at.exception, at.exception
    return at


def _student(code: str):
    at = open_app("walkthrough", query={"class": code})
    at.text_input(key=classroom.JOIN_NICKNAME).input("Ada")
    at.button(key=classroom.JOIN).click().run()
    assert not at.exception, at.exception
    return at


def test_a_redis_outage_mid_lesson_keeps_the_teacher_and_the_students(redis_app):
    teacher = _teacher()
    code = teacher.session_state[classroom.TEACHER]["code"]
    student = _student(code)
    assert "your screen follows your teacher" in _texts(student)

    redis_app.stop()
    for at in (teacher, student):
        at.run()
        assert not at.exception, at.exception
        assert f"Reconnecting to class {code}" in _texts(at)
        (receiver,) = _receivers(at)
        assert not receiver["forget"], "the browser was told to forget who it is"
        assert receiver["remember"]["code"] == code
        assert f"/relpos/class/{code}/events?watch=state" in receiver["url"]  # reruns the page once back
        assert ("&seat=" in receiver["url"]) == (at is student)  # the student stays here meanwhile
    assert teacher.session_state[classroom.TEACHER]["code"] == code
    assert student.session_state[classroom.STUDENT]["code"] == code

    redis_app.start()
    teacher.run()
    student.run()
    assert "Join code:" in _texts(teacher) and f">{code}</div>" in _texts(teacher)
    assert "your screen follows your teacher" in _texts(student)


@pytest.mark.parametrize("crafted", ["ABC234=;", "ABC234=x; path=/"])
def test_a_crafted_class_link_tells_the_browser_to_forget_nothing(crafted, tmp_path, monkeypatch):
    """``?class=ABC234=;`` made the receiver write ``relpos-class-ABC234=;=; max-age=0``: the
    browser read that as deleting the teacher's identity cookie of class ABC234. A malformed
    or unknown code in a link says nothing about anybody's class."""
    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        at = open_app("walkthrough", query={"class": crafted})
    assert not at.exception, at.exception
    with pytest.raises(InputError):
        codes.normalise_code(crafted)
    assert not any(receiver["forget"] for receiver in _receivers(at)), "the browser was told to forget"


# ---------------------------------------------------------------- a SQLite file that refuses


def _request(path_params: dict | None = None, query: bytes = b""):
    from starlette.requests import Request

    return Request(
        {"type": "http", "method": "GET", "headers": [], "query_string": query, "path_params": path_params or {}}
    )


def _served(route, request) -> tuple[int, str]:
    """Status and body of one of the class routes (relpos.class_routes.events), called directly."""

    response = run_in_own_loop(route(request))
    return response.status_code, bytes(response.body).decode()


@pytest.fixture
def sqlite_store(tmp_path, clock):
    from relpos.classroom.sqlite_store import SqliteStore

    store = SqliteStore(tmp_path / "data" / "classes.sqlite3", clock=clock)
    yield store
    store.close()


def test_a_read_only_store_refuses_to_start_a_class_and_says_so(sqlite_store):
    sqlite_store.check()
    sqlite_store._connection().execute("PRAGMA query_only = 1")  # SQLite's own "attempt to write a readonly database"
    with pytest.raises(StoreFaultError, match=f"The class store at {sqlite_store.path} is read-only") as refused:
        sqlite_store.create_class()
    assert "RELPOS_DATA_DIR" in refused.value.message and "sqlite3" not in type(refused.value).__module__
    assert not ends_identity(refused.value)


def test_a_full_disk_refuses_the_answer_and_never_acknowledges_it(sqlite_store):
    record, credential = sqlite_store.create_class()
    question = sqlite_store.ask(record.code, credential, questions.number_question("Predict e₁₂", -0.25))
    first = sqlite_store.join(record.code, "Ada")
    assert sqlite_store.submit_answer(record.code, first.token, question.id, "-0.25").stored
    db = sqlite_store._connection()
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    db.execute(f"PRAGMA max_page_count = {pages}")  # the file cannot grow: SQLITE_FULL, as on a full disk
    refused, acknowledged = None, {first.token}
    for number in range(2, 400):
        try:
            student = sqlite_store.join(record.code, f"Student {number}")
            if sqlite_store.submit_answer(record.code, student.token, question.id, "0.5").stored:
                acknowledged.add(student.token)
        except StoreFaultError as error:
            refused = error
            break
    assert refused is not None, "the file never filled up"
    assert "the disk is full" in refused.message and str(sqlite_store.path) in refused.message
    sqlite_store._connection().execute(f"PRAGMA max_page_count = {pages}")  # opened again after the fault
    stored = {answer.token for answer in sqlite_store._load_answers(record.code, question.id)}
    assert acknowledged <= stored  # every acknowledged answer is there; the refused one was not acknowledged


def test_a_file_that_is_not_a_database_is_named_and_the_health_check_fails(tmp_path, monkeypatch):
    from relpos.class_routes import events

    path = tmp_path / "classes.sqlite3"
    path.write_bytes(b"this is not a database, " * 100)
    with app_store_at(f"sqlite://{path}", monkeypatch):
        store = events.class_store()
        with pytest.raises(StoreFaultError, match=f"{path} is not a database .*move that file away"):
            store.get_class("ABCDEF")
        status, body = _served(events.health, _request())
        assert status == 503 and "is not a database" in body
        status, body = _served(events.class_events, _request({"code": "ABCDEF"}, b"watch=state"))
        assert status == 503 and "is not a database" in body  # not a 500
        path.rename(tmp_path / "moved-away.sqlite3")
        assert _served(events.health, _request()) == (200, "ok")
        store.create_class()


def test_a_store_file_deleted_mid_lesson_does_not_pass_silently(sqlite_store):
    record, credential = sqlite_store.create_class()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{sqlite_store.path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(StoreFaultError, match="was deleted or replaced while the server ran: restart the server"):
        sqlite_store.set_stop(record.code, credential, index=2)
    with pytest.raises(StoreFaultError):
        sqlite_store.check()


def test_the_page_refuses_to_start_a_class_it_cannot_store_and_shows_no_raw_error(tmp_path, monkeypatch):
    from relpos.topics.walkthrough import classroom_view

    path = tmp_path / "classes.sqlite3"
    path.write_bytes(b"\x00garbage" * 512)
    with app_store_at(f"sqlite://{path}", monkeypatch):
        at = open_app("walkthrough")
        at.button(key=classroom_view.START).click().run()
    assert not at.exception, at.exception
    assert classroom.TEACHER not in at.session_state
    shown = _texts(at)
    assert "is not a database" in shown and "DatabaseError" not in shown


def _mount_tmpfs(folder: Path, size: str) -> None:
    import subprocess

    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")


def test_a_real_full_then_read_only_data_folder(tmp_path, clock):
    """A 200 KiB tmpfs as the data folder: filled by joins, then remounted read-only."""
    import subprocess

    from relpos.classroom.sqlite_store import SqliteStore

    folder = tmp_path / "data"
    _mount_tmpfs(folder, "200k")
    store = SqliteStore(folder / "classes.sqlite3", clock=clock)
    try:
        record, credential = store.create_class()
        with pytest.raises(StoreFaultError) as full:
            for number in range(100_000):
                store.join(record.code, f"Student {number % 9999}")
        assert "the disk is full" in full.value.message or "could not be read or written" in full.value.message
        store.close()
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        store = SqliteStore(folder / "classes.sqlite3", clock=clock)  # the server started again
        with pytest.raises(StoreFaultError, match=r"is read-only|cannot be opened") as refused:
            store.set_stop(record.code, credential, index=1)
        assert str(folder) in refused.value.message
    finally:
        store.close()
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_redis_out_of_memory_refuses_plainly_and_fails_the_health_check(make_redis):
    import redis

    server = make_redis(redis_server.NOT_PERSISTENT)
    store = RedisStore(server.url)
    try:
        record, _ = store.create_class()
        store.check()
        redis.Redis.from_url(server.url).config_set("maxmemory", 1)  # every write: OOM (noeviction)
        with pytest.raises(StoreFaultError, match=r"The Redis class store refused the change .*maxmemory"):
            store.join(record.code, "Ada")
        with pytest.raises(StoreFaultError):
            store.check()
    finally:
        store.close()


def test_a_made_up_student_identity_from_the_browser_takes_no_seat(tmp_path, monkeypatch):
    """What a browser hands back as who it is (its cookie or local storage) is only a claim:
    an unknown token used to join as a new student, with no click at all."""
    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        record, _ = classroom.store().create_class()
        at = open_app("walkthrough", query={"class": record.code})
        made_up = {"code": record.code, "kind": "student", "secret": "madeUpStudentToken1234"}
        at.session_state[classroom.EVENTS] = {"identity": made_up}  # as the receiver hands it back
        at.run()
        assert not at.exception, at.exception
        assert classroom.STUDENT not in at.session_state
        assert classroom.store().students_count(record.code) == 0


def test_a_guessing_address_waits_on_a_class_link_but_its_joined_students_follow_on(tmp_path, monkeypatch):
    """A classmate guessing codes from the school's one address throttles code look-ups from
    it; a student already in a class holds a seat, not a guess, and keeps following."""
    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        teacher = _teacher()
        code = teacher.session_state[classroom.TEACHER]["code"]
        student = _student(code)
        for _ in range(60):  # AppTest's sessions have no address: relpos counts them as "local"
            classroom.store().limits.wrong_code("local")
        student.run()
        assert "your screen follows your teacher" in _texts(student)
        invited = open_app("walkthrough", query={"class": code})
        assert "Too many wrong class codes" in _texts(invited)
        assert classroom.store().students_count(code) == 1
