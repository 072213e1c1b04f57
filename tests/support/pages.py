"""Checks every browser test of a page makes: the page is still declared, it loaded cleanly,
and the Explorer is open with its charts drawn."""

from __future__ import annotations

import contextlib

from tests.support.browser import AppTab
from tests.support.ui_contract import EXPLORER, contract, page_spec

__all__ = [
    "CHART_DRAWS",
    "COUNT_DRAWS_JS",
    "LIVE_PLOTS",
    "assert_clean",
    "assert_texts",
    "open_explorer",
    "require_page",
]

#: The Explorer's live panel has drawn its seven panels.
LIVE_PLOTS = "() => document.querySelectorAll('.relpos-live .js-plotly-plot').length === 7"

#: An init script: counts the plotly.js draws (``Plotly.react``) each chart element gets, on
#: the element (``__relposDraws``), from the moment Streamlit's Plotly chunk sets ``window.Plotly``.
COUNT_DRAWS_JS = """
(() => {
  let plotly;
  Object.defineProperty(window, 'Plotly', { configurable: true, get: () => plotly, set(value) {
    plotly = value;
    const react = value && value.react;
    if (typeof react !== 'function' || react.relposCounted) return;
    value.react = function (element, ...rest) {
      if (element instanceof Element) element.__relposDraws = (element.__relposDraws || 0) + 1;
      return react.call(this, element, ...rest);
    };
    value.react.relposCounted = true;
  } });
})();
"""
#: The draws each st.plotly_chart chart of the page has had (:data:`COUNT_DRAWS_JS`), in page order.
CHART_DRAWS = """() => [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
  .map((chart) => chart.__relposDraws)"""


def require_page(path: str, what: str):
    """The page's spec; a page that left PAGES fails the tests written for it."""
    spec = page_spec(path)
    assert spec is not None, f"the {what} page ({path}) is missing from relpos.ui.navigation.PAGES"
    return spec


def assert_clean(tab: AppTab) -> None:
    """No Streamlit exception box, no JavaScript error, nothing fetched from another host."""
    assert tab.exceptions() == []
    assert tab.errors == []
    assert tab.foreign_requests == [], "the app must load nothing from a CDN or any other host"
    assert "Page not found" not in tab.page.inner_text("body")


def assert_texts(tab: AppTab, texts, *, timeout: float = 30) -> None:
    """Every one of `texts` is in the main area, waiting for each up to `timeout` s: a chart
    is drawn after the run (once its width is known), and a table or chart Streamlit draws
    with lazily loaded code may come later still."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for snippet in texts:
        with contextlib.suppress(PlaywrightTimeout):  # the assertion below says what is missing
            tab.page.wait_for_function(
                "(text) => document.querySelector('[data-testid=stMain]').innerText.includes(text)",
                arg=snippet,
                timeout=timeout * 1000,
            )
        assert snippet in tab.main_text()


def open_explorer(tab: AppTab, query: dict[str, str] | None = None) -> None:
    spec = require_page(EXPLORER.path, "explorer")
    tab.open(spec.url_path, query)
    tab.wait_plots(contract(spec).min_charts)
