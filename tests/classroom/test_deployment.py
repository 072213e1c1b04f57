"""How a deployment opens its store, and two processes (two replicas) on one class.

The cross-process test starts a real second Python process that opens the store by URL, as a
second replica would, and moves the teacher's stop; a waiter in this process must wake within
a second of that change (Redis: its pub/sub message; SQLite: the next poll of the version).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from relpos.classroom.redis_store import RedisStore
from relpos.classroom.sqlite_store import SqliteStore
from relpos.classroom.stores import open_store
from tests.classroom.conftest import redis_server_binary

SECOND_REPLICA = textwrap.dedent(
    """
    import sys, time
    from relpos.classroom.stores import open_store

    url, code, credential = sys.argv[1:4]
    store = open_store(url)
    store.join(code, "from the other replica")
    time.sleep(0.5)
    store.set_stop(code, credential, index=9, step="r1s4", state="n=4")
    print(time.time(), flush=True)
    store.close()
    """
)


def test_two_processes_share_a_class_and_a_waiter_wakes_within_a_second(make_store, backing):
    store = make_store(clock=time.time)  # the other process keeps real time too
    record, credential = store.create_class()
    since = store.version(record.code)
    other = subprocess.Popen(
        [sys.executable, "-c", SECOND_REPLICA, backing, record.code, credential], stdout=subprocess.PIPE, text=True
    )
    try:
        assert store.wait_for_change(record.code, since, timeout=30) == since + 1
        woke = time.time()
        changed = float(other.communicate(timeout=30)[0])
    finally:
        other.kill()
    assert woke - changed < 1.0, f"woke {woke - changed:.2f} s after the other process's change"
    assert store.get_class(record.code).pace.index == 9
    assert [s.nickname for s in store.students(record.code, credential)] == ["from the other replica"]


def test_open_store_reads_the_deployment_setting(monkeypatch, tmp_path):
    monkeypatch.delenv("RELPOS_CLASS_STORE", raising=False)
    monkeypatch.setenv("RELPOS_DATA_DIR", str(tmp_path / "data"))
    default = open_store()
    assert isinstance(default, SqliteStore) and default.path == tmp_path / "data" / "classes.sqlite3"
    default.close()
    explicit = open_store(f"sqlite://{tmp_path / 'other.sqlite3'}")
    assert explicit.path == tmp_path / "other.sqlite3"
    explicit.close()
    monkeypatch.setenv("RELPOS_CLASS_STORE", "redis://127.0.0.1:1/0")
    remote = open_store()  # connects lazily: no server needed to open it
    assert isinstance(remote, RedisStore)
    remote.close()
    with pytest.raises(ValueError, match="RELPOS_CLASS_STORE"):
        open_store("postgres://db/classes")


def test_an_unreachable_redis_is_a_clear_error_not_a_crash():
    from relpos.classroom.errors import StoreUnavailableError

    store = RedisStore("redis://127.0.0.1:1/0")
    with pytest.raises(StoreUnavailableError, match="cannot be reached"):
        store.create_class()
    store.close()


def test_without_redis_server_the_redis_tests_fail_under_relpos_require_redis(monkeypatch):
    monkeypatch.setenv("RELPOS_REQUIRE_REDIS", "1")
    with pytest.raises(pytest.fail.Exception, match="RELPOS_REQUIRE_REDIS=1 but redis-server is not installed"):
        redis_server_binary("/nonexistent/redis-server-for-this-test")
    monkeypatch.delenv("RELPOS_REQUIRE_REDIS")
    with pytest.raises(pytest.skip.Exception):
        redis_server_binary("/nonexistent/redis-server-for-this-test")
