"""Checks every browser test of a page makes: the page is still declared, it loaded cleanly,
and the Explorer is open with its charts drawn."""

from __future__ import annotations

import contextlib

from tests.support.browser import AppTab
from tests.support.ui_contract import EXPLORER, contract, page_spec

__all__ = [
    "CHART_DRAWS",
    "CHART_TOOLBARS",
    "COUNT_DRAWS_JS",
    "PANEL_PLOTS",
    "assert_clean",
    "assert_texts",
    "assert_toolbars_keep_clear",
    "open_explorer",
    "require_page",
]

#: The Explorer panel has drawn its seven panels.
PANEL_PLOTS = "() => document.querySelectorAll('.relpos-explorer-panel .js-plotly-plot').length === 7"

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


#: Each st.plotly_chart chart's tool bar (plotly.js builds it hidden, shown on hover or a tap):
#: its chart's name, its buttons' titles, and whether its box meets the chart title's box.
CHART_TOOLBARS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')]
  .filter((chart) => chart.querySelector('.modebar'))
  .map((chart) => {
    const bar = chart.querySelector('.modebar').getBoundingClientRect();
    const title = chart.querySelector('text.gtitle');
    const box = title && title.getBoundingClientRect();
    const covers = !!box && bar.left < box.right && box.left < bar.right
      && bar.top < box.bottom && box.top < bar.bottom;
    const buttons = [...chart.querySelectorAll('.modebar-btn')].map((button) => button.getAttribute('data-title'));
    return { name: chart.getAttribute('aria-label'), buttons, covers };
  })"""


def assert_toolbars_keep_clear(tab: AppTab, where: str) -> None:
    """Every chart's tool bar offers the PNG download and the full-screen view, nothing that
    zooms or pans, and leaves its title uncovered."""
    wanted = ["Download plot as a PNG", "Fullscreen"]
    crowded = [bar for bar in tab.page.evaluate(CHART_TOOLBARS) if sorted(bar["buttons"]) != wanted or bar["covers"]]
    assert not crowded, f"{where}: tool bars with other buttons or over the title: {crowded}"


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
