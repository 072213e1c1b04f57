"""Figures carry only the part of their template that styles the app's trace types (no Streamlit).

Streamlit makes its own template Plotly's default when it is imported: styles for ten
trace types (candlestick, sankey, table, waterfall …) whose colours its frontend fills in
from the theme. Every figure carries its template to the browser, 3.7 KB each, sent again
whenever a figure is redrawn; the app draws three trace types (:data:`TRACE_TYPES`), and a
template's entry for any other type styles nothing. :func:`use_lean_default` makes a copy
holding only those three entries (and all of its layout: the colour way and colour scales)
the default, so every figure starts from it: it looks exactly as before and weighs less.
"""

from __future__ import annotations

import plotly.io as pio

__all__ = ["LEAN_NAME", "TRACE_TYPES", "use_lean_default"]

#: Every trace type a figure of the app is drawn with (tests/test_plotly_trim.py checks
#: every page); relpos.static.plotly_trim serves a plotly.js with these alone.
TRACE_TYPES = ("scatter", "bar", "heatmap")


def _lean_copy(name: str) -> dict:
    """The registered template `name` as JSON, with the styles of :data:`TRACE_TYPES` only."""
    full = pio.templates[name].to_plotly_json()
    styles = {kind: entries for kind, entries in full.get("data", {}).items() if kind in TRACE_TYPES}
    return {"data": styles, "layout": full.get("layout", {})}


#: The name :func:`use_lean_default` registers the lean copy of the default template under.
LEAN_NAME = "relpos_lean"


def use_lean_default() -> None:
    """Make the lean copy of the default template (Streamlit's, once Streamlit is imported)
    the default, once per process.

    Every figure starts as a copy of the default template: with the lean one it copies
    three trace types' styles instead of ten, and nothing is traded away when it is shown
    (a sixth of a chart-heavy page's run went to copying and comparing templates).
    """
    name = pio.templates.default
    if not isinstance(name, str) or name not in pio.templates or name == LEAN_NAME:
        return
    pio.templates[LEAN_NAME] = _lean_copy(name)
    pio.templates.default = LEAN_NAME
