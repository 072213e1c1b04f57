"""A renamed page keeps its old address: a link, bookmark or scenario file made before the
rename opens the page as it did (relpos.ui.navigation's ``renamed_from``)."""

from __future__ import annotations

import http.client
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from relpos.state import export
from relpos.state.codec import StateError
from relpos.topics.walkthrough.schema import WALKTHROUGH
from relpos.ui.navigation import PAGES
from tests.support.browser import ROOT, AppTab, StreamlitServer
from tests.support.pages import assert_clean
from tests.support.streamlit_client import Session, run_in_own_loop

RENAMED = [spec for spec in PAGES if spec.renamed_from]
#: A lesson link with numbers of its own: the state must arrive whole, not just the stop.
LINK = {"i": "3", "j": "2", "k": "1", "q": "2,0.5,0.8,0.3", "keys": "0.9,0.7,0.4,1.2", "a": "-0.3,0.4,0.1"}


def test_the_walkthrough_was_renamed_and_its_old_names_are_free():
    (walkthrough,) = RENAMED
    assert walkthrough.url_path == "walkthrough" and walkthrough.path == "pages/walkthrough.py"
    current = {spec.url_path for spec in PAGES}
    old = [name for spec in RENAMED for name in spec.renamed_from]
    assert len(set(old)) == len(old) and not set(old) & current
    assert not any((ROOT / "pages" / f"{name}.py").exists() for name in old)


def test_a_scenario_file_saved_under_the_old_name_still_loads():
    (walkthrough,) = RENAMED
    state = WALKTHROUGH.decode(LINK).state
    for old in walkthrough.renamed_from:
        saved = export.scenario_json(old, WALKTHROUGH, state)  # the file as the page wrote it before
        assert export.load_scenario(saved, walkthrough.url_path, WALKTHROUGH) == state
    with pytest.raises(StateError, match="belongs to the Walkthrough page"):
        export.load_scenario(export.scenario_json(old, WALKTHROUGH, state), "explorer", WALKTHROUGH)


def _view(tab: AppTab) -> tuple[str, dict, str]:
    """Where the tab is: its path, its query and the main area's text."""
    address = urlparse(tab.page.url)
    return address.path.strip("/"), parse_qs(address.query), tab.page.inner_text("[data-testid=stMain]")


@pytest.fixture(scope="module")
def fresh_server(chromium):
    """A server no one has visited: the first test's first request is its first."""
    with StreamlitServer(ROOT / "app.py") as server:
        yield server


@pytest.mark.browser
@pytest.mark.timeout(240)
def test_an_old_link_opens_the_page_with_the_same_state_on_a_fresh_server_and_after(chromium, fresh_server):
    """The old address is the first request a server gets (legacy folder routing has no file
    for it), then a later one (st.navigation's lookup): both open the walkthrough at the link's
    stop with its numbers, as the new address does, the address bar shows the new name, and
    nothing says "Page not found"."""
    (walkthrough,) = RENAMED
    tabs = [AppTab.new(chromium, fresh_server.base_url, fresh=True) for _ in range(3)]
    try:
        old, *_ = walkthrough.renamed_from
        tabs[0].open(old, LINK)  # the server's first request
        tabs[1].open(walkthrough.url_path, LINK)
        tabs[2].open(old, {**LINK, "presenter": "1"})
        for tab in tabs:
            tab.wait_idle()
            assert_clean(tab)
        first, new, presenter = (_view(tab) for tab in tabs)
        assert new[0] == walkthrough.url_path and {k: v[0] for k, v in new[1].items()}.items() >= LINK.items()
        assert "Query i = 3, key j = 2" in new[2]
        assert first == new
        assert presenter[0] == walkthrough.url_path and presenter[1] == {**new[1], "presenter": ["1"]}
    finally:
        for tab in tabs:
            tab.close()


@pytest.mark.browser
def test_an_old_address_is_redirected_by_http_with_its_query(fresh_server):
    (walkthrough,) = RENAMED
    for old in walkthrough.renamed_from:
        for path in (old, f"{old}/"):
            status, location = _head(fresh_server.url(path, "class=K7QX2M&presenter=1"))
            assert status == 307 and location == f"/{walkthrough.url_path}?class=K7QX2M&presenter=1"
        assert _head(fresh_server.url(old)) == (307, f"/{walkthrough.url_path}")


@pytest.mark.browser
def test_a_session_that_asks_for_the_old_page_gets_the_page(fresh_server):
    """A tab opened before the rename that reconnects asks for the old page over its socket
    (no page load): the hidden alias opens the page, at the stop its query names."""
    (walkthrough,) = RENAMED
    session = Session(fresh_server, walkthrough.renamed_from[0], urlencode(LINK), None, None)
    run_in_own_loop(_load(session))
    assert "Walkthrough: one pair at a time" in session.headings
    assert "Query i = 3, key j = 2" in session.headings


async def _load(session: Session) -> None:
    async with session.connect(60) as socket:
        await session.run_once(socket, session.rerun_message(), 60)


def _head(url: str) -> tuple[int, str | None]:
    """Status and Location of a request for `url` (a redirect is not followed)."""
    parts = urlparse(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=30)
    try:
        connection.request("GET", f"{parts.path}?{parts.query}" if parts.query else parts.path)
        answer = connection.getresponse()
        return answer.status, answer.getheader("Location")
    finally:
        connection.close()
