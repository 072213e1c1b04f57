"""Checks every browser test of a page makes: the page is still declared, it loaded cleanly,
and the Explorer is open with its charts drawn."""

from __future__ import annotations

from tests.support.browser import AppTab
from tests.support.ui_contract import EXPLORER, contract, page_spec

__all__ = ["LIVE_PLOTS", "assert_clean", "open_explorer", "require_page"]

#: The Explorer's live panel has drawn its seven panels.
LIVE_PLOTS = "() => document.querySelectorAll('.relpos-live .js-plotly-plot').length === 7"


def require_page(path: str, what: str):
    """The page's spec; a page that left PAGES fails the tests written for it."""
    spec = page_spec(path)
    assert spec is not None, f"the {what} page ({path}) is missing from relpos.ui.navigation.PAGES"
    return spec


def assert_clean(tab: AppTab) -> None:
    """No Streamlit exception box, no JavaScript error, nothing fetched from another host."""
    assert tab.exceptions() == []
    assert tab.errors == []
    assert tab.foreign_requests == [], "the app must load nothing from a CDN or any other host"
    assert "Page not found" not in tab.page.inner_text("body")


def open_explorer(tab: AppTab, query: dict[str, str] | None = None) -> None:
    spec = require_page(EXPLORER.path, "explorer")
    tab.open(spec.url_path, query)
    tab.wait_plots(contract(spec).min_charts)
