"""The default Plotly template, kept to the trace types the app draws (no Streamlit).

Streamlit makes its own template Plotly's default when it is imported: styles for ten
trace types (candlestick, sankey, table, waterfall …) whose colours its frontend fills in
from the theme. Every figure carries its template to the browser, 3.7 KB each, sent again
whenever a figure is redrawn; the app draws three trace types (:data:`TRACE_TYPES`), and a
template's entry for any other type styles nothing. :func:`lean_default_template` makes a
copy of the default holding only those three entries (and all of its layout: the colour
way and colour scales) the default, so figures look exactly as before and weigh less.
"""

from __future__ import annotations

import plotly.io as pio

__all__ = ["LEAN_SUFFIX", "TRACE_TYPES", "lean_default_template"]

#: Every trace type a figure of the app is drawn with (tests/test_plotly_trim.py checks
#: every page); relpos.server.plotly_trim serves a plotly.js with these alone.
TRACE_TYPES = ("scatter", "bar", "heatmap")
#: Added to the default template's name for its lean copy.
LEAN_SUFFIX = "-lean"


def lean_default_template() -> str:
    """Register a copy of the current default template with data styles for
    :data:`TRACE_TYPES` only, make it the default, and return its name (once lean, the
    default stays as it is)."""
    name = pio.templates.default
    if not isinstance(name, str) or name.endswith(LEAN_SUFFIX):
        return name
    full = pio.templates[name].to_plotly_json()
    styles = {kind: entries for kind, entries in full.get("data", {}).items() if kind in TRACE_TYPES}
    pio.templates[name + LEAN_SUFFIX] = {"data": styles, "layout": full.get("layout", {})}
    pio.templates.default = name + LEAN_SUFFIX
    return name + LEAN_SUFFIX
