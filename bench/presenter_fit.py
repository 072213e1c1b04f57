"""Where each part of every walkthrough stop lands at a 1280 × 720 projector.

Opens the walkthrough in presenter mode in Chromium at 1280 × 720 and, for each of the 20
stops, prints in viewport pixels the bottom of the sticky navigation bar, the bottom of
the formula (to its score line, or the softmax's last line), the score matrix's top and
the bottom of its current cell outline, the takeaway's bottom at softmax stops, and the
font sizes (formula, body, smallest heatmap text). Everything must end above 720 (the
fold); tests/walkthrough/test_presenter.py asserts it, this prints the numbers.

    python bench/presenter_fit.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support.browser import AppTab, StreamlitServer, launch_chromium  # noqa: E402
from tests.support.presenter import DRAWN_JS, HEIGHT, MEASURE_JS, STOPS, WIDTH  # noqa: E402


def _bottom(part) -> str:
    return "—" if not part else f"{part[1]:.0f}"


def main() -> None:
    with StreamlitServer(ROOT / "app.py") as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        tab = AppTab.new(browser, server.base_url, viewport=(WIDTH, HEIGHT))
        tab.open("walkthrough", {"i": 1, "j": 1, "presenter": 1})
        print(f"{'stop':<30}{'nav':>5}{'formula':>8}{'matrix':>7}{'cell':>6}{'takeaway':>9}  px: formula body figure")
        worst = 0.0
        for stop in range(1, STOPS + 1):
            tab.page.wait_for_function(DRAWN_JS)
            tab.page.wait_for_timeout(150)
            m = tab.page.evaluate(MEASURE_JS)
            cell = max((shape[1] for shape in m["shapes"]), default=None)
            softmax = m["heading"].startswith("Softmax")
            takeaway = max((item[1] for item in m["takeaway"]), default=None) if softmax else None
            worst = max(worst, *(v for v in (m["formula"][1], cell, takeaway or 0) if v is not None))
            figure_px = min(m["cellPx"] + m["tickPx"], default=0)
            print(
                f"{stop:>2} {m['heading'][:27]:<27}{_bottom(m['nav']):>5}{_bottom(m['formula']):>8}"
                f"{m['scores'][0]:>7.0f}{cell or 0:>6.0f}{takeaway or 0:>9.0f}"
                f"  {m['formulaPx']:.1f} {m['bodyPx'] or 0:.0f} {figure_px:.0f}"
            )
            if stop < STOPS:
                tab.click("Next")
        print(f"lowest bottom of any required part: {worst:.0f} px (fold at {HEIGHT})")
        tab.close()
        browser.close()


if __name__ == "__main__":
    main()
