"""Following the teacher costs the server almost nothing per student (issue: a class of 60).

Twenty students join through the join link's page, as their browsers do
(tests/support/class_students.py), and follow the teacher's Next. The server's CPU for one
Next is measured beside the CPU of full runs of the walkthrough page on the same server,
in the same test: a design that reruns each student's page costs about 20 runs a Next;
following through the shared view must cost well under that.
"""

from __future__ import annotations

import os
import time

import pytest

from relpos.classroom.stores import open_store
from relpos.core.examples import worked_example
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import schema as walkthrough_schema
from relpos.topics.walkthrough.classroom_view import pace_of
from tests.support.class_students import Classroom, class_server
from tests.support.streamlit_client import Session, run_in_own_loop

STUDENTS = 20
#: A Next may cost at most this many full page runs for the whole class (the old design: ~20).
MOST_RUNS = 5.0
FOLLOW_WITHIN = 30.0  # s: generous on a busy 2-core machine (bench/classroom.py measures latency)


def _cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pace(stop: wt.Stop):
    return pace_of(walkthrough_schema.walkthrough_state(worked_example(), stop, False))


async def _full_runs(server, count: int) -> None:
    """`count` ordinary runs of the walkthrough page (a new session each: a browser's page load)."""
    for number in range(count):
        session = Session(server, "walkthrough", f"i=1&j={number % 4 + 1}", None, None)
        async with session.connect(60) as socket:
            await session.run_once(socket, session.rerun_message(), 60)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with class_server(tmp_path_factory.mktemp("follow-scale"), "follow-scale") as running:
        yield running


@pytest.mark.server
def test_a_next_costs_far_less_than_a_page_run_per_student(server):
    store = open_store(f"sqlite://{server.data_dir / 'classes.sqlite3'}")
    record, credential = store.create_class("walkthrough", _pace(wt.Stop(0, 0)))
    room = Classroom(server, "walkthrough", record.code)
    pid = server.process.pid
    try:
        room.join_all(STUDENTS, spread=2.0)
        assert not room.errors and len(room.joined) == STUDENTS, room.errors[:3]
        run_in_own_loop(_full_runs(server, 2))  # warm: the page's first runs import and cache
        before = _cpu_seconds(pid)
        run_in_own_loop(_full_runs(server, 3))
        per_run = (_cpu_seconds(pid) - before) / 3

        costs = []
        for stop in (wt.Stop(0, 1), wt.Stop(0, 2), wt.Stop(0, 3)):
            shown = wt.stop_index(stop, 4) + 1
            pace = _pace(stop)
            before, moved = _cpu_seconds(pid), time.monotonic()
            store.set_stop(record.code, credential, index=shown - 1, step=pace.step, state=pace.state)
            while not all(shown in student.shown for student in room.joined):
                assert time.monotonic() - moved < FOLLOW_WITHIN, f"stop {shown} did not reach every student"
                time.sleep(0.02)
            time.sleep(0.3)  # a late run would land here
            costs.append(_cpu_seconds(pid) - before)
        cost = sorted(costs)[1]  # the median of three Nexts
        print(f"a full page run {per_run:.3f} s of CPU; a Next for {STUDENTS} students {costs} s")
        assert cost < MOST_RUNS * per_run, (
            f"one Next cost {cost:.3f} s of server CPU for {STUDENTS} students: "
            f"{cost / per_run:.1f} full page runs (at most {MOST_RUNS:g}; a run of each student's page: {STUDENTS})"
        )
        assert all(student.view["stop"]["index"] == 3 for student in room.joined)
    finally:
        room.close()
        store.close()


def test_the_students_sessions_are_real_pages(server):
    """The students of the test above are sessions of the page, not calls to the store."""
    session = Session(server, "walkthrough", "class=ZZZZZZ", None, None)
    run_in_own_loop(_load(session))
    assert "Join the class" not in session.buttons  # no such class: no join box
    assert any("no class" in alert.lower() for alert in session.alerts), session.alerts


async def _load(session):
    async with session.connect(60) as socket:
        await session.run_once(socket, session.rerun_message(), 60)
