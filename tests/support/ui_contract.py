"""What the browser tests and the benchmarks expect to find on each page.

The one place to adjust when a page's headings, chart counts, widget labels or URL
parameters change. Pages are keyed by their script path (``PageSpec.path``), which the
issues fix; their URLs come from ``relpos.ui.navigation.PAGES``.

Labels are matched loosely (``tests.support.browser.normalise_label``: ``$q_1$``, ``q₁`` and
``q_{1}`` are the same; ``aᴷ₊₁`` reads as ``aK+1``), or pass a compiled regular
expression. Every entry was checked against the merged pages (AppTest and Chromium).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from relpos.ui.navigation import PAGES, PageSpec


@dataclass(frozen=True)
class PageContract:
    """What the first load of a page must show (beyond "no exception")."""

    texts: tuple[str, ...] = ()  # strings that appear in the page's main area
    min_charts: int = 0  # Plotly figures drawn
    min_tables: int = 0  # st.dataframe and st.table tables


CONTRACTS: dict[str, PageContract] = {
    "pages/overview.py": PageContract(
        texts=("Relative position encoding in self-attention", "Combined scores", "Where next"), min_tables=4
    ),
    # score matrix filling in, offset map, a^K strip; the per-pair table
    "pages/walkthrough.py": PageContract(
        texts=("Walkthrough: one pair at a time", "Stop 1 of 20", "All 16 pairs at once"), min_charts=3, min_tables=1
    ),
    # content, position, combined; content-only and combined weights, difference; offset map
    "pages/explorer.py": PageContract(
        texts=("Explorer: content and position, side by side", "The table row is constant along a diagonal"),
        min_charts=7,
    ),
    # content, position, content-only weights, combined weights
    "pages/position_effects.py": PageContract(
        texts=("Position effects: what the position term does to attention", "What the position term did"),
        min_charts=4,
    ),
    # placement (2), skewing steps (4 + 4), memory strip, memory growth
    "pages/efficiency.py": PageContract(
        texts=("Efficient computation: the (n, n, d) tensor and two ways around it", "5 · Memory"),
        min_charts=12,
        min_tables=2,
    ),
    # five questions, each with its numbers as small tables, and the score table
    "pages/quiz.py": PageContract(texts=("Self-check quiz", "Your score"), min_tables=6),
    # output split, parts by k, every query's output; the split and the ablation tables
    "pages/value_side.py": PageContract(
        texts=("The value side: relative embeddings", "Context: Shaw et al.'s ablation"), min_charts=3, min_tables=2
    ),
    # two heatmaps per scheme (12), the translation bar chart and 6 change maps, 5 length curves
    "pages/schemes.py": PageContract(
        texts=("Comparing position schemes", "2 · The translation test"), min_charts=24, min_tables=2
    ),
    # nothing is trained until Train is pressed: the first load shows the controls and the prose
    "pages/training.py": PageContract(
        texts=("Train a tiny head", "Nothing trained yet: press Train", "4 · Train short, test long")
    ),
    # hands, wavelengths, decay; frequencies, six decay panels, patterns; accuracy, head maps; PI's figure
    "pages/long_context.py": PageContract(
        texts=(
            "Long context: RoPE and its extensions",
            "2 · Context extension as experiments",
            "4 · Train short, test long, with RoPE",
            "Position Interpolation's bound",
        ),
        min_charts=9,
        min_tables=3,
    ),
}


def contract(spec: PageSpec) -> PageContract:
    """The page's contract; a page nobody described yet only has to load cleanly."""
    return CONTRACTS.get(spec.path, PageContract())


def url_path(spec: PageSpec) -> str:
    """Where the page lives: the first (default) page is served at "/", the others at /<url_path>."""
    return "" if spec == PAGES[0] else spec.url_path


def page_spec(path: str) -> PageSpec | None:
    """The merged page with this script path, or None while it is not in PAGES."""
    return next((spec for spec in PAGES if spec.path == path), None)


@dataclass(frozen=True)
class ExplorerUI:
    """pages/explorer.py: labels and links checked against the merged page."""

    path: str = "pages/explorer.py"
    #: the lazy tab holding the per-token query sliders, a slider in it and the heatmap row it drives
    row_tab: str = "Queries qᵢ"
    row_slider: str | re.Pattern = "q₁"
    row_index: int = 0
    #: a slider of the default tab (the table aᴷ) and the cells of the bias it drives: offset j − i = +1
    diagonal_slider: str | re.Pattern = "aᴷ₊₁"
    diagonal_offset: int = 1
    #: figure titles (case-insensitive search) of the panels the tests read
    content_title: str | re.Pattern = re.compile(r"^content\s", re.IGNORECASE)
    bias_title: str | re.Pattern = re.compile(r"^position bias", re.IGNORECASE)
    scores_title: str | re.Pattern = re.compile(r"^combined score", re.IGNORECASE)
    weights_title: str | re.Pattern = re.compile(r"^combined weights", re.IGNORECASE)
    k_slider: str | re.Pattern = "Clipping distance k"
    #: a lesson link (every parameter of the page's URL) and the values it must restore
    lesson_query: dict[str, str] = field(
        default_factory=lambda: {
            "preset": "locality",
            "n": "5",
            "k": "1",
            "d": "1",
            "seed": "7",
            "bias": "shaw",
            "q": "1,-0.5,0.25,1.5,-2",
            "keys": "0.5,0.5,-1,0.75,0",
            "a": "-0.4,0.9,0.35",
            "presenter": "0",
        }
    )
    #: a hostile URL that must give a warning and the defaults, not an exception
    hostile_query: dict[str, str] = field(default_factory=lambda: {"n": "1000000000", "k": "-3", "q": "nan,inf"})
    #: the slider bench/latency.py and bench/load.py move (a value slider, present at every n)
    bench_slider: str | re.Pattern = "aᴷ₀"
    #: the URL of each benchmarked size (n = 16: a slider per token; n = 256: generated values)
    bench_queries: dict[int, str] = field(default_factory=lambda: {16: "n=16", 256: "n=256"})


@dataclass(frozen=True)
class PositionEffectsUI:
    """pages/position_effects.py: labels and links checked against the merged page."""

    path: str = "pages/position_effects.py"
    slider: str | re.Pattern = "Clipping distance k"
    #: a lesson link (every parameter) and the figures it must restore
    lesson_query: dict[str, str] = field(
        default_factory=lambda: {
            "preset": "forward",
            "n": "9",
            "k": "2",
            "dk": "4",
            "dmodel": "8",
            "seed": "5",
            "strength": "1.5",
            "shared": "0.5",
        }
    )
    content_title: str | re.Pattern = re.compile(r"^content scores", re.IGNORECASE)
    bias_title: str | re.Pattern = re.compile(r"^position biases", re.IGNORECASE)
    weights_title: str | re.Pattern = re.compile(r"^combined weights", re.IGNORECASE)


@dataclass(frozen=True)
class WalkthroughUI:
    """pages/walkthrough.py: labels checked against the merged page."""

    path: str = "pages/walkthrough.py"
    #: (the buttons also show their keyboard shortcut, so match the start of their text)
    next_button: str | re.Pattern = re.compile(r"^\s*next", re.IGNORECASE)
    previous_button: str | re.Pattern = re.compile(r"^\s*previous", re.IGNORECASE)
    presenter_toggle: str | re.Pattern = re.compile(r"presenter", re.IGNORECASE)
    #: body text whose size presenter mode must enlarge
    body_text: str = "[data-testid=stMain] [data-testid=stMarkdownContainer] p"
    #: where the lesson stands (text of the step controls)
    first_stop: str = "Stop 1 of 20 · pair (1, 1)"
    second_stop: str = "Stop 2 of 20 · pair (1, 2)"


EXPLORER = ExplorerUI()
POSITION_EFFECTS = PositionEffectsUI()
WALKTHROUGH = WalkthroughUI()
