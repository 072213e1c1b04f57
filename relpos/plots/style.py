"""One style for every figure: fonts, margins, colours and colour scales (no Streamlit).

Every figure module takes its sizes and colours from here, so a presenter-mode change or
a contrast fix is made once. Constants are immutable (numbers, strings, tuples, frozen
dataclasses); the helpers return fresh dicts that a figure may change freely.

Colours are colour-blind safe: the Okabe–Ito palette for categories, ColorBrewer's
diverging RdBu for scores (blue negative, white zero, red positive), Viridis for weights
in [0, 1] and ColorBrewer's PuOr for offsets.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType

__all__ = [
    "AXIS_TITLE_SIZE",
    "BAR_MARGIN",
    "BLANK_CELL",
    "CELL_TEXT_SIZE",
    "CHART_MARGIN",
    "CONTENT_COLOUR",
    "CURVE",
    "DARK_GUIDE_GREY",
    "DEFAULT_HEATMAP",
    "DIVERGING",
    "FADED_LINE",
    "FASTEST_METHOD",
    "FAST_METHOD",
    "FONT_SIZE",
    "GRID_GREY",
    "GRID_MARGIN",
    "GROWTH_MARGIN",
    "GUIDE_GREY",
    "INK",
    "LEFTOVER_GREY",
    "LIGHT_GUIDE_GREY",
    "MATRIX_MARGIN",
    "NEEDED_ANYWAY",
    "OFFSET_CELLS_SCALE",
    "OFFSET_MAP_SCALE",
    "OKABE_ITO",
    "OUTPUT_COLOUR",
    "PANEL_MARGIN",
    "POSITION_COLOUR",
    "REUSED",
    "SCHEME_COLOURS",
    "SEQUENTIAL",
    "SLOW_METHOD",
    "SMALL_FONT_SIZE",
    "SMALL_LABEL_SIZE",
    "SMALL_PANEL_MARGIN",
    "SMALL_TEXT_SIZE",
    "STRIP_COLUMN_MARGIN",
    "STRIP_ROW_MARGIN",
    "TITLE_SIZE",
    "TRAINED_FILL",
    "TRANSLATION_BARS_MARGIN",
    "TRANSPARENT",
    "UNTRAINED",
    "VALUE_MARGIN",
    "WEIGHT_BARS_MARGIN",
    "WEIGHT_COLOURS",
    "HeatmapStyle",
    "Margin",
    "axis_title",
    "centred_title",
]

# ------------------------------------------------------------------ colour scales

#: Scores (content, bias, combined, differences): ColorBrewer RdBu reversed, so
#: negative is blue, zero white and positive red; always centred on 0.
DIVERGING = "RdBu_r"
#: Weights in [0, 1]: perceptually uniform and colour-blind safe.
SEQUENTIAL = "Viridis"
#: The offset map's table rows −k..+k (ColorBrewer PuOr).
OFFSET_MAP_SCALE = "PuOr"
#: Cells labelled by offset in the efficiency grids: PuOr with a grey centre, so
#: offset-0 cells stand out from empty (white) cells.
OFFSET_CELLS_SCALE = (
    "rgb(127,59,8)",
    "rgb(179,88,6)",
    "rgb(224,130,20)",
    "rgb(253,184,99)",
    "rgb(254,224,182)",
    "rgb(205,205,205)",
    "rgb(216,218,235)",
    "rgb(178,171,210)",
    "rgb(128,115,172)",
    "rgb(84,39,136)",
    "rgb(45,0,75)",
)

# ------------------------------------------------------------------ colours

#: Okabe–Ito: blue, orange, bluish green, reddish purple, sky blue, vermilion, yellow, black.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
#: Value-side parts: content (blue), position (orange, hatched) and their sum.
CONTENT_COLOUR, POSITION_COLOUR = OKABE_ITO[0], OKABE_ITO[1]
#: Text and markers that must read on white.
INK = "#222222"
OUTPUT_COLOUR = INK
#: Bars of content-only vs combined weights: grey baseline, Okabe–Ito blue.
WEIGHT_COLOURS = MappingProxyType({"content-only": "#9a9a9a", "combined": OKABE_ITO[0]})
#: One colour per position scheme, the same on every chart of the training page.
SCHEME_COLOURS = MappingProxyType(
    {
        "none": "#999999",
        "absolute": OKABE_ITO[5],
        "sinusoidal": OKABE_ITO[1],
        "shaw": OKABE_ITO[0],
        "t5": OKABE_ITO[2],
        "alibi": OKABE_ITO[3],
        "rope": OKABE_ITO[4],
    }
)
#: Curves of the schemes page: the main curve, values reused by clipping, values
#: never trained (and, in bars, the largest learned bias).
CURVE, REUSED, UNTRAINED = OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[5]
#: Shading of the offsets (or positions) seen in training (Okabe–Ito green, faint).
TRAINED_FILL = "rgba(0, 158, 115, 0.13)"
#: Curves in the background (ALiBi's other heads).
FADED_LINE = "#b9c6d3"
#: Methods on the Efficient computation page: the slow naive gather, what is needed
#: anyway, the fast ones (RdBu's ends, a grey and a green: told apart without hue).
SLOW_METHOD, NEEDED_ANYWAY, FAST_METHOD, FASTEST_METHOD = "#b2182b", "#777777", "#2166ac", "#1b7837"
#: Background of matrix cells with no value yet (distinct from the white of a zero score).
BLANK_CELL = "#e6e6e6"
#: Text of grid cells that hold a leftover or a pad, not a real logit.
LEFTOVER_GREY = "#9a9a9a"
#: Reference lines (y = 0, the current k, the sums' separator).
GUIDE_GREY = "#888888"
LIGHT_GUIDE_GREY = "#bbbbbb"
DARK_GUIDE_GREY = "#555555"
#: Grid lines of bar charts.
GRID_GREY = "#dddddd"
#: No fill (cell outlines).
TRANSPARENT = "rgba(0,0,0,0)"

# ------------------------------------------------------------------ fonts (px)

#: Body text of a figure: tick labels, legends, bar values.
FONT_SIZE = 14
#: Body text of dense figures (grids of labelled cells, curves, small panels).
SMALL_FONT_SIZE = 13
#: Figure titles.
TITLE_SIZE = 15
#: Axis titles.
AXIS_TITLE_SIZE = 13
#: Numbers printed in heatmap cells.
CELL_TEXT_SIZE = 14
#: Small panels' text, the memory strip's cell labels, annotations.
SMALL_LABEL_SIZE = 12
#: Colour-bar ticks, small panels' legends and cell numbers.
SMALL_TEXT_SIZE = 11
#: Presenter mode (a projector): no figure text below this many px, read from the back row.
PRESENTER_MIN_FONT = 20


def axis_title(text: str, **extra) -> dict:
    """An axis title in the shared axis-title font.

    >>> axis_title("key position j")
    {'text': 'key position j', 'font': {'size': 13}}
    """
    return {"text": text, "font": {"size": AXIS_TITLE_SIZE}, **extra}


def centred_title(text: str, **extra) -> dict:
    """A figure title centred over the plot.

    >>> centred_title("t", font={"size": TITLE_SIZE})
    {'text': 't', 'x': 0.5, 'xanchor': 'center', 'font': {'size': 15}}
    """
    return {"text": text, "x": 0.5, "xanchor": "center", **extra}


# ------------------------------------------------------------------ margins (px)


@dataclass(frozen=True)
class Margin:
    """A figure's margins in px (left, right, top, bottom).

    >>> Margin(60, 20, 60, 50).plotly()
    {'l': 60, 'r': 20, 't': 60, 'b': 50}
    """

    left: int
    right: int
    top: int
    bottom: int

    def plotly(self) -> dict:
        """The margins as Plotly's layout.margin (a new dict)."""
        return {"l": self.left, "r": self.right, "t": self.top, "b": self.bottom}


#: A matrix heatmap shown alone: room for a title above and axis titles.
MATRIX_MARGIN = Margin(60, 20, 60, 50)
#: Panels shown side by side: room for the title above, the axis title and a horizontal
#: colour bar below, so every panel's square plot area is the same size whatever its
#: colour bar's labels.
PANEL_MARGIN = Margin(52, 8, 40, 104)
#: The schemes page's small panels.
SMALL_PANEL_MARGIN = Margin(50, 10, 45, 45)
#: Charts with a title and a legend below (value side, curves, training).
CHART_MARGIN = Margin(55, 20, 60, 50)
#: The efficiency grids: long row labels on the left.
GRID_MARGIN = Margin(70, 10, 50, 50)
#: Horizontal bar charts with method names on the left.
BAR_MARGIN = Margin(180, 40, 30, 50)
#: Grouped weight bars: the legend sits above the plot.
WEIGHT_BARS_MARGIN = Margin(60, 20, 90, 60)
#: The walkthrough's one-row table strip.
STRIP_ROW_MARGIN = Margin(20, 20, 50, 50)
#: The memory strip running down the page: position ticks left, column names on top.
STRIP_COLUMN_MARGIN = Margin(70, 10, 90, 20)
#: The value side's charts: a title above, the legend below.
VALUE_MARGIN = Margin(50, 20, 60, 40)
#: The memory-growth chart: no title, its legend below.
GROWTH_MARGIN = Margin(70, 20, 30, 50)
#: The schemes' translation bars: scheme names left, values printed right.
TRANSLATION_BARS_MARGIN = Margin(170, 110, 60, 50)

# ------------------------------------------------------------------ heatmaps


@dataclass(frozen=True)
class HeatmapStyle:
    """How a heatmap is drawn; the data, its colour range and its hover come separately.

    Attributes
    ----------
    height : int or None
        Height of a heatmap shown alone; None sizes it from the number of rows.
    panel_height : int or None
        Lay the figure out as one of several equal panels side by side: this height,
        :data:`PANEL_MARGIN` and a horizontal colour bar below (overrides `height`).
    text : bool
        Print the numbers in the cells.
    decimals : int
        Decimals of the printed numbers.
    text_size : int or None
        Font size of the cell numbers; None lets Plotly fit them to the cells.
    cell_format : str or None
        A fixed-point format such as ``".2f"``: above :data:`relpos.text.hover.TEXT_CELLS`
        cells the browser prints z (no string per cell is sent); otherwise the numbers are
        formatted here with its number of decimals.
    validate : bool
        Let Plotly check every property (False is about 6x faster; only for specs whose
        validity the tests check).

    Examples
    --------
    >>> HeatmapStyle().with_(height=300).height
    300
    """

    height: int | None = None
    panel_height: int | None = None
    text: bool = True
    decimals: int = 2
    text_size: int | None = CELL_TEXT_SIZE
    cell_format: str | None = None
    validate: bool = True

    def with_(self, **changes) -> HeatmapStyle:
        """A copy with some fields changed."""
        return replace(self, **changes)


#: A heatmap shown alone, sized from its rows, numbers printed with two decimals.
DEFAULT_HEATMAP = HeatmapStyle()
