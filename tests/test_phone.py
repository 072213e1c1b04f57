"""The app on a 390 × 844 touch phone.

* A swipe that starts on a heatmap scrolls the page like a swipe on text (charts never
  trap scrolling), and a tap on a cell still shows that cell's arithmetic.
* A presenter link opened on a phone gets the phone layout: nothing sticky, plain text
  sizes, and no formula cut at the right edge (each fits its column, scaled if need be);
  the server decides it on the first run, and a tap on Next at once keeps every number
  the link carries (in ten fresh phones in a row).
* A lesson link that names a stop lands on that stop, not on the introduction a screen
  and more above it; a link without one opens at the top.
* The Explorer's n and k sit right under the panels, not in the sidebar's overlay: moving
  k redraws the offset map while the map stays on screen.
* A quiz's numbers never scroll sideways: a table too wide is cut into a few that fit.

One browser context (a phone) for the whole module, on the session's server.
Screenshots go to test-artifacts/screens/phone-*.png.
"""

from __future__ import annotations

import re

import pytest

from relpos.quizbank.checking import make_quiz
from tests.support.browser import RACE_TRIES, AppTab
from tests.support.pages import CHART_TOOLBARS

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
    touch; ``relpos.ui.charts.chart`` turns dragging off.)
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
    # the centre: the Explorer panel's sticky sliders (44 px rows on a phone) cover the chart's top
    phone.page.touchscreen.tap(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.55)
    label = phone.page.locator(".hoverlayer .hovertext").first
    label.wait_for(state="attached", timeout=5000)
    assert "=" in (label.text_content() or ""), "a tap on a cell shows its arithmetic"
    assert not phone.errors, phone.errors


def test_a_presenter_link_on_a_phone_gets_the_phone_layout(phone):
    phone.open("walkthrough", {"i": 2, "j": 4, "presenter": 1})
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


# Text boxes of one chart (found by its accessible name): its cell labels, and the pairs
# that overlap among those, its title and its axes' tick labels (named, for the message);
# and the widest cell label against the width of one cell (plot-area width / columns).
_LABELS_JS = """
([name, columns]) => {
  const chart = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')]
    .find((c) => (c.getAttribute('aria-label') || '').includes(name));
  if (!chart) return null;
  chart.scrollIntoView({ block: 'center' });
  const texts = (selector) => [...chart.querySelectorAll(selector)].filter((t) => t.textContent.trim());
  const cells = texts('g.textpoint text, .hm text, text.textpoint');
  const boxes = [...cells, ...texts('text.gtitle, g.xtick text, g.ytick text')]
    .map((t) => ({ text: t.textContent.trim(), box: t.getBoundingClientRect() }));
  const overlapping = [];
  for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
    const p = boxes[a].box, q = boxes[b].box;
    if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) {
      overlapping.push(`${boxes[a].text} / ${boxes[b].text}`);
    }
  }
  const area = chart.querySelector('.nsewdrag').getBoundingClientRect();
  const widest = Math.max(...cells.map((t) => t.getBoundingClientRect().width));
  return { labels: cells.length, overlaps: overlapping.length, overlapping, widest, cell: area.width / columns };
}
"""
_BARS_JS = """
() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')]
  .flatMap((plot) => (plot._fullData || []).filter((t) => t.showscale).map((t) => t.colorbar.orientation))
"""


def test_narrow_charts_stay_legible(phone):
    phone.open("walkthrough")
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
    # a tap reads a cell: no tool bar comes up over the chart's title
    assert phone.page.evaluate(CHART_TOOLBARS) == [], "a phone's charts show Plotly's tool bar"
    assert not phone.errors, phone.errors


# A presenter lesson link with every number of the example changed, and what its 13
# fields show (queries, keys, then a^K from offset -2 to +2).
EDITED_LINK = {
    "i": 1,
    "j": 4,
    "presenter": 1,
    "k": 2,
    "q": "2,0.5,0.8,0.3",
    "keys": "0.9,0.7,0.4,1.2",
    "a": "-0.3,0.4,0.1,-0.2,-0.5",
}
EDITED_FIELDS = [2.0, 0.5, 0.8, 0.3, 0.9, 0.7, 0.4, 1.2, -0.3, 0.4, 0.1, -0.2, -0.5]
PRESENTER_OFF_JS = "() => new URLSearchParams(location.search).get('presenter') === '0'"
_FIELDS_JS = """
() => [...document.querySelectorAll('[data-testid=stTextInput] input')].map((input) => input.value)
"""


def field_numbers(tab: AppTab) -> list[float | None]:
    """The walkthrough's number fields as the browser holds them (None: empty)."""
    return [float(text.replace("−", "-")) if text.strip() else None for text in tab.page.evaluate(_FIELDS_JS)]


def tap_next_twice_from_the_first_run(tab: AppTab) -> None:
    """Tap Next as soon as it is on screen (the first run may still be drawing), then once more
    after the page is idle: the second tap sends every field's value as the browser holds it."""
    next_button = tab.page.locator("button").filter(has_text="Next", visible=True).first
    next_button.wait_for(timeout=60_000)
    next_button.tap()
    tab.wait_idle(timeout=60)
    tab.interact(tab.page.locator("button").filter(has_text="Next", visible=True).first.tap)


@pytest.mark.timeout(600)
def test_a_presenter_link_on_a_phone_keeps_every_number_after_next(chromium, app_server):
    failures = []
    for attempt in range(RACE_TRIES):  # a race: each fresh phone is another chance to lose the numbers
        tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, HEIGHT), touch=True, fresh=True)
        try:
            tab.page.goto(app_server.url("walkthrough", EDITED_LINK), wait_until="domcontentloaded")
            tab.page.wait_for_function(PRESENTER_OFF_JS, timeout=60_000)
            tap_next_twice_from_the_first_run(tab)
            fields = field_numbers(tab)
            warnings = tab.page.locator("[data-testid=stAlertContentWarning]").all_inner_texts()
            presenter = tab.page.locator("[data-testid=stCheckbox]").filter(has_text="Presenter mode")
            if fields != EDITED_FIELDS or warnings or presenter.locator("input").is_checked():
                tab.screenshot(f"phone-390x844-presenter-link-numbers-lost-{attempt}", full_page=False)
                failures.append(f"phone {attempt}: fields {fields}, warnings {[w[:80] for w in warnings]}")
            elif attempt == 0:
                tab.screenshot("phone-390x844-presenter-link-after-next", full_page=False)
            assert not tab.errors, tab.errors
        finally:
            tab.close()
    assert not failures, "\n".join(failures)


# Installed before the page's scripts: switches presenter mode off by clicking its toggle
# one frame after it is drawn, while the first run is still arriving (what the classroom
# helpers once did on a phone-sized screen, and what a quick hand can do on any).
_SWITCH_PRESENTER_OFF_AT_ONCE_JS = """
(() => {
  let clicked = 0;
  let done = false;
  const look = () => requestAnimationFrame(() => {
    const toggle = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stCheckbox]')]
      .find((box) => box.textContent.includes('Presenter mode'));
    const input = toggle && toggle.querySelector('input[type=checkbox]');
    if (done || !input) return;
    if (!input.checked) { done = clicked > 0; return; }
    if (performance.now() - clicked < 300) return; // a click React had no handler for yet: again
    clicked = performance.now();
    input.click();
  });
  document.addEventListener('DOMContentLoaded', () =>
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true }));
})();
"""


@pytest.mark.timeout(600)
def test_presenter_mode_switched_off_while_the_first_run_arrives_keeps_every_number(chromium, app_server):
    """A phone the server cannot tell (a desktop user agent, no width cookie yet): its
    presenter link stays in presenter mode, and the toggle flipped at once keeps the numbers."""
    desktop_agent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36"
    failures = []
    for attempt in range(RACE_TRIES):  # a race: each fresh tab is another chance to lose the numbers
        tab = AppTab.new(
            chromium,
            app_server.base_url,
            viewport=(WIDTH, HEIGHT),
            touch=True,
            user_agent=desktop_agent,
            init_scripts=(_SWITCH_PRESENTER_OFF_AT_ONCE_JS,),
            fresh=True,
        )
        try:
            tab.page.goto(app_server.url("walkthrough", EDITED_LINK), wait_until="domcontentloaded")
            tab.page.wait_for_function(PRESENTER_OFF_JS, timeout=60_000)
            tab.wait_idle(timeout=60)
            tab.interact(tab.page.locator("button").filter(has_text="Next", visible=True).first.tap)
            fields = field_numbers(tab)
            warnings = tab.page.locator("[data-testid=stAlertContentWarning]").all_inner_texts()
            if fields != EDITED_FIELDS or warnings:
                tab.screenshot(f"phone-390x844-presenter-off-numbers-lost-{attempt}", full_page=False)
                failures.append(f"tab {attempt}: fields {fields}, warnings {[w[:80] for w in warnings]}")
            assert not tab.errors, tab.errors
        finally:
            tab.close()
    assert not failures, "\n".join(failures)


_KEYBOARDS_JS = """
() => [...document.querySelectorAll('[data-testid=stTextInput] input')]
  .map((input) => [input.getAttribute('aria-label') || '', input.getAttribute('inputmode')])
"""


def test_number_fields_open_the_decimal_keyboard(phone):
    phone.open("walkthrough")
    phone.wait_count("[data-testid=stTextInput] input[inputmode=decimal]", 13)
    fields = phone.page.evaluate(_KEYBOARDS_JS)
    assert len(fields) == 13 and all(mode == "decimal" for _, mode in fields), fields
    # seed 42 asks for numbers and for cells like "(1,4), (4,1)", which need commas and
    # brackets: only the number answers get the decimal keyboard
    kinds = [question.answer_kind for question in make_quiz(42)]
    assert "number" in kinds and set(kinds) - {"number"}, kinds
    phone.open("quiz", {"seed": 42})
    phone.wait_count("[data-testid=stTextInput] input[inputmode=decimal]", kinds.count("number"))
    answers = phone.page.evaluate(_KEYBOARDS_JS)
    phone.page.locator("[data-testid=stTextInput] input").first.scroll_into_view_if_needed()
    phone.screenshot("phone-390x844-quiz-answer-field", full_page=False)
    assert [mode == "decimal" for _, mode in answers] == [kind == "number" for kind in kinds], (answers, kinds)
    assert not phone.errors, phone.errors


# The current stop's heading, the Next button and the page title on screen, and the bottom
# of Streamlit's header, which is drawn over the top of the page.
_STOP_ON_SCREEN_JS = """
() => {
  const box = (element) => { const r = element.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
  const header = document.querySelector('[data-testid=stHeader]');
  const next = [...document.querySelectorAll('[data-testid=stMain] button')]
    .find((button) => button.textContent.includes('Next'));
  return {
    heading: box(document.getElementById('current-stop')),
    text: document.getElementById('current-stop').textContent,
    next: box(next),
    title: box(document.querySelector('[data-testid=stMain] h1')),
    headerBottom: header ? header.getBoundingClientRect().bottom : 0,
    height: window.innerHeight,
  };
}
"""


def on_screen(place: dict, where: dict) -> bool:
    """Whether a box is wholly on the screen, below the header."""
    return where["headerBottom"] <= place["top"] and place["bottom"] <= where["height"]


def test_a_lesson_link_on_a_phone_lands_on_its_stop(phone):
    phone.open("walkthrough", {"i": 3, "j": 2})
    phone.wait_plots(3)
    phone.wait_drawn()
    where = phone.wait_layout_settled(_STOP_ON_SCREEN_JS)
    phone.screenshot("phone-390x844-lesson-link-lands-on-its-stop", full_page=False)
    assert where["text"].startswith("Query i = 3, key j = 2"), where
    assert on_screen(where["heading"], where), f"the linked stop's heading is off screen: {where}"
    assert on_screen(where["next"], where), f"Next is off screen: {where}"
    # a link without a stop opens where the lesson starts: the title and the introduction
    phone.open("walkthrough")
    phone.wait_plots(3)
    where = phone.wait_layout_settled(_STOP_ON_SCREEN_JS)
    assert on_screen(where["title"], where), where
    assert not phone.errors, phone.errors


# Where the Explorer's n and k sliders are (main area or sidebar), by label.
_SIZE_SLIDERS_JS = """
() => Object.fromEntries(['stMain', 'stSidebar'].map((area) => [area,
  [...document.querySelectorAll(`[data-testid=${area}] [data-testid=stSlider] [data-testid=stWidgetLabel]`)]
    .map((label) => label.textContent.trim())]))
"""
# The k slider to the bottom of the screen, as a thumb scrolls to reach it.
_K_TO_BOTTOM_JS = """
() => {
  const slider = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stSlider]')]
    .find((s) => s.textContent.includes('Clipping distance k'));
  let scroller = slider.parentElement;
  while (scroller && !(scroller.scrollHeight > scroller.clientHeight
      && /(auto|scroll)/.test(getComputedStyle(scroller).overflowY))) scroller = scroller.parentElement;
  (scroller || document.scrollingElement).scrollBy(0, slider.getBoundingClientRect().bottom - window.innerHeight + 8);
}
"""
# How much of the offset map's cells is on screen (below the Explorer panel's sticky sliders,
# which cover what scrolls under them), and the k slider's box.
_MAP_IN_SIGHT_JS = """
() => {
  const cells = document.querySelector('.relpos-explorer-panel .ep-offsets .nsewdrag').getBoundingClientRect();
  const covered = document.querySelector('.relpos-explorer-panel .ep-controls').getBoundingClientRect().bottom;
  const slider = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stSlider]')]
    .find((s) => s.textContent.includes('Clipping distance k')).getBoundingClientRect();
  const seen = Math.max(0, Math.min(cells.bottom, window.innerHeight) - Math.max(cells.top, covered));
  return { seen: seen / cells.height, slider: { top: slider.top, bottom: slider.bottom }, height: window.innerHeight };
}
"""

# The offset map's title says `text` (once the Explorer panel has drawn the new spec).
_MAP_TITLE_JS = """
(text) => [...document.querySelectorAll('.relpos-explorer-panel .ep-offsets .gtitle')]
  .some((t) => t.textContent.includes(text))
"""


def test_the_explorer_on_a_phone_has_n_and_k_under_the_offset_map(phone):
    phone.open("explorer")
    phone.wait_plots(7)
    phone.wait_drawn()
    places = phone.page.evaluate(_SIZE_SLIDERS_JS)
    for label in ("Tokens n", "Clipping distance k"):
        assert places["stMain"].count(label) == 1 and label not in places["stSidebar"], places
    phone.page.evaluate(_K_TO_BOTTOM_JS)
    before = phone.wait_layout_settled(_MAP_IN_SIGHT_JS)
    assert before["seen"] >= 0.75, f"with k at hand, the offset map is not in sight: {before}"
    old_map = phone.figure("offset map")
    assert phone.press_slider("Clipping distance k", "ArrowLeft") == 1
    phone.page.wait_for_function(_MAP_TITLE_JS, arg="k = 1")
    new_map = phone.figure("offset map")
    after = phone.wait_layout_settled(_MAP_IN_SIGHT_JS)
    phone.screenshot("phone-390x844-explorer-k-under-the-offset-map", full_page=False)
    assert new_map.z.tolist() != old_map.z.tolist(), "moving k left the offset map as it was"
    assert after["seen"] >= 0.75, f"the offset map left the screen while k moved: {after}"
    assert after["slider"]["top"] >= 0 and after["slider"]["bottom"] <= after["height"], after
    # the sidebar's settings still change only what they say (a k moved beside the panels is kept)
    phone.page.locator("[data-testid=stExpandSidebarButton]").tap()
    option = phone.page.locator("[data-testid=stSidebar] [data-testid=stRadio] label").filter(has_text="d = 2")
    phone.interact(option.tap)
    query = phone.page.url.split("?", 1)[1]
    assert re.search(r"(^|&)k=1(&|$)", query) and re.search(r"(^|&)d=2(&|$)", query), query
    assert not phone.errors, phone.errors


_TITLE_GAPS_JS = """
() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')].slice(0, 4).map((chart) => {
  const title = chart.querySelector('.gtitle'), cells = chart.querySelector('.nsewdrag');
  return title && cells ? cells.getBoundingClientRect().top - title.getBoundingClientRect().bottom : null;
})
"""


def test_position_effects_panels_sit_under_their_titles_on_a_phone(phone):
    """Stacked on a phone, each square panel had about 110 px of empty height between its
    title and its cells (issue 34): a phone's panels are as tall as their square needs."""
    phone.open("position_effects")
    phone.wait_plots(4)
    phone.wait_drawn()
    gaps = phone.page.evaluate(_TITLE_GAPS_JS)
    assert gaps and all(gap is not None and gap < 40 for gap in gaps), f"title → cells, px: {gaps}"
    assert not phone.errors, phone.errors


_TABLES_JS = """
() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stTable]')].map((table) => ({
  right: Math.round(table.getBoundingClientRect().right),
  hidden: table.scrollWidth - table.clientWidth,
  text: table.innerText.replace(/\\s+/g, ' '),
}))
"""


def test_a_quizs_numbers_never_scroll_sideways_on_a_phone(phone):
    """Five positions' q and k (or nine table entries) were one table wider than a phone, whose
    last columns hid off screen, to be scrolled sideways, and a touch screen kept each table's
    toolbar over the numbers above it (issue 34). On a phone a table too wide is cut into a few,
    each whole on the screen with its row labels; the tables are static, with true minus signs."""
    phone.open("quiz", {"seed": 42})
    phone.wait_idle()
    tables = phone.page.evaluate(_TABLES_JS)
    page_width = phone.page.evaluate("() => document.documentElement.clientWidth")
    assert len(tables) > 10, f"seed 42 has five questions with numbers, some cut in parts: {tables}"
    for table in tables:
        assert table["right"] <= page_width and table["hidden"] == 0, f"{table} on a {page_width} px page"
    text = " ".join(table["text"] for table in tables)
    assert "−0.6" in text and "-0." not in text, text  # seed 42's q₄ = −0.6, by the one number formatter
    assert not phone.errors, phone.errors
