"""Classroom load: one server, many concurrent sessions, bounded in count and time.

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

``--cold-start`` measures the other classroom moment: the teacher shares a lesson link
and the whole class opens it at once on a server that has served nothing yet (just
started, restarted, or a new replica). For ``--trials`` trials it starts a fresh server,
opens ``--sessions`` first loads within ``--within`` seconds and counts the loads that
fail (target 0); no interaction, no warm-up (a warm-up would hide exactly this).

Examples (from the repository root)::

    python bench/load.py                                     # the Explorer's aᴷ₀ slider, 30 sessions, 2 rounds
    python bench/load.py --page explorer --query n=16 --slider "Clipping distance k"
    python bench/load.py --script bench/floor_app.py --query "n=16&heatmaps=7"
    python bench/load.py --cold-start --query n=16               # 30 first loads on fresh servers, 5 trials
    python bench/load.py --cold-start --page walkthrough --trials 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relpos.ui.navigation import PAGES
from tests.support.browser import StreamlitServer, deployed_server_options
from tests.support.streamlit_client import Session, Stats, first_loads
from tests.support.ui_contract import EXPLORER, page_spec

MIB = 2**20
TARGET_P95_MS = 1000.0
MEMORY_TOLERANCE = 0.05  # "no growth": round 2 may end at most 5 % above round 1


# ---------------------------------------------------------------------------------------
# Rounds and memory


async def sample_rss(server: StreamlitServer, samples: list[tuple[float, int]], stop: asyncio.Event) -> None:
    while not stop.is_set():
        samples.append((time.monotonic(), server.rss_bytes()))
        await asyncio.sleep(0.2)


#: A soak's memory is judged after its first five minutes (imports, caches filling).
WARM_UP_S = 300.0
TARGET_GROWTH_PER_HOUR = 0.05


def soak_report(samples: list[tuple[float, int]], started: float) -> bool:
    """Print RSS minute by minute and the growth rate after the warm-up (linear fit).

    Returns whether the growth after the warm-up is within TARGET_GROWTH_PER_HOUR.
    """
    minutes: dict[int, list[int]] = {}
    for at, rss in samples:
        minutes.setdefault(int((at - started) // 60), []).append(rss)
    print("soak: server RSS per minute (mean of 0.2 s samples)")
    for minute, values in sorted(minutes.items()):
        print(f"  minute {minute + 1:3d}: {np.mean(values) / MIB:7.1f} MiB (max {max(values) / MIB:.1f})")
    late = np.array([(at - started, rss) for at, rss in samples if at - started >= WARM_UP_S])
    if len(late) < 10:
        print("soak: too short to judge growth after the first 5 minutes (use --duration > 360)")
        return True
    slope_per_s, intercept = np.polyfit(late[:, 0], late[:, 1], 1)
    at_warm = intercept + slope_per_s * WARM_UP_S
    per_hour = slope_per_s * 3600 / at_warm
    ok = per_hour <= TARGET_GROWTH_PER_HOUR
    print(
        f"soak: after the first 5 minutes RSS grows {slope_per_s * 3600 / MIB:+.1f} MiB/hour "
        f"({per_hour:+.1%}/hour of {at_warm / MIB:.0f} MiB; target <= {TARGET_GROWTH_PER_HOUR:.0%}/hour) "
        f"{'PASS' if ok else 'FAIL'}"
    )
    return ok


async def run_round(server: StreamlitServer, args, seed: int) -> tuple[Stats, int]:
    """All sessions of one round; returns their stats and the highest RSS sampled.

    A round longer than six minutes is a soak: its memory curve is printed.
    """
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
    if args.duration > WARM_UP_S + 60 and not soak_report(samples, now):
        stats.errors.append(f"memory grew more than {TARGET_GROWTH_PER_HOUR:.0%}/hour after the warm-up")
    return stats, max((rss for _, rss in samples), default=server.rss_bytes())


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


def cold_start(args, options: dict) -> int:
    """Fresh server per trial; `args.sessions` first loads within `args.within` s; count failures."""
    failures = 0
    for trial in range(1, args.trials + 1):
        with StreamlitServer(
            args.script, options=options, log_path=Path("test-artifacts/bench-cold-server.log")
        ) as server:
            stats = asyncio.run(
                first_loads(
                    server,
                    args.page,
                    args.query,
                    sessions=args.sessions,
                    within=args.within,
                    timeout=args.timeout,
                    seed=trial,
                )
            )
        failures += len(stats.errors)
        print(
            f"trial {trial}: {args.sessions} first loads within {args.within:.1f} s on a fresh server: "
            f"failed {len(stats.errors)} | first load {percentiles(stats.loads)}",
            flush=True,
        )
        for error in sorted(set(stats.errors))[:5]:
            print(f"  error ({stats.errors.count(error)}x): {error}")
    total = args.trials * args.sessions
    print(f"summary: {failures} of {total} first loads failed (target 0) {'PASS' if failures == 0 else 'FAIL'}")
    return 0 if failures == 0 else 1


def _default_page(args: argparse.Namespace) -> argparse.Namespace:
    """The page and slider a class uses most when none is given: the Explorer's value slider."""
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
    parser.add_argument(
        "--duration",
        type=float,
        default=20.0,
        help="seconds of interaction per round (<= 3600; over 360 s a soak: RSS curve and growth per hour)",
    )
    parser.add_argument("--ramp", type=float, default=2.0, help="sessions join over this many seconds")
    parser.add_argument(
        "--think", type=float, default=2.0, help="mean seconds between one session's interactions (2 s: 15/s for 30)"
    )
    parser.add_argument("--rounds", type=int, default=2, help="rounds (memory is compared between rounds)")
    parser.add_argument("--ttl", type=int, default=5, help="server.disconnectedSessionTTL for this run, seconds")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before a run counts as failed")
    parser.add_argument(
        "--cold-start",
        action="store_true",
        help="first loads only, each trial on a fresh server (a class opening a shared link at once)",
    )
    parser.add_argument("--trials", type=int, default=5, help="fresh servers with --cold-start (<= 10)")
    parser.add_argument(
        "--within", type=float, default=0.5, help="with --cold-start: the loads start within this many s"
    )
    parser.add_argument(
        "--config",
        choices=["deploy", "dev"],
        default="deploy",
        help="server options: deploy/streamlit.toml, as the Docker image serves (default), or .streamlit/config.toml",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.sessions <= 200 or not 0 < args.duration <= 3600 or not 1 <= args.rounds <= 5:
        parser.error("keep it bounded: 1-200 sessions, duration up to 3600 s, 1-5 rounds")
    if not 1 <= args.trials <= 10 or not 0 <= args.within <= 60:
        parser.error("keep it bounded: 1-10 trials, loads within 0-60 s")
    return _default_page(args)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    options = deployed_server_options() if args.config == "deploy" else {}
    options["server.disconnectedSessionTTL"] = args.ttl
    if args.cold_start:
        print(
            f"cold start: {args.script} page '{args.page}' query '{args.query}'; {args.trials} fresh servers, "
            f"{args.sessions} first loads within {args.within:.1f} s each; {args.config} config; {os.cpu_count()} CPUs"
        )
        return cold_start(args, options)
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
