"""The walkthrough at a 1280 × 720 projector, in presenter mode.

Every one of the 20 stops must fit one screen with no scrolling: the navigation bar,
the whole arithmetic down to the score line (at a softmax stop: the formula, the weights
chart and the takeaway), and the score matrix with the current cell; and it must read
from the back row: formulas ≥ 28 px, body text ≥ 22 px, heatmap cell numbers and axis
labels ≥ 20 px (at a softmax stop every label of its charts, as drawn). Screenshots of
every stop go to test-artifacts/screens/presenter-*.png.
"""

from __future__ import annotations

import contextlib
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.browser import AppTab
from tests.support.presenter import (
    DRAWN_JS,
    FIGURE_TEXT_JS,
    HEIGHT,
    MEASURE_JS,
    STOPS,
    WIDTH,
    check_stop,
    figure_text_problems,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def projector(chromium, app_server):
    """One 1280 × 720 tab for the module (each test opens its own lesson link)."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, HEIGHT))
    yield tab
    tab.close()


def _softmax_label_problems(tab: AppTab, stop: int) -> list[str]:
    """Every label of a softmax stop's charts as drawn: the weight bars' values (which Plotly
    shrinks to fit narrow bars), their ticks and legend, the score matrix's numbers and its
    title's subscript, all at 20 px or more and in ink on the chart's white, not a grey."""
    texts = tab.page.evaluate(FIGURE_TEXT_JS, "[data-testid=stMain] [data-testid=stPlotlyChart]")
    bars = [t["text"] for t in texts if t["chart"].startswith("Weights") and re.fullmatch(r"0\.\d\d\d?", t["text"])]
    subscripts = [t for t in texts if t["chart"].startswith("Scores") and t["text"] == "ij"]
    problems = [f"stop {stop}: {problem}" for problem in figure_text_problems(texts)]
    if len(bars) != 8 or len(subscripts) != 1:
        problems.append(f"stop {stop}: the bars' values and the title's subscript: {bars}, {subscripts}")
    return problems


def test_every_stop_fits_a_1280x720_projector(projector):
    """Each stop in turn (Next), and at each softmax stop every label of its charts."""
    tab = projector
    tab.open("walkthrough", {"i": 1, "j": 1, "presenter": 1})
    problems, matrix_tops = [], []
    for stop in range(1, STOPS + 1):
        tab.page.wait_for_function(DRAWN_JS)
        measured = tab.wait_layout_settled(MEASURE_JS)
        problems += check_stop(stop, measured)
        if measured["heading"].startswith("Softmax"):
            problems += _softmax_label_problems(tab, stop)
        elif measured["scores"]:
            matrix_tops.append(measured["scores"][0])
        if stop in (1, 4, 5, 20):
            tab.screenshot(f"presenter-1280x720-stop{stop:02d}", full_page=False)
        if stop < STOPS:
            tab.click("Next")
    assert not problems, "\n".join(problems)
    # a jump a viewer sees, not a sub-pixel difference (a fractional top rounds to 194 or 195)
    spread = max(matrix_tops) - min(matrix_tops)
    assert spread < 1.5, f"the score matrix moves {spread:.1f} px between pair stops: tops {sorted(set(matrix_tops))}"
    assert not tab.errors, tab.errors


# The scroller Streamlit moves (its main area, not the window), and where the current
# stop's heading and the bottom of the navigation bar are, in viewport pixels.
_SCROLL_DOWN_JS = """
(by) => {
  let el = document.getElementById('current-stop');
  while (el && !(el.scrollHeight > el.clientHeight && /(auto|scroll)/.test(getComputedStyle(el).overflowY))) {
    el = el.parentElement;
  }
  (el || document.scrollingElement).scrollBy(0, by);
}
"""
_HEADING_JS = """
() => ({
  top: document.getElementById('current-stop').getBoundingClientRect().top,
  text: document.getElementById('current-stop').textContent,
  barBottom: document.querySelector('.st-key-lesson-nav').getBoundingClientRect().bottom,
})
"""


def test_after_next_the_new_stop_is_in_view(projector):
    tab = projector
    tab.open("walkthrough", {"i": 2, "j": 2, "presenter": 1})
    tab.page.wait_for_function(DRAWN_JS)
    tab.page.evaluate(_SCROLL_DOWN_JS, 900)  # the teacher scrolled down to the table of all pairs
    tab.page.wait_for_function(f"() => ({_HEADING_JS})().top < 0", timeout=10_000)  # the stop scrolled away
    tab.click("Next")
    in_view = f"() => {{ const w = ({_HEADING_JS})(); return w.barBottom <= w.top && w.top <= {HEIGHT * 0.6}; }}"
    with contextlib.suppress(PlaywrightTimeout):  # the assertion below says where the heading is
        tab.page.wait_for_function(in_view, timeout=15_000)
    where = tab.page.evaluate(_HEADING_JS)
    tab.screenshot("presenter-1280x720-after-next-scrolled", full_page=False)
    assert where["text"].startswith("Query i = 2, key j = 3"), where
    assert where["barBottom"] <= where["top"] <= HEIGHT * 0.6, f"heading at {where} after Next"


def _first_query_field(tab: AppTab):
    """Presenter mode at the first pair, its number editor opened: the q₁ field."""
    tab.open("walkthrough", {"i": 1, "j": 1, "presenter": 1})
    tab.page.get_by_text("Edit the numbers").click()
    field = tab.page.get_by_label("q₁", exact=True)
    field.wait_for()
    return field


def test_numbers_are_edited_from_the_main_area_and_the_clicker_works_after_enter(projector):
    tab = projector
    field = _first_query_field(tab)
    field.scroll_into_view_if_needed()
    clipped = field.evaluate("(input) => input.scrollWidth > input.clientWidth + 1")
    assert not clipped, "a field is too narrow for its number"
    tab.interact(lambda: (field.fill("0.5"), field.press("Enter")))
    with contextlib.suppress(PlaywrightTimeout):  # the helpers blur the field in a task after Enter
        tab.page.wait_for_function("() => document.activeElement?.tagName !== 'INPUT'", timeout=10_000)
    focused = tab.page.evaluate("() => document.activeElement && document.activeElement.tagName")
    assert focused != "INPUT", "after Enter the field lets go of the focus, so the clicker works"
    assert "Edited example" in tab.main_text()
    tab.screenshot("presenter-1280x720-edited", full_page=False)
    tab.interact(lambda: tab.page.keyboard.press("PageDown"))  # a presentation clicker
    assert tab.page.evaluate(_HEADING_JS)["text"].startswith("Query i = 1, key j = 2")
    assert not tab.errors, tab.errors


_FOCUS_JS = """
() => {
  const focused = document.activeElement;
  const main = document.querySelector('[data-testid=stMain]');
  const sidebar = document.querySelector('[data-testid=stSidebar]');
  return {
    focused: focused ? focused.tagName + (focused.type ? ':' + focused.type : '') : null,
    frame: getComputedStyle(main, '::before').boxShadow,
    sidebarOpen: !!sidebar && sidebar.dataset.collapsed === 'false',
    nav: document.querySelector('.st-key-lesson-nav').getBoundingClientRect().height,
  };
}
"""


def _stop(tab: AppTab) -> str:
    return tab.page.evaluate("() => document.getElementById('current-stop').textContent")


def _clicker(tab: AppTab, key: str, stop: str) -> None:
    """A presentation clicker's key press; waits until the lesson shows `stop` (the start of
    its heading) and the app is idle. A key that steps nothing times out with the stop shown."""
    tab.page.keyboard.press(key)
    try:
        tab.page.wait_for_function(
            "(stop) => document.getElementById('current-stop')?.textContent.startsWith(stop)", arg=stop, timeout=60_000
        )
    except Exception as error:
        raise AssertionError(f"after {key} the lesson shows {_stop(tab)!r}, not {stop!r}") from error
    tab.wait_idle(timeout=60)


def test_switching_presenter_mode_on_leaves_the_clicker_working(chromium, app_server):
    tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, HEIGHT))
    try:
        tab.open("walkthrough", {"i": 1, "j": 1})
        assert tab.page.evaluate(_FOCUS_JS)["sidebarOpen"], "the test must start with the sidebar open"
        tab.toggle("Presenter mode")
        tab.page.wait_for_function(DRAWN_JS)
        tab.page.wait_for_function("() => document.activeElement?.type !== 'checkbox'", timeout=5000)
        _clicker(tab, "PageDown", "Query i = 1, key j = 2")  # the clicker's first Page Down steps the lesson
        _clicker(tab, "ArrowRight", "Query i = 1, key j = 3")
        _clicker(tab, "PageUp", "Query i = 1, key j = 2")
        _clicker(tab, "ArrowRight", "Query i = 1, key j = 3")
        _clicker(tab, "ArrowLeft", "Query i = 1, key j = 2")
        state = tab.page.evaluate(_FOCUS_JS)
        tab.screenshot("presenter-1280x720-clicker-after-toggle", full_page=False)
        assert state["frame"] == "none", f"a focus frame round the lesson: {state}"
        assert not state["sidebarOpen"], "presenter mode folds the sidebar"
        assert not tab.errors, tab.errors
    finally:
        tab.close()


def test_presenter_mode_folds_the_sidebar_in_every_tab_and_copies_the_link(chromium, app_server):
    tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, HEIGHT))
    tab.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_server.base_url)
    try:
        tab.open("walkthrough", {"i": 4, "j": "softmax", "presenter": 1})
        tab.page.wait_for_function(DRAWN_JS)
        tab.page.locator(
            "[data-testid=stExpandSidebarButton] button, [data-testid=stExpandSidebarButton]"
        ).first.click()
        tab.page.wait_for_function(
            "() => document.querySelector('[data-testid=stSidebar]').dataset.collapsed === 'false'"
        )
        tab.open("walkthrough", {"i": 4, "j": "softmax", "presenter": 1})  # a later presenter tab
        tab.page.wait_for_function(DRAWN_JS)
        tab.page.wait_for_function(
            "() => document.querySelector('[data-testid=stSidebar]').dataset.collapsed === 'true'",
            timeout=5000,
        )
        measured = tab.wait_layout_settled(MEASURE_JS)
        assert not check_stop(20, measured), check_stop(20, measured)
        nav = tab.page.evaluate(_FOCUS_JS)["nav"]
        copy = tab.page.locator("[data-relpos-copy-link]")
        copy.click()
        tab.page.wait_for_function(
            "() => document.querySelector('[data-relpos-copy-label]').textContent === 'Link copied'"
        )
        copied = tab.page.evaluate("() => navigator.clipboard.readText()")
        tab.screenshot("presenter-1280x720-softmax-link-copied", full_page=False)
        assert copied == tab.page.url and "presenter=1" in copied and "j=softmax" in copied, copied
        assert tab.page.evaluate(_FOCUS_JS)["nav"] == nav, "the button's message moves the navigation bar"
        assert tab.page.evaluate("() => document.activeElement?.tagName") != "BUTTON", "the clicker works after a copy"
        assert not tab.errors, tab.errors
    finally:
        tab.close()


def test_the_clicker_steps_the_lesson_while_a_field_has_the_focus(projector):
    """A teacher who typed a number (a quiz seed, an edited q) and reaches for the clicker:
    Streamlit's shortcuts skip key presses in fields, so Page Down did nothing (issue 34)."""
    tab = projector
    field = _first_query_field(tab)
    field.focus()
    assert tab.page.evaluate("() => document.activeElement?.tagName") == "INPUT"
    _clicker(tab, "PageDown", "Query i = 1, key j = 2")
    field.focus()
    _clicker(tab, "PageUp", "Query i = 1, key j = 1")
    assert not tab.errors, tab.errors


#: Holds the page's next WebSocket message back for ``window.__relposHoldNext`` ms, and every
#: message after it behind it, in order: the first press's run is on its way (a busy server,
#: a slow network) when the second press comes.
HOLD_NEXT_MESSAGE_JS = """(() => {
  const send = WebSocket.prototype.send;
  let queue = Promise.resolve();
  window.__relposHoldNext = 0;
  WebSocket.prototype.send = function (data) {
    const hold = window.__relposHoldNext;
    window.__relposHoldNext = 0;
    queue = queue.then(() => hold && new Promise((done) => setTimeout(done, hold))).then(() => send.call(this, data));
  };
})();"""


def test_two_clicker_presses_a_moment_apart_step_two_stops(chromium, app_server):
    """A clicker pressed twice 0.3 s apart while the first press's run is on its way moves
    the lesson two stops, every time (issue 34: the second press was merged into the first
    by the server, or undone by the pickers' old values)."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, HEIGHT), init_scripts=(HOLD_NEXT_MESSAGE_JS,))
    try:
        tab.open("walkthrough", {"i": 1, "j": 1, "presenter": 1})
        tab.page.wait_for_function(DRAWN_JS)
        steps = (
            ("PageDown", "Query i = 1, key j = 3"),
            ("ArrowRight", "Softmax of row i = 1"),
            ("PageUp", "Query i = 1, key j = 3"),
            ("ArrowLeft", "Query i = 1, key j = 1"),
        )
        for key, stop in steps:
            tab.page.evaluate("() => { window.__relposHoldNext = 600; }")
            tab.page.keyboard.press(key)
            tab.page.wait_for_timeout(300)
            tab.page.keyboard.press(key)
            with contextlib.suppress(PlaywrightTimeout):
                tab.page.wait_for_function(
                    "(stop) => document.getElementById('current-stop')?.textContent.startsWith(stop)",
                    arg=stop,
                    timeout=30_000,
                )
            tab.wait_idle(timeout=60)
            assert _stop(tab).startswith(stop), f"two presses of {key} show {_stop(tab)!r}, not {stop!r}"
        assert not tab.errors, tab.errors
    finally:
        tab.close()
