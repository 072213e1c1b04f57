"""A replica dies behind HAProxy in the middle of a lesson: nothing is lost.

Runs bench/failover.py at a test's size: docs/hosting.md's HAProxy configuration in front of two
replicas, 10 WebSocket sessions and two Chromium tabs through the proxy, replica app1
killed (SIGKILL) 8 s in. Every session on it must reconnect, no interaction may be lost,
and both tabs (one after a slider move, one just opened) must keep their view without a
reload and draw their next slider move. About 45 s.

Needs Debian's ``haproxy`` (``.ci/run`` installs it and sets RELPOS_REQUIRE_HAPROXY=1,
which turns a missing proxy into a failure instead of a skip).
"""

from __future__ import annotations

import sys

import pytest

from tests.support.browser import ROOT
from tests.support.required import unavailable

pytestmark = pytest.mark.browser


@pytest.fixture
def failover_bench():
    sys.path.insert(0, str(ROOT / "bench"))
    import failover

    if failover.haproxy_binary() is None:
        unavailable("haproxy is not installed (apt-get install haproxy)", "RELPOS_REQUIRE_HAPROXY")
    return failover


def test_a_replica_dies_mid_lesson_and_nothing_is_lost(chromium, failover_bench, capsys):
    args = failover_bench.parse_args(["--sessions", "10", "--duration", "25", "--kill-after", "8"])
    code = failover_bench.failover(chromium, args)
    report = capsys.readouterr().out
    assert "interactions lost 0 (target 0) PASS" in report, report
    assert "sessions reconnected 5 of 5 PASS" in report, report
    assert report.count("view kept (same URL and numbers, no reload), next slider move drawn") == 2, report
    assert code == 0, report
