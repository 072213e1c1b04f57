"""The browser and server tests, run several times in a row, optionally beside a busy core.

A suite that passes only on the machine that wrote it is not passing: every wait that
depends on speed must hold on a slow, loaded machine. This runs the tests marked
``browser`` or ``server`` ``--runs`` times, each with the same parallel setting as
``make test``, while (with ``--load``, the default) one process spins on a core; it
prints each run's wall time and outcome, then the per-file durations of the slowest run.

    .venv/bin/python bench/suite_soak.py                 # 3 runs, one core kept busy
    .venv/bin/python bench/suite_soak.py --runs 1 --no-load --all   # the whole suite once, quiet

Exit status 1 when any run failed.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "test-artifacts" / "soak"


def spin() -> None:
    """Keep one core busy until terminated."""
    while True:
        pass


def per_file(report: Path) -> collections.Counter:
    """Seconds spent in each test file (setup, call and teardown), from a JUnit report."""
    seconds: collections.Counter = collections.Counter()
    for case in ET.parse(report).iter("testcase"):
        # "tests.explorer.test_explorer_panel" or "tests.test_theme.TestPalettes": up to the module
        parts = (case.get("classname") or "").split(".")
        module = next((index for index, part in enumerate(parts) if part.startswith("test_")), len(parts) - 1)
        seconds["/".join(parts[: module + 1]) + ".py"] += float(case.get("time") or 0)
    return seconds


def outcome(report: Path) -> dict[str, int]:
    suite = next(ET.parse(report).iter("testsuite"))
    counts = {name: int(suite.get(name) or 0) for name in ("tests", "failures", "errors", "skipped")}
    counts["passed"] = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    return counts


def run_once(number: int, args: argparse.Namespace) -> tuple[float, dict[str, int], Path]:
    report = REPORTS / f"run-{number}.xml"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
    command += ["-n", args.jobs, "--dist", "loadscope", "--no-loadscope-reorder"]  # as make test
    if not args.all:
        command += ["-m", "browser or server"]
    started = time.monotonic()
    # the tests of a race open more fresh tabs than make test's (tests/support/browser.py)
    env = dict(os.environ, RELPOS_RACE_TRIES=str(args.race_tries))
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - started
    (REPORTS / f"run-{number}.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    return elapsed, outcome(report), report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", default="auto", help="pytest-xdist workers, as make test uses (default auto)")
    parser.add_argument("--all", action="store_true", help="the whole suite, not only browser and server tests")
    parser.add_argument("--race-tries", type=int, default=10, help="fresh tabs per test of a race (make test: 4)")
    parser.add_argument("--no-load", dest="load", action="store_false", help="no busy core beside the runs")
    args = parser.parse_args()
    REPORTS.mkdir(parents=True, exist_ok=True)

    busy = multiprocessing.Process(target=spin, daemon=True) if args.load else None
    if busy:
        busy.start()
    results = []
    try:
        for number in range(1, args.runs + 1):
            elapsed, counts, report = run_once(number, args)
            results.append((elapsed, counts, report))
            print(
                f"run {number}: {counts['passed']} passed, {counts['failures'] + counts['errors']} failed, "
                f"{counts['skipped']} skipped in {elapsed:.0f} s" + (" (one core busy)" if busy else " (quiet)"),
                flush=True,
            )
    finally:
        if busy:
            busy.terminate()
            busy.join()

    slowest = max(results, key=lambda result: result[0])
    print(f"\nper-file durations of the slowest run ({slowest[0]:.0f} s wall; times add over workers):")
    for name, seconds in per_file(slowest[2]).most_common(25):
        print(f"  {seconds:7.1f} s  {name}")
    failed = sum(counts["failures"] + counts["errors"] for _, counts, _ in results)
    print(f"\nsummary: {len(results)} runs, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
