"""What the browser tests and the benchmarks expect to find on each page.

The one place to adjust when a page's headings, chart counts, widget labels or URL
parameters change. Pages are keyed by their script path (``PageSpec.path``), which the
issues fix; their URLs come from ``relpos.navigation.PAGES``.

Labels are matched loosely (``tests.browser.normalise_label``: ``$q_1$``, ``q₁`` and
``q_{1}`` are the same), or pass a compiled regular expression.

Entries marked *expected from the issue* were written before the page was merged:
check them against the page when it lands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from relpos.navigation import PAGES, PageSpec


@dataclass(frozen=True)
class PageContract:
    """What the first load of a page must show (beyond "no exception")."""

    texts: tuple[str, ...] = ()  # strings that appear in the page's main area
    min_charts: int = 0  # Plotly figures drawn
    min_tables: int = 0  # st.dataframe tables


CONTRACTS: dict[str, PageContract] = {
    "pages/overview.py": PageContract(
        texts=("Relative position encoding in self-attention", "Combined scores e_ij"), min_tables=4
    ),
    # expected from the issue: offset map (the softmax bar chart appears once a row is complete)
    "pages/worked_example.py": PageContract(min_charts=1),
    # expected from the issue: content, position, combined, two weight panels, difference, offset map
    "pages/explorer.py": PageContract(min_charts=7),
    # expected from the issue: content, position, content-only weights, combined weights
    "pages/position_effects.py": PageContract(min_charts=4),
    # expected from the issue: at least one heatmap per scheme
    "pages/schemes.py": PageContract(min_charts=1),
    "pages/efficiency.py": PageContract(),
    "pages/quiz.py": PageContract(),
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
    """pages/explorer.py (issue 4). Expected from the issue; check after merging."""

    path: str = "pages/explorer.py"
    #: a per-token query slider on the default (textbook) view, and the heatmap row it drives
    row_slider: str | re.Pattern = "q_1"
    row_index: int = 0
    #: title fragment of the content-score heatmap (changes only in ``row_index``)
    content_title: str = "content"
    #: a lesson link and what it must restore (slider label -> value)
    lesson_query: dict[str, str] = field(default_factory=lambda: {"n": "5", "k": "1"})
    lesson_n: int = 5
    lesson_sliders: dict[str, float] = field(default_factory=lambda: {"k": 1.0})
    #: a hostile URL that must give a warning and the defaults, not an exception
    hostile_query: dict[str, str] = field(default_factory=lambda: {"n": "1000000000", "k": "-3"})
    #: the slider bench/latency.py presses (present at every n) and the URLs per size
    bench_slider: str | re.Pattern = re.compile(r"a\^?K", re.IGNORECASE)
    bench_queries: dict[int, str] = field(default_factory=lambda: {16: "n=16", 256: "n=256"})


@dataclass(frozen=True)
class PositionEffectsUI:
    """pages/position_effects.py (issue 4). Expected from the issue; check after merging."""

    path: str = "pages/position_effects.py"
    slider: str | re.Pattern = "k"


@dataclass(frozen=True)
class WalkthroughUI:
    """pages/worked_example.py (issue 3). Expected from the issue; check after merging."""

    path: str = "pages/worked_example.py"
    next_button: str | re.Pattern = re.compile(r"next", re.IGNORECASE)
    previous_button: str | re.Pattern = re.compile(r"prev", re.IGNORECASE)
    presenter_toggle: str | re.Pattern = re.compile(r"presenter", re.IGNORECASE)
    #: body text whose size presenter mode must enlarge
    body_text: str = "[data-testid=stMain] [data-testid=stMarkdownContainer] p"


EXPLORER = ExplorerUI()
POSITION_EFFECTS = PositionEffectsUI()
WALKTHROUGH = WalkthroughUI()
