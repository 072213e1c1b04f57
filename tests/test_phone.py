"""The app on a 390 × 844 touch phone (issue 12).

* A swipe that starts on a heatmap scrolls the page like a swipe on text (charts never
  trap scrolling), and a tap on a cell still shows that cell's arithmetic.
* A presenter link opened on a phone gets the phone layout: nothing sticky, plain text
  sizes, and no formula cut at the right edge (each fits its column, scaled if need be).

One browser context (a phone) for the whole module, on the session's server.
Screenshots go to test-artifacts/screens/phone-*.png.
"""

from __future__ import annotations

import pytest

from tests.browser import AppTab

pytestmark = pytest.mark.timeout(240)

WIDTH, HEIGHT = 390, 844

# The first heatmap's drag area (where a finger lands on a chart), scrolled to the
# middle of the screen; its box in viewport pixels.
_HEATMAP_BOX_JS = """
() => {
  const chart = [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')]
    .find((el) => (el._fullData || []).some((t) => t.type === 'heatmap'));
  const area = chart.querySelector('.nsewdrag');
  const r = area.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}
"""
_CENTRE_HEATMAP_JS = """
() => {
  const chart = [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')]
    .find((el) => (el._fullData || []).some((t) => t.type === 'heatmap'));
  chart.scrollIntoView({ block: 'center' });
}
"""

# Presenter styling that must not reach a phone, and formulas cut at the right edge.
_PHONE_LAYOUT_JS = """
() => {
  const bar = document.querySelector('.st-key-lesson-nav').parentElement;
  const cut = [...document.querySelectorAll('[data-testid=stMain] .katex-display')].filter((box) =>
    box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX === 'hidden');
  const widest = Math.max(...[...document.querySelectorAll('[data-testid=stMain] .katex-display')]
    .map((box) => box.getBoundingClientRect().right));
  return {
    rootPx: parseFloat(getComputedStyle(document.documentElement).fontSize),
    barPosition: getComputedStyle(bar).position,
    cut: cut.length,
    widestRight: widest,
    pageWidth: document.documentElement.clientWidth,
  };
}
"""


@pytest.fixture(scope="module")
def phone(chromium, app_server):
    tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, HEIGHT), touch=True)
    yield tab
    tab.close()


def swipe_up(tab: AppTab, x: float, y: float, distance: int = 400) -> None:
    """A finger put down at (x, y) and moved `distance` px up, as Chromium's own touch events.

    (With Plotly's default drag-to-zoom the same swipe scrolls 0 px: plotly.js takes the
    touch; ``relpos.ui.common.chart`` turns dragging off.)
    """
    session = tab.page.context.new_cdp_session(tab.page)
    session.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 11):
        point = {"x": x, "y": y - distance * step / 10}
        session.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        tab.page.wait_for_timeout(16)
    session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    session.detach()
    tab.page.wait_for_timeout(400)


def test_a_swipe_on_a_heatmap_scrolls_the_page_and_a_tap_shows_the_cell(phone):
    phone.open("explorer")
    phone.wait_plots(6)
    phone.wait_idle()
    phone.page.wait_for_timeout(500)  # plotly's responsive re-layout settles
    phone.page.evaluate(_CENTRE_HEATMAP_JS)
    phone.page.wait_for_timeout(300)
    before = phone.page.evaluate(_HEATMAP_BOX_JS)
    swipe_up(phone, before["x"] + before["width"] / 2, before["y"] + before["height"] / 2)
    after = phone.page.evaluate(_HEATMAP_BOX_JS)
    phone.screenshot("phone-390x844-explorer-after-swipe", full_page=False)
    scrolled = before["y"] - after["y"]
    assert scrolled > 200, f"a 400 px swipe starting on a heatmap scrolled the page {scrolled:.0f} px"

    phone.page.evaluate(_CENTRE_HEATMAP_JS)
    phone.page.wait_for_timeout(300)
    box = phone.page.evaluate(_HEATMAP_BOX_JS)
    phone.page.touchscreen.tap(box["x"] + box["width"] * 0.1, box["y"] + box["height"] * 0.1)
    label = phone.page.locator(".hoverlayer .hovertext").first
    label.wait_for(state="attached", timeout=5000)
    assert "=" in (label.text_content() or ""), "a tap on a cell shows its arithmetic"
    assert not phone.errors, phone.errors


def test_a_presenter_link_on_a_phone_gets_the_phone_layout(phone):
    phone.open("worked_example", {"i": 2, "j": 4, "presenter": 1})
    phone.wait_plots(1)
    phone.page.wait_for_timeout(300)  # formulas are fitted on the next frame
    layout = phone.page.evaluate(_PHONE_LAYOUT_JS)
    phone.screenshot("phone-390x844-walkthrough-presenter-link")
    assert layout["rootPx"] == 16, "presenter text sizes are for a projector, not a phone"
    assert layout["barPosition"] != "sticky", "a sticky bar would take a quarter of the phone's screen"
    assert layout["cut"] == 0, f"{layout['cut']} formulas are cut at the right edge"
    assert layout["widestRight"] <= layout["pageWidth"] + 1, layout
    assert not phone.errors, phone.errors
