"""Fixtures of the live-class store tests: a fake clock, a real redis-server, both backends.

``store`` (and ``make_store``, for a second store on the same data: a restart, a second
replica) runs each test once on SQLite and once on Redis. The Redis server is Debian's
``redis-server`` on a loopback port from this worker's RELPOS_PORTS range, without
persistence, in a temporary folder; it is started once per worker and flushed before each
test. Without it the Redis half is skipped, unless RELPOS_REQUIRE_REDIS=1 (CI), which turns
the skip into a failure.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from relpos.classroom.redis_store import RedisStore
from relpos.classroom.sqlite_store import SqliteStore
from tests.support import redis_server
from tests.support.redis_server import REDIS_SERVER
from tests.support.required import unavailable

#: The fake clock starts here (2026-12-01 00:00 UTC), so times in CSV rows are plausible.
START = 1_796_083_200.0


class FakeClock:
    """A clock that moves only when told (``clock.advance(12 * 3600)``)."""

    def __init__(self, now: float = START):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def redis_server_binary(path: str = REDIS_SERVER) -> str:
    """The redis-server to run; skips the test without one (fails it under RELPOS_REQUIRE_REDIS=1)."""
    try:
        return redis_server.redis_server_binary(path)
    except redis_server.RedisMissingError as missing:
        unavailable(str(missing), "RELPOS_REQUIRE_REDIS")  # CI: never skip silently


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """``redis://127.0.0.1:PORT/0`` of a redis-server this worker started (stopped at the end)."""
    binary = redis_server_binary()
    try:
        with redis_server.redis_server(tmp_path_factory.mktemp("redis"), binary=binary) as (url, _):
            yield url
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture(params=["sqlite", "redis"])
def backend(request) -> str:
    return request.param


@pytest.fixture
def backing(backend, request, tmp_path) -> str:
    """Where the stores of one test keep their data: a SQLite file, or a flushed Redis database."""
    if backend == "sqlite":
        return f"sqlite://{tmp_path / 'data' / 'classes.sqlite3'}"
    import redis

    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    return url


@pytest.fixture
def make_store(backing, clock):
    """Open another store on this test's data (closed at the end): ``make_store(clock=…)``."""
    opened = []

    def make(**options):
        options.setdefault("clock", clock)
        if backing.startswith("redis://"):
            store = RedisStore(backing, **options)
        else:
            store = SqliteStore(backing.removeprefix("sqlite://"), **options)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store):
    return make_store()


@pytest.fixture
def started(store):
    """A class just started: ``(store, code, credential)``."""
    record, credential = store.create_class()
    return store, record.code, credential


@contextlib.contextmanager
def app_store_at(url: str, monkeypatch) -> Iterator[None]:
    """The app's pages and event streams use the store at `url` while the block runs (the
    process's shared store, relpos.class_routes.store.class_store, reset before and after)."""
    from relpos.class_routes import store as events

    monkeypatch.setenv("RELPOS_CLASS_STORE", url)
    monkeypatch.setattr(events, "_store", None)
    try:
        yield
    finally:
        if events._store is not None:
            events._store.close()
        events._store = None
