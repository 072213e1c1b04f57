"""Benchmark: script rerun time of the Explorer page against a bare Streamlit page.

For n = 16 and n = 512 tokens, measured side by side in one run with Streamlit's
AppTest (the whole script: app.py's navigation plus the page, as a real rerun):

* the Explorer opened by a lesson link at that n, each rerun after moving one a^K
  slider (every panel's numbers change);
* a bare page with one slider that draws the same number of heatmaps (seven: six
  panels and the offset map) of the same size and dtype (float64 at 16, float32 at
  512, as the Explorer sends them), in the same 3 + 3 + 1 column layout, each rerun
  after moving its slider.

Prints one line per case: both medians and the median of the paired ratios
(target <= 1.5x).

What is timed is the script run itself, as on a server: for the bare page its whole
script; for the Explorer its page script (Streamlit's StreamlitPage.run, every
element of the page), with the whole run including app.py's navigation printed next
to it — that part is the app's, paid by every page alike, and grows with the number
of pages. AppTest's own work around the script (parsing the element tree, widget
plumbing) is left out, as are two things AppTest redoes on every run that a server
does once:
compiling the scripts (a server keeps the bytecode; both pages here share one
bytecode cache) and treating pages/ as a legacy page folder until app.py has called
st.navigation (a server forgets that after the first run).

Run: python bench/page_rerun.py   (from the repository root)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit.runtime.scriptrunner.script_runner as script_runner_module  # noqa: E402
import streamlit.testing.v1.app_test as app_test_module  # noqa: E402
from streamlit.navigation.page import StreamlitPage  # noqa: E402
from streamlit.runtime.pages_manager import PagesManager  # noqa: E402
from streamlit.runtime.scriptrunner.script_cache import ScriptCache  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

_SERVER_CACHE = ScriptCache()
# what a server does: one bytecode cache for the whole process
app_test_module.ScriptCache = lambda: _SERVER_CACHE

_init_pages_manager = PagesManager.__init__


def _server_pages_manager(self, *args, **kwargs):
    """A server that has run app.py once: st.navigation, not the pages/ folder."""
    _init_pages_manager(self, *args, **kwargs)
    PagesManager.uses_pages_directory = False


PagesManager.__init__ = _server_pages_manager

_SCRIPT_SECONDS: list[float] = []  # whole script runs
_PAGE_SECONDS: list[float] = []  # page scripts run by st.navigation
_run_script = script_runner_module.exec_func_with_error_handling
_run_page = StreamlitPage.run


def _timed_script_run(func, ctx):
    """Streamlit's script execution, timed."""
    start = time.perf_counter()
    try:
        return _run_script(func, ctx)
    finally:
        _SCRIPT_SECONDS.append(time.perf_counter() - start)


def _timed_page_run(page):
    """A navigation page's script, timed."""
    start = time.perf_counter()
    try:
        return _run_page(page)
    finally:
        _PAGE_SECONDS.append(time.perf_counter() - start)


script_runner_module.exec_func_with_error_handling = _timed_script_run
StreamlitPage.run = _timed_page_run

TARGET = 1.5
RERUNS = 30

BARE_PAGE = """
import numpy as np
import plotly.graph_objects as go
import streamlit as st

N = {n}
shift = st.slider("shift", -2.0, 2.0, 0.0, step=0.05, key="shift")
z = (np.random.default_rng(0).standard_normal((N, N)) + shift).astype(np.{dtype})
for row in range(2):
    for number, column in enumerate(st.columns(3)):
        with column:
            figure = go.Figure(go.Heatmap(z=z + 3 * row + number))
            st.plotly_chart(figure, key=f"chart{{row}}{{number}}", width="stretch")
st.plotly_chart(go.Figure(go.Heatmap(z=z - 1)), key="chart_last", width="stretch")
"""


def explorer(n: int) -> tuple[AppTest, object]:
    """The Explorer at n tokens (k = 2, so the a^K sliders exist) and its a^K_{-2} slider."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in {"n": str(n), "k": "2", "preset": "random"}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("pages/explorer.py").run()
    if at.exception:
        raise RuntimeError(f"the Explorer failed to render: {at.exception[0].value}")
    return at, at.slider(key="explorer.v.a.0")


def bare(n: int) -> tuple[AppTest, object]:
    dtype = "float64" if n <= 64 else "float32"  # what the Explorer sends at this size
    at = AppTest.from_string(BARE_PAGE.format(n=n, dtype=dtype), default_timeout=120)
    at.run()
    return at, at.slider(key="shift")


def timed_rerun(at: AppTest, key: str, value: float) -> tuple[float, float]:
    """Move one slider and rerun; seconds of the page script and of the whole script run.

    A script without navigation (the bare page) is its own page script.
    """
    at.slider(key=key).set_value(value)
    _SCRIPT_SECONDS.clear()
    _PAGE_SECONDS.clear()
    at.run()
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    whole = sum(_SCRIPT_SECONDS)
    return (sum(_PAGE_SECONDS) if _PAGE_SECONDS else whole), whole


def measure(n: int) -> dict[str, float]:
    """Medians of the Explorer's page script, its whole run and the bare page, and the paired ratio.

    Each repetition reruns both pages back to back (alternating which goes first), so
    the load of a shared machine hits both alike; the ratio of each pair is robust to
    load that drifts during the run.
    """
    page, _ = explorer(n)
    floor, _ = bare(n)
    times: dict[str, list[float]] = {"page": [], "app": [], "bare": []}
    for number in range(RERUNS + 2):
        value = 0.5 if number % 2 else -0.5
        if number % 2:
            page_time, app_time = timed_rerun(page, "explorer.v.a.0", value)
            floor_time, _ = timed_rerun(floor, "shift", value)
        else:
            floor_time, _ = timed_rerun(floor, "shift", value)
            page_time, app_time = timed_rerun(page, "explorer.v.a.0", value)
        if number >= 2:  # the first reruns warm caches and imports
            times["page"].append(page_time)
            times["app"].append(app_time)
            times["bare"].append(floor_time)
    charts = len(page.get("plotly_chart")), len(floor.get("plotly_chart"))
    if charts[0] != charts[1]:
        raise RuntimeError(f"chart counts differ: Explorer {charts[0]}, bare page {charts[1]}")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name in ("page", "app"):
        ratios = [mine / theirs for mine, theirs in zip(times[name], times["bare"], strict=True)]
        medians[f"{name}_ratio"] = statistics.median(ratios)
    return medians


def main() -> int:
    passed = True
    for n in (16, 512):
        m = measure(n)
        ratio = m["page_ratio"]
        passed &= ratio <= TARGET
        verdict = "PASS" if ratio <= TARGET else "FAIL"
        print(
            f"n={n}: Explorer page script median {m['page'] * 1e3:.1f} ms vs bare page with 7 heatmaps "
            f"{m['bare'] * 1e3:.1f} ms: ratio {ratio:.2f} (target <= {TARGET}) {verdict}; "
            f"whole run with app.py's navigation {m['app'] * 1e3:.1f} ms, ratio {m['app_ratio']:.2f} "
            f"(medians of {RERUNS} paired reruns)",
            flush=True,
        )
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
