"""What a reader of the dark theme sees, measured in a browser: the page's colour, and each
chart's paper, plot area and text. Shared by tests/test_theme.py and tests/test_accessibility.py."""

from __future__ import annotations

from relpos.plots import style
from tests.support.browser import SELECTORS, AppTab

__all__ = ["assert_drawn_dark", "chart_colours", "contrast", "hex_colour", "luminance", "page_colour", "turn_dark"]


def luminance(colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``.

    >>> round(luminance("#ffffff"), 3), round(luminance("#000000"), 3)
    (1.0, 0.0)
    """
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours.

    >>> round(contrast("#767676", "#ffffff"), 2)
    4.54
    """
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def hex_colour(rgb: str) -> str:
    """``rgb(23, 22, 20)`` as ``#171614``.

    >>> hex_colour("rgb(23, 22, 20)")
    '#171614'
    """
    return "#" + "".join(f"{int(part):02x}" for part in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])


#: A CSS colour as the browser normalises it (#rrggbb), for the scripts below.
_HEX_JS = """
  const probe = document.createElement('canvas').getContext('2d');
  const hex = (colour) => {
    probe.fillStyle = '#010203';
    probe.fillStyle = colour || '#010203';
    return probe.fillStyle;
  };
"""

#: Every chart's colours as drawn: page and plot background, text, and the colour of each
#: named trace's markers (normalised by the browser to #rrggbb).
CHART_COLOURS_JS = (
    """
(selector) => {"""
    + _HEX_JS
    + """  return [...document.querySelectorAll(selector)].map((el) => {
    const layout = el._fullLayout;
    const markers = {};
    for (const trace of el._fullData) {
      const colour = trace.marker && trace.marker.color;
      if (trace.name && typeof colour === 'string') markers[trace.name] = hex(colour);
    }
    const title = layout.title && layout.title.text || '';
    return { title, panel: !!el.closest('.relpos-explorer-panel'), paper: hex(layout.paper_bgcolor),
             plot: hex(layout.plot_bgcolor), text: hex(layout.font.color), markers };
  });
}
"""
)
PAGE_JS = "() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor"

#: True once the page, the theme component's last run and every drawn chart (the Explorer
#: panel's too) are dark.
_ALL_ON_JS = (
    """
([selector, page]) => {"""
    + _HEX_JS
    + """  const app = document.querySelector('[data-testid=stApp]');
  if (!app || hex(getComputedStyle(app).backgroundColor) !== page) return false;
  // the run relpos.ui.theme asked for has come back drawn in the dark theme
  const drawn = document.querySelector('[data-relpos-theme]');
  if (!drawn || drawn.dataset.relposTheme !== 'dark') return false;
  return [...document.querySelectorAll(selector)]
    .every((el) => el._fullLayout && hex(el._fullLayout.paper_bgcolor) === page);
}
"""
)


def chart_colours(tab: AppTab) -> list[dict]:
    """Each chart's colours as drawn (see :data:`CHART_COLOURS_JS`)."""
    return tab.page.evaluate(CHART_COLOURS_JS, SELECTORS["plot"])


def page_colour(tab: AppTab) -> str:
    """The page's background as ``#rrggbb``."""
    return hex_colour(tab.page.evaluate(PAGE_JS))


def assert_drawn_dark(tab: AppTab, where: str) -> list[dict]:
    """The page is the dark theme's, and every chart on it is drawn on the dark page with
    a dark plot area and light text (7:1); returns the charts' colours."""
    page = page_colour(tab)
    assert page == style.DARK.page, f"{where}: the page is {page}, not the dark theme's"
    charts = chart_colours(tab)
    for chart in charts:
        name = f"{where}: {'Explorer panel ' if chart['panel'] else ''}chart {chart['title']!r}"
        assert chart["paper"] == style.DARK.page, f"{name} is drawn on {chart['paper']}"
        assert luminance(chart["plot"]) < 0.1, f"{name} has a light plot area, {chart['plot']}"
        assert contrast(chart["text"], style.DARK.page) >= 7, f"{name} writes in {chart['text']}"
    return charts


def turn_dark(tab: AppTab, *, timeout: float = 90) -> None:
    """Turn the reader's system setting dark in an open tab, and wait until the page and
    every chart are redrawn dark and the page is drawn and still again.

    "System", the app's default theme, follows the setting at once; relpos.ui.theme then
    reruns the page so its figures take the dark palette.
    """
    tab.page.emulate_media(color_scheme="dark")
    tab.page.wait_for_function(_ALL_ON_JS, arg=[SELECTORS["plot"], style.DARK.page], timeout=timeout * 1000)
    tab.wait_drawn(timeout=timeout)
