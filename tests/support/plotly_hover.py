"""Hover labels as plotly.js itself writes them, read from a real Chromium.

The hover tests used to fill the templates in with a Python re-implementation of Plotly's
templating; a mistake shared by the template and that re-implementation passed unseen.
Here each figure is drawn by the plotly.js of the installed ``plotly`` package (no
network) and hovered with ``Plotly.Fx.hover``; the label is read from the SVG.

Plain-text form: lines joined by newlines, ``<sup>x</sup>`` as ``^x`` and ``<sub>x</sub>``
as ``_x`` (plotly.js draws both as smaller shifted text), the trace-name box left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import plotly
import plotly.graph_objects as go

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"

#: Draw `spec` into a fresh div and return the page coordinates of data point (x, y).
DRAW_JS = """
async ({spec, x, y}) => {
  const old = document.getElementById('figure');
  if (old) { Plotly.purge(old); old.remove(); }
  const gd = document.createElement('div');
  gd.id = 'figure';
  document.body.appendChild(gd);
  spec.layout.width = 700;
  spec.layout.height = 700;
  await Plotly.newPlot(gd, spec.data, spec.layout);
  const box = gd.getBoundingClientRect();
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  return {x: box.left + xa._offset + xa.d2p(x), y: box.top + ya._offset + ya.d2p(y)};
}
"""

#: The hover label's lines; plotly.js draws sup/sub as 70 % text shifted up (dy < 0)
#: or down (dy > 0).
LABEL_JS = """
() => {
  const text = document.querySelector('#figure .hoverlayer .hovertext text.nums');
  if (!text) return null;
  const plain = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return node.textContent;
    let out = '';
    for (const child of node.childNodes) {
      const element = child.nodeType === Node.ELEMENT_NODE;
      const small = element && (child.getAttribute('style') || '').includes('font-size:70%');
      out += small ? ((child.getAttribute('dy') || '').startsWith('-') ? '^' : '_') + plain(child) : plain(child);
    }
    return out;
  };
  const lines = text.querySelectorAll('tspan.line');
  return lines.length ? Array.from(lines, plain).join('\\n') : plain(text);
}
"""


def _coordinate(values, start, step, index: int) -> float:
    """Data coordinate of cell `index` along an axis given as an array or as start and step."""
    if values is not None:
        return values[index]
    return (start or 0) + index * (step or 1)


class PlotlyHover:
    """One blank page with plotly.js loaded; :meth:`label` draws and hovers a figure."""

    def __init__(self, browser: Any):
        self.page = browser.new_page()
        self.page.set_content("<!doctype html><html><body></body></html>")
        self.page.add_script_tag(path=str(PLOTLY_JS))

    def label(self, fig: go.Figure, i: int, j: int, *, curve: int = 0) -> str:
        """The hover label of cell (i, j) (0-based row, column) of trace `curve` of `fig`,
        hovered with the mouse as a learner would."""
        trace = fig.data[curve]
        x = _coordinate(trace.x, trace.x0, trace.dx, j)
        y = _coordinate(trace.y, trace.y0, trace.dy, i)
        spec = json.loads(fig.to_json())  # NumPy arrays as plotly.js's typed arrays
        point = self.page.evaluate(DRAW_JS, {"spec": spec, "x": x, "y": y})
        self.page.mouse.move(point["x"] + 1, point["y"] + 1)
        self.page.mouse.move(point["x"], point["y"])
        self.page.locator("#figure .hoverlayer .hovertext").first.wait_for(state="attached", timeout=5000)
        text = self.page.evaluate(LABEL_JS)
        if text is None:
            raise AssertionError(f"plotly.js showed no hover label at ({i}, {j})")
        return text.replace("\u200b", "")  # plotly.js pads sub/superscripts with zero-width spaces

    def close(self) -> None:
        self.page.close()
