"""The Explorer's sticky slider bar never hides what it drives.

It stays on screen above the panels while the page scrolls, and takes at most a quarter
of the screen's height: on a laptop (1440 × 900), on a phone (390 × 844) and at 200 %
zoom of the laptop's screen (a 720 × 450 CSS viewport), with 16 tokens and every group
of sliders full (k = n − 1: 2n − 1 table entries, n queries, n keys). Every slider of
the open group stays within reach: scrolled into view inside the bar (its row scrolls
sideways), nothing covers it. The slider the "Try this first" task names is one link away:
on a phone and at 200 % zoom it is far along the sideways row, and the task's link brings
it into view. Two page loads: the zoom is the laptop's tab resized, as a browser zooms.
"""

from __future__ import annotations

import re

import pytest

from tests.support.browser import AppTab
from tests.support.pages import PANEL_PLOTS, assert_clean

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

#: The most of the screen's height the sticky bar may take.
MOST = 0.25

# Scroll Streamlit's page (an inner container) until the combined-weights panel is on
# screen, so the bar is stuck under the header above the panels it drives.
SCROLL_TO_WEIGHTS_JS = """
() => {
  const target = document.querySelector('.relpos-explorer-panel .ep-weights');
  const scroller = [...document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer]')]
    .find((el) => el.scrollHeight > el.clientHeight + 5) || document.scrollingElement;
  scroller.scrollTop += target.getBoundingClientRect().top - window.innerHeight / 2;
}
"""
# The bar as drawn now, and each slider of the open group brought into view inside it:
# whether it is then inside the bar and on screen, and not covered by anything.
BAR_JS = """
() => {
  const bar = document.querySelector('.relpos-explorer-panel .ep-controls');
  const header = document.querySelector('[data-testid=stHeader]');
  const open = bar.querySelector('.ep-group:not([hidden])');
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

#: Sixteen tokens and k = 15: 31 table sliders, 16 queries, 16 keys.
N = 16


def _measure_every_group(tab: AppTab, where: str) -> list[str]:
    """Open each group of sliders with the panels scrolled under the bar; what is wrong with the bar."""
    tab.page.evaluate(SCROLL_TO_WEIGHTS_JS)
    seen = []
    for name in ("Table", "Queries", "Keys"):
        tab.page.locator(".relpos-explorer-panel [role=tab]").filter(has_text=name).click()
        seen.append(tab.wait_layout_settled(BAR_JS, last_refit=False))
        if name == "Table":
            tab.screenshot(f"slider-bar-{where}-n{N}", full_page=False)
    problems = []
    if {bar["group"]: bar["sliders"] for bar in seen} != {"a": 2 * N - 1, "q": N, "keys": N}:
        problems.append(f"{where}: not every slider of every group is in the bar: {seen}")
    for bar in seen:
        group = f"{where}, group {bar['group']}"
        if bar["position"] != "sticky" or abs(bar["top"] - bar["headerBottom"]) > 2:
            problems.append(f"{group}: the bar is not stuck under the header while the panels scroll: {bar}")
        if bar["height"] > MOST * bar["viewport"]:
            problems.append(f"{group}: the bar takes {bar['height'] / bar['viewport']:.0%} of the screen's height")
        if bar["unreachable"]:
            problems.append(f"{group}: sliders out of reach: {bar['unreachable']}")
    return problems


# The slider named `label` as drawn: on screen inside the bar, not covered, with the keyboard's focus.
SLIDER_SHOWN_JS = """
(label) => {
  const input = [...document.querySelectorAll('.relpos-explorer-panel input[type=range]')]
    .find((candidate) => candidate.getAttribute('aria-label') === label);
  const bar = document.querySelector('.relpos-explorer-panel .ep-controls').getBoundingClientRect();
  const r = input.getBoundingClientRect();
  const inside = r.width > 0 && r.left >= bar.left - 1 && r.right <= bar.right + 1 && r.top >= bar.top - 1
    && r.bottom <= bar.bottom + 1 && r.right <= window.innerWidth + 1 && r.bottom <= window.innerHeight + 1;
  const hit = inside && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === input;
  return { shown: Boolean(hit), focused: document.activeElement === input, box: [r.left, r.top, r.right, r.bottom] };
}
"""
#: The slider the second "Try this first" question names (content/explorer_questions.md).
TASK_SLIDER = "aᴷ₊₂"


def _task_link_problems(tab: AppTab, where: str) -> list[str]:
    """Follow the second task's link to its slider, with another group open and the page at
    its top, as a reader does who reads the task first: the slider, far along a row that
    scrolls sideways on a phone or at 200 % zoom, must be on screen, reachable, focused."""
    tab.page.locator(".relpos-explorer-panel [role=tab]").filter(has_text="Keys").click()
    tab.page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    before = tab.page.evaluate(SLIDER_SHOWN_JS, TASK_SLIDER)
    link = tab.page.get_by_role("link", name=re.compile("slider"))
    if link.count() != 1:
        return [f"{where}: the task names the {TASK_SLIDER} slider without a link to it ({link.count()} links)"]
    url = tab.page.url
    link.click()
    tab.page.wait_for_timeout(300)  # a smooth scroll would still be moving
    shown = tab.page.evaluate(SLIDER_SHOWN_JS, TASK_SLIDER)
    tab.screenshot(f"slider-bar-{where}-task-link", full_page=False)
    problems = []
    if before["shown"]:
        problems.append(f"{where}: the {TASK_SLIDER} slider was on screen before the link was followed")
    if not (shown["shown"] and shown["focused"]):
        problems.append(f"{where}: after the task's link the {TASK_SLIDER} slider is not in view and focused: {shown}")
    if tab.page.url != url:
        problems.append(f"{where}: the link changed the address bar: {tab.page.url}")
    return problems


def _open_full_explorer(tab: AppTab) -> None:
    tab.open("explorer", {"n": N, "k": N - 1}, timeout=90)
    tab.page.wait_for_function(PANEL_PLOTS, timeout=60_000)
    tab.wait_drawn(timeout=60)


def test_on_a_laptop_and_at_200_percent_zoom(chromium, app_server):
    """One tab: the laptop's 1440 × 900 screen, then the same page zoomed to 200 % (the
    window resized to a 720 × 450 CSS viewport, as a browser's zoom does)."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(1440, 900))
    try:
        _open_full_explorer(tab)
        problems = _measure_every_group(tab, "1440x900")
        tab.page.set_viewport_size({"width": 720, "height": 450})
        tab.wait_drawn(timeout=60)
        problems += _measure_every_group(tab, "720x450-zoom200")
        problems += _task_link_problems(tab, "720x450-zoom200")
        assert not problems, "\n".join(problems)
        assert_clean(tab)
    finally:
        tab.close()


def test_on_a_phone(chromium, app_server):
    """390 × 844 with a finger: every control 44 px tall, the sliders in one row."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(390, 844), touch=True)
    try:
        _open_full_explorer(tab)
        problems = _measure_every_group(tab, "390x844-phone")
        problems += _task_link_problems(tab, "390x844-phone")
        assert not problems, "\n".join(problems)
        assert_clean(tab)
    finally:
        tab.close()


# Streamlit re-creates the component's container now and then (explorer_panel.js: attach, detach): the
# panel is taken out of the page, a spec of a new structure (presenter mode switched on) is
# built while it is out, and it is put back in the same place at the same width.
REBUILT_WHILE_OUT_JS = """
async () => {
  const log = window.__relposPanelLog;
  const panel = log.root();
  const container = panel.parentNode;
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const built = log.specs.length;
  container.removeChild(panel);
  const spec = { ...log.spec, presenter: !log.spec.presenter };
  panel.dispatchEvent(new CustomEvent('relpos-explorer-panel:load', { detail: { spec } }));
  while (log.specs.length === built) await frame();
  container.appendChild(panel);
  for (let i = 0; i < 5; i += 1) await frame();
  return [...panel.querySelectorAll('.ep-sliders')].map((grid) => [
    grid.closest('.ep-group').dataset.group, grid.style.getPropertyValue('--ep-columns'),
  ]);
}
"""


def test_sliders_built_while_the_panel_is_out_of_the_page_are_fitted_once_it_is_back(chromium, app_server):
    tab = AppTab.new(chromium, app_server.base_url, viewport=(1280, 720))
    try:
        tab.open("explorer", {"n": 8, "k": 7}, timeout=90)
        tab.page.wait_for_function(PANEL_PLOTS, timeout=60_000)
        grids = tab.page.evaluate(REBUILT_WHILE_OUT_JS)
        unfitted = [group for group, columns in grids if not columns]
        assert len(grids) == 3 and not unfitted, f"slider groups never fitted to the bar: {unfitted}"
        bar = tab.wait_layout_settled(BAR_JS, last_refit=False)
        tab.screenshot("slider-bar-1280x720-rebuilt-while-out", full_page=False)
        assert bar["height"] <= MOST * bar["viewport"], f"the bar takes {bar['height']} px of {bar['viewport']}"
    finally:
        tab.close()
