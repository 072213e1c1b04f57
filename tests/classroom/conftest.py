"""Fixtures of the live-class store tests: a fake clock, a real redis-server, both backends.

``store`` (and ``make_store``, for a second store on the same data: a restart, a second
replica) runs each test once on SQLite and once on Redis. The Redis server is Debian's
``redis-server`` on a loopback port from this worker's RELPOS_PORTS range, without
persistence, in a temporary folder; it is started once per worker and flushed before each
test. Without it the Redis half is skipped, unless RELPOS_REQUIRE_REDIS=1 (CI), which turns
the skip into a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from relpos.classroom.redis_store import RedisStore
from relpos.classroom.sqlite_store import SqliteStore
from tests.support.browser import free_port

REDIS_SERVER = os.environ.get("RELPOS_REDIS_SERVER", "/usr/bin/redis-server")
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
    found = path if os.access(path, os.X_OK) else shutil.which(Path(path).name)
    if found:
        return found
    reason = f"redis-server is not installed ({path}; apt-get install redis-server)"
    if os.environ.get("RELPOS_REQUIRE_REDIS") == "1":
        pytest.fail(f"RELPOS_REQUIRE_REDIS=1 but {reason}")  # CI: never skip silently
    pytest.skip(reason)


def _ping(port: int) -> bool:
    import redis

    try:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=1).ping()
    except redis.RedisError:
        return False


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """``redis://127.0.0.1:PORT/0`` of a redis-server this worker started (stopped at the end)."""
    binary = redis_server_binary()
    folder, port = tmp_path_factory.mktemp("redis"), free_port()
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    command += ["--dir", str(folder), "--logfile", str(folder / "redis.log")]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 15
        while not _ping(port):
            if server.poll() is not None or time.monotonic() > deadline:
                log = (
                    (folder / "redis.log").read_text(errors="replace")[-2000:]
                    if (folder / "redis.log").exists()
                    else ""
                )
                pytest.fail(f"redis-server did not start on port {port}: {log}")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


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
