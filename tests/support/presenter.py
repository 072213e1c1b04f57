"""What a 1280 × 720 projector must show, measured in the browser: every walkthrough stop,
and the text of any chart (the walkthrough's and the Explorer's).

Shared by tests/walkthrough/test_presenter.py, tests/explorer/test_presenter.py and
bench/presenter_fit.py.
"""

from __future__ import annotations

import re

__all__ = [
    "DRAWN_JS",
    "FIGURE_TEXT_JS",
    "HEIGHT",
    "MEASURE_JS",
    "MIN_BODY_PX",
    "MIN_CONTRAST",
    "MIN_FIGURE_PX",
    "STOPS",
    "WIDTH",
    "check_stop",
    "contrast_on_white",
    "figure_text_problems",
    "inside",
]

WIDTH, HEIGHT = 1280, 720
STOPS = 20  # the textbook example: 4 rows × (4 pairs + 1 softmax)
#: Read from the back row: body text, and every text of a figure (px).
MIN_BODY_PX, MIN_FIGURE_PX = 22, 20
#: WCAG AA for text below 24 px: figure text on the chart's white, not a light grey.
MIN_CONTRAST = 4.5

# Where each part of the stop is, in viewport pixels (top, bottom), and its font sizes.
MEASURE_JS = """
() => {
  const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect(); return [r.top, r.bottom]; };
  const px = (el) => el ? parseFloat(getComputedStyle(el).fontSize) : null;
  const main = document.querySelector('[data-testid=stMain]');
  const heading = document.getElementById('current-stop');
  const charts = [...main.querySelectorAll('[data-testid=stPlotlyChart]')];
  const named = (word) => charts.find((c) => (c.getAttribute('aria-label') || c.textContent).includes(word));
  const scores = named('Scores');
  const weights = named('Weights of query');
  const shapes = scores ? [...scores.querySelectorAll('.shapelayer path')].map(box) : [];
  const formula = heading && heading.closest('[data-testid=stHorizontalBlock], [data-testid=stVerticalBlock]')
    .parentElement.querySelector('.katex-display');
  const stage = heading ? heading.closest('[data-testid=stLayoutWrapper]') || heading.parentElement : null;
  const takeaway = [...main.querySelectorAll('li')].find((li) => /gained|lost|same weight|weight/.test(li.textContent)
    && li.getBoundingClientRect().top > (heading ? heading.getBoundingClientRect().top : 0));
  const lists = takeaway ? [...takeaway.parentElement.children].map(box) : [];
  const sentence = [...main.querySelectorAll('[data-testid=stMarkdownContainer] p')]
    .find((p) => heading && p.getBoundingClientRect().top > heading.getBoundingClientRect().top);
  const cellText = scores ? [...scores.querySelectorAll('.hm text, g.textpoint text, .heatmaplayer text')] : [];
  const ticks = scores ? [...scores.querySelectorAll('.xtick text, .ytick text')] : [];
  return {
    heading: heading ? heading.textContent : null,
    nav: box(document.querySelector('.st-key-lesson-nav')),
    formula: box(formula), formulaPx: px(formula && formula.querySelector('.katex')),
    scores: box(scores), shapes, weights: box(weights), takeaway: lists,
    bodyPx: px(sentence), cellPx: cellText.map(px), tickPx: ticks.map(px),
  };
}
"""


# Plotly draws after the run: the score matrix has its cell numbers and its outline.
DRAWN_JS = """
() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')]
  .some((c) => (c.getAttribute('aria-label') || '').includes('Scores')
    && c.querySelector('.shapelayer path') && c.querySelector('g.textpoint text, .hm text'))
"""


def inside(part, top: float, bottom: float = HEIGHT) -> bool:
    return part is not None and part[0] >= top - 1 and part[1] <= bottom + 1


def check_stop(stop: int, m: dict) -> list[str]:
    """What is wrong with one stop's measurements (an empty list: nothing)."""
    problems = []
    nav_bottom = m["nav"][1] if m["nav"] else 0
    if not inside(m["nav"], 0):
        problems.append(f"navigation bar at {m['nav']}")
    if not inside(m["formula"], nav_bottom):
        problems.append(f"formula (to its last line) at {m['formula']}")
    if not m["shapes"] or not all(inside(shape, nav_bottom) for shape in m["shapes"]):
        problems.append(f"current cell outline at {m['shapes']}")
    softmax = m["heading"].startswith("Softmax")
    if softmax and not inside(m["weights"], nav_bottom):
        problems.append(f"weights chart at {m['weights']}")
    if softmax and not (m["takeaway"] and all(inside(item, nav_bottom) for item in m["takeaway"])):
        problems.append(f"takeaway at {m['takeaway']}")
    if (m["formulaPx"] or 0) < 28 - 0.5:
        problems.append(f"formula {m['formulaPx']} px < 28")
    if m["bodyPx"] is not None and m["bodyPx"] < 22 - 0.5:
        problems.append(f"body text {m['bodyPx']} px < 22")
    small = [size for size in m["cellPx"] + m["tickPx"] if size < 20 - 0.5]
    if not m["cellPx"] or small:
        problems.append(f"heatmap text below 20 px: {small or 'no cell numbers found'}")
    return [f"stop {stop} ({m['heading']}): {problem}" for problem in problems]


# Every text the charts under `selector` draw (an SVG text or tspan with text of its own):
# its size as drawn (the font size times the transforms Plotly applies, as when it shrinks
# a bar's label to fit), its fill, and whether it sits on a heatmap cell (drawn light or
# dark against the cell's colour, not against the chart's white).
FIGURE_TEXT_JS = """
(selector) => [...document.querySelectorAll(selector)].flatMap((chart) =>
  [...chart.querySelectorAll('svg text, svg tspan')]
    .filter((el) => [...el.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && node.textContent.trim())
      && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden'
      && !el.closest('.hoverlayer'))
    .map((el) => {
      const m = el.getScreenCTM();
      const style = getComputedStyle(el);
      return {
        chart: (chart.getAttribute('aria-label') || '').slice(0, 40),
        text: el.textContent.trim().slice(0, 40),
        px: parseFloat(style.fontSize) * Math.hypot(m.a, m.b),
        fill: style.fill,
        cell: !!el.closest('.heatmaplayer, .hm, g.textpoint, g.heatmap-label'),
      };
    }))
"""


def _channel(value: float) -> float:
    value /= 255
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def contrast_on_white(colour: str) -> float:
    """WCAG contrast of a CSS ``rgb()``/``rgba()`` colour (alpha blended) on white.

    >>> round(contrast_on_white("rgb(128, 132, 149)"), 2), round(contrast_on_white("rgb(34, 34, 34)"), 1)
    (3.72, 15.9)
    """
    numbers = [float(part) for part in re.findall(r"[\d.]+", colour)]
    red, green, blue, alpha = [*numbers, 1.0][:4]
    blended = [alpha * value + (1 - alpha) * 255 for value in (red, green, blue)]
    luminance = sum(weight * _channel(value) for weight, value in zip((0.2126, 0.7152, 0.0722), blended, strict=True))
    return 1.05 / (luminance + 0.05)


def figure_text_problems(texts: list[dict]) -> list[str]:
    """What :data:`FIGURE_TEXT_JS` found too small (below 20 px as drawn) or too faint on the
    chart's white (below 4.5:1; a cell's number is drawn against its cell instead)."""
    problems = [f"{t['chart']}: {t['text']!r} at {t['px']:.1f} px" for t in texts if t["px"] < MIN_FIGURE_PX - 0.5]
    problems += [
        f"{t['chart']}: {t['text']!r} in {t['fill']} ({contrast_on_white(t['fill']):.2f}:1 on white)"
        for t in texts
        if not t["cell"] and contrast_on_white(t["fill"]) < MIN_CONTRAST
    ]
    return problems
