"""A live class loses its server mid-lesson: the teacher keeps control, nobody is left behind.

Runs bench/classroom.py at a test's size: a real Chromium teacher tab on the walkthrough and
10 students who join through the page and follow as their browsers do
(tests/support/class_students.py: event streams that reconnect as the browser's
EventSource does, the class's view fetched at each change, answers sent again while the
server is away), one Next followed before the loss, then a question that a third of the
class answers before it, a third while the teacher's tab reconnects and a third after.

* two replicas behind docs/hosting.md's HAProxy configuration, sharing one redis-server; the
  teacher's tab on one replica, the students' streams on both; the teacher's replica is
  killed (SIGKILL);
* one server with its SQLite store, killed (SIGKILL) and started again on the same port
  with the same data folder.

Either way the teacher's tab must reconnect (through the proxy: to the other replica) and be
the teacher's page again without ever showing a student's join prompt; its next Next must
move the class and reach every student's stream; every acknowledged answer must be stored
and counted on the projector. Latencies are the bench's business (a loaded machine is slow);
these tests check that each thing happens.

Needs haproxy and redis-server for the first (``.ci/run`` installs both and sets
RELPOS_REQUIRE_HAPROXY=1 and RELPOS_REQUIRE_REDIS=1, which turn a missing one into a failure).
"""

from __future__ import annotations

import re
import sys

import pytest

from tests.support.browser import ROOT
from tests.support.required import unavailable

pytestmark = [pytest.mark.browser, pytest.mark.server]

SIZE = ["--students", "10", "--arrive", "1", "--nexts", "1", "--no-answers", "--idle", "0"]


@pytest.fixture
def bench():
    sys.path.insert(0, str(ROOT / "bench"))
    import classroom

    return classroom


def _lesson(bench, chromium, capsys, argv: list[str]) -> tuple[object, str]:
    report = bench.lesson(chromium, bench.parse_args(argv))
    return report, capsys.readouterr().out


def _assert_nothing_lost(report, output: str, how: str) -> None:
    assert report.verdict("10 students join").passed, output
    assert "missed 0, class moved 1 of 1" in report.verdict("Next → every student").measured, output
    for target in (f"{how}: teacher reconnects and keeps control", f"{how}: every student", f"{how}: no acknowledged"):
        assert report.verdict(target).passed, output


def test_the_teachers_replica_dies_and_the_class_goes_on(chromium, bench, redis_url, capsys):
    if bench.haproxy_binary() is None:
        unavailable("haproxy is not installed (apt-get install haproxy)", "RELPOS_REQUIRE_HAPROXY")
    argv = [*SIZE, "--replicas", "2", "--store", "redis", "--redis-url", redis_url, "--kill-teacher-replica"]
    report, output = _lesson(bench, chromium, capsys, argv)
    assert "streams open: 10 (on app1 5, app2 5)" in output, output
    _assert_nothing_lost(report, output, "kill the teacher's replica")
    killed = re.search(r"teacher's replica (app\d) killed", output).group(1)
    other = {"app1": "app2", "app2": "app1"}[killed]
    assert f"after the kill to {other}," in report.verdict("kill the teacher's replica").measured, output


def test_the_single_server_restarts_and_the_class_goes_on(chromium, bench, capsys):
    report, output = _lesson(bench, chromium, capsys, [*SIZE, "--restart"])
    _assert_nothing_lost(report, output, "restart the server")
