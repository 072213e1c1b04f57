"""Shared pytest setup: run from the repository root so AppTest finds app.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
#: Streamlit scripts that tests serve (tests/apps): not test modules, and not importable
#: outside a served session (the doctest collection would run them).
collect_ignore_glob = ["apps/*.py"]

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

#: pytest-xdist's name for this process ("gw0", "gw1" …), empty without xdist.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if WORKER and "RELPOS_PORTS" not in os.environ:
    # Each worker hands out ports from its own range, so two servers started at the same
    # moment by two workers never race for one port (below Linux's ephemeral range).
    first = 20_000 + 500 * int(WORKER.removeprefix("gw"))
    os.environ["RELPOS_PORTS"] = f"{first}-{first + 499}"


@pytest.fixture(scope="session", autouse=True)
def _app_plotly_template():
    """Figures a test builds start from the template the app's figures start from: the lean
    copy of Streamlit's (relpos.server.page_run makes it the default in every app process)."""
    import streamlit  # noqa: F401  importing Streamlit makes its template Plotly's default

    from relpos.plots.template import use_lean_default

    use_lean_default()


@pytest.fixture(autouse=True)
def _repository_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")


# --- Real-browser fixtures (helpers in tests/support/browser.py) -------------------------------
# One Chromium and one `streamlit run app.py` for the whole session; per test a tab with
# no state of earlier tests (AppTab.new). Without Chromium or Playwright every browser test is skipped with
# the reason, and no server is started.


@pytest.fixture(scope="session")
def chromium():
    from tests.support.browser import browser_unavailable_reason, launch_chromium

    reason = browser_unavailable_reason()
    if reason and os.environ.get("RELPOS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"RELPOS_REQUIRE_BROWSER=1 but {reason}")  # CI: never skip silently
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def app_server(chromium):
    from tests.support.browser import ARTIFACTS, StreamlitServer

    log = ARTIFACTS / f"streamlit-browser-tests{'-' + WORKER if WORKER else ''}.log"
    with StreamlitServer(ROOT / "app.py", log_path=log) as server:
        yield server


@pytest.fixture
def app_tab(chromium, app_server):
    """A tab on the test server with no cookies or storage of earlier tests (a kept one, with
    Streamlit's frontend cached); see tests.support.browser.AppTab.new."""
    from tests.support.browser import AppTab

    tab = AppTab.new(chromium, app_server.base_url)
    yield tab
    tab.close()


@pytest.fixture(scope="session")
def plotly_hover(chromium):
    """Hover labels as plotly.js draws them (tests/support/plotly_hover.py)."""
    from tests.support.plotly_hover import PlotlyHover

    reader = PlotlyHover(chromium)
    yield reader
    reader.close()


# --- Where the suite's time goes: seconds per test file, summed over setup, call and teardown,
# printed after the run (under xdist the controller sums its workers' reports). Module- and
# session-scoped fixtures (servers, browsers) count toward the file whose test first used them.
_FILE_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report):
    path = report.nodeid.split("::", 1)[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    if not _FILE_SECONDS or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slowest = sorted(_FILE_SECONDS.items(), key=lambda item: -item[1])[:25]
    terminalreporter.section("seconds per test file (slowest 25; workers' time added up)")
    for path, seconds in slowest:
        terminalreporter.write_line(f"{seconds:8.1f} s  {path}")
    terminalreporter.write_line(f"{sum(_FILE_SECONDS.values()):8.1f} s  in all {len(_FILE_SECONDS)} files")


# --- Order: modules with browser or server tests first. Under `--dist loadscope` xdist hands
# out whole modules in collection order; the browser and server modules take seconds to
# minutes each, the rest well under a second a test. Run last, a long module would leave the
# other core idle until it ends; run first, the short modules fill the end of the run.
_SLOW_MARKS = frozenset({"browser", "server"})


def pytest_collection_modifyitems(config, items):
    slow = {item.path for item in items if _SLOW_MARKS & {mark.name for mark in item.iter_markers()}}
    items.sort(key=lambda item: item.path not in slow)  # stable: the order within each group is kept
