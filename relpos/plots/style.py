"""One style for every figure: fonts, margins, colours and colour scales (no Streamlit).

Every figure module takes its sizes and colours from here, so a presenter-mode change or
a contrast fix is made once. Constants are immutable (numbers, strings, tuples, frozen
dataclasses); the helpers return fresh dicts that a figure may change freely.

Colours are colour-blind safe: the Okabe–Ito palette for categories, ColorBrewer's
diverging RdBu for scores (blue negative, white zero, red positive), Viridis for weights
in [0, 1] and ColorBrewer's PuOr for offsets.

The reader picks a light or a dark theme (deploy/streamlit.toml). Streamlit draws a
chart's background, text and axes in the theme's colours itself; what a figure draws on
the page in a colour of its own (markers, guide lines, blank cells) comes from the
theme's :class:`Palette`, :func:`palette`, which the server harness sets for each run
(:func:`use_theme`). Colour scales stay the same in both themes: each cell's number is
printed in black or white against its own cell (Plotly's choice), the scales' light
middles read on a dark page as on a white one, and a colour means the same in both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from types import MappingProxyType

__all__ = [
    "AXIS_TITLE_SIZE",
    "BAR_MARGIN",
    "CELL_TEXT_SIZE",
    "CHART_MARGIN",
    "CONTENT_COLOUR",
    "CURVE",
    "DARK",
    "DEFAULT_HEATMAP",
    "DIVERGING",
    "FASTEST_METHOD",
    "FAST_METHOD",
    "FONT_SIZE",
    "GRID_MARGIN",
    "GROWTH_MARGIN",
    "GUIDE_GREY",
    "LEFTOVER_GREY",
    "LEGEND_BELOW_MARGIN",
    "LIGHT",
    "MATRIX_MARGIN",
    "NEEDED_ANYWAY",
    "OFFSET_CELLS_SCALE",
    "OFFSET_MAP_SCALE",
    "OKABE_ITO",
    "PALETTES",
    "PANEL",
    "PANEL_MARGIN",
    "POSITION_COLOUR",
    "PRESENTER_MIN_FONT",
    "PRESENTER_PANEL",
    "PRESENTER_PANEL_MARGIN",
    "PRESENTER_TEXT",
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
    "Palette",
    "PanelLayout",
    "PanelText",
    "axis_title",
    "centred_title",
    "drawing_in",
    "full_size_scripts",
    "palette",
    "use_theme",
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
#: Value-side parts: content (blue), position (orange, hatched); their sum, the output, is
#: drawn in the theme's ink (:attr:`Palette.ink`).
CONTENT_COLOUR, POSITION_COLOUR = OKABE_ITO[0], OKABE_ITO[1]
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
#: Methods on the Efficient computation page: the slow naive gather, what is needed
#: anyway, the fast ones (RdBu's ends, a grey and a green: told apart without hue).
SLOW_METHOD, NEEDED_ANYWAY, FAST_METHOD, FASTEST_METHOD = "#b2182b", "#777777", "#2166ac", "#1b7837"
#: Text of grid cells that hold a leftover or a pad, not a real logit (reads on either page).
LEFTOVER_GREY = "#9a9a9a"
#: Reference lines (the current k, the sums' separator): a mid grey, 3.5:1 on the white
#: page and 5.1:1 on the dark one.
GUIDE_GREY = "#888888"
#: No fill (cell outlines).
TRANSPARENT = "rgba(0,0,0,0)"

# ------------------------------------------------------------------ the theme's colours


@dataclass(frozen=True)
class Palette:
    """The colours a figure draws straight on the page, for one theme.

    Attributes
    ----------
    name : str
        The theme, as ``st.context.theme.type`` names it ("light" or "dark").
    page : str
        The page's background (``backgroundColor`` of the theme in deploy/streamlit.toml).
    ink : str
        Markers and lines that must stand out on the page (the value side's output).
    strong_guide : str
        Reference lines that carry a meaning (a chance level).
    faint_guide : str
        Reference lines in the background (y = 0).
    faded_line : str
        Curves in the background (ALiBi's other heads).
    grid : str
        Grid lines of bar charts.
    blank_cell : str
        Matrix cells with no value yet (distinct from the near-white of a zero score).
    categories : tuple of str
        Okabe–Ito for categories, its black swapped for a colour that shows on this page.
    """

    name: str
    page: str
    ink: str
    strong_guide: str
    faint_guide: str
    faded_line: str
    grid: str
    blank_cell: str
    categories: tuple[str, ...]


#: The light theme: what every figure drew before there were two.
LIGHT = Palette(
    name="light",
    page="#ffffff",
    ink="#222222",
    strong_guide="#555555",
    faint_guide="#bbbbbb",
    faded_line="#b9c6d3",
    grid="#dddddd",
    blank_cell="#e6e6e6",
    categories=OKABE_ITO,
)
#: The dark theme: each colour stands out from the dark page as much as its light twin
#: does from white (tests/test_plot_style.py measures both).
DARK = Palette(
    name="dark",
    page="#171614",
    ink="#e8e6e3",
    strong_guide="#aaaaaa",
    faint_guide="#484848",
    faded_line="#3d4753",
    grid="#33312e",
    blank_cell="#3a3835",
    categories=(*OKABE_ITO[:-1], "#ffffff"),
)
#: The palettes by theme name.
PALETTES = MappingProxyType({LIGHT.name: LIGHT, DARK.name: DARK})

#: The palette of the theme this run draws in: a context variable, so that every session
#: (each run has a thread of its own) draws in its own reader's theme.
_ACTIVE: ContextVar[Palette] = ContextVar("relpos_palette", default=LIGHT)


def palette() -> Palette:
    """The colours of the theme this run draws in (light until :func:`use_theme` says otherwise).

    >>> palette().name
    'light'
    """
    return _ACTIVE.get()


def use_theme(name: str | None) -> Palette:
    """Draw the figures of this run (this thread) for theme `name`; an unknown name is light.

    >>> use_theme("sepia").name
    'light'
    """
    chosen = PALETTES.get(name, LIGHT)
    _ACTIVE.set(chosen)
    return chosen


@contextmanager
def drawing_in(name: str | None) -> Iterator[Palette]:
    """Draw the figures of a ``with`` block for theme `name`, then the theme before it.

    >>> with drawing_in("dark") as colours:
    ...     colours.name, palette().name
    ('dark', 'dark')
    >>> palette().name
    'light'
    """
    token = _ACTIVE.set(PALETTES.get(name, LIGHT))
    try:
        yield _ACTIVE.get()
    finally:
        _ACTIVE.reset(token)


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

#: A Plotly title's sub- or superscript (Plotly draws them at 70 % of the title's size).
_SCRIPT = re.compile(r"<(sub|sup)>(.*?)</\1>")


def full_size_scripts(text: str, size: float) -> str:
    """A Plotly title whose sub- and superscripts are drawn at `size` px, not at 70 % of the
    title's font: on a projector ``e<sub>ij</sub>`` would otherwise read as 14 px.

    >>> full_size_scripts("e<sub>ij</sub>", 20)
    'e<sub><span style="font-size:20px">ij</span></sub>'
    """
    return _SCRIPT.sub(lambda m: f'<{m[1]}><span style="font-size:{size:g}px">{m[2]}</span></{m[1]}>', text)


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
#: Presenter mode's panels: y ticks and title left, a vertical colour bar with its ticks right.
PRESENTER_PANEL_MARGIN = Margin(66, 96, 44, 64)
#: The schemes page's small panels.
SMALL_PANEL_MARGIN = Margin(50, 10, 45, 45)
#: Charts with a title and a legend below (value side, curves, training).
CHART_MARGIN = Margin(55, 20, 60, 50)
#: A chart whose legend sits below its axis titles (room for both, at presenter sizes too).
LEGEND_BELOW_MARGIN = Margin(60, 20, 80, 120)
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

# ------------------------------------------------------------------ panels side by side


@dataclass(frozen=True)
class PanelText:
    """Font sizes (px) of the texts of panels shown side by side (``cell`` None lets Plotly
    fit the cell numbers to the cells).

    ``hover`` None keeps Plotly's size of a hover label. No colour: the Explorer panel draws
    every text in the theme's text colour (relpos/ui/explorer_panel_assets/explorer_panel.js, ``themed``), ink
    on either page, never a grey; a hover label's, Plotly picks for the label's colour.
    """

    body: int = FONT_SIZE
    title: int = TITLE_SIZE
    axis_title: int = AXIS_TITLE_SIZE
    colour_bar: int = SMALL_TEXT_SIZE
    cell: int | None = None
    hover: int | None = None


@dataclass(frozen=True)
class PanelLayout:
    """How the Explorer's panels are laid out: margins, texts, where the colour bar goes.

    Attributes
    ----------
    margin : Margin
        Room round the square plot area.
    text : PanelText
    colour_bar : str
        ``"below"`` (horizontal, under the axis title: the panels of a narrow grid keep
        their squares) or ``"right"`` (vertical: a projector's height goes to the cells).
    height : int or None
        A fixed height of every panel (px); None: the page chooses it by n.
    text_max_n : int or None
        Numbers are printed in the cells up to this many tokens (None: up to
        :data:`relpos.plots.heatmaps.TEXT_MAX_N`, as every heatmap).
    full_size_scripts : bool
        Titles' sub- and superscripts at the title's size (:func:`full_size_scripts`).
    """

    margin: Margin
    text: PanelText = field(default_factory=PanelText)
    colour_bar: str = "below"
    height: int | None = None
    text_max_n: int | None = None
    full_size_scripts: bool = False

    def title(self, text: str) -> str:
        """A panel's title as this layout draws it (sub- and superscripts full size, or as they are).

        >>> PRESENTER_PANEL.title("e<sub>ij</sub>") == full_size_scripts("e<sub>ij</sub>", PRESENTER_TEXT.title)
        True
        """
        return full_size_scripts(text, self.text.title) if self.full_size_scripts else text


#: A projector's panel text: nothing below :data:`PRESENTER_MIN_FONT`.
PRESENTER_TEXT = PanelText(
    body=PRESENTER_MIN_FONT,
    title=PRESENTER_MIN_FONT + 2,
    axis_title=PRESENTER_MIN_FONT,
    colour_bar=PRESENTER_MIN_FONT,
    cell=PRESENTER_MIN_FONT,
    hover=PRESENTER_MIN_FONT,
)
#: The Explorer's panels on a screen: texts as every figure's, the colour bar below.
PANEL = PanelLayout(PANEL_MARGIN)
#: The Explorer's panels on a projector (1280 × 720, presenter mode): two side by side and
#: the sliders above them fit one screen (tests/explorer/test_presenter.py measures it);
#: cell numbers only where 20 px numbers fit a cell.
PRESENTER_PANEL = PanelLayout(
    PRESENTER_PANEL_MARGIN, PRESENTER_TEXT, colour_bar="right", height=430, text_max_n=5, full_size_scripts=True
)


@dataclass(frozen=True)
class HeatmapStyle:
    """How a heatmap is drawn; the data, its colour range and its hover come separately.

    Attributes
    ----------
    height : int or None
        Height of a heatmap shown alone; None sizes it from the number of rows.
    panel_height : int or None
        Lay the figure out as one of several equal panels side by side: this height and
        `panel`'s margins, texts and colour bar (overrides `height`).
    panel : PanelLayout
        The layout of side-by-side panels: :data:`PANEL`, or :data:`PRESENTER_PANEL`.
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
    panel: PanelLayout = PANEL
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
