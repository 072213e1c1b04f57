"""axe-core violations per page, side by side for one or more checkouts.

For each checkout given (a directory holding app.py; default: this repository) starts
``streamlit run app.py``, opens every page of relpos.ui.navigation.PAGES at 1440 px wide
in a viewport as tall as the page (so axe checks every element), runs axe-core (from the
``axe-playwright-python`` package, no CDN) with the WCAG 2.0/2.1 A/AA and best-practice
rules, with the exclusions of tests/support/axe.py (Streamlit's sidebar page list; Plotly's
SVG text from the contrast rule), and
prints the number of violating elements per page and per rule.

    python bench/axe_pages.py                      # this checkout
    python bench/axe_pages.py /tmp/main-export .   # before / after, in one run
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from axe_playwright_python.sync_playwright import Axe  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from relpos.ui.navigation import PAGES  # noqa: E402
from tests.support.axe import MAX_HEIGHT, WIDTH, axe_violations  # noqa: E402
from tests.support.browser import ARTIFACTS, AppTab, StreamlitServer, launch_chromium  # noqa: E402


def violations_per_page(browser, axe: Axe, checkout: Path) -> dict[str, dict[str, int]]:
    """{url_path: {rule id: violating elements}} for every page of one checkout."""
    found = {}
    log = ARTIFACTS / f"streamlit-axe-{checkout.name or 'root'}.log"
    with StreamlitServer(checkout / "app.py", log_path=log) as server:
        for spec in PAGES:
            tab = AppTab.new(browser, server.base_url, viewport=(WIDTH, 900))
            tab.open(spec.url_path, timeout=90)
            height = tab.page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
            tab.page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 80, MAX_HEIGHT)})
            tab.wait_idle()
            tab.page.wait_for_timeout(400)
            found[spec.url_path] = {v["id"]: len(v["nodes"]) for v in axe_violations(axe, tab.page)}
            tab.close()
    return found


def main(argv: list[str]) -> None:
    checkouts = [Path(arg).resolve() for arg in argv] or [ROOT]
    axe = Axe()
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        tables = [violations_per_page(browser, axe, checkout) for checkout in checkouts]
        browser.close()
    print(f"{'page':<18}" + "".join(f"{str(c)[-28:]:>30}" for c in checkouts))
    for spec in PAGES:
        counts = [table[spec.url_path] for table in tables]
        print(f"{spec.url_path:<18}" + "".join(f"{sum(c.values()):>30}" for c in counts))
        for count in counts:
            if count:
                print("    " + json.dumps(count))
    print(f"{'total':<18}" + "".join(f"{sum(sum(c.values()) for c in t.values()):>30}" for t in tables))


if __name__ == "__main__":
    main(sys.argv[1:])
