"""Benchmark: what a run of the long-context page costs, next to the Explorer's.

Measured side by side in one run with Streamlit's AppTest and the timing harness of
``bench/page_rerun.py`` (the page script alone, as a server runs it: bytecode cached,
``st.navigation`` already known):

* the long-context page's first run in a fresh process: it trains the RoPE head of
  section 4 (one run of 400 steps, cached with ``st.cache_data`` from then on) and fits
  section 5's curve;
* its reruns after moving the scale factor s (sections 2 to 5 recomputed, the training
  a cache hit) and after moving the index m of section 1;
* the Explorer at n = 16 rerun after its Explorer panel releases the aᴷ₀ slider (as a browser
  does, through ``tests.support.apptest.panel_release``).

Prints the medians of the paired reruns and their ratio.

Run: python bench/long_context.py   (from the repository root)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import page_rerun  # installs the timing harness
from page_rerun import ROOT, AppTest

from tests.support.apptest import panel_release

RERUNS = 20
PAGE = "pages/long_context.py"


def long_context() -> tuple[AppTest, float]:
    """The page opened at its defaults; the seconds of its first page run (training included)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    page_rerun._PAGE_SECONDS.clear()
    start = time.perf_counter()
    at.switch_page(PAGE).run()
    wall = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(f"the page failed to render: {at.exception[0].value}")
    return at, sum(page_rerun._PAGE_SECONDS) or wall


def rerun(at: AppTest, widget: str, key: str, value) -> float:
    """Move one widget of the page and rerun; seconds of the page script."""
    getattr(at, widget)(key=key).set_value(value)
    page_rerun._PAGE_SECONDS.clear()
    at.run()
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return sum(page_rerun._PAGE_SECONDS)


def explorer() -> AppTest:
    """The Explorer at n = 16 (k = 2, random preset)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in {"n": "16", "k": "2", "preset": "random"}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("pages/explorer.py").run()
    if at.exception:
        raise RuntimeError(f"the Explorer failed to render: {at.exception[0].value}")
    return at


def release(at: AppTest, value: float) -> float:
    """The Explorer panel lets go of aᴷ₀ at `value`; seconds of the page script."""
    page_rerun._PAGE_SECONDS.clear()
    panel_release(at, a={0: value})
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return sum(page_rerun._PAGE_SECONDS)


def main() -> int:
    page, first = long_context()
    reference = explorer()
    times: dict[str, list[float]] = {"s": [], "m": [], "explorer": []}
    for number in range(RERUNS + 2):
        times["s"].append(rerun(page, "select_slider", "long_context.s", "8" if number % 2 else "4"))
        times["m"].append(rerun(page, "slider", "long_context.m", 200 if number % 2 else 100))
        times["explorer"].append(release(reference, 0.5 if number % 2 else -0.5))
    medians = {name: statistics.median(values[2:]) for name, values in times.items()}
    charts = len(page.get("plotly_chart"))
    print(f"long_context first run (trains the RoPE head, fits PI's curve): {first * 1e3:.0f} ms", flush=True)
    for name, label in (("s", "scale factor s moved"), ("m", "index m moved")):
        ratio = medians[name] / medians["explorer"]
        print(
            f"long_context rerun, {label}: page script median {medians[name] * 1e3:.1f} ms ({charts} charts) vs "
            f"Explorer n = 16 after a release of aᴷ₀ {medians['explorer'] * 1e3:.1f} ms: ratio {ratio:.2f} "
            f"(medians of {RERUNS} reruns each)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
