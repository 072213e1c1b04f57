"""What a 1280 × 720 projector must show at every walkthrough stop, measured in the browser.

Shared by tests/walkthrough/test_presenter.py and bench/presenter_fit.py.
"""

from __future__ import annotations

__all__ = ["DRAWN_JS", "HEIGHT", "MEASURE_JS", "STOPS", "WIDTH", "check_stop", "inside"]

WIDTH, HEIGHT = 1280, 720
STOPS = 20  # the textbook example: 4 rows × (4 pairs + 1 softmax)

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
