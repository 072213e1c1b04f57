"""The long-context page in Chromium: at a 1280 × 720 projector in presenter mode every
figure text is 20 px or more; on a phone each group of panels goes two a row."""

from __future__ import annotations

import pytest

from tests.support.browser import AppTab
from tests.support.pages import assert_clean
from tests.support.ui_contract import contract, page_spec

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SPEC = page_spec("pages/long_context.py")
#: Every text of every chart of the main area: its size (px) and what it says.
CHART_TEXTS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart] .main-svg text')]
  .filter((text) => text.textContent.trim())
  .map((text) => [parseFloat(getComputedStyle(text).fontSize), text.textContent.slice(0, 40)])"""


def test_presenter_mode_draws_every_figure_text_at_20_px_or_more(chromium, app_server):
    tab = AppTab.new(chromium, app_server.base_url, viewport=(1280, 720))
    try:
        tab.open(SPEC.url_path, {"presenter": 1}, timeout=90)
        tab.wait_plots(contract(SPEC).min_charts, timeout=60)
        assert_clean(tab)
        texts = tab.page.evaluate(CHART_TEXTS)
        assert len(texts) > 100
        small = [text for text in texts if text[0] < 20]
        assert not small, f"figure texts below 20 px in presenter mode: {small[:10]}"
        tab.screenshot("long_context-presenter-1280x720")
    finally:
        tab.close()


def test_a_phone_gets_two_panels_a_row(chromium, app_server):
    tab = AppTab.new(chromium, app_server.base_url, viewport=(390, 844), touch=True)
    try:
        tab.open(SPEC.url_path, timeout=90)
        tab.wait_plots(contract(SPEC).min_charts, timeout=60)
        assert_clean(tab)
        # the six methods' panels: three rows of two (two distinct x domains)
        lefts = tab.page.evaluate(
            """() => { const chart = [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
                 .find((plot) => plot._fullLayout.title.text.includes('Score against distance, out to'));
               return [1, 2, 3, 4, 5, 6].map((k) => chart._fullLayout[k === 1 ? 'xaxis' : `xaxis${k}`].domain[0]); }"""
        )
        assert len(set(lefts)) == 2, lefts
        tab.screenshot("long_context-phone-390x844")
    finally:
        tab.close()
