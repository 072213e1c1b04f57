"""A live class on one server (SQLite): join, follow Next, answer, and idle CPU.

    python bench/classroom.py [--students 60] [--nexts 5] [--idle 60]

A real browser teacher (Chromium) starts the class and presses Next; the students are
clients of the server's own protocols without a browser each (a classroom's browsers run
on the students' machines): each joins through the class store (the call the join button
makes) and holds the event stream its page would hold (``/relpos/class/CODE/events``).
Measured:

* joins: how long N students take to join, and errors;
* follow: teacher presses Next → the new version reaches every student's stream
  (p50 / p95 / max). A student's page reruns on that event; the rerun itself is the
  walkthrough's ordinary run (bench/load.py measures those);
* answers: N answers submitted within a few seconds, none lost, and answer → the
  projector's activity stream (p95), and the teacher's page showing "N of N answered";
* idle: the server's CPU while N students' streams stay open and nothing happens.

Not measured here (see the report in the branch's notes): two replicas behind HAProxy
with Redis, and killing or restarting a server mid-lesson.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from relpos.classroom.model import number_question  # noqa: E402
from relpos.classroom.stores import open_store  # noqa: E402
from tests.support.browser import StreamlitServer, launch_chromium  # noqa: E402


class Stream(threading.Thread):
    """One event stream: the arrival time of every version it receives."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.arrivals, self.error = url, {}, None
        self.ready = threading.Event()

    def run(self) -> None:
        try:
            with urllib.request.urlopen(self.url, timeout=600) as stream:
                for raw in stream:
                    line = raw.decode().strip()
                    if line.startswith("data: ") and line[6:].lstrip("-").isdigit():
                        self.arrivals.setdefault(int(line[6:]), time.monotonic())
                        self.ready.set()
        except Exception as error:  # the report counts it
            self.error = error
            self.ready.set()


def percentiles(values: list[float]) -> str:
    if not values:
        return "no samples"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):.3f} s · p95 {p95:.3f} s · max {ordered[-1]:.3f} s"


def cpu_seconds(pid: int) -> float:
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--nexts", type=int, default=5)
    parser.add_argument("--idle", type=float, default=60.0)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    data = Path(tempfile.mkdtemp(prefix="relpos-bench-class-"))
    server = StreamlitServer(ROOT / "app.py", env={"RELPOS_DATA_DIR": str(data)}).start()
    store = open_store(f"sqlite://{data / 'classes.sqlite3'}")
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            teacher = browser.new_page(viewport={"width": 1280, "height": 720})
            teacher.goto(server.url("worked_example"))
            teacher.get_by_role("button", name="Start a class").click(no_wait_after=True)
            teacher.get_by_text("Join code:").wait_for(timeout=60_000)
            code = re.search(r"Join code:\s*([A-Z0-9]{6})", teacher.inner_text("body")).group(1)
            print(f"class {code}: {args.students} students, server on port {server.port}")

            # joins: as the join button does, all at once
            errors, tokens, started = [], [], time.monotonic()

            def join(number: int) -> None:
                try:
                    tokens.append(store.join(code, f"student {number}").token)
                except Exception as error:
                    errors.append(repr(error))

            joiners = [threading.Thread(target=join, args=(n,)) for n in range(args.students)]
            for thread in joiners:
                thread.start()
            for thread in joiners:
                thread.join()
            print(f"joins: {len(tokens)} in {time.monotonic() - started:.2f} s, errors {len(errors)}")
            url = server.base_url + f"/relpos/class/{code}/events?watch=state"
            streams = [Stream(url) for _ in range(args.students)]
            for stream in streams:
                stream.start()
            for stream in streams:
                stream.ready.wait(30)
            print(
                f"streams open: {sum(bool(s.arrivals) for s in streams)}, errors {sum(bool(s.error) for s in streams)}"
            )

            # follow: the teacher presses Next in the browser
            delays, missed = [], 0
            for _ in range(args.nexts):
                before = store.version(code)
                clicked = time.monotonic()
                teacher.get_by_role("button", name=re.compile("^Next")).first.click(no_wait_after=True)
                deadline = clicked + 15
                while time.monotonic() < deadline and not all(any(v > before for v in s.arrivals) for s in streams):
                    time.sleep(0.01)
                for stream in streams:
                    arrived = [at for v, at in stream.arrivals.items() if v > before]
                    if arrived:
                        delays.append(min(arrived) - clicked)
                    else:
                        missed += 1
                time.sleep(0.5)
            print(f"follow (Next click → every student's stream): {percentiles(delays)}, missed {missed}")

            # answers
            record = store.get_class(code)
            credential = teacher.evaluate(
                "() => Object.entries(localStorage).filter(([k]) => k.startsWith('relpos.class.'))"
                ".map(([, v]) => JSON.parse(v).secret)[0]"
            )
            question = store.ask(code, credential, number_question("Predict e₁₂", 0.5))
            activity = Stream(server.base_url + f"/relpos/class/{code}/events?watch=activity")
            activity.start()
            activity.ready.wait(30)
            submitted, lost, acks = {}, 0, 0
            started = time.monotonic()
            for number, token in enumerate(tokens):
                version = store.version(code, "activity")
                ack = store.submit_answer(code, token, question.id, str(0.1 * (number % 10)))
                submitted[version + 1] = time.monotonic()
                acks += ack.stored
                time.sleep(3.0 / len(tokens))  # spread over about 3 s, as a class types
            took = time.monotonic() - started
            time.sleep(2)
            # an answer is on the projector's stream once a version at least as new has arrived
            to_projector = [
                min(seen for v, seen in activity.arrivals.items() if v >= version) - at
                for version, at in submitted.items()
                if any(v >= version for v in activity.arrivals)
            ]
            results = store.results(code, credential=credential)
            lost = acks - results.answered
            print(f"answers: {acks} acknowledged in {took:.2f} s, stored {results.answered}, lost {lost}")
            print(
                f"answer → projector stream: {percentiles(to_projector)} ({len(to_projector)} of {len(submitted)} seen)"
            )
            shown = time.monotonic()
            teacher.get_by_text(f"{len(tokens)} of {len(tokens)} answered").wait_for(timeout=30_000)
            print(
                f"teacher's page shows '{len(tokens)} of {len(tokens)} answered' {time.monotonic() - shown:.2f} s after"
            )

            # idle
            time.sleep(2)
            pid, cpu, before = server.process.pid, cpu_seconds(server.process.pid), time.monotonic()
            time.sleep(args.idle)
            share = (cpu_seconds(pid) - cpu) / (time.monotonic() - before)
            print(f"idle {args.idle:.0f} s with {args.students} open streams: server CPU {share:.1%} of a core")
            browser.close()
            del record
    finally:
        store.close()
        server.stop()


if __name__ == "__main__":
    main()
