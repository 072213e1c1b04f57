"""How long the Explorer panel takes to draw a spec now that it fills the cells itself.

For each n (default 16, 64, 512), in one Chromium against one ``streamlit run app.py``
with the deployment's options (port 8711 unless ``--port``), on ``/explorer?n=N``:

* **compact**: the panel draws the spec Python sent (seven skeletons): attention.js
  computes every cell, then ``Plotly.react`` draws each figure — from the spec's arrival
  to the next animation frame (median of ``--repeats``, all seven figures redrawn);
* **whole**: in the same panel, the figures as Python used to send them (every cell's
  ``z``, ``text`` and ``customdata``, JSON from :mod:`bench.spec_size`'s builder) parsed
  and drawn with ``Plotly.react``, as the panel did before; this leaves out what the
  larger message cost before it reached the panel (transfer, protobuf, one more parse);
* **release**: an arrow key on the first ``aᴷ`` slider → Python's rerun → the new spec
  drawn (median of ``--repeats``; includes the panel's 120 ms wait for more keys).

Run: python bench/spec_draw.py [--n 16 64 512] [--repeats 5]   (from the repository root)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from spec_size import page_spec

from tests.support import oracle
from tests.support.browser import (
    AppTab,
    StreamlitServer,
    browser_unavailable_reason,
    deployed_server_options,
    launch_chromium,
)

PANEL_READY = "() => document.querySelectorAll('.relpos-explorer-panel .js-plotly-plot').length === 7"
# Redraw the spec the panel shows, every figure, as when it arrived: ms to the next frame.
COMPACT_JS = """
async () => {
  const panel = window.__relposPanelLog;
  const shown = await panel.load(panel.spec, true);
  return { ms: shown.presentedAt - shown.startedAt, drawn: shown.drawn };
}
"""
# The whole figures (JSON text, as sent before) parsed and drawn into the same plots.
WHOLE_JS = """
async (texts) => {
  const plots = window.__relposPanelLog.plots();
  const config = { displayModeBar: false, responsive: true, scrollZoom: false, doubleClick: false };
  const started = performance.now();
  for (const [name, text] of Object.entries(texts)) {
    const figure = JSON.parse(text);
    await window.Plotly.react(plots[name], figure.data, { ...figure.layout, dragmode: false }, config);
  }
  await new Promise((done) => requestAnimationFrame(() => done()));
  return performance.now() - started;
}
"""
RELEASE_JS = "(t) => window.__relposPanelLog.specs.some((s) => s.presentedAt > t)"


def release(tab: AppTab, step: int) -> float:
    """Arrow key on the first aᴷ slider, then ms until the spec Python rebuilt for it is drawn."""
    slider = tab.page.locator(".relpos-explorer-panel .ep-slider input").first
    slider.focus()
    since = tab.page.evaluate("() => performance.now()")
    tab.page.keyboard.press("ArrowRight" if step % 2 == 0 else "ArrowLeft")
    tab.page.wait_for_function(RELEASE_JS, arg=since, timeout=120_000)
    specs = tab.page.evaluate("() => window.__relposPanelLog.specs")
    tab.wait_idle()
    return min(spec["presentedAt"] for spec in specs if spec["presentedAt"] > since) - since


def measure(browser, server: StreamlitServer, n: int, repeats: int) -> dict:
    """Medians (ms) of the three ways a spec reaches the screen at n tokens."""
    _, figures = page_spec({"n": str(n)})
    whole = {name: json.dumps(oracle.figure_json(figure)) for name, figure in figures.items()}
    tab = AppTab.new(browser, server.base_url, viewport=(1440, 900))
    try:
        tab.open("explorer", {"n": n}, timeout=180)
        tab.page.wait_for_function(PANEL_READY, timeout=180_000)
        tab.wait_idle()
        compact, old = [], []
        for _ in range(repeats):  # alternated: both see the same machine load
            answer = tab.page.evaluate(COMPACT_JS)
            assert answer["drawn"] == 7, answer
            compact.append(answer["ms"])
            old.append(tab.page.evaluate(WHOLE_JS, whole))
        tab.page.evaluate(COMPACT_JS)  # the panel shows its own spec again
        releases = [release(tab, step) for step in range(repeats)]
        errors = tab.errors + tab.exceptions() + tab.foreign_requests
    finally:
        tab.close()
    return {"compact": np.median(compact), "whole": np.median(old), "release": np.median(releases), "errors": errors}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[16, 64, 512])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--port", type=int, default=8711)
    args = parser.parse_args(argv)
    if reason := browser_unavailable_reason():
        print(f"cannot run: {reason}")
        return 2
    from playwright.sync_api import sync_playwright

    log = Path("test-artifacts/bench-spec-draw.log")
    server = StreamlitServer("app.py", port=args.port, options=deployed_server_options(), log_path=log)
    with server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        for n in args.n:
            result = measure(browser, server, n, args.repeats)
            print(
                f"n={n:>3}: draw a spec: compact (cells computed here) {result['compact']:.0f} ms"
                f" | whole figures parsed + drawn {result['whole']:.0f} ms"
                f" | ratio {result['compact'] / result['whole']:.2f}"
                f" | release → drawn {result['release']:.0f} ms | errors {result['errors'] or 'none'}",
                flush=True,
            )
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
