"""The live class in real browsers and over HTTP, on a server of its own (its own data folder).

* browser: a student whose event stream a proxy refuses opens a new one and follows (a
  class of a teacher and three students, one a phone, through a whole lesson is
  tests/classroom/test_class_lesson_browser.py).
* server: the event stream sends the version at once and every change after; an unknown
  code is answered as a class nobody changed yet; an idle class with open streams costs the server almost no CPU; a
  server stopped (SIGTERM) under open streams ends them and exits at once.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from relpos.classroom.model import Pace
from relpos.classroom.stores import open_store
from tests.support.browser import ARTIFACTS, ROOT, StreamlitServer
from tests.support.class_students import class_server as running_class_server

NEXT_WITHIN = 45.0  # seconds; generous (a busy 2-core machine): the bench measures latency, this checks that it happens
FIRST_RUN_WITHIN = 120.0  # seconds: a fresh server's first run imports the app (a loaded machine: long)
STOPS_WITHIN = 8.0  # seconds from SIGTERM to exit (Docker kills after 10; without streams it takes < 1)


@pytest.fixture(scope="module")
def class_server(tmp_path_factory):
    with running_class_server(tmp_path_factory.mktemp("live-class"), "live-class") as running:
        yield running


def _store(server):
    return open_store(f"sqlite://{server.data_dir / 'classes.sqlite3'}")


def _asked(store, code, timeout=NEXT_WITHIN):
    """The question the teacher's click asks, once the server has run that click."""
    deadline = time.monotonic() + timeout
    while (question := store.get_class(code).question) is None:
        assert time.monotonic() < deadline, f"no question asked {timeout} s after the click"
        time.sleep(0.1)
    return question


def _wait_text(page, text, timeout=NEXT_WITHIN):
    page.get_by_text(text).first.wait_for(timeout=timeout * 1000)


@pytest.mark.browser
@pytest.mark.server
def test_a_student_whose_stream_is_refused_opens_a_new_one_and_follows(chromium, class_server):
    """A proxy in front of a single server answers 502 while that server restarts, and an
    EventSource gives up for good on an answer that is not an event stream: the student's
    page's follow view opens a new stream (relpos/ui/follow_assets/follow.js) and follows the next Next."""
    store = _store(class_server)
    record, credential = store.create_class("walkthrough", Pace(index=0, step="r1j1", state="i=1&j=1"))
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(90_000)
    asked: list[str] = []

    def proxy_restarting(route):
        asked.append(route.request.url)
        if len(asked) == 1:
            route.fulfill(status=502, content_type="text/html", body="<h1>502 Bad Gateway</h1>")
        else:
            route.continue_()

    try:
        page = context.new_page()
        page.route(re.compile(r"/relpos/class/[A-Z0-9]+/events"), proxy_restarting)
        page.goto(class_server.url("walkthrough", {"class": record.code}))
        page.get_by_role("button", name="Join the class").click(no_wait_after=True)
        _wait_text(page, "you follow your teacher", 60)
        deadline = time.monotonic() + NEXT_WITHIN
        while len(asked) < 2:  # refused once, then asked again
            assert time.monotonic() < deadline, f"the stream was not opened again after a 502: {asked}"
            page.wait_for_timeout(100)
        # the teacher's Next, as the teacher's tab stores it (relpos.topics.walkthrough.classroom_view.push)
        store.set_stop(record.code, credential, index=1, step="r1j2", state="i=1&j=2")
        _wait_text(page, "Stop 2 of 20")
    finally:
        context.close()


@pytest.mark.server
def test_the_event_stream_pushes_each_change_and_answers_unknown_codes_alike(class_server):
    store = _store(class_server)
    record, credential = store.create_class()
    url = class_server.base_url + f"/relpos/class/{record.code}/events?watch=state"
    lines: list[tuple[float, str]] = []

    def read():
        with urllib.request.urlopen(url, timeout=20) as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            for raw in stream:
                lines.append((time.monotonic(), raw.decode().strip()))
                if raw.startswith(b"data: 2"):
                    return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 10
    while not any(line == "data: 0" for _, line in lines) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "data: 0" in [line for _, line in lines], lines
    for index in (1, 2):
        changed = time.monotonic()
        store.set_stop(record.code, credential, index=index)
        while not any(line == f"data: {index}" for _, line in lines) and time.monotonic() < changed + 5:
            time.sleep(0.02)
        arrival = next(at for at, line in lines if line == f"data: {index}")
        assert arrival - changed < 1.0  # another process's write: the watcher's poll (0.2 s) and the stream
    reader.join(5)
    fresh, _ = store.create_class()
    answers = []
    for code in (fresh.code, "ZZZZZZ"):  # an unknown code is answered as a class nobody changed yet
        with urllib.request.urlopen(class_server.base_url + f"/relpos/class/{code}/events", timeout=10) as stream:
            answers.append((stream.status, stream.headers["Content-Type"], stream.readline(), stream.readline()))
    assert answers[0] == answers[1], answers
    with pytest.raises(urllib.error.HTTPError) as refused:  # not even shaped like a code
        urllib.request.urlopen(class_server.base_url + "/relpos/class/Z0Z/events", timeout=10)
    assert refused.value.code == 404


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.server
def test_an_idle_class_with_open_streams_costs_almost_no_cpu(class_server):
    store = _store(class_server)
    record, _ = store.create_class()
    url = class_server.base_url + f"/relpos/class/{record.code}/events?watch=state"
    streams = [urllib.request.urlopen(url, timeout=30) for _ in range(40)]
    try:
        for stream in streams:
            stream.readline()
        time.sleep(1)
        pid, before = class_server.process.pid, time.monotonic()
        cpu = _cpu_seconds(pid)
        time.sleep(10)
        share = (_cpu_seconds(pid) - cpu) / (time.monotonic() - before)
        assert share < 0.10, f"the server used {share:.0%} of a core with 40 idle streams"
    finally:
        for stream in streams:
            stream.close()


@pytest.mark.server
def test_a_server_stopped_under_open_streams_ends_them_and_exits(tmp_path):
    """SIGTERM (docker stop, systemctl restart) must not wait for the class's streams: they
    never end by themselves, and a server that waits for them is killed by its supervisor
    only after its grace period. The streams end without the class's "gone" event (the class
    is not over: the browser reconnects, to the server started again or another replica)."""
    log = ARTIFACTS / f"streamlit-live-class-stop-{os.getpid()}.log"
    server = StreamlitServer(ROOT / "app.py", log_path=log, env={"RELPOS_DATA_DIR": str(tmp_path)}).start()
    try:
        store = open_store(f"sqlite://{tmp_path / 'classes.sqlite3'}")
        record, _ = store.create_class()
        url = server.base_url + f"/relpos/class/{record.code}/events?watch=state"
        streams = [urllib.request.urlopen(url, timeout=30) for _ in range(3)]
        for stream in streams:
            assert stream.readline().startswith(b"retry:")
        stopping = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=STOPS_WITHIN)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server was still running {STOPS_WITHIN:.0f} s after SIGTERM, under 3 open streams")
        rests = [stream.read() for stream in streams]  # the server is gone: each has ended
        assert not any(b"gone" in rest for rest in rests), rests
        print(f"stopped {time.monotonic() - stopping:.1f} s after SIGTERM")
    finally:
        server.stop()
