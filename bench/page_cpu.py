"""CPU seconds a page load costs, for two checkouts side by side in one run.

Starts ``streamlit run app.py`` from checkout A and from checkout B, opens each page in a
fresh Chromium context (1400 × 1000) on A, then on B, alternately, until every chart is
drawn and the layout has settled, and adds up the CPU time of everything this process
started meanwhile: Chromium's processes, Playwright's driver and the two servers (read
from ``/proc``, whatever else the machine is doing). Prints the median of ``--loads`` loads
per page and checkout, and B's ratio to A.

    git worktree add /tmp/before <commit>
    python bench/page_cpu.py /tmp/before . --pages schemes,efficiency,walkthrough --loads 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support.browser import ARTIFACTS, AppTab, StreamlitServer, launch_chromium, process_tree  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds() -> float:
    """CPU seconds of this process's descendants, living and (through their parents) ended."""
    return sum(sum(int(value) for value in stat[11:15]) for stat in process_tree(os.getpid()).values()) / TICK


def load_cpu(browser, server: StreamlitServer, page: str) -> float:
    """CPU seconds of one load of `page` (``path?query``) in a fresh context, until drawn."""
    time.sleep(0.3)  # what the previous load left running ends first
    before = tree_cpu_seconds()
    tab = AppTab.new(browser, server.base_url)
    try:
        path, _, query = page.partition("?")
        tab.open(path, query or None, timeout=120)
        tab.wait_drawn(timeout=120)
        tab.wait_layout_settled()
    finally:
        tab.close()
    time.sleep(0.3)
    return tree_cpu_seconds() - before


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="checkout A (holds app.py)")
    parser.add_argument("b", type=Path, help="checkout B")
    parser.add_argument("--pages", default="schemes,efficiency,walkthrough,explorer", help="comma-separated")
    parser.add_argument("--loads", type=int, default=3, help="loads per page and checkout")
    args = parser.parse_args(argv)
    pages = args.pages.split(",")
    seconds: dict[tuple[str, str], list[float]] = {}
    with (
        StreamlitServer(args.a.resolve() / "app.py", log_path=ARTIFACTS / "page-cpu-a.log") as server_a,
        StreamlitServer(args.b.resolve() / "app.py", log_path=ARTIFACTS / "page-cpu-b.log") as server_b,
        sync_playwright() as playwright,
    ):
        browser = launch_chromium(playwright)
        servers = {"A": server_a, "B": server_b}
        for server in servers.values():  # each server's first run imports the app: not measured
            load_cpu(browser, server, pages[0])
        for _ in range(args.loads):
            for page in pages:
                for name, server in servers.items():
                    seconds.setdefault((page, name), []).append(load_cpu(browser, server, page))
        browser.close()
    print(f"CPU seconds per page load (median of {args.loads}); A = {args.a}, B = {args.b}")
    print(f"{'page':<24}{'A':>8}{'B':>8}{'B/A':>8}")
    for page in pages:
        a, b = (statistics.median(seconds[(page, name)]) for name in "AB")
        print(f"{page:<24}{a:8.2f}{b:8.2f}{b / a:8.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
