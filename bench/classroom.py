"""A live class: joins, Next followed, answers, idle CPU, and a server lost mid-lesson.

    python bench/classroom.py [--students 60] [--nexts 5] [--idle 60]          # one server, SQLite
    python bench/classroom.py --replicas 2 --store redis [--students 200]      # HAProxy + Redis
    python bench/classroom.py --replicas 2 --store redis --kill-teacher-replica --idle 0
    python bench/classroom.py --restart --idle 0                               # one server, SQLite

Deployments. One server: ``streamlit run`` with the deployment's options and its SQLite
store in a fresh data folder. Two replicas (``--replicas 2 --store redis``): the HAProxy
block of docs/hosting.md copied verbatim (bench/failover.py; only the ports change) in
front of two replicas with the deployment's options, one cookie secret, and
``RELPOS_CLASS_STORE`` naming one ``redis-server`` (started here, or ``--redis-url``).

Who. The teacher is a real Chromium tab, through the proxy: it starts the class on the
walkthrough and presses Next. The students run the page as their browsers do, without a
browser each (a classroom's browsers run on the students' machines;
tests/support/class_students.py): each is a session of Streamlit's own protocol that opens
the join link's page, presses "Join the class" and keeps its WebSocket open; its page then
holds the follow view, whose script (relpos/ui/follow_assets/follow.js) holds the class's
event stream and fetches the class's view at each new version. The bench does the same
with the network, through the proxy and with the proxy's affinity cookie (half the class
starts on each replica), and answers as the view's form does (a POST). The moment a
student has the new stop's view is when their device draws it (its drawing is the
device's work; tests/classroom/test_follow_browser.py checks real Chromium draws it).

Measured, each with a summary line (PASS or FAIL against its target):

* joins: N students open the join link and join, arriving over 80 % of the window: all
  have their page within 10 s up to 60 students (60 s beyond), 0 errors;
* follow: teacher presses Next → every student's page has the new stop, p50 / p95 / max
  (p95 ≤ 1 s up to 60 students, ≤ 2 s beyond), and the app servers' CPU per Next, the
  teacher's own run included (≤ 0.5 s: 2.5 ms a student of 200);
* answers: N answers, spread over 3 s with a thread per student, all acknowledged within
  5 s; answer → the projector's activity stream p95 ≤ 1 s; the stored count equals the
  acknowledged answers (0 lost); the teacher's page shows "N of N here answered" (each
  student's stream holds their seat, relpos.class_routes.leases);
* idle: the app servers' CPU while N students' pages stay open and nothing happens
  (≤ 5 % of a core, all replicas together; HAProxy's and Redis' own printed beside);
* ``--kill-teacher-replica`` (two replicas): a new question; a third of the class answers,
  the replica the teacher's tab is on is killed (SIGKILL), a third answers while the tab
  reconnects and a third once it is back. The teacher's tab must reconnect through the
  proxy (to the other replica) and keep control: its page is the teacher's again, with
  no student's join prompt drawn meanwhile, and its next Next moves the class. Every
  student's stream must resume and follow that Next, and no acknowledged answer may be
  lost (all stored, and the projector counts them all);
* ``--restart`` (one server): the same, with the server killed (SIGKILL) and started
  again on the same port with the same data folder.

tests/classroom/test_class_failover.py runs the kill and the restart at a test's size.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import secrets
import signal
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from failover import COOKIE, affinity_cookie, haproxy_binary, replica_of, start_proxy  # noqa: E402

from relpos.class_routes import identity  # noqa: E402
from relpos.classroom.questions import number_question  # noqa: E402
from relpos.classroom.stores import open_store  # noqa: E402
from tests.support.browser import (  # noqa: E402
    ARTIFACTS,
    CONNECTED_JS,
    DROPPED_JS,
    NO_RELOAD_MARK_JS,
    SAME_PAGE_JS,
    WATCH_DROPS_JS,
    AppTab,
    StreamlitServer,
    deployed_server_options,
    free_port,
)
from tests.support.class_students import Classroom, Follower  # noqa: E402
from tests.support.redis_server import redis_server  # noqa: E402

ANSWER_WITHIN = 5.0  # s: the whole class answered
TO_PROJECTOR = 1.0  # s: answer -> projector's stream, p95
IDLE_CPU = 0.05  # of one core, all app servers together
NEXT_CPU = 0.5  # s of app server CPU a Next may cost a class of 200 (2.5 ms a student), the teacher's run included
FOLLOW_WAIT = 20.0  # s a Next may take to reach every stream before the rest count as missed
RECOVER_WAIT = 90.0  # s a killed or restarted server may take until the teacher is back


def follow_target(students: int) -> float:
    """p95 of Next -> every student's page: 1 s for a class of up to 60, 2 s for a larger one."""
    return 1.0 if students <= 60 else 2.0


def join_within(students: int) -> float:
    """Seconds in which the whole class has joined: 10 for up to 60 students, 60 beyond."""
    return 10.0 if students <= 60 else 60.0


# ---------------------------------------------------------------------------------------
# What a run reports


@dataclass
class Check:
    target: str
    measured: str
    passed: bool


@dataclass
class Report:
    """Every target's verdict; printed as one summary line each."""

    checks: list[Check] = field(default_factory=list)

    def check(self, target: str, measured: str, passed: bool) -> bool:
        self.checks.append(Check(target, measured, bool(passed)))
        return bool(passed)

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(check.passed for check in self.checks)

    def verdict(self, target: str) -> Check:
        return next(check for check in self.checks if check.target.startswith(target))

    def print_summary(self) -> None:
        for check in self.checks:
            print(f"summary: {check.target}: {check.measured} {'PASS' if check.passed else 'FAIL'}", flush=True)


def say(text: str) -> None:
    print(text, flush=True)


def percentiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95, ordered[-1]


def spread(values: list[float]) -> str:
    if not values:
        return "no samples"
    p50, p95, top = percentiles(values)
    return f"p50 {p50:.3f} s · p95 {p95:.3f} s · max {top:.3f} s"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------
# The deployment


class Deployment:
    """One server, or two replicas behind docs/hosting.md's HAProxy sharing one Redis.

    ``url`` is where browsers and streams go (the proxy, or the one server); ``store_url``
    what the bench's own store opens (the class data the servers share).
    """

    def __init__(self, replicas: int, store: str, folder: Path, redis_url: str | None = None):
        self.replicas, self.store, self.folder, self.redis_url = replicas, store, folder, redis_url
        self.servers: dict[str, StreamlitServer] = {}
        self.proxy = self.redis = None
        self.url = self.store_url = ""
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Deployment:
        try:
            self._start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start(self) -> None:
        if self.store == "redis":
            if self.redis_url is None:
                self.redis_url, self.redis = self._stack.enter_context(redis_server(self.folder / "redis"))
            self.store_url = self.redis_url
            env = {"RELPOS_CLASS_STORE": self.redis_url}
        else:
            data = self.folder / "data"
            self.store_url = f"sqlite://{data / 'classes.sqlite3'}"
            env = {"RELPOS_DATA_DIR": str(data), "RELPOS_CLASS_STORE": ""}
        # one for every replica and restart; also the key that seals the browser's class identity
        self.cookie_secret = env["STREAMLIT_SERVER_COOKIE_SECRET"] = secrets.token_hex(32)
        names = ("app",) if self.replicas == 1 else ("app1", "app2")
        options = deployed_server_options()
        for name in names:
            self.servers[name] = StreamlitServer(
                ROOT / "app.py", port=free_port(), options=options, env=env, log_path=self._log(name)
            )
        for server in self.servers.values():
            server.launch()
        for server in self.servers.values():
            server.wait_healthy()
        if self.replicas == 1:
            self.url = self.servers["app"].base_url
            return
        proxy_port = free_port()
        ports = tuple(server.port for server in self.servers.values())
        self.proxy = start_proxy(proxy_port, ports, name=f"classroom-{proxy_port}")
        self.url = f"http://127.0.0.1:{proxy_port}"

    def _log(self, name: str, suffix: str = "") -> Path:
        return ARTIFACTS / f"classroom-{self.folder.name}-{name}{suffix}.log"

    def __exit__(self, *exc_info) -> None:
        if self.proxy is not None:
            self.proxy.terminate()
            with contextlib.suppress(Exception):
                self.proxy.wait(timeout=10)
        for server in self.servers.values():
            server.stop()
        self._stack.close()

    def describe(self) -> str:
        if self.replicas == 1:
            return f"one server (port {self.servers['app'].port}), {self.store} store"
        ports = ", ".join(str(server.port) for server in self.servers.values())
        return f"2 replicas (ports {ports}) behind haproxy ({self.url}) with docs/hosting.md's configuration, Redis"

    def cookie_for(self, number: int) -> str:
        """Student `number`'s affinity cookie: half the class starts on each replica."""
        if self.replicas == 1:
            return ""
        return affinity_cookie(self.url, tuple(self.servers)[number % len(self.servers)])

    def kill(self, name: str) -> float:
        """SIGKILL one server; when it happened."""
        server = self.servers[name]
        server.process.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        server.process.wait(timeout=20)
        return killed

    def restart(self, name: str) -> None:
        """A killed server started again: same port, options, environment and data."""
        old = self.servers[name]
        self.servers[name] = StreamlitServer(
            old.script, port=old.port, options=old.options, env=old.env, log_path=self._log(name, "-restarted")
        ).start()

    def app_pids(self) -> list[int]:
        return [server.process.pid for server in self.servers.values()]

    def helper_pids(self) -> dict[str, int]:
        """HAProxy's and Redis' processes, when this deployment started them."""
        pids = {}
        if self.proxy is not None:
            pids["haproxy"] = self.proxy.pid
        if self.redis is not None:
            pids["redis"] = self.redis.pid
        return pids


# ---------------------------------------------------------------------------------------
# Students


def on_replicas(streams: list[Follower]) -> str:
    counts: dict[str, int] = {}
    for stream in streams:
        counts[stream.replica] = counts.get(stream.replica, 0) + 1
    return ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))


# ---------------------------------------------------------------------------------------
# The teacher's tab


NEXT = re.compile("^Next")
_JOIN_PROMPT = "[...document.querySelectorAll('button')].some((b) => /Join the class/.test(b.innerText))"
TEACHER_PAGE_JS = f"() => document.body.innerText.includes('Join code:') && !{_JOIN_PROMPT}"
# Notes whether a student's join prompt is ever drawn on the teacher's page (a projector
# showing "Join the class" to the teacher, whose click would make the teacher a student).
WATCH_JOIN_PROMPT_JS = f"""() => {{
  window.__relposJoinPrompt = false;
  new MutationObserver(() => {{ if ({_JOIN_PROMPT}) window.__relposJoinPrompt = true; }})
    .observe(document.body, {{ childList: true, subtree: true, characterData: true }});
}}"""
JOIN_PROMPT_SHOWN_JS = "() => window.__relposJoinPrompt === true"


def start_class(tab: AppTab, key: bytes) -> tuple[str, str]:
    """The teacher's tab starts a class on the walkthrough: its code and the credential its
    browser keeps, sealed by the server (opened with the servers' `key`; the bench asks
    questions with it, as the teacher's Ask button does)."""
    tab.open("walkthrough", timeout=120)
    tab.page.get_by_role("button", name="Start a class").click(no_wait_after=True)
    tab.page.get_by_text("Join code:").wait_for(timeout=60_000)
    code = tab.page.locator("[aria-label^='Join code']").first.inner_text().strip()
    kept = "(code) => JSON.parse(localStorage.getItem('relpos.class.' + code) || '{}').sealed || null"
    tab.page.wait_for_function(kept, arg=code, timeout=60_000)  # stored once the page has drawn
    tab.wait_idle(timeout=60)
    return code, identity.unseal(tab.page.evaluate(kept, code), code, key=key)[1]


def press_next(
    tab: AppTab, store, code: str, students: list[Follower], pids=()
) -> tuple[list[float], int, bool, float]:
    """The teacher presses Next: each student's delay until their page has the new stop, how
    many missed it, whether the class's stop moved (the teacher is in control), and the
    app servers' CPU seconds meanwhile (`pids`), until every page had it and 0.5 s more."""
    before_stop = store.get_class(code).pace.index
    stop = before_stop + 2  # the new stop, counted from 1 as the page shows it
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    clicked = time.monotonic()
    tab.page.get_by_role("button", name=NEXT).first.click(no_wait_after=True)
    deadline = clicked + FOLLOW_WAIT
    while time.monotonic() < deadline and not all(stop in s.shown for s in students):
        time.sleep(0.01)
    time.sleep(0.5)  # what the Next still costs after the last page has it (the teacher's own run)
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    delays = [s.shown[stop] - clicked for s in students if stop in s.shown]
    moved = store.get_class(code).pace.index == before_stop + 1
    return delays, len(students) - len(delays), moved, cpu


# ---------------------------------------------------------------------------------------
# The lesson's parts


def joins(report: Report, deployment: Deployment, code: str, students: int, arrive: float | None = None) -> Classroom:
    """Every student opens the join link and joins through the page, arriving over `arrive`
    seconds (80 % of the window by default); the class (its followers hold each student's stream)."""
    window = join_within(students)
    arrive = 0.8 * window if arrive is None else arrive
    entry = SimpleNamespace(port=int(deployment.url.rsplit(":", 1)[1]), base_url=deployment.url)
    room = Classroom(entry, "walkthrough", code, affinity=COOKIE)
    cpu_before = sum(cpu_seconds(pid) for pid in deployment.app_pids())
    started = time.monotonic()
    room.join_all(students, spread=arrive, cookies=deployment.cookie_for)
    took = time.monotonic() - started
    cpu = sum(cpu_seconds(pid) for pid in deployment.app_pids()) - cpu_before
    errors = room.errors
    say(
        f"joins (arriving over {arrive:.0f} s): {len(room.joined)} in {took:.2f} s, arrival → page "
        f"{spread(room.join_times)}, app server CPU {cpu:.2f} s ({1000 * cpu / max(1, students):.1f} ms a student), "
        f"errors {len(errors)}{': ' + errors[0] if errors else ''}"
    )
    report.check(
        f"{students} students join within {window:.0f} s, 0 errors",
        f"{len(room.joined)} in {took:.2f} s ({spread(room.join_times)} each), {len(errors)} errors",
        len(room.joined) == students and took <= window and not errors,
    )
    return room


def follow(report: Report, deployment: Deployment, tab: AppTab, store, code: str, students: list[Follower], nexts: int):
    delays, missed, moved, cpus = [], 0, 0, []
    for _ in range(nexts):
        tab.wait_idle(timeout=60)
        some, lost, stepped, cpu = press_next(tab, store, code, students, deployment.app_pids())
        delays += some
        missed += lost
        moved += stepped
        cpus.append(cpu)
    target = follow_target(len(students))
    cpu = statistics.median(cpus) if cpus else float("inf")
    budget = NEXT_CPU
    say(
        f"follow (Next click → every student's page has the stop): {spread(delays)}, missed {missed}; "
        f"app server CPU per Next: median {cpu:.3f} s, max {max(cpus, default=0):.3f} s "
        f"({1000 * cpu / max(1, len(students)):.2f} ms a student)"
    )
    p95 = percentiles(delays)[1] if delays else float("inf")
    report.check(
        f"Next → every student's page p95 ≤ {target:.0f} s",
        f"{spread(delays)}, missed {missed}, class moved {moved} of {nexts}",
        p95 <= target and missed == 0 and moved == nexts,
    )
    report.check(
        f"app server CPU per Next ≤ {budget:.1f} s (200 students' budget, the teacher's own run included)",
        f"median {cpu:.3f} s over {len(cpus)} Nexts",
        cpu <= budget,
    )


@dataclass
class Answers:
    """What a class's answers came to: (submitted at, activity version once stored) per
    acknowledged answer, seconds from submit to acknowledgement, the moment the last was
    acknowledged, and errors."""

    stored: list[tuple[float, int]] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)
    last: float = 0.0
    errors: list[str] = field(default_factory=list)


def submit(store, code: str, students: list[Follower], question_id: int, seconds: float) -> Answers:
    """Every student answers once, at moments spread evenly over `seconds` (as a class types),
    each on a thread of its own, as their follow view's form does (a POST)."""
    outcome, lock, start = Answers(), threading.Lock(), time.monotonic()

    def answer(number: int, student: Follower) -> None:
        time.sleep(max(0.0, start + seconds * number / max(1, len(students)) - time.monotonic()))
        at = time.monotonic()
        try:
            ack = student.answer(question_id, str(0.1 * (number % 10)))
            acked = time.monotonic()
            version = store.version(code, "activity")  # this answer's change or a later one
            if not ack.get("stored") and ack.get("status") != "unchanged":
                raise RuntimeError(f"refused: {ack}")
        except Exception as error:  # counted and shown
            with lock:
                outcome.errors.append(repr(error))
            return
        with lock:
            outcome.last = max(outcome.last, acked)
            outcome.waits.append(acked - at)
            if ack["stored"]:
                outcome.stored.append((at, version))

    students = [threading.Thread(target=answer, args=pair) for pair in enumerate(students)]
    for thread in students:
        thread.start()
    for thread in students:
        thread.join()
    return outcome


def answers(report: Report, deployment: Deployment, tab: AppTab, store, code: str, credential: str, tokens) -> int:
    """A question, everyone answers within 3 s; how many answers were acknowledged."""
    question = store.ask(code, credential, number_question("Predict e₁₂", 0.5))
    events = {"events": f"/relpos/class/{code}/events?watch=activity"}
    activity = Follower(deployment.url, events, deployment.cookie_for(0), COOKIE)
    activity.start()
    activity.ready.wait(60)
    started = time.monotonic()
    outcome = submit(store, code, tokens, question.id, 3.0)
    acks, took = len(outcome.stored), outcome.last - started
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(activity.seen_after(v - 1) for _, v in outcome.stored):
        time.sleep(0.05)
    activity.stopping.set()
    # an answer is on the projector's stream once a version at least as new has arrived
    to_projector = [seen - at for at, v in outcome.stored if (seen := activity.seen_after(v - 1)) is not None]
    stored = store.results(code, credential=credential).answered
    errors = f", errors {len(outcome.errors)}: {outcome.errors[0]}" if outcome.errors else ", errors 0"
    say(
        f"answers (spread over 3 s): {acks} acknowledged in {took:.2f} s, stored {stored}, lost {acks - stored}"
        f"{errors}; submit → acknowledged {spread(outcome.waits)}"
    )
    say(f"answer → projector stream: {spread(to_projector)} ({len(to_projector)} of {acks} seen)")
    shown = time.monotonic()
    count = f"{len(tokens)} of {len(tokens)} here answered"
    try:
        tab.page.get_by_text(count).wait_for(timeout=30_000)
        on_page = f"{time.monotonic() - shown:.2f} s after the last answer"
    except Exception:  # a timeout is the finding
        on_page = "not within 30 s"
    say(f"teacher's page shows '{count}' {on_page}")
    report.check(
        f"{len(tokens)} answers within {ANSWER_WITHIN:.0f} s",
        f"{acks} acknowledged in {took:.2f} s{errors}",
        acks == len(tokens) and took <= ANSWER_WITHIN and not outcome.errors,
    )
    p95 = percentiles(to_projector)[1] if to_projector else float("inf")
    report.check(
        f"answer → projector stream p95 ≤ {TO_PROJECTOR:.0f} s",
        f"{spread(to_projector)}, {len(to_projector)} of {acks} seen; teacher's page: {on_page}",
        p95 <= TO_PROJECTOR and len(to_projector) == acks and "s after" in on_page,
    )
    report.check("stored answers = acknowledged (0 lost)", f"stored {stored}, acknowledged {acks}", stored == acks)
    return acks


def idle(report: Report, deployment: Deployment, streams: list[Follower], seconds: float) -> None:
    time.sleep(2)
    pids = deployment.app_pids()
    helpers = deployment.helper_pids()
    before = [cpu_seconds(pid) for pid in pids]
    helpers_before = {name: cpu_seconds(pid) for name, pid in helpers.items()}
    drops_before, started = sum(len(s.drops) for s in streams), time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - started
    share = sum(cpu_seconds(pid) - cpu for pid, cpu in zip(pids, before, strict=True)) / elapsed
    beside = "".join(
        f", {name} {(cpu_seconds(pid) - helpers_before[name]) / elapsed:.1%}" for name, pid in helpers.items()
    )
    drops = sum(len(s.drops) for s in streams) - drops_before
    say(
        f"idle {seconds:.0f} s with {len(streams)} students' pages open: app server CPU {share:.1%} of a core"
        f"{' (both replicas)' if len(pids) > 1 else ''}{beside}; streams dropped meanwhile {drops}"
    )
    report.check(
        f"idle CPU with {len(streams)} students ≤ {IDLE_CPU:.0%} of a core",
        f"{share:.1%} over {seconds:.0f} s, {drops} streams dropped",
        share <= IDLE_CPU and drops == 0,
    )


def lose_server(report: Report, deployment: Deployment, tab: AppTab, store, code, credential, tokens, streams, earlier):
    """Kill the teacher's replica (two replicas) or restart the one server, mid-question.

    A third of the class answers before, a third while the teacher's tab reconnects, a third
    once it is back (their count reaches the projector only through its stream, after the
    loss); `earlier`: answers acknowledged before this question.
    """
    restart = deployment.replicas == 1
    victim = "app" if restart else replica_of(tab)
    what = "server restarted (SIGKILL, same port and data)" if restart else f"teacher's replica {victim} killed"
    question = store.ask(code, credential, number_question("Predict e₁₃", -0.25))
    before, during, after = (tokens[part * len(tokens) // 3 : (part + 1) * len(tokens) // 3] for part in range(3))
    acks, errors = 0, []

    def answered(outcome: Answers) -> int:
        errors.extend(outcome.errors)
        return len(outcome.stored)

    acks += answered(submit(store, code, before, question.id, 1.0))
    on_victim = sum(stream.replica in (victim, "-") for stream in streams)
    say(f"{what}: the teacher's tab and {on_victim} of {len(streams)} streams were on it; {acks} answered before")
    for script in (NO_RELOAD_MARK_JS, WATCH_DROPS_JS, WATCH_JOIN_PROMPT_JS):
        tab.page.evaluate(script)
    drops_before = [len(stream.drops) for stream in streams]
    killed = deployment.kill(victim)
    meanwhile: list[int] = []
    answering = threading.Thread(
        target=lambda: meanwhile.append(answered(submit(store, code, during, question.id, 2.0)))
    )
    answering.start()
    if restart:
        deployment.restart(victim)
        say(f"server up again {time.monotonic() - killed:.1f} s after the kill")
    back, control = teacher_back(tab, killed)
    answering.join()
    acks += sum(meanwhile)
    say(f"teacher's tab: {back}")
    acks += answered(submit(store, code, after, question.id, 1.0))
    count = f"{len(tokens)} of {len(tokens)} here answered"
    seen = _shows(tab, count)
    dropped = [s for s, before in zip(streams, drops_before, strict=True) if len(s.drops) > before]
    resumed = [s.resumed[-1] for s in dropped if len(s.resumed) == len(s.drops)]
    refused = sum(bool(s.refusals) for s in streams)
    say(
        f"streams dropped {len(dropped)}, resumed {len(resumed)} (drop → first version again: {spread(resumed)}), "
        f"refused {refused}; now on {on_replicas(streams)}"
    )
    delays, missed, moved, _ = press_next(tab, store, code, streams)
    say(f"the next Next → every student's page: {spread(delays)}, missed {missed}; class stop moved: {moved}")
    stored = sum(result.answered for result in store.all_results(code, credential))
    acknowledged = earlier + acks
    say(
        f"answers: acknowledged {acknowledged} (this question {acks} of {len(tokens)}: {len(before)} before, "
        f"{len(during)} during, {len(after)} after; errors {len(errors)}{': ' + errors[0] if errors else ''}), "
        f"stored {stored}; teacher's page shows '{count}': {'yes' if seen else 'no'}"
    )
    label = "restart the server" if restart else "kill the teacher's replica"
    report.check(
        f"{label}: teacher reconnects and keeps control",
        back,
        control and moved and tab.page.get_by_text("Join code:").count() > 0,
    )
    report.check(
        f"{label}: every student follows the next Next",
        f"{len(streams) - missed} of {len(streams)} ({spread(delays)}); streams dropped {len(dropped)}, "
        f"resumed {len(resumed)}, refused {refused}",
        missed == 0 and refused == 0 and len(resumed) == len(dropped),
    )
    report.check(
        f"{label}: no acknowledged answer lost",
        f"stored {stored} of {acknowledged} acknowledged; projector shows '{count}': {'yes' if seen else 'no'}",
        stored == acknowledged and seen and acks == len(tokens),
    )


def _shows(tab: AppTab, text: str, timeout: float = 20) -> bool:
    try:
        tab.page.get_by_text(text).first.wait_for(timeout=timeout * 1000)
    except Exception:  # a timeout is the finding
        return False
    return True


def teacher_back(tab: AppTab, killed: float) -> tuple[str, bool]:
    """Wait for the teacher's tab to lose its server, reconnect and show the teacher's page
    again; what happened, and whether it did."""
    try:
        tab.page.wait_for_function(DROPPED_JS, timeout=20_000)
        tab.page.wait_for_function(CONNECTED_JS, timeout=RECOVER_WAIT * 1000)
        connected = time.monotonic() - killed
        tab.page.wait_for_function(TEACHER_PAGE_JS, timeout=30_000)
        tab.wait_idle(timeout=30, quiet_ms=500)
        tab.page.wait_for_function(TEACHER_PAGE_JS, timeout=30_000)
    except Exception as error:  # a timeout is the finding, not a crash of the bench
        return f"FAIL ({type(error).__name__}: {str(error)[:160]})", False
    again = time.monotonic() - killed
    reloaded = "" if tab.page.evaluate(SAME_PAGE_JS) else ", after a page reload"
    prompt = tab.page.evaluate(JOIN_PROMPT_SHOWN_JS)
    where = f" to {replica_of(tab)}" if replica_of(tab) != "?" else ""
    return (
        f"reconnected {connected:.1f} s after the kill{where}, teacher's page again {again:.1f} s after{reloaded}; "
        f"join prompt shown meanwhile: {'yes' if prompt else 'no'}",
        not prompt,
    )


# ---------------------------------------------------------------------------------------
# The run


def lesson(chromium, args: argparse.Namespace) -> Report:
    """Deployment, teacher, students and every measurement; the report (printed as it goes)."""
    report = Report()
    folder = Path(tempfile.mkdtemp(prefix="relpos-bench-class-"))
    with Deployment(args.replicas, args.store, folder, args.redis_url) as deployment:
        store = open_store(deployment.store_url)
        tab = AppTab.new(chromium, deployment.url, viewport=(1280, 720))
        room = None
        try:
            code, credential = start_class(tab, deployment.cookie_secret.encode())
            say(
                f"class {code}: {args.students} students; {deployment.describe()}; teacher's tab on "
                f"{replica_of(tab) if args.replicas > 1 else 'the server'}; {os.cpu_count()} CPUs, "
                f"load average {os.getloadavg()[0]:.1f}"
            )
            room = joins(report, deployment, code, args.students, args.arrive)
            streams = tokens = room.joined
            say(
                f"students' streams open: {sum(bool(s.arrivals) for s in streams)} (on {on_replicas(streams)}), "
                f"refused {sum(bool(s.refusals) for s in streams)}"
            )
            if args.nexts:
                follow(report, deployment, tab, store, code, streams, args.nexts)
            acknowledged = answers(report, deployment, tab, store, code, credential, tokens) if args.answers else 0
            if args.idle:
                idle(report, deployment, streams, args.idle)
            if args.kill_teacher_replica or args.restart:
                lose_server(report, deployment, tab, store, code, credential, tokens, streams, acknowledged)
        finally:
            if room is not None:
                room.close()
            tab.close()
            store.close()
    report.print_summary()
    return report


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--nexts", type=int, default=5, help="Next presses measured (0: none)")
    parser.add_argument(
        "--arrive", type=float, default=None, help="seconds over which students arrive (default: 80%% of the window)"
    )
    parser.add_argument("--no-answers", dest="answers", action="store_false", help="skip the answers part")
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idle CPU measured (0: none)")
    parser.add_argument("--replicas", type=int, choices=(1, 2), default=1)
    parser.add_argument("--store", choices=("sqlite", "redis"), default=None, help="sqlite (1 server) or redis")
    parser.add_argument("--redis-url", default=None, help="an existing Redis (default: start a redis-server)")
    parser.add_argument("--kill-teacher-replica", action="store_true", help="SIGKILL the teacher's replica")
    parser.add_argument("--restart", action="store_true", help="SIGKILL the one server and start it again")
    args = parser.parse_args(argv)
    args.store = args.store or ("redis" if args.replicas == 2 else "sqlite")
    if args.replicas == 2 and args.store != "redis":
        parser.error("two replicas share one class store: --store redis")
    if args.kill_teacher_replica and args.replicas != 2:
        parser.error("--kill-teacher-replica needs --replicas 2")
    if args.restart and args.replicas != 1:
        parser.error("--restart restarts the one server (--replicas 1)")
    if not 1 <= args.students <= 300 or not 0 <= args.nexts <= 15:
        parser.error("keep it bounded: 1-300 students, 0-15 Nexts (the walkthrough has 20 stops)")
    if args.replicas == 2 and haproxy_binary() is None:
        parser.error("haproxy not found: apt-get install haproxy")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    from tests.support.browser import launch_chromium

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            return 0 if lesson(browser, args).passed else 1
        finally:
            browser.close()


if __name__ == "__main__":
    raise SystemExit(main())
