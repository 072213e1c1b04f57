"""axe-core over a page of the app: what is checked, what is excluded and why, and the run.

Excluded, and why (the only exclusion): ``[data-testid=stSidebarNav]``, Streamlit's own
page list in the sidebar. Streamlit renders each section's ``<ul>`` with ``<div>``
children and ``<li>`` elements outside a list (axe rules ``list`` and ``listitem``); the
app only names its pages (via ``st.navigation``) and cannot change that markup.
Shared by tests/test_accessibility.py and bench/axe_pages.py.
"""

from __future__ import annotations

import json

from tests.support.browser import ARTIFACTS, AppTab
from tests.support.pages import LIVE_PLOTS

__all__ = [
    "EXCLUDED_ELEMENTS",
    "MAX_HEIGHT",
    "TAGS",
    "WIDTH",
    "audit",
    "describe",
    "open_presenter_explorer",
    "open_presenter_walkthrough",
    "run_axe",
]

#: Streamlit's own markup the app cannot change (see the module docstring).
EXCLUDED_ELEMENTS = [["[data-testid=stSidebarNav]"]]
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
WIDTH, MAX_HEIGHT = 1440, 16_000


def run_axe(axe, tab: AppTab) -> list[dict]:
    """Every violation axe-core finds on the whole page (tall viewport), Streamlit's sidebar list aside."""
    height = tab.page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    tab.page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 80, MAX_HEIGHT)})
    # Plotly draws after the run, and the formulas are fitted after that: /schemes has 24
    # charts, which a busy 2-core machine takes well over 30 s to draw
    tab.wait_drawn(timeout=120)
    tab.wait_layout_settled(timeout=60, last_refit=True)  # the last refit, after fonts and charts sized themselves
    context = {"exclude": EXCLUDED_ELEMENTS}
    options = {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]}
    return axe.run(tab.page, context=context, options=options).response["violations"]


def audit(axe, tab: AppTab, report: str, *, screenshot: str) -> list[dict]:
    """:func:`run_axe`, then a screenshot (``test-artifacts/screens/<screenshot>.png``) and
    the violations written to ``test-artifacts/axe/<report>.json``; returns them."""
    violations = run_axe(axe, tab)
    tab.screenshot(screenshot)
    path = ARTIFACTS / "axe" / f"{report}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(violations, indent=1), encoding="utf-8")
    return violations


def open_presenter_walkthrough(tab: AppTab) -> None:
    """The walkthrough in presenter mode with its number editor open: presenter mode
    rearranges the page (pickers in the bar, the editor in the main area)."""
    tab.open("worked_example", {"i": 2, "j": "softmax", "presenter": 1}, timeout=90)
    tab.page.get_by_text("Edit the numbers").click()


def open_presenter_explorer(tab: AppTab) -> None:
    """The Explorer in presenter mode (a lesson link's ``presenter=1``) once its live panel,
    laid out for a projector, has drawn its seven panels (it mounts after the run)."""
    tab.open("explorer", {"presenter": 1}, timeout=90)
    tab.page.wait_for_function(LIVE_PLOTS, timeout=60_000)
    assert tab.page.locator(".relpos-live.rl-presenter").count() == 1, "the live panel is not in its presenter layout"


def describe(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}, {len(violation['nodes'])}×): {violation['help']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    {json.dumps(node['target'])[:200]}: {node['failureSummary'][:200]!r}")
            lines.append(f"      {node.get('html', '')[:300]}")
    return "\n".join(lines)
