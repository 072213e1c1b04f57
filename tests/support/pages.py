"""Checks every browser test of a page makes: the page is still declared, it loaded cleanly,
and the Explorer is open with its charts drawn."""

from __future__ import annotations

from tests.support.browser import AppTab
from tests.support.ui_contract import EXPLORER, contract, page_spec

__all__ = ["CHART_DRAWS", "COUNT_DRAWS_JS", "LIVE_PLOTS", "assert_clean", "open_explorer", "require_page"]

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


def open_explorer(tab: AppTab, query: dict[str, str] | None = None) -> None:
    spec = require_page(EXPLORER.path, "explorer")
    tab.open(spec.url_path, query)
    tab.wait_plots(contract(spec).min_charts)
