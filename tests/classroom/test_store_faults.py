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

from relpos.classroom import model
from relpos.classroom.errors import (
    InputError,
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
    question = store.ask(record.code, credential, model.number_question("Predict e₁₂", -0.25))
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
    return [data for data in datas if "cookie" in data and "forget" in data]


def _teacher():
    from relpos.topics.walkthrough import live

    at = open_app("worked_example")
    at.button(key=live.START).click().run()
    assert not at.exception, at.exception
    return at


def _student(code: str):
    at = open_app("worked_example", query={"class": code})
    at.text_input(key=classroom.JOIN_NICKNAME).input("Ada")
    at.button(key=classroom.JOIN).click().run()
    assert not at.exception, at.exception
    return at


def test_a_redis_outage_mid_lesson_keeps_the_teacher_and_the_students(redis_app):
    teacher = _teacher()
    code = teacher.session_state[classroom.TEACHER]["code"]
    student = _student(code)
    assert "you follow your teacher" in _texts(student)

    redis_app.stop()
    for at in (teacher, student):
        at.run()
        assert not at.exception, at.exception
        assert f"Reconnecting to class {code}" in _texts(at)
        (receiver,) = _receivers(at)
        assert not receiver["forget"], "the browser was told to forget who it is"
        assert receiver["remember"]["code"] == code
        assert receiver["url"].endswith(f"/relpos/class/{code}/events?watch=state")  # reruns the page once back
    assert teacher.session_state[classroom.TEACHER]["code"] == code
    assert student.session_state[classroom.STUDENT]["code"] == code

    redis_app.start()
    teacher.run()
    student.run()
    assert f"Join code: `{code}`" in _texts(teacher)
    assert "you follow your teacher" in _texts(student)


@pytest.mark.parametrize("crafted", ["ABC234=;", "ABC234=x; path=/"])
def test_a_crafted_class_link_tells_the_browser_to_forget_nothing(crafted, tmp_path, monkeypatch):
    """``?class=ABC234=;`` made the receiver write ``relpos-class-ABC234=;=; max-age=0``: the
    browser read that as deleting the teacher's identity cookie of class ABC234. A malformed
    or unknown code in a link says nothing about anybody's class."""
    with app_store_at(f"sqlite://{tmp_path / 'classes.sqlite3'}", monkeypatch):
        at = open_app("worked_example", query={"class": crafted})
    assert not at.exception, at.exception
    with pytest.raises(InputError):
        model.normalise_code(crafted)
    assert not any(receiver["forget"] for receiver in _receivers(at)), "the browser was told to forget"
