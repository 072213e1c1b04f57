"""The Explorer's sticky slider bar never hides what it drives.

It stays on screen above the panels while the page scrolls, and takes at most a quarter
of the screen's height: on a laptop (1440 × 900), on a phone (390 × 844) and at 200 %
zoom of the laptop's screen (a 720 × 450 CSS viewport), with 8 and with 16 tokens and
every group of sliders full (k = n − 1: 2n − 1 table entries, n queries, n keys). Every
slider of the open group stays within reach: scrolled into view inside the bar (its row
scrolls sideways), nothing covers it.
"""

from __future__ import annotations

import pytest

from tests.support.browser import AppTab
from tests.support.pages import LIVE_PLOTS, assert_clean

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

#: The most of the screen's height the sticky bar may take.
MOST = 0.25

# Scroll Streamlit's page (an inner container) until the combined-weights panel is on
# screen, so the bar is stuck under the header above the panels it drives.
SCROLL_TO_WEIGHTS_JS = """
() => {
  const target = document.querySelector('.relpos-live .rl-weights');
  const scroller = [...document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer]')]
    .find((el) => el.scrollHeight > el.clientHeight + 5) || document.scrollingElement;
  scroller.scrollTop += target.getBoundingClientRect().top - window.innerHeight / 2;
}
"""
# The bar as drawn now, and each slider of the open group brought into view inside it:
# whether it is then inside the bar and on screen, and not covered by anything.
BAR_JS = """
() => {
  const bar = document.querySelector('.relpos-live .rl-controls');
  const header = document.querySelector('[data-testid=stHeader]');
  const open = bar.querySelector('.rl-group:not([hidden])');
  const box = bar.getBoundingClientRect();
  const unreachable = [...open.querySelectorAll('input[type=range]')].filter((input) => {
    input.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const r = input.getBoundingClientRect();
    const inside = r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1
      && r.bottom <= box.bottom + 1 && r.right <= window.innerWidth + 1;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !(inside && hit === input);
  }).map((input) => input.getAttribute('aria-label'));
  return {
    group: open.dataset.group,
    sliders: open.querySelectorAll('input[type=range]').length,
    top: box.top,
    height: box.height,
    headerBottom: header ? header.getBoundingClientRect().bottom : 0,
    viewport: window.innerHeight,
    position: getComputedStyle(bar).position,
    unreachable,
  };
}
"""

VIEWPORTS = [((1440, 900), False), ((390, 844), True), ((720, 450), False)]


@pytest.mark.parametrize("n", [8, 16])
@pytest.mark.parametrize(("viewport", "touch"), VIEWPORTS, ids=["1440x900", "390x844-phone", "720x450-zoom200"])
def test_the_sticky_bar_takes_at_most_a_quarter_of_the_screen(chromium, app_server, viewport, touch, n):
    tab = AppTab.new(chromium, app_server.base_url, viewport=viewport, touch=touch)
    try:
        tab.open("explorer", {"n": n, "k": n - 1}, timeout=90)
        tab.page.wait_for_function(LIVE_PLOTS, timeout=60_000)
        tab.wait_drawn()
        tab.page.evaluate(SCROLL_TO_WEIGHTS_JS)
        seen = []
        for name in ("Table", "Queries", "Keys"):
            tab.page.locator(".relpos-live [role=tab]").filter(has_text=name).click()
            bar = tab.wait_layout_settled(BAR_JS, last_refit=False)
            seen.append(bar)
            if name == "Table":
                tab.screenshot(f"slider-bar-{viewport[0]}x{viewport[1]}-n{n}", full_page=False)
        expected = {"a": 2 * n - 1, "q": n, "keys": n}
        assert {bar["group"]: bar["sliders"] for bar in seen} == expected
        for bar in seen:
            where = f"{bar['group']} at {viewport[0]}×{viewport[1]}, n = {n}"
            assert bar["position"] == "sticky" and bar["top"] == pytest.approx(bar["headerBottom"], abs=2), (
                f"{where}: the bar is not stuck under the header while the panels scroll: {bar}"
            )
            assert bar["height"] <= MOST * bar["viewport"], (
                f"{where}: the bar takes {bar['height'] / bar['viewport']:.0%} of the screen's height"
            )
            assert not bar["unreachable"], f"{where}: sliders out of reach: {bar['unreachable']}"
        assert_clean(tab)
    finally:
        tab.close()
