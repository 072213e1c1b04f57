"""Interaction latency in a real browser, against Streamlit's own floor.

For each case (a page of the app and a URL query), measures the time from a slider key
press until the page's heatmaps are redrawn with new data and the app is idle, over
``--interactions`` presses (≥ 20), and in the same run the same measurement on
bench/floor_app.py drawing the same number of heatmaps of the same size and layout
(counted on the target page, not assumed). Presses alternate between the two pages so
any background load hits both alike. One summary line per case with the median ratio
(target ≤ 1.2).

Timing is read inside the page: from the keydown event to the animation frame in which
the new data is drawn and Streamlit reports no running script — so Playwright's own
round trips are not counted.

Examples (from the repository root)::

    python bench/latency.py                                  # Explorer at n = 16 and 256
    python bench/latency.py --page explorer --query n=64 --slider k
    python bench/latency.py --page floor --query n=16 --query n=256   # harness self-check

Until the Explorer is merged the default is the self-check (floor against itself).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.browser import (
    CHROMIUM,
    FINGERPRINT_JS,
    SELECTORS,
    AppTab,
    StreamlitServer,
    browser_unavailable_reason,
    deployed_server_options,
    launch_chromium,
)
from tests.support.ui_contract import EXPLORER, page_spec

FLOOR_SCRIPT = "bench/floor_app.py"
FLOOR_SLIDER = "shift"
TARGET_RATIO = 1.2

# Resolves with performance.now() in the first animation frame where the app is idle
# (not running, connected, nothing stale) and the drawn heatmap data differs from before
# the press. New data can only come from the press's rerun, and Streamlit marks the app
# running before it applies that run's first delta, so "new data + idle" means done.
_DONE_JS = (
    """
([fingerprintBefore, selector]) => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (document.querySelector('[data-stale=true]')) return false;
  const now = performance.now();
  const fingerprint = ("""
    + FINGERPRINT_JS
    + """)(selector);
  return fingerprint !== fingerprintBefore ? now : false;
}
"""
)

_ARM_KEYDOWN_JS = """
() => {
  window.__relposKeyAt = null;
  const stamp = () => { window.__relposKeyAt = performance.now(); };
  window.addEventListener('keydown', stamp, { capture: true, once: true });
}
"""


@dataclass
class Layout:
    """What the floor must reproduce: how many heatmaps, how large, how arranged."""

    heatmaps: int
    n: int
    height: int
    columns: int

    def query(self) -> dict[str, int]:
        return {"n": self.n, "heatmaps": self.heatmaps, "height": self.height, "columns": self.columns}


def measure_layout(tab: AppTab) -> Layout:
    """Count the drawn heatmap figures, their matrix size, pixel height and figures per row."""
    boxes = tab.page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)].filter((el) => el._fullData &&
             el._fullData.some((t) => t.type === 'heatmap')).map((el) => {
             const box = el.getBoundingClientRect();
             const z = el._fullData.find((t) => t.type === 'heatmap').z;
             return { top: Math.round(box.top), height: Math.round(box.height), rows: z.length,
                      cols: z[0] && z[0].length !== undefined ? z[0].length : 1 };
           })""",
        SELECTORS["plot"],
    )
    if not boxes:
        raise SystemExit("the target page draws no heatmap: nothing to compare with the floor")
    first_row = [box for box in boxes if abs(box["top"] - boxes[0]["top"]) <= 2]
    return Layout(
        heatmaps=len(boxes),
        n=max(max(box["rows"], box["cols"]) for box in boxes),
        height=int(statistics.median(box["height"] for box in boxes)),
        columns=max(1, len(first_row)),
    )


class Pressable:
    """One page and its slider, pressed alternately right and left so every press changes the value."""

    def __init__(self, tab: AppTab, label: str | re.Pattern) -> None:
        self.tab = tab
        self.label = label
        handle = tab.slider(label)
        value, top = float(handle.get_attribute("value")), float(handle.get_attribute("max"))
        self.keys = ["ArrowLeft", "ArrowRight"] if value >= top else ["ArrowRight", "ArrowLeft"]
        self.presses = 0

    def press(self) -> float:
        """One timed interaction, in milliseconds."""
        page = self.tab.page
        page.bring_to_front()
        runs, fingerprint = self.tab.finished_runs(), self.tab.fingerprint()
        self.tab.slider(self.label).focus()
        page.evaluate(_ARM_KEYDOWN_JS)
        page.keyboard.press(self.keys[self.presses % 2])
        self.presses += 1
        try:
            done = page.wait_for_function(
                _DONE_JS, arg=[fingerprint, SELECTORS["plot"]], polling="raf", timeout=60_000
            ).json_value()
        except Exception as error:
            state = page.evaluate("() => window.__relpos.log.slice(-4)")
            raise RuntimeError(
                f"no redraw after pressing {self.keys[(self.presses - 1) % 2]} on {self.label!r} "
                f"(press {self.presses}, value now {self.tab.slider_value(self.label)}, runs {runs} -> "
                f"{self.tab.finished_runs()}, script states {state})"
            ) from error
        started = page.evaluate("() => window.__relposKeyAt")
        return float(done) - float(started)


def summarise(times: list[float]) -> tuple[float, float]:
    """Median and 95th percentile (linear interpolation), in ms."""
    return float(np.median(times)), float(np.percentile(times, 95))


def run_case(browser, target_server, path: str, query: str, floor_server, label, args) -> tuple[str, bool]:
    """Measure one page + query against the floor; return the summary line and pass/fail."""
    target = AppTab.new(browser, target_server.base_url)
    floor = AppTab.new(browser, floor_server.base_url)
    try:
        target.open(path, query, timeout=120)
        target.wait_plots(1, timeout=120)
        layout = measure_layout(target)
        floor.open("", layout.query(), timeout=120)
        floor.wait_plots(layout.heatmaps, timeout=120)
        if target.exceptions() or floor.exceptions():
            raise SystemExit(f"exception on the page: {target.exceptions() or floor.exceptions()}")

        pages = [Pressable(target, label), Pressable(floor, FLOOR_SLIDER)]
        for _ in range(args.warmup):
            for page in pages:
                page.press()
        times: list[list[float]] = [[], []]
        for round_number in range(args.interactions):
            # Alternate who goes first, so neither page always follows the other's work.
            order = (0, 1) if round_number % 2 == 0 else (1, 0)
            for index in order:
                times[index].append(pages[index].press())
        if target.exceptions() or floor.exceptions():
            raise SystemExit(f"exception after the presses: {target.exceptions() or floor.exceptions()}")
    finally:
        target.close()
        floor.close()

    (target_median, target_p95), (floor_median, floor_p95) = summarise(times[0]), summarise(times[1])
    ratio = target_median / floor_median
    # Each round's two presses are ~1 s apart: their ratio cancels slow drifts in load.
    paired = float(np.median(np.array(times[0]) / np.array(times[1])))
    passed = ratio <= TARGET_RATIO
    name = f"{path or 'floor'}?{query}"
    line = (
        f"{name}: {layout.heatmaps} heatmaps {layout.n}×{layout.n} ({layout.columns} per row, {layout.height} px) | "
        f"target median {target_median:.0f} ms, p95 {target_p95:.0f} ms | "
        f"floor median {floor_median:.0f} ms, p95 {floor_p95:.0f} ms | "
        f"ratio {ratio:.2f} (p95 {target_p95 / floor_p95:.2f}, paired median {paired:.2f}) "
        f"(target median ≤ {TARGET_RATIO}x) "
        f"{'PASS' if passed else 'FAIL'}"
    )
    if args.verbose:
        line += "\n  target ms: " + " ".join(f"{t:.0f}" for t in times[0])
        line += "\n  floor ms:  " + " ".join(f"{t:.0f}" for t in times[1])
    return line, passed


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", help="url_path of the page to measure, or 'floor' (default: the Explorer)")
    parser.add_argument(
        "--query", action="append", help="URL query of one case, e.g. n=256 (repeatable; default per page)"
    )
    parser.add_argument("--slider", help="label of the slider to press (default per page)")
    parser.add_argument("--interactions", type=int, default=40, help="timed presses per page and case (>= 20)")
    parser.add_argument("--verbose", action="store_true", help="also print every measured time")
    parser.add_argument("--warmup", type=int, default=3, help="untimed presses first")
    parser.add_argument(
        "--config",
        choices=["deploy", "dev"],
        default="deploy",
        help="server options for both servers: deploy/streamlit.toml (default) or .streamlit/config.toml",
    )
    args = parser.parse_args(argv)
    if args.interactions < 20:
        parser.error("--interactions must be at least 20")

    explorer = page_spec(EXPLORER.path)
    if args.page is None:
        if explorer is None:
            print("note: the Explorer is not merged yet, so this run is the harness self-check: floor vs floor")
            args.page = "floor"
        else:
            args.page = explorer.url_path
    if args.query is None:
        args.query = list(EXPLORER.bench_queries.values())
    if args.slider is None:
        args.slider = FLOOR_SLIDER if args.page == "floor" else EXPLORER.bench_slider
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if reason := browser_unavailable_reason():
        print(f"cannot run: {reason}")
        return 2
    from playwright.sync_api import sync_playwright

    print(
        f"latency: {args.interactions} timed key presses per page and case after {args.warmup} warm-up, "
        f"interleaved target/floor (order alternating); {args.config} config; "
        f"{CHROMIUM} headless; {os.cpu_count()} CPUs"
    )
    options = deployed_server_options() if args.config == "deploy" else {}
    floor_server = StreamlitServer(
        FLOOR_SCRIPT, options=options, log_path=Path("test-artifacts/bench-latency-floor.log")
    )
    app_server = None
    if args.page != "floor":
        app_server = StreamlitServer("app.py", options=options, log_path=Path("test-artifacts/bench-latency-app.log"))
    results = []
    try:
        floor_server.launch()
        if app_server:
            app_server.launch()
            app_server.wait_healthy()
        floor_server.wait_healthy()
        target_server = app_server or floor_server
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            path = "" if args.page == "floor" else args.page
            for query in args.query:
                line, passed = run_case(browser, target_server, path, query, floor_server, args.slider, args)
                print(line, flush=True)
                results.append(passed)
            browser.close()
    finally:
        floor_server.stop()
        if app_server:
            app_server.stop()
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
