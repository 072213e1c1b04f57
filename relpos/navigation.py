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
    PageSpec("pages/overview.py", "Overview", "🏠", "overview", "Learn"),
    PageSpec("pages/explorer.py", "Explorer", "🎛️", "explorer", "Explore"),
    PageSpec("pages/position_effects.py", "Position effects", "🧭", "position-effects", "Explore"),
)
