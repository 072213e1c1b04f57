"""Stalled clients: sessions that ask for reruns and never read.

A student's broken laptop, a frozen tab or a script: its WebSocket keeps sending
slider moves but never reads what the server sends back. The server's answers pile up
for it (Streamlit queues up to 500 messages per session, then drops the session). This
benchmark starts one server (deployment configuration), lets ``--healthy`` ordinary
sessions move a slider every ``--think`` s, and after ``--settle`` s opens ``--stalled``
clients that load the page, then send a slider move every ``--every`` s for
``--duration`` s without reading a byte more (their socket library stops reading once
one message is waiting, so the kernel's buffers fill up and the server must hold the
rest). It reports:

* the server's resident memory before, at its peak while the stalled clients push, and
  after they have gone (target: the stalled clients add at most 100 MiB);
* the healthy sessions' p95 from interaction to finished rerun, before and during the
  stall (target < 1 s), and their errors (target 0);
* how many stalled clients the server cut off by itself.

Example::

    python bench/stalled.py                       # 50 stalled + 10 healthy on the Explorer, n = 8
    python bench/stalled.py --query n=16 --stalled 50 --duration 60
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.browser import StreamlitServer, deployed_server_options
from tests.support.streamlit_client import Session, Stats
from tests.support.ui_contract import EXPLORER, page_spec

MIB = 2**20
TARGET_ADDED_MIB = 100
TARGET_P95_MS = 1000.0


class StalledSession(Session):
    """Loads the page like a browser, then only sends: slider moves, never a read."""

    async def stall(self, load_at: float, stall_at: float, until: float, args, outcome: dict) -> None:
        """Load the page at `load_at` (reading), then from `stall_at` only send, every ~`args.every` s."""
        await asyncio.sleep(max(0.0, load_at - time.monotonic()))
        try:
            async with connect_stalling(self, args.timeout) as socket:
                await self.run_once(socket, self.rerun_message(), args.timeout)
                await asyncio.sleep(max(0.0, stall_at - time.monotonic()))
                while time.monotonic() < until:
                    await asyncio.wait_for(socket.send(self.next_interaction()), timeout=args.every * 4)
                    await asyncio.sleep(args.every * self.rng.uniform(0.5, 1.5))
                outcome["survived"] = outcome.get("survived", 0) + 1
        except Exception as error:  # the server cut the stalled client off (or its sends stalled)
            key = f"cut off: {type(error).__name__}"
            outcome[key] = outcome.get(key, 0) + 1


def connect_stalling(session: Session, timeout: float):
    """A WebSocket that reads at most one message ahead (max_queue=1): a client that never reads."""
    from websockets.asyncio.client import connect
    from websockets.typing import Subprotocol

    return connect(
        session.url,
        origin=session.origin,
        subprotocols=[Subprotocol("streamlit")],
        max_size=None,
        max_queue=1,
        open_timeout=timeout,
        ping_interval=None,
    )


async def sample_rss(server: StreamlitServer, samples: list[tuple[float, int, float]], stop: asyncio.Event) -> None:
    """(time, RSS, CPU seconds so far) of the server every 0.2 s."""
    while not stop.is_set():
        samples.append((time.monotonic(), server.rss_bytes(), cpu_seconds(server)))
        await asyncio.sleep(0.2)


def cpu_by_window(samples: list[tuple[float, int, float]], start: float, end: float, window: float) -> str:
    """The server's CPU use (share of one core) in consecutive windows from `start`."""
    marks = [start + index * window for index in range(int((end - start) // window) + 1)]
    cpu = [next((c for at, _, c in samples if at >= mark), samples[-1][2]) for mark in marks]
    return ", ".join(f"{(b - a) / window:.0%}" for a, b in itertools.pairwise(cpu))


async def healthy_round(server: StreamlitServer, args, seconds: float, seed: int) -> Stats:
    stats, rng = Stats(), random.Random(seed)
    now = time.monotonic()
    sessions = [
        Session(server, args.page, args.query, args.slider, random.Random(rng.random())) for _ in range(args.healthy)
    ]
    await asyncio.gather(
        *(s.run(now + rng.uniform(0, 1), now + seconds, args.think, args.timeout, stats) for s in sessions)
    )
    return stats


async def stalled_round(server: StreamlitServer, args, stall_at: float) -> dict:
    """The stalled clients load the page over ``--ramp`` s, then all stall from `stall_at`."""
    outcome: dict = {}
    rng = random.Random(99)
    now = time.monotonic()
    clients = [
        StalledSession(server, args.page, args.query, args.slider, random.Random(i)) for i in range(args.stalled)
    ]
    await asyncio.gather(
        *(c.stall(now + rng.uniform(0, args.ramp), stall_at, stall_at + args.duration, args, outcome) for c in clients)
    )
    return outcome


def cpu_seconds(server: StreamlitServer) -> float:
    """CPU time (user + system) the server process has used so far (Linux /proc)."""
    with open(f"/proc/{server.process.pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def p95(values: list[float]) -> str:
    return f"p95 {np.percentile(values, 95):.0f} ms (n = {len(values)})" if values else "n/a"


def p95_by_window(stats: Stats, start: float, window: float) -> str:
    """The healthy sessions' p95 in consecutive windows from `start`: when the stall hurt them."""
    windows: dict[int, list[float]] = {}
    for latency, finished in zip(stats.interactions, stats.finished_at, strict=True):
        windows.setdefault(int((finished - start) // window), []).append(latency)
    return ", ".join(
        f"{index * window:.0f}-{(index + 1) * window:.0f} s: {np.percentile(values, 95):.0f} ms"
        for index, values in sorted(windows.items())
    )


async def bench(server: StreamlitServer, args) -> int:
    samples: list[tuple[float, int]] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(server, samples, stop))
    before = await healthy_round(server, args, args.settle, seed=1)
    baseline = server.rss_bytes()
    stall_at = time.monotonic() + args.ramp + 3
    outcome_task = asyncio.create_task(stalled_round(server, args, stall_at))
    await asyncio.sleep(max(0.0, stall_at - time.monotonic()))
    loaded, cpu_before = server.rss_bytes(), cpu_seconds(server)
    during = await healthy_round(server, args, args.duration, seed=2)
    outcome = await outcome_task
    cpu_busy = (cpu_seconds(server) - cpu_before) / (time.monotonic() - stall_at)
    stalled_peak = max(rss for at, rss, _ in samples if at >= stall_at)
    stall_end = time.monotonic()
    await asyncio.sleep(args.ttl + 3)
    after = server.rss_bytes()
    stop.set()
    await sampler
    added = (stalled_peak - baseline) / MIB
    errors = before.errors + during.errors
    during_p95 = float(np.percentile(during.interactions, 95)) if during.interactions else float("inf")
    checks = [added <= TARGET_ADDED_MIB, during_p95 < TARGET_P95_MS, not errors]
    verdict = ["PASS" if ok else "FAIL" for ok in checks]
    print(f"healthy sessions before the stall: {p95(before.interactions)}, errors {len(before.errors)}")
    print(f"healthy sessions during the stall: {p95(during.interactions)}, errors {len(during.errors)}")
    print(f"  p95 by time since the stall began: {p95_by_window(during, stall_at, 10.0)}")
    print(f"  server CPU in the same windows: {cpu_by_window(samples, stall_at, stall_end, 10.0)}")
    print(f"stalled clients: {dict(sorted(outcome.items()))}; server CPU while they stalled {cpu_busy:.0%} of a core")
    print(
        f"server RSS: {baseline / MIB:.0f} MiB before, {loaded / MIB:.0f} MiB once the {args.stalled} clients had "
        f"loaded the page, peak {stalled_peak / MIB:.0f} MiB while they stalled "
        f"(+{added:.0f} MiB), {after / MIB:.0f} MiB {args.ttl + 3} s after"
    )
    print(
        f"summary: {args.stalled} stalled clients added {added:.0f} MiB (target <= {TARGET_ADDED_MIB}) "
        f"{verdict[0]} | others' p95 during the stall {during_p95:.0f} ms (target < {TARGET_P95_MS:.0f}) "
        f"{verdict[1]} | errors {len(errors)} (target 0) {verdict[2]}"
    )
    for error in sorted(set(errors))[:5]:
        print(f"  error ({errors.count(error)}x): {error}")
    return 0 if all(checks) else 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default=page_spec(EXPLORER.path).url_path)
    parser.add_argument("--query", default="n=8", help="URL query string of the page")
    parser.add_argument("--slider", default=EXPLORER.bench_slider, help="label of the slider every client moves")
    parser.add_argument("--stalled", type=int, default=50, help="clients that never read (<= 200)")
    parser.add_argument("--healthy", type=int, default=10, help="ordinary sessions measured meanwhile")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between a stalled client's moves")
    parser.add_argument("--think", type=float, default=2.0, help="seconds between a healthy session's moves")
    parser.add_argument("--settle", type=float, default=15.0, help="seconds of healthy load before the stall")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which the stalled clients load the page")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds the stalled clients push (<= 600)")
    parser.add_argument("--ttl", type=int, default=5, help="server.disconnectedSessionTTL for this run, seconds")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--option", action="append", default=[], help="extra server option section.name=value")
    args = parser.parse_args(argv)
    if not 0 < args.stalled <= 200 or not 0 < args.duration <= 600:
        parser.error("keep it bounded: 1-200 stalled clients for at most 600 s")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    options = deployed_server_options()
    options["server.disconnectedSessionTTL"] = args.ttl
    options.update(option.split("=", 1) for option in args.option)
    with StreamlitServer("app.py", options=options, log_path=Path("test-artifacts/bench-stalled-server.log")) as server:
        print(
            f"stalled clients: page '{args.page}' query '{args.query}' on {server.base_url}; {args.healthy} healthy "
            f"sessions (a move per {args.think:.1f} s) for {args.settle:.0f} s, then {args.stalled} clients load the "
            f"page over {args.ramp:.0f} s and from then on send a move per {args.every:.1f} s and never read, "
            f"for {args.duration:.0f} s; session TTL {args.ttl} s; "
            f"{os.cpu_count()} CPUs"
        )
        return asyncio.run(bench(server, args))


if __name__ == "__main__":
    raise SystemExit(main())
