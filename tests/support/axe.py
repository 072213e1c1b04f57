"""axe-core over a page of the app: what is checked, what is excluded and why, and the run.

Excluded, and why (the only exclusions):

* ``[data-testid=stSidebarNav]``, Streamlit's own page list in the sidebar, from every rule.
  Streamlit renders each section's ``<ul>`` with ``<div>`` children and ``<li>`` elements
  outside a list (axe rules ``list`` and ``listitem``); the app only names its pages (via
  ``st.navigation``) and cannot change that markup.
* The text Plotly draws inside a chart's SVG, from the colour-contrast rule alone. axe-core
  cannot find the background of SVG text, so it files every such text under "needs review",
  never as a pass or a violation (all 2,694 on the app's pages, in either theme); working that
  out was most of the audit's time (/schemes: the contrast rule took 5.8 s, 2.6 s without
  them) and could never fail a page. The charts' own colours are checked against the page
  where they are chosen, in both themes (tests/test_theme.py: text, guides, categories); a
  heatmap's cell numbers are black or white as plotly.js picks for each cell's colour.
Shared by tests/test_accessibility.py and bench/axe_pages.py.
"""

from __future__ import annotations

import json

from tests.support.browser import ARTIFACTS, AppTab
from tests.support.pages import PANEL_PLOTS

__all__ = [
    "CONTRAST_EXCLUDED",
    "EXCLUDED_ELEMENTS",
    "MAX_HEIGHT",
    "TAGS",
    "WIDTH",
    "audit",
    "axe_violations",
    "describe",
    "open_presenter_explorer",
    "open_presenter_walkthrough",
    "run_axe",
]

#: Streamlit's own markup the app cannot change (see the module docstring).
EXCLUDED_ELEMENTS = [["[data-testid=stSidebarNav]"]]
#: What the colour-contrast rule skips besides: Plotly's SVG text (see the module docstring).
CONTRAST_EXCLUDED = [[".js-plotly-plot svg"]]
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
WIDTH, MAX_HEIGHT = 1440, 16_000

# Every rule of TAGS but colour contrast over the page, then colour contrast over the page
# without the charts' SVG text; one list of violations. (axe.run calls must not overlap.)
_AXE_RUN_JS = """
async ([excluded, contrastExcluded, tags]) => {
  const options = { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] };
  const rest = await axe.run({ exclude: excluded }, { ...options, rules: { 'color-contrast': { enabled: false } } });
  const contrast = await axe.run(
    { exclude: [...excluded, ...contrastExcluded] },
    { runOnly: { type: 'rule', values: ['color-contrast'] }, resultTypes: ['violations'] });
  return [...rest.violations, ...contrast.violations];
}
"""


def axe_violations(axe, page) -> list[dict]:
    """axe-core's violations of the WCAG 2.0/2.1 A/AA and best-practice rules on `page` as it
    is now, with the exclusions of the module docstring."""
    page.evaluate(axe.axe_script)  # the package's copy of axe.min.js: no CDN
    return page.evaluate(_AXE_RUN_JS, [EXCLUDED_ELEMENTS, CONTRAST_EXCLUDED, TAGS])


def run_axe(axe, tab: AppTab) -> list[dict]:
    """Every violation axe-core finds on the whole page (tall viewport), Streamlit's sidebar list aside."""
    height = tab.page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    tab.page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 80, MAX_HEIGHT)})
    # Plotly draws after the run, and the formulas are fitted after that: /schemes has 24
    # charts, which a busy 2-core machine takes well over 30 s to draw
    tab.wait_drawn(timeout=120)
    tab.wait_layout_settled(timeout=60, last_refit=True)  # the last refit, after fonts and charts sized themselves
    return axe_violations(axe, tab.page)


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
    tab.open("walkthrough", {"i": 2, "j": "softmax", "presenter": 1}, timeout=90)
    tab.page.get_by_text("Edit the numbers").click()


def open_presenter_explorer(tab: AppTab) -> None:
    """The Explorer in presenter mode (a lesson link's ``presenter=1``) once its Explorer panel,
    laid out for a projector, has drawn its seven panels (it mounts after the run)."""
    tab.open("explorer", {"presenter": 1}, timeout=90)
    tab.page.wait_for_function(PANEL_PLOTS, timeout=60_000)
    assert tab.page.locator(".relpos-explorer-panel.ep-presenter").count() == 1, (
        "the Explorer panel is not in its presenter layout"
    )


def describe(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}, {len(violation['nodes'])}×): {violation['help']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    {json.dumps(node['target'])[:200]}: {node['failureSummary'][:200]!r}")
            lines.append(f"      {node.get('html', '')[:300]}")
    return "\n".join(lines)
