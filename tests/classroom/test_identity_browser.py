"""Issue 38, points 6 and 7 in Chromium: the private teacher link leaves no credential in the
history, the address bar or a Referer, and no script can read the class's identity cookie.

A teacher starts a class and saves the private link from the console; the projector's
browser (a context of its own) opens it: its tab must end on the lesson with one history
entry, no request may carry the link's secret in its address or Referer, and the tab must
be the teacher's (its Next moves the class). The cookie the teacher's browser keeps must be
HttpOnly and absent from ``document.cookie``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pytest

from relpos.classroom.stores import open_store
from tests.support.class_students import class_server as running_class_server

pytestmark = [pytest.mark.browser, pytest.mark.server]

WITHIN = 90_000  # ms: a first page load on a busy 2-core machine


@pytest.fixture(scope="module")
def class_server(tmp_path_factory):
    with running_class_server(tmp_path_factory.mktemp("identity"), "identity") as running:
        yield running


def _secret_of(link: str) -> str:
    """What the private link must never leak: its fragment now, its ``teacher=`` before."""
    parts = urlsplit(link)
    return parts.fragment or parse_qs(parts.query)["teacher"][0]


def _identity_cookie(context, code: str, timeout: float = 60.0) -> dict:
    """The class's identity cookie in `context`, once the page has had it kept."""
    deadline = time.monotonic() + timeout
    while True:
        found = [cookie for cookie in context.cookies() if cookie["name"] == f"relpos-class-{code}"]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"no relpos-class-{code} cookie: {context.cookies()}"
        time.sleep(0.2)


def _start_class(chromium, class_server):
    context = chromium.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    context.set_default_timeout(WITHIN)
    page = context.new_page()
    page.goto(class_server.url("walkthrough"))
    page.get_by_role("button", name="Start a class").click(no_wait_after=True)
    page.get_by_text("Join code:").first.wait_for()
    code = page.locator("[aria-label^='Join code']").first.inner_text().strip()
    return context, page, code


def _private_link(page, base_url: str) -> str:
    """The link the console saves, on this test's server (the suite's public address is a
    documentation one, RELPOS_PUBLIC_URL)."""
    console = page.locator("details", has=page.get_by_text("Class console")).first
    if console.get_attribute("open") is None:  # the console stays open once opened: a click would fold it
        page.get_by_text("Class console").first.click()
    with page.expect_download() as download:
        page.get_by_role("button", name="Save my private teacher link").click()
    saved = urlsplit(Path(download.value.path()).read_text(encoding="utf-8").strip())
    return urlunsplit((*urlsplit(base_url)[:2], *saved[2:]))


def _settled(tab):
    """The teacher's lesson drawn in `tab`, its address written (the walkthrough's stop): its Next button."""
    tab.wait_for_url(re.compile(r"/walkthrough\?class=[A-Z0-9]+&i="))
    next_button = tab.get_by_role("button", name=re.compile("^Next"))
    next_button.first.wait_for()
    return next_button


def test_no_script_reads_the_identity_cookie_and_it_holds_no_clear_identity(chromium, class_server):
    context, page, code = _start_class(chromium, class_server)
    try:
        cookie = _identity_cookie(context, code)
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie
        assert not cookie["value"].startswith(("teacher.", "student.")), "the credential in clear"
        assert f"relpos-class-{code}" not in page.evaluate("document.cookie")
        kept = page.evaluate(f"localStorage.getItem('relpos.class.{code}')") or ""
        assert '"secret"' not in kept, kept  # the local copy is sealed too
    finally:
        context.close()


def test_the_private_link_leaves_no_trace_and_its_tab_teaches(chromium, class_server):
    context, page, code = _start_class(chromium, class_server)
    projector = chromium.new_context(viewport={"width": 1280, "height": 720})
    projector.set_default_timeout(WITHIN)
    try:
        link = _private_link(page, class_server.base_url)
        secret = _secret_of(link)
        requests = []
        tab = projector.new_page()
        tab.on("request", lambda request: requests.append((request.url, request.headers.get("referer", ""))))
        tab.goto(link)
        next_button = _settled(tab)
        assert secret not in tab.url and "teacher=" not in tab.url and "/teach" not in tab.url, tab.url
        plain = projector.new_page()  # the lesson opened by its own address: the history it makes
        plain.goto(class_server.url("walkthrough", {"class": code}))
        _settled(plain)
        made = plain.evaluate("history.length")
        assert tab.evaluate("history.length") == made, "the private link left a history entry of its own"
        plain.close()
        leaks = [(url, referer) for url, referer in requests if secret in url or secret in referer]
        assert not leaks, f"{len(leaks)} of {len(requests)} requests carried the link's secret: {leaks[:3]}"
        next_button.first.click(no_wait_after=True)  # the projector's tab teaches: its Next moves the class
        store = open_store(f"sqlite://{class_server.data_dir / 'classes.sqlite3'}")
        deadline = time.monotonic() + WITHIN / 1000
        while store.get_class(code).pace.index != 1:
            assert time.monotonic() < deadline, "the tab the private link opened could not move the class"
            time.sleep(0.2)
        again = projector.new_page()  # the link opens the class again (a second device) within its time
        again.goto(link)
        again.get_by_role("button", name=re.compile("^Next")).first.wait_for()
    finally:
        projector.close()
        context.close()
