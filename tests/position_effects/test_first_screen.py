"""Position effects on a 1440 × 900 laptop: the panels come first, not a wall of text.

One plain sentence under the title, then the first panel: its top and all of its cells
within the first screen (the experiment's description follows the panels).
Screenshot: test-artifacts/screens/position-effects-1440x900-first-screen.png.
"""

from __future__ import annotations

import pytest

from tests.support.browser import AppTab

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

WIDTH, HEIGHT = 1440, 900

# The first chart's box and its cells' box, from the top of the page (not of the screen).
_FIRST_CHART_JS = """
() => {
  const chart = document.querySelector('[data-testid=stMain] [data-testid=stPlotlyChart]');
  let scroller = chart.parentElement;
  while (scroller && !(scroller.scrollHeight > scroller.clientHeight
      && /(auto|scroll)/.test(getComputedStyle(scroller).overflowY))) scroller = scroller.parentElement;
  const scrolled = (scroller || document.scrollingElement).scrollTop;
  const cells = chart.querySelector('.nsewdrag').getBoundingClientRect();
  return {
    title: chart.getAttribute('aria-label') || '',
    top: chart.getBoundingClientRect().top + scrolled,
    cellsBottom: cells.bottom + scrolled,
  };
}
"""


def test_the_first_panel_is_within_a_laptops_first_screen(chromium, app_server):
    tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, HEIGHT))
    try:
        tab.open("position_effects")
        tab.wait_plots(4)
        tab.wait_drawn()
        first = tab.wait_layout_settled(_FIRST_CHART_JS)
        tab.screenshot("position-effects-1440x900-first-screen", full_page=False)
        assert "content scores" in first["title"], first
        assert first["top"] <= HEIGHT, f"the first chart starts below the first screen: {first}"
        assert first["cellsBottom"] <= HEIGHT, f"the first chart's cells run off the first screen: {first}"
        assert not tab.errors, tab.errors
    finally:
        tab.close()
