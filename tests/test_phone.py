"""The app on a 390 × 844 touch phone.

* A swipe that starts on a heatmap scrolls the page like a swipe on text (charts never
  trap scrolling), and a tap on a cell still shows that cell's arithmetic.
* A presenter link opened on a phone gets the phone layout: nothing sticky, plain text
  sizes, and no formula cut at the right edge (each fits its column, scaled if need be).

One browser context (a phone) for the whole module, on the session's server.
Screenshots go to test-artifacts/screens/phone-*.png.
"""

from __future__ import annotations

import pytest

from tests.support.browser import AppTab

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

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


def _settled_heatmap(tab: AppTab) -> dict:
    """The first heatmap centred on the screen, once its box holds still for 300 ms."""
    tab.page.evaluate(_CENTRE_HEATMAP_JS)
    tab.wait_idle()
    box = tab.page.evaluate(_HEATMAP_BOX_JS)
    for _ in range(10):
        tab.page.wait_for_timeout(300)
        again = tab.page.evaluate(_HEATMAP_BOX_JS)
        if again == box:
            break
        box = again
    return box


def test_a_swipe_on_a_heatmap_scrolls_the_page_and_a_tap_shows_the_cell(phone):
    phone.open("explorer")
    phone.wait_plots(6)
    phone.wait_drawn()  # plotly's responsive re-layout settles
    scrolled = 0.0
    for _ in range(2):  # a finger that lands while plotly redraws the chart is cancelled: once more
        before = _settled_heatmap(phone)
        swipe_up(phone, before["x"] + before["width"] / 2, before["y"] + before["height"] / 2)
        scrolled = before["y"] - phone.page.evaluate(_HEATMAP_BOX_JS)["y"]
        if scrolled > 200:
            break
    phone.screenshot("phone-390x844-explorer-after-swipe", full_page=False)
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
    phone.page.wait_for_function(
        "() => !new URLSearchParams(location.search).has('presenter')"
        " || new URLSearchParams(location.search).get('presenter') === '0'"
    )
    phone.wait_plots(3)
    phone.wait_drawn()  # formulas are fitted after the charts are drawn
    assert "Stop 9 of 20" in phone.main_text(), "the link's stop is kept"
    assert phone.page.evaluate(_BARS_JS) == ["h", "h", "h"], "phone charts: colour bars below"
    layout = phone.page.evaluate(_PHONE_LAYOUT_JS)
    phone.screenshot("phone-390x844-walkthrough-presenter-link")
    assert layout["rootPx"] == 16, "presenter text sizes are for a projector, not a phone"
    assert layout["barPosition"] != "sticky", "a sticky bar would take a quarter of the phone's screen"
    assert layout["cut"] == 0, f"{layout['cut']} formulas are cut at the right edge"
    assert layout["widestRight"] <= layout["pageWidth"] + 1, layout
    assert not phone.errors, phone.errors


# Text boxes of one chart (found by its accessible name): the pairs that overlap, and the
# widest label against the width of one cell (plot-area width / columns).
_LABELS_JS = """
([name, columns]) => {
  const chart = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')]
    .find((c) => (c.getAttribute('aria-label') || '').includes(name));
  if (!chart) return null;
  chart.scrollIntoView({ block: 'center' });
  const boxes = [...chart.querySelectorAll('g.textpoint text, .hm text, text.textpoint')]
    .filter((t) => t.textContent.trim()).map((t) => t.getBoundingClientRect());
  let overlaps = 0;
  for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
    const p = boxes[a], q = boxes[b];
    if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) overlaps++;
  }
  const area = chart.querySelector('.nsewdrag').getBoundingClientRect();
  return { labels: boxes.length, overlaps, widest: Math.max(...boxes.map((r) => r.width)), cell: area.width / columns };
}
"""
_BARS_JS = """
() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')]
  .flatMap((plot) => (plot._fullData || []).filter((t) => t.showscale).map((t) => t.colorbar.orientation))
"""


def test_narrow_charts_stay_legible(phone):
    phone.open("worked_example")
    phone.wait_plots(3)
    bars = phone.page.evaluate(_BARS_JS)
    assert bars and set(bars) == {"h"}, f"colour bars beside narrow charts: {bars}"
    offsets = phone.page.evaluate(_LABELS_JS, ["Offset map", 4])
    assert offsets["labels"] == 16 and offsets["overlaps"] == 0, offsets
    assert offsets["widest"] <= offsets["cell"], f"an offset label such as +3→+2 is wider than its cell: {offsets}"

    phone.open("efficiency")
    phone.wait_plots(5)
    phone.wait_drawn()
    strip = phone.page.evaluate(_LABELS_JS, ["padded matrix in memory", 2])
    phone.screenshot("phone-390x844-efficiency-memory-strip", full_page=False)
    assert strip["labels"] >= 40 and strip["overlaps"] == 0, f"the memory strip's labels overlap: {strip}"
    assert strip["widest"] <= strip["cell"], strip
    assert not phone.errors, phone.errors
