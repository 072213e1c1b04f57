"""The browser tests' kept tabs (tests/support/browser.AppTab): a tab that one test closes
and the next test gets back carries nothing of the first test into the second."""

from __future__ import annotations

import pytest

from tests.support.browser import AppTab

pytestmark = pytest.mark.browser

#: What a test can leave behind in a tab, read in the app's document.
LEFT_BEHIND_JS = """() => ({
  local: localStorage.getItem('left'),
  session: sessionStorage.getItem('left'),
  cookie: document.cookie.includes('left='),
  dark: matchMedia('(prefers-color-scheme: dark)').matches,
  width: innerWidth,
})"""


def leave_traces(tab: AppTab) -> None:
    """Storage, a cookie, a window size, a colour scheme and a route, as tests set them."""
    tab.page.evaluate(
        "() => { localStorage.setItem('left', '1'); sessionStorage.setItem('left', '1');"
        " document.cookie = 'left=1; path=/'; }"
    )
    tab.page.set_viewport_size({"width": 500, "height": 400})
    tab.page.emulate_media(color_scheme="dark")
    tab.page.route("**/*.css", lambda route: route.abort())


def test_a_kept_tab_carries_nothing_of_its_test_into_the_next(chromium, app_server, monkeypatch):
    monkeypatch.delenv("RELPOS_FRESH_TABS", raising=False)  # tabs are kept even in a run that measures without
    first = AppTab.new(chromium, app_server.base_url, viewport=(1000, 700))
    first.open("walkthrough")
    leave_traces(first)
    page = first.page
    first.close()
    second = AppTab.new(chromium, app_server.base_url, viewport=(1000, 700))
    try:
        assert second.page is page, "the closed tab was kept for the next test"
        assert (second.errors, second.runs_finished) == ([], 0)
        second.open("walkthrough")
        assert second.page.evaluate(LEFT_BEHIND_JS) == {
            "local": None,
            "session": None,
            "cookie": False,
            "dark": False,
            "width": 1000,
        }
        second.page.evaluate("() => console.error('heard by the second tab only')")
        second.page.wait_for_timeout(100)  # console messages reach Python asynchronously
        assert second.errors == ["console error: heard by the second tab only"]
        assert not first.errors, "the first tab still listens to the page"
        assert not second.exceptions()
    finally:
        second.close()


def test_other_options_a_fresh_tab_or_a_window_left_open_get_a_new_context(chromium, app_server):
    kept = AppTab.new(chromium, app_server.base_url, viewport=(1000, 700))
    kept.open("walkthrough")
    with kept.page.context.expect_page() as popup:
        kept.page.evaluate("() => window.open('about:blank')")
    popup.value.wait_for_load_state()
    kept.close()
    assert kept.page.is_closed(), "a tab whose test left a window open is not kept"

    fresh = AppTab.new(chromium, app_server.base_url, viewport=(1000, 700), fresh=True)
    context = fresh.page.context
    fresh.close()
    assert fresh.page.is_closed() and not context.pages, "a fresh tab is never kept"

    phone = AppTab.new(chromium, app_server.base_url, viewport=(1000, 700), touch=True)
    try:
        assert phone.page.evaluate("() => navigator.maxTouchPoints") > 0, "a phone's tab is a phone's"
    finally:
        phone.close()
