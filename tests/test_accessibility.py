"""axe-core over every page of the app, in a real browser.

The per-page test is also the suite's one load of each page: it checks the page's content
(tests/support/ui_contract.py) and its icons before the audit, then turns the tab's system
setting dark and audits the page again in the dark theme (tests/test_theme.py has the rest).

axe-core comes from the ``axe-playwright-python`` package (requirements-dev.txt), which
ships ``axe.min.js``: it is injected into the page, never fetched from a CDN. Each page
is opened in a viewport as tall as the page, so axe checks every element (it skips
what lies off screen for some rules, e.g. colour contrast), and the test fails on any
WCAG 2.0/2.1 A/AA or best-practice violation our code or content causes.

Excluded, and why (the only exclusions; tests/support/axe.py has the details):

* ``[data-testid=stSidebarNav]``: Streamlit's own page list in the sidebar. Streamlit
  renders each section's ``<ul>`` with ``<div>`` children and ``<li>`` elements outside
  a list (axe rules ``list`` and ``listitem``); the app only names its pages (via
  ``st.navigation``) and cannot change that markup.
* Plotly's SVG text, from the colour-contrast rule only: axe-core cannot tell its
  background, so it never passes or fails it, only asks for a review.

Screenshots of every page go to ``test-artifacts/screens/a11y-*.png``.
"""

from __future__ import annotations

import pytest

from relpos.plots import style
from relpos.ui.navigation import PAGES
from tests.support.axe import WIDTH, audit, describe, open_presenter_explorer, open_presenter_walkthrough, run_axe
from tests.support.browser import AppTab
from tests.support.pages import CHART_DRAWS, COUNT_DRAWS_JS, assert_clean, assert_texts, assert_toolbars_keep_clear
from tests.support.theme import assert_drawn_dark, hex_colour, turn_dark
from tests.support.ui_contract import contract, url_path
from tests.test_icon_font import assert_icons_are_glyphs

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe  # requirements-dev.txt; never skipped

    return Axe()


@pytest.fixture
def audit_tab(chromium, app_server):
    """A fresh tab as wide as the audit's viewport (tests/support/axe.py: WIDTH), so making it
    as tall as the page for axe-core does not make every chart redraw at a new width."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, 1000), init_scripts=(COUNT_DRAWS_JS,))
    yield tab
    tab.close()


@pytest.mark.parametrize("spec", PAGES, ids=[spec.url_path for spec in PAGES])
def test_page_loads_cleanly_and_has_no_accessibility_violations_in_light_and_dark(axe, audit_tab, spec):
    """Every page, once (a page load costs a busy 2-core machine seconds of Chromium's
    time): it loads without an error, shows its contract's texts, charts and tables and
    its icons as glyphs, and axe-core finds nothing; every chart is announced by name.
    Then the reader's system turns dark in the same tab: the page and every chart follow
    (relpos.ui.theme reruns the page), and axe-core finds nothing there either."""
    audit_tab.open(url_path(spec), timeout=90)
    expected = contract(spec)
    if expected.min_charts:
        audit_tab.wait_plots(expected.min_charts, timeout=60)
    assert_clean(audit_tab)
    assert audit_tab.count("heading") >= 1, "every page starts with a title"
    # a text may show after the run has ended (a chart, or an element drawn by lazily loaded code)
    assert_texts(audit_tab, expected.texts)
    assert len(audit_tab.figures()) >= expected.min_charts
    # Streamlit draws a chart before it knows its width, hidden, and again once it does; the
    # app serves its chart element drawing only with the width (relpos.static.plotly_trim.draw_once)
    draws = audit_tab.page.evaluate(CHART_DRAWS)
    assert all(count == 1 for count in draws), f"/{spec.url_path}: plotly.js draws per chart {draws}"
    assert audit_tab.wait_count("dataframe", expected.min_tables) >= expected.min_tables
    assert_icons_are_glyphs(audit_tab, f"/{spec.url_path}")

    violations = audit(axe, audit_tab, spec.url_path, screenshot=f"a11y-{spec.url_path}")
    assert not violations, f"axe-core on /{spec.url_path}:\n{describe(violations)}"
    # every Plotly chart is announced by name (st.plotly_chart's ``alt``), on every page; "Chart"
    # (relpos.ui.charts.chart_name's word for a chart with no title) names nothing
    unnamed = audit_tab.page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]
            .filter((chart) => ['', 'Chart'].includes((chart.getAttribute('aria-label') || '').trim())).length"""
    )
    assert unnamed == 0, f"/{spec.url_path}: {unnamed} of {audit_tab.count('plot')} charts have no accessible name"
    assert_toolbars_keep_clear(audit_tab, f"/{spec.url_path}")
    assert_clean(audit_tab)

    turn_dark(audit_tab)
    violations = audit(axe, audit_tab, f"dark-{spec.url_path}", screenshot=f"dark-{spec.url_path}")
    assert not violations, f"axe-core on /{spec.url_path} in the dark theme:\n{describe(violations)}"
    charts = assert_drawn_dark(audit_tab, f"/{spec.url_path} in the dark theme")
    assert len(charts) >= expected.min_charts
    assert_clean(audit_tab)


# Font sizes (px) of the heatmap cell numbers a reader can see, on every chart.
_VISIBLE_CELL_PX_JS = """
() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot :is(.hm, g.textpoint) text')]
  .filter((text) => text.textContent.trim() && getComputedStyle(text).visibility !== 'hidden')
  .map((text) => parseFloat(getComputedStyle(text).fontSize))
"""


def test_cell_numbers_never_below_10_px_at_200_percent_zoom(chromium, app_server):
    """200 % zoom of a 1440 × 900 screen is a 720 × 450 CSS viewport; the Explorer at n = 12
    has 144 cells a panel. A number that would shrink below 10 px is hidden (the colour
    stays, hover or tap shows it, and the page's tables list it), never shown as a speck."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(720, 450))
    try:
        tab.open("explorer", {"n": 12}, timeout=90)
        tab.wait_plots(7)
        tab.wait_drawn()
        sizes = tab.page.evaluate(_VISIBLE_CELL_PX_JS)
        tab.screenshot("a11y-explorer-n12-200-percent")
        drawn = tab.page.evaluate(
            "() => document.querySelectorAll('[data-testid=stMain] .js-plotly-plot .hm text').length"
        )
        assert drawn >= 6 * 144, f"the panels' cell numbers were not drawn ({drawn})"
        assert min(sizes, default=10) >= 10, f"cell numbers of {min(sizes)} px at 200 % zoom"
    finally:
        tab.close()


#: Each presenter mode's sticky bar (a CSS selector): the walkthrough's navigation, the
#: Explorer's sliders.
_PRESENTER_BARS = {"walkthrough": ":has(> .st-key-lesson-nav)", "explorer": ".relpos-explorer-panel .ep-controls"}


@pytest.mark.parametrize(
    ("page", "open_presenter"),
    [("walkthrough", open_presenter_walkthrough), ("explorer", open_presenter_explorer)],
    ids=["walkthrough", "explorer"],
)
def test_presenter_mode_has_no_accessibility_violations_in_light_and_dark(axe, audit_tab, page, open_presenter):
    """Presenter mode rearranges the walkthrough (pickers in the bar, editor in the main area)
    and lays the Explorer panel out for a projector (its own text sizes). It follows
    the theme too: in the dark its charts (the Explorer's projector panels included) are
    drawn dark, and its sticky bar is the dark page's colour."""
    open_presenter(audit_tab)
    violations = run_axe(axe, audit_tab)
    audit_tab.screenshot(f"a11y-{page}-presenter")
    assert not violations, f"axe-core on /{page} in presenter mode:\n{describe(violations)}"

    turn_dark(audit_tab)
    violations = run_axe(axe, audit_tab)
    audit_tab.screenshot(f"dark-{page}-presenter")
    assert not violations, f"axe-core on /{page} in presenter mode, dark:\n{describe(violations)}"
    assert_drawn_dark(audit_tab, f"/{page} presenter")
    bar = audit_tab.page.evaluate(
        "(selector) => getComputedStyle(document.querySelector(selector)).backgroundColor", _PRESENTER_BARS[page]
    )
    assert hex_colour(bar) == style.DARK.page


_FRESH_WIDE_FORMULA_JS = """() => {
  // A formula box as React draws it, far wider than its column, before any frame has run:
  // the check runs synchronously, so page_helpers.js has not fitted it yet.
  const box = document.createElement('span');
  box.className = 'katex-display';
  box.style.display = 'block';
  box.innerHTML = '<span style="display:inline-block;width:5000px">x</span>';
  document.querySelector('[data-testid=stMainBlockContainer]').appendChild(box);
  const style = getComputedStyle(box);
  const before = {overflow: style.overflowX + ' ' + style.overflowY, fitted: !!box.dataset.relposFitted};
  box.remove();
  return before;
}"""


def test_a_formula_box_is_never_a_scroll_region_before_it_is_fitted(app_tab):
    """Between React drawing a formula and page_helpers.js fitting it (one frame), the box must
    not be a scroll region that a keyboard cannot reach: axe-core once caught that frame."""
    app_tab.open("walkthrough", {"i": 2, "j": "softmax"}, timeout=90)
    app_tab.wait_drawn()
    # the rule comes with the page helpers' style sheet, which a run may send late
    app_tab.page.wait_for_function("() => document.getElementById('relpos-page-helpers-css')")
    state = app_tab.page.evaluate(_FRESH_WIDE_FORMULA_JS)
    assert state == {"overflow": "hidden hidden", "fitted": False}
    wide = app_tab.page.evaluate(
        "() => [...document.querySelectorAll('[data-relpos-scroll]')]"
        ".every((b) => b.tabIndex === 0 && getComputedStyle(b).overflowX === 'auto')"
    )
    assert wide, "a formula box that still scrolls after fitting is a focusable region"
