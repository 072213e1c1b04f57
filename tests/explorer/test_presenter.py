"""The Explorer at a 1280 × 720 projector, in presenter mode (``presenter=1``, or its toggle).

A presenter link opens with the sidebar folded (as the walkthrough's presenter mode does),
the combined scores and the combined weights side by side on one screen under the sliders,
body text at 22 px or more and every text of the seven panels (titles with their
subscripts, ticks, axis titles, colour bars, cell numbers where shown) at 20 px or more,
in ink on the chart's white. Screenshots go to test-artifacts/screens/explorer-presenter-*.png.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.support.browser import AppTab
from tests.support.pages import PANEL_PLOTS, assert_clean
from tests.support.presenter import FIGURE_TEXT_JS, HEIGHT, MIN_BODY_PX, WIDTH, figure_text_problems, inside

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SIDEBAR_FOLDED_JS = "() => document.querySelector('[data-testid=stSidebar]')?.dataset.collapsed === 'true'"
# Where the bar and the two panels are (viewport px) and the size of every body text on screen.
SCREEN_JS = """
() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const panel = document.querySelector('.relpos-explorer-panel');
  const shown = (el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden'
    && el.textContent.trim();
  const body = [...document.querySelectorAll(
    '[data-testid=stMain] :is([data-testid=stMarkdownContainer] :is(p, li), .ep-caption, .ep-note, .ep-tab, '
    + '.ep-toggle span, .ep-fit, .ep-slider :is(span, output))')].filter(shown);
  return {
    bar: box(panel.querySelector('.ep-controls')),
    scores: box(panel.querySelector('.ep-scores .ep-plot')),
    weights: box(panel.querySelector('.ep-weights .ep-plot')),
    body: body.map((el) => [el.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(el).fontSize)]),
  };
}
"""
CELL_NUMBERS_JS = "() => document.querySelectorAll('.relpos-explorer-panel .ep-scores g.heatmap-label text').length"


def _on_screen(part: list[float], below: float) -> bool:
    """A box [left, top, right, bottom] wholly on the 1280 × 720 screen, under `below`."""
    left, top, right, bottom = part
    return left >= -1 and right <= WIDTH + 1 and inside([top, bottom], below)


@pytest.fixture(scope="module")
def projector(chromium, app_server):
    """One 1280 × 720 tab for the module (each test opens its own page)."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(WIDTH, HEIGHT))
    yield tab
    tab.close()


def _check_projector_layout(tab: AppTab, n: int, shot: str) -> None:
    """The sliders, then the combined scores and weights side by side, all on the screen;
    every body text at 22 px or more, every figure text at 20 px or more (cell numbers
    only where they fit at that size: 4 tokens, not 8)."""
    assert tab.page.locator(".relpos-explorer-panel.ep-presenter").count() == 1, (
        "the Explorer panel is not in its presenter layout"
    )
    tab.page.wait_for_function(SIDEBAR_FOLDED_JS, timeout=60_000)
    tab.wait_drawn(timeout=60)
    screen = tab.wait_layout_settled(SCREEN_JS)
    texts = tab.page.evaluate(FIGURE_TEXT_JS, ".relpos-explorer-panel .ep-plot")
    tab.screenshot(shot, full_page=False)

    bar_bottom = screen["bar"][3]
    assert bar_bottom - screen["bar"][1] <= HEIGHT / 4, f"the slider bar at {screen['bar']}"
    for name in ("scores", "weights"):
        assert _on_screen(screen[name], bar_bottom), f"the {name} panel at {screen[name]}, bar to {bar_bottom}"
    assert screen["scores"][2] <= screen["weights"][0], "scores and weights side by side"
    small = [(text, px) for text, px in screen["body"] if px < MIN_BODY_PX - 0.5]
    assert len(screen["body"]) > 20 and not small, f"body text below {MIN_BODY_PX} px: {small}"
    titles = {t["text"] for t in texts}
    assert {"combined score", "combined weights", "offset map: table row used (k = 2)"} <= titles, titles
    assert not figure_text_problems(texts), "\n".join(figure_text_problems(texts))
    cells = tab.page.evaluate(CELL_NUMBERS_JS)
    assert cells == (n * n if n == 4 else 0), f"{cells} cell numbers in the score panel (shown only where 20 px fit)"
    assert_clean(tab)


def test_the_toggle_switches_presenter_mode_on_and_the_link_keeps_it(projector):
    tab = projector
    tab.open("explorer", timeout=90)  # the textbook example: 4 tokens
    tab.page.wait_for_function(PANEL_PLOTS, timeout=60_000)
    assert not tab.page.evaluate(SIDEBAR_FOLDED_JS), "the test must start with the sidebar open"
    assert not tab.page.evaluate(
        "() => document.querySelector('.relpos-explorer-panel').classList.contains('ep-presenter')"
    )
    tab.toggle("Presenter mode")
    tab.page.wait_for_function(
        "() => document.querySelector('.relpos-explorer-panel.ep-presenter .ep-scores .js-plotly-plot')", timeout=60_000
    )
    assert parse_qs(urlparse(tab.page.url).query)["presenter"] == ["1"]
    root_px = tab.page.evaluate("() => parseFloat(getComputedStyle(document.documentElement).fontSize)")
    assert root_px == MIN_BODY_PX
    _check_projector_layout(tab, 4, "explorer-presenter-1280x720-n4-toggled")


def test_a_presenter_link_shows_scores_and_weights_on_one_screen(projector):
    """Opened from a link, with 8 tokens: the sidebar folded from the start."""
    tab = projector
    tab.open("explorer", {"presenter": 1, "n": 8}, timeout=90)
    tab.page.wait_for_function(PANEL_PLOTS, timeout=60_000)
    _check_projector_layout(tab, 8, "explorer-presenter-1280x720-n8")
