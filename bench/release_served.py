"""Whole Explorer releases through served apps: an old tree next to this one (bench/release_cost.py --served).

One protocol client per server (tests/support/streamlit_client.py) loads ``/explorer?n=N`` and then
releases the Explorer panel's aᴷ₀ slider again and again, as a browser does on letting go;
the two servers take turns in blocks, so both see the same machine load. Reported per
release: the server process's CPU time (utime + stime from /proc, all its threads) and
the client's wall time until ``script_finished``.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.browser import StreamlitServer, deployed_server_options
from tests.support.streamlit_client import Session

ROOT = Path(__file__).resolve().parents[1]

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (its threads included), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # fields 14 and 15 of stat(5)


async def releases(server: StreamlitServer, session: Session, socket, count: int) -> tuple[float, float]:
    """CPU ms and median wall ms per release over `count` releases."""
    walls = []
    cpu = cpu_seconds(server.process.pid)
    for _ in range(count):
        started = time.perf_counter()
        await session.run_once(socket, session.next_interaction(), 30)
        walls.append((time.perf_counter() - started) * 1000)
    return (cpu_seconds(server.process.pid) - cpu) * 1000 / count, statistics.median(walls)


async def compare(servers: dict[str, StreamlitServer], n: int, rounds: int = 4, count: int = 25) -> dict:
    """Alternating blocks of releases on each server; per server the lists of (cpu, wall) per block."""
    sessions = {
        name: Session(server, "explorer", f"n={n}", "aᴷ₀", random.Random(0)) for name, server in servers.items()
    }
    results: dict[str, list] = {name: [] for name in servers}
    sockets = {name: await session.connect(30).__aenter__() for name, session in sessions.items()}
    try:
        for name, session in sessions.items():
            await session.run_once(sockets[name], session.rerun_message(), 30)  # the page load
            await releases(servers[name], session, sockets[name], 5)  # warm-up: caches, imports
        for _ in range(rounds):
            for name, session in sessions.items():
                results[name].append(await releases(servers[name], session, sockets[name], count))
    finally:
        for socket in sockets.values():
            await socket.close()
    return results


def main(sizes, old_tree: Path) -> None:
    options = deployed_server_options()
    servers = {
        "before": StreamlitServer(old_tree / "app.py", options=options),
        "now": StreamlitServer(ROOT / "app.py", options=options),
    }
    for server in servers.values():
        server.launch()
    try:
        for server in servers.values():
            server.wait_healthy()
        print(f"\nwhole releases through served apps (before: {old_tree}), ms per release, median of blocks")
        print(f"{'n':>5} {'CPU before':>11} {'CPU now':>9} {'ratio':>6} {'wall before':>12} {'wall now':>9}")
        for n in sizes:
            results = asyncio.run(compare(servers, n))
            cpu = {name: statistics.median(c for c, _ in blocks) for name, blocks in results.items()}
            wall = {name: statistics.median(w for _, w in blocks) for name, blocks in results.items()}
            print(
                f"{n:>5} {cpu['before']:>11.1f} {cpu['now']:>9.1f} {cpu['before'] / cpu['now']:>6.2f} "
                f"{wall['before']:>12.1f} {wall['now']:>9.1f}"
            )
    finally:
        for server in servers.values():
            server.stop()
