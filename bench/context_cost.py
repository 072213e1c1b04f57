"""CPU seconds of a page load in a fresh browser context against a reload in a kept tab.

Every browser test opens its pages in a fresh Chromium context (no cookies, storage or
cache shared with another test): the app keeps a width cookie that shapes the server's
layout, and a live class keeps a cookie and localStorage. A fresh context starts a new
renderer with an empty HTTP and code cache, so it fetches and compiles Streamlit's
frontend again; a reload in a kept tab does neither. This prints what that isolation
costs per load, the two ways interleaved in one run on one server (CPU of everything this
process started: Chromium, Playwright's driver, the server; bench/page_cpu.py's counter),
medians of ``--loads`` loads per page and way.

    .venv/bin/python bench/context_cost.py --pages overview,schemes --loads 4
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.page_cpu import tree_cpu_seconds  # noqa: E402
from tests.support.browser import ARTIFACTS, AppTab, StreamlitServer, launch_chromium  # noqa: E402


def drawn_cpu(tab: AppTab, page: str) -> float:
    """CPU seconds of opening `page` in `tab` until every chart is drawn."""
    time.sleep(0.3)  # what the previous load left running ends first
    before = tree_cpu_seconds()
    tab.open(page, timeout=120)
    tab.wait_drawn(timeout=120)
    time.sleep(0.3)
    return tree_cpu_seconds() - before


def fresh_context_cpu(browser, server: StreamlitServer, page: str) -> float:
    """A load as a browser test does it: a new context, one page, closed after."""
    before = tree_cpu_seconds()
    tab = AppTab.new(browser, server.base_url)
    try:
        drawn_cpu(tab, page)
    finally:
        tab.close()
    return tree_cpu_seconds() - before


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="overview,schemes", help="comma-separated")
    parser.add_argument("--loads", type=int, default=4, help="loads per page and way")
    args = parser.parse_args(argv)
    seconds: dict[tuple[str, str], list[float]] = {}
    with (
        StreamlitServer(ROOT / "app.py", log_path=ARTIFACTS / "context-cost.log") as server,
        sync_playwright() as playwright,
    ):
        browser = launch_chromium(playwright)
        for page in args.pages.split(","):
            kept = AppTab.new(browser, server.base_url)
            drawn_cpu(kept, page)  # the server's first run of the page and the kept tab's first load
            for _ in range(args.loads):
                seconds.setdefault((page, "fresh"), []).append(fresh_context_cpu(browser, server, page))
                seconds.setdefault((page, "reload"), []).append(drawn_cpu(kept, page))
            kept.close()
        browser.close()
    print(f"CPU seconds per page load (median of {args.loads}, interleaved)")
    print(f"{'page':<20}{'fresh context':>15}{'kept tab':>10}{'kept/fresh':>12}")
    for page in args.pages.split(","):
        fresh, reload = (statistics.median(seconds[(page, way)]) for way in ("fresh", "reload"))
        print(f"{page:<20}{fresh:15.2f}{reload:10.2f}{reload / fresh:12.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
