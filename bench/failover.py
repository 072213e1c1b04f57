"""Failover behind HAProxy: one replica dies in the middle of a lesson.

Runs what docs/hosting.md's "Several replicas behind a load balancer" recommends, on loopback:
two replicas of the app (deployment configuration, one shared cookie secret) and
Debian's ``haproxy`` with the configuration block copied verbatim from docs/hosting.md (only
the ports are replaced). Through the proxy, ``--sessions`` WebSocket sessions
(tests/support/streamlit_client.py; half of them hold replica app1's affinity cookie, half
app2's, as the proxy hands them out) move an Explorer slider every ``--think`` s, and
two real Chromium tabs on app1 sit on the Explorer: one after a slider move, one just
opened. After ``--kill-after`` s replica app1 is killed (SIGKILL). The WebSocket
sessions on it reconnect through the proxy as Streamlit's browser does (see
ReconnectingSession); the browsers reconnect by themselves.

Reports: how many sessions lost their replica and reconnected, how long that took,
interactions lost (an interaction counts as lost when no run ever finished for it;
target 0), p95 from interaction to finished rerun before the kill and after every
session had reconnected, and whether each browser kept its view (same URL and drawn
numbers, no reload) and drew its next slider move. Needs ``haproxy`` on PATH
(``apt-get install haproxy``; .ci/run installs it) and Chromium for the browsers.

Example::

    python bench/failover.py                      # 30 sessions, kill at 15 s, 45 s in all
    python bench/failover.py --sessions 10 --duration 25 --kill-after 8   # tests/test_failover.py
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.browser import (
    ARTIFACTS,
    CONNECTED_JS,
    DROPPED_JS,
    NO_RELOAD_MARK_JS,
    ROOT,
    SAME_PAGE_JS,
    WATCH_DROPS_JS,
    StreamlitServer,
    deployed_server_options,
    free_port,
)
from tests.support.streamlit_client import Session
from tests.support.ui_contract import EXPLORER

COOKIE = "RELPOS_REPLICA"


# ---------------------------------------------------------------------------------------
# The proxy, configured from docs/hosting.md


def readme_haproxy_config() -> str:
    """The HAProxy block of docs/hosting.md, as written there."""
    text = (ROOT / "docs" / "hosting.md").read_text(encoding="utf-8")
    match = re.search(r"With HAProxy[^\n]*\n+```\n(.*?)```", text, re.DOTALL)
    if match is None:
        raise SystemExit("docs/hosting.md has no HAProxy configuration block ('With HAProxy ...' followed by ```)")
    return match.group(1)


def proxy_config(proxy_port: int, ports: tuple[int, int]) -> str:
    """The documented configuration with loopback ports in place of :80, 8501 and 8502."""
    config = readme_haproxy_config().replace("bind :80", f"bind 127.0.0.1:{proxy_port}")
    return config.replace("127.0.0.1:8501", f"127.0.0.1:{ports[0]}").replace("127.0.0.1:8502", f"127.0.0.1:{ports[1]}")


def haproxy_binary() -> str | None:
    """Debian's haproxy (on PATH or in /usr/sbin), or None."""
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    return haproxy if os.access(haproxy, os.X_OK) else None


def start_proxy(proxy_port: int, ports: tuple[int, int], name: str = "failover") -> subprocess.Popen:
    """HAProxy with the documented configuration; its files are test-artifacts/<name>-haproxy.*."""
    haproxy = haproxy_binary()
    if haproxy is None:
        raise SystemExit("haproxy not found: apt-get install haproxy (.ci/run installs it)")
    path = ARTIFACTS / f"{name}-haproxy.cfg"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(proxy_config(proxy_port, ports), encoding="utf-8")
    log = open(ARTIFACTS / f"{name}-haproxy.log", "wb")  # noqa: SIM115 - lives as long as the proxy
    process = subprocess.Popen([haproxy, "-db", "-f", str(path)], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{proxy_port}/_stcore/health", timeout=2) as answer:
                if answer.read().strip() == b"ok":
                    return process
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise SystemExit(f"haproxy did not serve /_stcore/health; see {ARTIFACTS / f'{name}-haproxy.log'}")


def affinity_cookie(proxy_url: str, replica: str) -> str:
    """The proxy's replica cookie, as a browser that was sent to `replica` holds it.

    Checked against the proxy: a first request with it must come back without a new one
    (HAProxy's ``insert indirect`` sets the cookie only when it chose the replica).
    """
    cookie = f"{COOKIE}={replica}"
    request = urllib.request.Request(f"{proxy_url}/_stcore/health", headers={"Cookie": cookie})
    with urllib.request.urlopen(request, timeout=10) as answer:
        if any(header.startswith(COOKIE + "=") for header in answer.headers.get_all("Set-Cookie") or []):
            raise RuntimeError(f"the proxy does not route {cookie} to a replica of its own")
    return cookie


# ---------------------------------------------------------------------------------------
# WebSocket sessions that reconnect like Streamlit's browser


@dataclass
class Outcome:
    """What every session reports."""

    latencies: list[tuple[float, float]] = field(default_factory=list)  # (start time, ms)
    reconnects: list[float] = field(default_factory=list)  # s from losing the socket to being usable again
    full_reruns: int = 0  # reconnects after which the client asked for a full run, as the browser does
    lost: int = 0
    errors: list[str] = field(default_factory=list)
    replicas: list[str] = field(default_factory=list)


class ReconnectingSession(Session):
    """A student's tab through the proxy: keeps its cookie and reconnects when the socket drops.

    On a new socket it does what Streamlit's browser does (App.handleConnectionStateChanged
    in Streamlit 1.67): it asks for a full run with its current widget values only when a
    run was going on, its last run was a fragment run, or the app registered a
    ``run_every`` fragment (relpos.server.reconnect); otherwise its next slider move goes out as
    a plain fragment rerun, which a replica that never ran the page drops: lost. These
    sessions always moved a slider before the kill (a fragment run), so the browser's own
    rule already reruns them; the case only relpos.server.reconnect saves (a page whose last
    run was a full one) is the second Chromium tab's.
    """

    def __init__(self, proxy: StreamlitServer, cookie: str, rng: random.Random) -> None:
        super().__init__(proxy, "explorer", "n=8", EXPLORER.bench_slider, rng)
        self.cookie = cookie
        self.in_flight = False
        self.last_run_fragment = False  # the browser's fragmentIdsThisRun is not empty

    def connect(self, timeout: float):
        from websockets.asyncio.client import connect
        from websockets.typing import Subprotocol

        return connect(
            self.url,
            origin=self.origin,
            subprotocols=[Subprotocol("streamlit")],
            additional_headers={"Cookie": self.cookie},
            max_size=None,
            open_timeout=timeout,
        )

    async def interact(self, socket, deadline: float, think: float, outcome: Outcome) -> None:
        """Move the slider every ~think s until the deadline; a run that never finishes is lost."""
        from websockets.protocol import State

        while time.monotonic() + think < deadline:
            # think, unless the socket drops meanwhile: the browser sees that at once and reconnects
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(socket.wait_closed(), think * self.rng.uniform(0.5, 1.5))
            if socket.state is not State.OPEN:
                raise ConnectionError("socket closed by the proxy")
            payload, started = self.next_interaction(), time.monotonic()
            self.in_flight, self.last_run_fragment = True, bool(self.pick_slider() and self.pick_slider().fragment_id)
            try:
                await self.run_once(socket, payload, 10.0)
            except TimeoutError:
                outcome.lost += 1  # the server never ran it
            else:
                outcome.latencies.append((started, (time.monotonic() - started) * 1000))
            self.in_flight = False

    async def reconnected(self, socket, dropped_at: float, outcome: Outcome) -> None:
        """The browser's first message on a new socket, if it sends one."""
        if self.in_flight or self.last_run_fragment or self.auto_rerun_fragments:
            await self.run_once(socket, self.rerun_message(), 30.0)  # carries the move in flight, if any
            outcome.full_reruns += 1
        self.in_flight = False
        outcome.reconnects.append(time.monotonic() - dropped_at)

    async def lesson(self, start_at: float, deadline: float, think: float, outcome: Outcome) -> None:
        await asyncio.sleep(max(0.0, start_at - time.monotonic()))
        dropped_at = None
        while time.monotonic() < deadline:
            try:
                async with self.connect(10.0) as socket:
                    if dropped_at is None:
                        await self.run_once(socket, self.rerun_message(), 30.0)  # the page load
                    else:
                        await self.reconnected(socket, dropped_at, outcome)
                    await self.interact(socket, deadline, think, outcome)
                    return
            except Exception as error:  # the replica died under us, or the proxy refused for a moment
                if dropped_at is None:
                    dropped_at = time.monotonic()
                    outcome.errors.append(f"socket lost: {type(error).__name__}")
                await asyncio.sleep(random.uniform(0.25, 1.0))  # Streamlit's first back-off
        if self.in_flight:
            outcome.lost += 1


def run_sessions(proxy: StreamlitServer, args, outcome: Outcome, started: threading.Event) -> None:
    """All WebSocket sessions, in this thread's own event loop (Playwright owns the main one)."""

    async def everyone() -> None:
        rng = random.Random(7)
        # half the class on each replica, as the proxy's balancing left them before the failure
        cookies = [affinity_cookie(proxy.base_url, ("app1", "app2")[number % 2]) for number in range(args.sessions)]
        outcome.replicas = [cookie.split("=", 1)[1] for cookie in cookies]
        now = time.monotonic()
        started.set()
        sessions = [ReconnectingSession(proxy, cookie, random.Random(rng.random())) for cookie in cookies]
        await asyncio.gather(
            *(s.lesson(now + rng.uniform(0, 3), now + args.duration, args.think, outcome) for s in sessions)
        )

    asyncio.run(everyone())


# ---------------------------------------------------------------------------------------
# Two real browsers


def open_browsers(chromium, proxy_url: str) -> list:
    """Two tabs on the Explorer, both on replica app1 (a returning browser's affinity cookie):
    one after a slider move (its last run a fragment run), one just opened (a full run)."""
    from tests.support.browser import AppTab

    tabs = []
    for moved in (True, False):
        tab = AppTab.new(chromium, proxy_url)
        tab.page.context.add_cookies([{"name": COOKIE, "value": "app1", "url": proxy_url}])
        tab.open("explorer", {"n": 8})
        tab.wait_plots(7)
        if moved:
            tab.press_slider("aᴷ₊₁", "ArrowRight")
        tab.page.evaluate(NO_RELOAD_MARK_JS)
        tab.page.evaluate(WATCH_DROPS_JS)
        tabs.append(tab)
    return tabs


def replica_of(tab) -> str:
    return next((c["value"] for c in tab.page.context.cookies() if c["name"] == COOKIE), "?")


def check_browser(tab, before: tuple[str, str], lost_its_replica: bool) -> str:
    """After the kill: same view without a reload, and the next slider move is drawn."""
    try:
        if lost_its_replica:  # wait until the tab has seen its socket drop
            tab.page.wait_for_function(DROPPED_JS, timeout=15_000)
        tab.page.wait_for_function(CONNECTED_JS, timeout=30_000)
        tab.wait_idle(timeout=30)
        kept = (tab.page.url, tab.fingerprint()) == before and tab.page.evaluate(SAME_PAGE_JS)
        bias = tab.figure("position bias").z
        tab.slider("aᴷ₊₁").focus()
        tab.interact(lambda: tab.page.keyboard.press("ArrowRight"), timeout=15)
        drawn = bool((tab.figure("position bias").z != bias).any())
    except Exception as error:  # a timeout is the finding, not a crash of the bench
        return f"FAIL ({type(error).__name__}: {str(error)[:120]})"
    if kept and drawn and not tab.exceptions():
        return "view kept (same URL and numbers, no reload), next slider move drawn"
    return f"FAIL (view kept {kept}, next move drawn {drawn}, exceptions {tab.exceptions()})"


# ---------------------------------------------------------------------------------------
# The run


def p95(values: list[float]) -> str:
    return f"p95 {np.percentile(values, 95):.0f} ms (n = {len(values)})" if values else "n/a"


def report(outcome: Outcome, killed: str, kill_time: float, browsers: list[str], args) -> int:
    on_killed = outcome.replicas.count(killed)
    settled = kill_time + (max(outcome.reconnects) if outcome.reconnects else 0.0)
    before = [ms for at, ms in outcome.latencies if at < kill_time]
    after = [ms for at, ms in outcome.latencies if at > settled]
    windows = sorted(outcome.reconnects)
    print(f"replica {killed} killed (SIGKILL); {on_killed} of {args.sessions} sessions were on it")
    if windows:
        print(
            f"sessions that reconnected: {len(windows)} of {on_killed}; socket lost -> usable on the other "
            f"replica: median {np.median(windows):.1f} s, max {max(windows):.1f} s"
        )
    print(
        f"interactions answered {len(outcome.latencies)}; reconnects followed by a full page run (the browser"
        f"'s rule) {outcome.full_reruns}"
    )
    print(f"interaction -> finished rerun: before the kill {p95(before)}; after every reconnect {p95(after)}")
    for number, verdict in enumerate(browsers, 1):
        print(f"browser {number}: {verdict}")
    checks = [outcome.lost == 0, len(windows) == on_killed, not any("FAIL" in verdict for verdict in browsers)]
    print(
        f"summary: interactions lost {outcome.lost} (target 0) {'PASS' if checks[0] else 'FAIL'} | "
        f"sessions reconnected {len(windows)} of {on_killed} {'PASS' if checks[1] else 'FAIL'} | "
        f"browsers intact {'PASS' if checks[2] else 'FAIL'}"
    )
    return 0 if all(checks) else 1


def lesson(chromium, proxy_url: str, replicas: dict[str, StreamlitServer], args) -> int:
    proxy = StreamlitServer("app.py", port=int(proxy_url.rsplit(":", 1)[1]))  # only its addresses are used
    tabs = open_browsers(chromium, proxy_url)
    outcome, started = Outcome(), threading.Event()
    worker = threading.Thread(target=run_sessions, args=(proxy, args, outcome, started))
    worker.start()
    started.wait(60)
    time.sleep(args.kill_after)
    killed = "app1"
    views = [(tab.page.url, tab.fingerprint()) for tab in tabs]
    homes = [replica_of(tab) for tab in tabs]
    replicas[killed].process.send_signal(signal.SIGKILL)
    kill_time = time.monotonic()
    browsers = [
        f"on {home}{' (killed)' if home == killed else ''}: {check_browser(tab, view, home == killed)}"
        for tab, view, home in zip(tabs, views, homes, strict=True)
    ]
    worker.join()
    for tab in tabs:
        tab.close()
    return report(outcome, killed, kill_time, browsers, args)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=30, help="WebSocket sessions through the proxy (<= 100)")
    parser.add_argument("--think", type=float, default=2.0, help="mean seconds between a session's slider moves")
    parser.add_argument("--duration", type=float, default=45.0, help="seconds the sessions run (<= 300)")
    parser.add_argument("--kill-after", type=float, default=15.0, help="seconds after the sessions start")
    args = parser.parse_args(argv)
    if not 2 <= args.sessions <= 100 or not args.kill_after + 15 <= args.duration <= 300:
        parser.error("keep it bounded: 2-100 sessions, duration <= 300 s and >= kill-after + 15 s")
    return args


def failover(chromium, args: argparse.Namespace) -> int:
    """Replicas, proxy and the lesson with `chromium` (a Playwright browser); 0 when every check passed."""
    secret = {"STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}  # one for both replicas, as docs/hosting.md says
    options, ports = deployed_server_options(), (free_port(), free_port())
    replicas = {
        name: StreamlitServer(
            "app.py", port=port, options=options, env=secret, log_path=ARTIFACTS / f"failover-{name}.log"
        )
        for name, port in zip(("app1", "app2"), ports, strict=True)
    }
    proxy = None
    try:
        for server in replicas.values():
            server.launch()
        for server in replicas.values():
            server.wait_healthy()
        proxy_port = free_port()
        proxy = start_proxy(proxy_port, ports)
        print(
            f"failover: 2 replicas (ports {ports[0]}, {ports[1]}) behind haproxy on {proxy_port} with the documented "
            f"configuration; {args.sessions} WebSocket sessions + 2 Chromium tabs on /explorer?n=8, a slider move "
            f"per {args.think:.0f} s each; replica app1 killed {args.kill_after:.0f} s in; {os.cpu_count()} CPUs",
            flush=True,
        )
        return lesson(chromium, f"http://127.0.0.1:{proxy_port}", replicas, args)
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(timeout=10)
        for server in replicas.values():
            server.stop()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    from tests.support.browser import launch_chromium

    with sync_playwright() as playwright:
        return failover(launch_chromium(playwright), args)


if __name__ == "__main__":
    raise SystemExit(main())
