"""The app's page list, in one place: app.py builds st.navigation from it and the
tests (AppTest and browser) iterate over it, so a new page is declared exactly once.

Plain data, no Streamlit import.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    """One page of the app."""

    path: str  # script path relative to the repository root
    title: str  # shown in the sidebar and the browser tab
    icon: str
    url_path: str  # the page's URL: http://host:8501/<url_path>
    section: str = "Learn"


#: Pages in sidebar order; the first is the default page.
PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/overview.py", "Overview", ":material/home:", "overview", "Learn"),
    PageSpec("pages/worked_example.py", "Walkthrough", ":material/directions_walk:", "worked_example", "Learn"),
    PageSpec("pages/explorer.py", "Explorer", ":material/tune:", "explorer", "Explore"),
    PageSpec("pages/position_effects.py", "Position effects", ":material/grid_on:", "position_effects", "Explore"),
    PageSpec("pages/efficiency.py", "Efficient computation", ":material/speed:", "efficiency", "Go further"),
    PageSpec("pages/quiz.py", "Self-check quiz", ":material/quiz:", "quiz", "Go further"),
    PageSpec("pages/value_side.py", "Value side (a^V)", ":material/add_circle:", "value_side", "Go further"),
    PageSpec("pages/schemes.py", "Comparing position schemes", ":material/compare_arrows:", "schemes", "Go further"),
)
