"""Dragging an Explorer slider: how often and how soon the Explorer panel repaints.

For n = 4, 16 and 64 (``--n`` to choose), in one Chromium against one ``streamlit run
app.py`` with the deployment's options, this measures:

* **drag**: a scripted mouse drag of the aᴷ₊₁ slider for ``--seconds`` (2 s) sweeping it
  back and forth: distinct data states painted per second, and input event → painted
  latency p50/p95 for every input event (inside the page: from the event's timestamp to
  the animation frame after the one in which its data was drawn);
* **keys**: 40 arrow-key steps on the same slider, each waiting for its paint: latency
  p50/p95;
* **server**: today's path, release → the page's rerun → the figures Python rebuilt are
  drawn (p50 of ``--releases`` key presses each waiting for its rerun; includes the
  panel's 120 ms wait for more keys before it hands the values back);
* per paint, the median time spent computing the numbers and formatting cell text and
  hover data, and the time redrawing the changed panels' cells takes;
* two floors in the same browser: the animation-frame interval, and **bare Plotly**:
  ``Plotly.react`` of the same seven figures (as the panel drew them: Python's skeletons,
  the cells filled in the browser) with new ``z`` in a page holding nothing else — the
  repaint time and the rate it allows.

Targets are ratios to the bare-Plotly floor of the same run: at n ≤ 16 painted
states/s ≥ 0.8 × the floor's rate and p95 ≤ 2 × its repaint time; at n = 64 ≥ 0.5 × and
≤ 3 ×.

Example (from the repository root)::

    python bench/drag.py                 # n = 4, 16, 64
    python bench/drag.py --n 16 --seconds 4
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relpos.ui.components import plotly_chunk
from tests.support.browser import (
    CHROMIUM,
    AppTab,
    StreamlitServer,
    browser_unavailable_reason,
    deployed_server_options,
    launch_chromium,
)

SLIDER = "aᴷ₊₁"
TARGETS = {"small": (0.8, 2.0), "large": (0.5, 3.0)}  # (rate ratio ≥, p95 ratio ≤); large: n = 64
PANEL_READY = "() => document.querySelectorAll('.relpos-explorer-panel .js-plotly-plot').length === 7"
NOW_JS = "() => performance.now()"
STATS_JS = "() => { const { paints, painted, restyled, sends, specs } = window.__relposPanelLog;"
STATS_JS += " return { paints, painted, restyled, sends, specs }; }"
PAINTED_JS = "(n) => window.__relposPanelLog.painted > n"
FOCUSED_JS = "() => [document.activeElement.tagName, document.activeElement.outerHTML.slice(0, 200)]"

# Median interval between animation frames over `frames` frames.
FRAME_INTERVAL_JS = """
(frames) => new Promise((done) => {
  const times = [];
  const tick = (time) => {
    times.push(time);
    if (times.length > frames) {
      const gaps = times.slice(1).map((t, i) => t - times[i]).sort((a, b) => a - b);
      done(gaps[Math.floor(gaps.length / 2)]);
    } else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})
"""

# The bare-Plotly floor: the seven figures of the Explorer panel, redrawn with Plotly.react and
# new z, one repaint at a time; each time is from the calls to the next animation frame.
FLOOR_JS = """
async ([figures, n, repeats]) => {
  document.body.style.margin = '0';
  const plots = Object.values(figures).map((figure) => {
    const div = document.createElement('div');
    div.style.width = '33%';
    div.style.display = 'inline-block';
    document.body.appendChild(div);
    return [div, figure];
  });
  for (const [div, figure] of plots) await Plotly.newPlot(div, figure.data, figure.layout, { displayModeBar: false });
  const times = [];
  for (let r = 0; r < repeats; r++) {
    const started = performance.now();
    for (const [div, figure] of plots) {
      const z = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => Math.sin(i + j + r)));
      figure.data[0] = { ...figure.data[0], z };
      figure.layout.datarevision = r + 1;
      Plotly.react(div, figure.data, figure.layout);
    }
    await new Promise((done) => requestAnimationFrame(() => done()));
    times.push(performance.now() - started);
  }
  return times;
}
"""


# The seven figures as the Explorer panel drew them: Python's skeletons with the cells it filled in.
DRAWN_FIGURES_JS = """
() => Object.fromEntries(Object.entries(window.__relposPanelLog.plots()).map(
  ([name, plot]) => [name, { data: plot.data, layout: plot.layout }]))
"""


def percentiles(values: list[float]) -> tuple[float, float]:
    """p50 and p95 (ms), or NaN when nothing was measured."""
    if not values:
        return float("nan"), float("nan")
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def latencies(paints: list[dict], since: float, until: float) -> list[float]:
    """Input event → painted, for every input event whose paint was presented in [since, until]."""
    return [
        paint["presentedAt"] - event
        for paint in paints
        if since <= paint["presentedAt"] <= until
        for event in paint["inputs"]
    ]


def thumb_x(box: dict, value: float) -> float:
    """Where a native range input (−2 to 2) draws its thumb for `value` (thumb ≈ 16 px wide)."""
    return box["x"] + 8 + (box["width"] - 16) * (value + 2) / 4


def drag(tab: AppTab, seconds: float) -> dict:
    """Sweep the slider back and forth for `seconds` with the mouse; painted states and latencies."""
    page = tab.page
    slider = tab.slider(SLIDER)
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    left, right = thumb_x(box, -1.5), thumb_x(box, 1.5)
    start = tab.slider_value(SLIDER)
    page.mouse.move(thumb_x(box, start), y)
    page.mouse.down()
    restyled = page.evaluate("() => window.__relposPanelLog.restyled || 0")
    since, started, moves = page.evaluate(NOW_JS), time.perf_counter(), 0
    while (elapsed := time.perf_counter() - started) < seconds:
        phase = elapsed % 2.0  # one sweep a second, there and back
        page.mouse.move(left + (right - left) * (phase if phase < 1 else 2 - phase), y)
        moves += 1
    until = page.evaluate(NOW_JS)
    page.mouse.move(thumb_x(box, 1.0 if start < 0.5 else -1.0), y)  # let go away from the start: a change to send
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    stats = page.evaluate(STATS_JS)
    before = tab.finished_runs()
    released = page.evaluate(NOW_JS)
    page.mouse.up()
    tab.wait_idle(after=before, timeout=120)
    painted = [paint for paint in stats["paints"] if since <= paint["presentedAt"] <= until]
    return {
        "rate": len(painted) / ((until - since) / 1000),
        # per paint: recomputing + formatting cell text and hover data, then redrawing the cells
        "compute": float(np.median([paint["computeMs"] for paint in painted] or [np.nan])),
        "draw": float(np.median([paint["drawMs"] for paint in painted] or [np.nan])),
        "latency": percentiles(latencies(stats["paints"], since, until + 100)),
        "moves": moves,
        "sends": sum(since <= sent <= until for sent in stats["sends"]),
        "restyled": (stats.get("restyled") or 0) - restyled,  # panels that needed a full Plotly.restyle
        "release": server_drawn(tab, released),
    }


def server_drawn(tab: AppTab, since: float) -> float:
    """Time (ms) from `since` to the first figures Python rebuilt being drawn."""
    tab.page.wait_for_function("(t) => window.__relposPanelLog.specs.some((s) => s.presentedAt > t)", arg=since)
    specs = tab.page.evaluate(STATS_JS)["specs"]
    return min(spec["presentedAt"] for spec in specs if spec["presentedAt"] > since) - since


def keys(tab: AppTab, steps: int) -> tuple[float, float]:
    """Arrow-key steps, each waiting for its paint: latency p50/p95 (ms)."""
    page = tab.page
    slider = tab.slider(SLIDER)
    slider.focus()
    since = page.evaluate(NOW_JS)
    for step in range(steps):
        painted = page.evaluate("() => window.__relposPanelLog.painted")
        value = float(slider.input_value())
        right = value < -1.5 or (value <= 1.5 and step % 8 < 4)  # never press into an end of the range
        page.keyboard.press("ArrowRight" if right else "ArrowLeft")
        try:
            page.wait_for_function(PAINTED_JS, arg=painted, polling="raf", timeout=10_000)
        except Exception as error:  # say where the keyboard was: a lost focus is the usual cause
            focused = page.evaluate(FOCUSED_JS)
            raise RuntimeError(f"no paint after key {step} (value {value}, focus {focused}, {tab.errors})") from error
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    return percentiles(latencies(page.evaluate(STATS_JS)["paints"], since, page.evaluate(NOW_JS)))


def server_path(tab: AppTab, releases: int) -> float:
    """Median time (ms) from a key press to the figures Python rebuilt for it being drawn."""
    tab.slider(SLIDER).focus()
    times = []
    for step in range(releases):
        tab.wait_idle()
        since = tab.page.evaluate(NOW_JS)
        tab.page.keyboard.press("ArrowRight" if step % 2 == 0 else "ArrowLeft")
        times.append(server_drawn(tab, since))
    return float(np.median(times))


def floors(browser, server: StreamlitServer, figures: dict, n: int, repeats: int) -> tuple[float, float]:
    """The animation-frame interval and the bare-Plotly repaint time (ms), in a page with nothing else."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        # the plotly.js the Explorer panel draws with: Streamlit's Plotly chunk (an ES module)
        plotly_js = server.url(plotly_chunk())
        page.goto(server.url("_stcore/health"))
        page.set_content(f'<html><body><script type="module" src="{plotly_js}"></script></body></html>')
        page.wait_for_function("() => window.Plotly")
        frame = page.evaluate(FRAME_INTERVAL_JS, 60)
        times = page.evaluate(FLOOR_JS, [figures, n, repeats])
        return frame, float(np.median(times[2:]))  # the first repaints warm plotly.js up
    finally:
        context.close()


def measure(browser, server: StreamlitServer, n: int, args: argparse.Namespace) -> dict:
    """Every number of one row: the Explorer panel at n tokens, then the floors with its figures."""
    tab = AppTab.new(browser, server.base_url, viewport=(1440, 900))
    try:
        tab.open("explorer", {"preset": "random", "n": n, "k": 3, "seed": 1}, timeout=120)
        tab.page.wait_for_function(PANEL_READY, timeout=120_000)
        tab.wait_idle()
        figures = tab.page.evaluate(DRAWN_FIGURES_JS)
        result = {"drag": drag(tab, args.seconds), "keys": keys(tab, args.steps)}
        result["server"] = server_path(tab, args.releases)
        result["errors"] = tab.errors + tab.exceptions() + tab.foreign_requests
    finally:
        tab.close()
    result["frame"], result["floor"] = floors(browser, server, figures, n, args.repeats)
    return result


def report(n: int, result: dict) -> tuple[str, bool]:
    """One line of numbers and ratios to the bare-Plotly floor, with PASS/FAIL against the targets."""
    dragged, floor = result["drag"], result["floor"]
    floor_rate = 1000 / floor
    least_rate, most_p95 = TARGETS["large" if n > 16 else "small"]
    rate_ratio, p95_ratio = dragged["rate"] / floor_rate, dragged["latency"][1] / floor
    passed = rate_ratio >= least_rate and p95_ratio <= most_p95 and not result["errors"]
    line = (
        f"n={n:>2}: drag {dragged['rate']:.1f} states/s ({dragged['moves']} mouse moves, "
        f"{dragged['sends']} sent to the server) = {rate_ratio:.2f}× floor rate (≥ {least_rate}) | "
        f"input→paint p50 {dragged['latency'][0]:.0f} ms, p95 {dragged['latency'][1]:.0f} ms "
        f"= {p95_ratio:.2f}× floor repaint (≤ {most_p95}) | "
        f"per paint: math+text+hover {dragged['compute']:.1f} ms, redraw {dragged['draw']:.0f} ms "
        f"({dragged['restyled']} full restyles) | "
        f"keys p50 {result['keys'][0]:.0f} ms, p95 {result['keys'][1]:.0f} ms | "
        f"floors: frame {result['frame']:.1f} ms, bare Plotly.react ×7 {floor:.0f} ms ({floor_rate:.1f}/s) | "
        f"server path: release→repaint {dragged['release']:.0f} ms, key→repaint p50 {result['server']:.0f} ms "
        f"| {'PASS' if passed else 'FAIL'}"
    )
    if result["errors"]:
        line += f"\n  errors: {result['errors']}"
    return line, passed


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, action="append", help="token count (repeatable; default 4, 16, 64)")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of the mouse drag")
    parser.add_argument("--steps", type=int, default=40, help="arrow-key steps")
    parser.add_argument("--releases", type=int, default=5, help="key presses timed through the server")
    parser.add_argument("--repeats", type=int, default=12, help="bare-Plotly repaints timed")
    args = parser.parse_args(argv)
    args.n = args.n or [4, 16, 64]
    if any(not 2 <= n <= 64 for n in args.n):
        parser.error("--n must be between 2 and 64 (the Explorer panel's range)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if reason := browser_unavailable_reason():
        print(f"cannot run: {reason}")
        return 2
    from playwright.sync_api import sync_playwright

    print(
        f"drag: {args.seconds:g} s mouse drag of {SLIDER} and {args.steps} arrow keys per n; deploy config; "
        f"{CHROMIUM} headless; {os.cpu_count()} CPUs"
    )
    server = StreamlitServer(
        "app.py", options=deployed_server_options(), log_path=Path("test-artifacts/bench-drag.log")
    )
    results = []
    with server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        for n in args.n:
            line, passed = report(n, measure(browser, server, n, args))
            print(line, flush=True)
            results.append(passed)
        browser.close()
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
