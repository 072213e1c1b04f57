"""Classroom load: one server, many concurrent sessions, bounded in count and time (issue 6).

Starts ``streamlit run <script>`` on a loopback port, then for ``--rounds`` rounds opens
``--sessions`` concurrent sessions of one page; each loads the page and, until the
round's ``--duration`` is over, moves a slider (or, on a page without sliders, asks for
a rerun) every ``--think`` seconds (± 50 %, seeded). Reports, per round and overall:

* errors (target 0): failed connections, exceptions shown on the page, compile errors,
  "page not found", runs that do not finish within ``--timeout`` s, closed sockets;
* p50/p95 time from an interaction to its finished rerun (target p95 ≤ 1 s on 2 cores),
  and the first page load;
* the server's peak resident memory, and its memory after each round's sessions have
  closed and expired (target: no growth from round 1 to round 2).

Why a WebSocket client and not 30 browser tabs: the server is what a classroom loads;
the students' browsers render on their own machines. Thirty headless Chromium renderers
on this 2-core machine would compete with the server for the CPU and measure the
client, not the server. The client here speaks Streamlit's own protocol (the
``streamlit.proto`` BackMsg/ForwardMsg messages over ``/_stcore/stream``), exactly as
the browser does: it sends the same ``rerun_script`` client state a slider change
sends (widget id and value, page, query string, fragment id), and times until the
server's ``script_finished`` arrives, all deltas received. bench/latency.py covers the
browser's own rendering time.

Disconnected sessions are kept by Streamlit for ``server.disconnectedSessionTTL``
(120 s by default) for reconnects; the benchmark sets it to ``--ttl`` seconds so that
"memory after the sessions close" is measured in bounded time.

Examples (from the repository root)::

    python bench/load.py                                     # the Explorer's aᴷ₀ slider, 30 sessions, 2 rounds
    python bench/load.py --page explorer --query n=16 --slider "Clipping distance k"
    python bench/load.py --script bench/floor_app.py --query "n=16&heatmaps=7"
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from relpos.navigation import PAGES
from tests.browser import StreamlitServer, deployed_server_options, label_matches
from tests.ui_contract import EXPLORER, page_spec

MIB = 2**20
DEFAULT_PAGE = PAGES[0].url_path
TARGET_P95_MS = 1000.0
MEMORY_TOLERANCE = 0.05  # "no growth": round 2 may end at most 5 % above round 1


# ---------------------------------------------------------------------------------------
# One session, speaking Streamlit's protocol


@dataclass
class Slider:
    """What the client needs to move a slider like the browser does."""

    id: str
    label: str
    low: float
    high: float
    step: float
    default: list[float]
    fragment_id: str = ""


@dataclass
class Stats:
    """What all sessions of a round report."""

    interactions: list[float] = field(default_factory=list)  # ms, interaction -> finished rerun
    loads: list[float] = field(default_factory=list)  # ms, connect -> first run finished
    errors: list[str] = field(default_factory=list)
    sessions_done: int = 0


class RunError(Exception):
    """A run that did not finish cleanly (the message says why)."""


class Session:
    """One student's tab: load the page, then interact until the deadline."""

    def __init__(self, server: StreamlitServer, page: str, query: str, slider_label, rng: random.Random) -> None:
        self.url = f"ws://127.0.0.1:{server.port}/_stcore/stream"
        self.origin = server.base_url
        self.page = page
        self.query = query
        self.slider_label = slider_label
        self.rng = rng
        self.page_script_hash = ""
        self.sliders: dict[str, Slider] = {}
        self.widget_values: dict[str, list[float]] = {}

    def rerun_message(self, fragment_id: str = "") -> bytes:
        message = BackMsg()
        state = message.rerun_script
        state.query_string = self.query
        # The default page lives at "/": the browser sends no page name for it.
        state.page_name = "" if self.page == DEFAULT_PAGE else self.page
        state.page_script_hash = self.page_script_hash
        state.fragment_id = fragment_id
        state.context_info.timezone = "UTC"
        state.context_info.locale = "en-US"
        state.context_info.url = f"{self.origin}/{self.page}"
        for widget_id, value in self.widget_values.items():
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            widget.double_array_value.data.extend(value)
        return message.SerializeToString()

    async def run_once(self, socket, payload: bytes, timeout: float) -> None:
        """Send one rerun request and read until its run has finished."""
        await socket.send(payload)
        async with asyncio.timeout(timeout):
            while True:
                message = ForwardMsg()
                message.ParseFromString(await socket.recv())
                kind = message.WhichOneof("type")
                if kind == "delta":
                    self.read_delta(message.delta)
                elif kind == "navigation" and message.navigation.page_script_hash:
                    self.page_script_hash = message.navigation.page_script_hash
                elif kind == "page_not_found":
                    raise RunError(f"page not found: {self.page!r}")
                elif kind == "script_finished":
                    status = message.script_finished
                    if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                        raise RunError("the page did not compile")
                    if status in (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                        return
                    # FINISHED_EARLY_FOR_RERUN: the page asked for another run; keep reading.

    def read_delta(self, delta) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            raise RunError(f"exception on the page: {element.exception.type}: {element.exception.message[:200]}")
        if kind == "slider" and element.slider.type == element.slider.SLIDER:
            proto = element.slider
            self.sliders.setdefault(
                proto.label,
                Slider(proto.id, proto.label, proto.min, proto.max, proto.step, list(proto.default), delta.fragment_id),
            )

    def pick_slider(self) -> Slider | None:
        if self.slider_label is None:
            return next(iter(self.sliders.values()), None)
        return next((s for s in self.sliders.values() if label_matches(s.label, self.slider_label)), None)

    def next_interaction(self) -> bytes:
        """Move the chosen slider one step away from its default and back, alternately."""
        slider = self.pick_slider()
        if slider is None:
            return self.rerun_message()  # a page without the slider: a plain rerun
        current = self.widget_values.get(slider.id, slider.default)
        default = slider.default[0]
        moved = default + slider.step if default + slider.step <= slider.high else default - slider.step
        self.widget_values[slider.id] = [moved if current[0] == default else default]
        return self.rerun_message(slider.fragment_id)

    async def run(self, start_at: float, deadline: float, think: float, timeout: float, stats: Stats) -> None:
        await asyncio.sleep(max(0.0, start_at - time.monotonic()))
        try:
            async with connect(
                self.url,
                origin=self.origin,
                subprotocols=[Subprotocol("streamlit")],
                max_size=None,
                open_timeout=timeout,
            ) as socket:
                started = time.perf_counter()
                await self.run_once(socket, self.rerun_message(), timeout)
                stats.loads.append((time.perf_counter() - started) * 1000)
                while time.monotonic() + think < deadline:
                    await asyncio.sleep(think * self.rng.uniform(0.5, 1.5))
                    payload = self.next_interaction()
                    started = time.perf_counter()
                    await self.run_once(socket, payload, timeout)
                    stats.interactions.append((time.perf_counter() - started) * 1000)
        except TimeoutError:
            stats.errors.append(f"a run did not finish within {timeout:.0f} s")
        except RunError as failure:
            stats.errors.append(str(failure))
        except Exception as error:  # connection refused, socket closed, …
            stats.errors.append(f"{type(error).__name__}: {error}")
        finally:
            stats.sessions_done += 1


# ---------------------------------------------------------------------------------------
# Rounds and memory


async def sample_rss(server: StreamlitServer, samples: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        samples.append(server.rss_bytes())
        await asyncio.sleep(0.2)


async def run_round(server: StreamlitServer, args, seed: int) -> tuple[Stats, int]:
    """All sessions of one round; returns their stats and the highest RSS sampled."""
    stats, samples, stop = Stats(), [], asyncio.Event()
    sampler = asyncio.create_task(sample_rss(server, samples, stop))
    rng = random.Random(seed)
    now = time.monotonic()
    deadline = now + args.ramp + args.duration
    sessions = [
        Session(server, args.page, args.query, args.slider, random.Random(rng.random())) for _ in range(args.sessions)
    ]
    await asyncio.gather(
        *(
            session.run(now + rng.uniform(0, args.ramp), deadline, args.think, args.timeout, stats)
            for session in sessions
        )
    )
    stop.set()
    await sampler
    return stats, max(samples, default=server.rss_bytes())


async def settled_rss(server: StreamlitServer, args) -> int:
    """RSS once closed sessions have expired: wait out the TTL, then one short session
    (its disconnect makes Streamlit drop the expired ones), then measure."""
    await asyncio.sleep(args.ttl + 1)
    probe = Stats()
    await Session(server, args.page, args.query, None, random.Random(0)).run(
        time.monotonic(), time.monotonic(), args.think, args.timeout, probe
    )
    await asyncio.sleep(1.0)
    return server.rss_bytes()


def percentiles(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"p50 {np.percentile(values, 50):.0f} ms, p95 {np.percentile(values, 95):.0f} ms"


async def bench(server: StreamlitServer, args) -> int:
    baseline = await settled_rss(server, args)
    after_rounds, all_interactions, all_errors, peak_sampled = [], [], [], 0
    for round_number in range(1, args.rounds + 1):
        started = time.monotonic()
        stats, peak = await run_round(server, args, seed=round_number)
        elapsed = time.monotonic() - started
        after_rounds.append(await settled_rss(server, args))
        all_interactions += stats.interactions
        all_errors += stats.errors
        peak_sampled = max(peak_sampled, peak)
        print(
            f"round {round_number}: {args.sessions} sessions, {len(stats.interactions)} interactions in "
            f"{elapsed:.0f} s ({len(stats.interactions) / elapsed:.1f}/s), errors {len(stats.errors)} | "
            f"first load {percentiles(stats.loads)} | interaction -> finished rerun {percentiles(stats.interactions)}"
            f" | server RSS peak {peak / MIB:.0f} MiB, after close {after_rounds[-1] / MIB:.0f} MiB",
            flush=True,
        )
        for error in sorted(set(stats.errors))[:5]:
            print(f"  error ({stats.errors.count(error)}x): {error}")

    p95 = float(np.percentile(all_interactions, 95)) if all_interactions else float("inf")
    growth = after_rounds[-1] - after_rounds[0]
    memory_ok = after_rounds[-1] <= after_rounds[0] * (1 + MEMORY_TOLERANCE)
    checks = [not all_errors, p95 <= TARGET_P95_MS, memory_ok]
    verdict = ["PASS" if ok else "FAIL" for ok in checks]
    print(
        f"summary: errors {len(all_errors)} (target 0) {verdict[0]} | interaction -> finished rerun "
        f"{percentiles(all_interactions)} (target p95 <= {TARGET_P95_MS:.0f} ms) {verdict[1]} | server peak RSS "
        f"{max(server.peak_rss_bytes(), peak_sampled) / MIB:.0f} MiB | RSS idle before {baseline / MIB:.0f} MiB, "
        f"after round 1 {after_rounds[0] / MIB:.0f} MiB, after round {args.rounds} {after_rounds[-1] / MIB:.0f} MiB, "
        f"growth {growth / MIB:+.1f} MiB (target <= {MEMORY_TOLERANCE:.0%}) {verdict[2]}"
    )
    return 0 if all(checks) else 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", default="app.py", help="the Streamlit script to serve (default app.py)")
    parser.add_argument("--page", help="url_path of the page (default: the Explorer)")
    parser.add_argument("--query", default="", help="URL query string of the page, e.g. n=16&k=2")
    parser.add_argument(
        "--slider",
        help="label of the slider to move, or re:<pattern> (default: the Explorer's aᴷ₀ on the Explorer, "
        "else the first slider on the page)",
    )
    parser.add_argument("--sessions", type=int, default=30, help="concurrent sessions per round (<= 200)")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of interaction per round (<= 300)")
    parser.add_argument("--ramp", type=float, default=2.0, help="sessions join over this many seconds")
    parser.add_argument(
        "--think", type=float, default=2.0, help="mean seconds between one session's interactions (2 s: 15/s for 30)"
    )
    parser.add_argument("--rounds", type=int, default=2, help="rounds (memory is compared between rounds)")
    parser.add_argument("--ttl", type=int, default=5, help="server.disconnectedSessionTTL for this run, seconds")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before a run counts as failed")
    parser.add_argument(
        "--config",
        choices=["deploy", "dev"],
        default="deploy",
        help="server options: deploy/streamlit.toml, as the Docker image serves (default), or .streamlit/config.toml",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.sessions <= 200 or not 0 < args.duration <= 300 or not 1 <= args.rounds <= 5:
        parser.error("keep it bounded: 1-200 sessions, duration up to 300 s, 1-5 rounds")
    explorer = page_spec(EXPLORER.path)
    if args.page is None:
        # the page a class interacts with most: the Explorer, moving one of its value sliders
        default = explorer or PAGES[0]
        args.page = default.url_path if args.script == "app.py" else ""
    if args.slider is None and explorer is not None and args.page == explorer.url_path:
        args.slider = EXPLORER.bench_slider
    if args.slider and args.slider.startswith("re:"):
        args.slider = re.compile(args.slider[3:], re.IGNORECASE)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    options = deployed_server_options() if args.config == "deploy" else {}
    options["server.disconnectedSessionTTL"] = args.ttl
    server = StreamlitServer(args.script, options=options, log_path=Path("test-artifacts/bench-load-server.log"))
    with server:
        print(
            f"load: {args.script} page '{args.page}' query '{args.query}' on {server.base_url}; "
            f"{args.sessions} sessions x {args.rounds} rounds of {args.duration:.0f} s "
            f"(joining over {args.ramp:.0f} s), "
            f"one interaction per {args.think:.1f} s +-50 % each, slider {args.slider or '(first on the page)'}; "
            f"{args.config} config, session TTL {args.ttl} s; {os.cpu_count()} CPUs"
        )
        return asyncio.run(bench(server, args))


if __name__ == "__main__":
    raise SystemExit(main())
