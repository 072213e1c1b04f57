"""The test browser's command line: Playwright's own switches kept, the unseen address bar left out.

Chromium reads only the last ``--disable-features`` of its command line. Playwright passes
one of its own and appends ours after it, so ours must repeat Playwright's list
(tests/support/browser.py: PLAYWRIGHT_DISABLED_FEATURES) or those features come back on:
PaintHolding, for one, would let a screenshot catch a blank first frame.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.browser import UNSEEN_FEATURES, process_tree

pytestmark = pytest.mark.browser


def _browser_command_line() -> list[str]:
    """The command line of this process's Chromium (its browser process, not a renderer)."""
    for pid in process_tree(os.getpid()):
        try:
            arguments = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "--remote-debugging-pipe" in arguments and not any(a.startswith("--type=") for a in arguments):
            return arguments
    raise AssertionError("no Chromium browser process below this test process")


def _features(value: str) -> set[str]:
    return {name for name in value.split(",") if name}


def test_our_feature_list_keeps_every_feature_playwright_turns_off(chromium):
    prefix = "--disable-features="
    lists = [argument.removeprefix(prefix) for argument in _browser_command_line() if argument.startswith(prefix)]
    assert len(lists) >= 1
    playwrights, effective = _features(lists[0]), _features(lists[-1])  # Chromium applies the last
    assert playwrights <= effective, f"Playwright turns these off and ours turns them on: {playwrights - effective}"
    assert set(UNSEEN_FEATURES) <= effective


def test_a_new_context_starts_no_address_bar_page(chromium):
    """Each context's window would otherwise start chrome://omnibox-popup in a renderer of its own."""
    context = chromium.new_context()
    try:
        context.new_page().goto("data:text/html,<p>one page</p>")
        session = chromium.new_browser_cdp_session()
        targets = session.send("Target.getTargets")["targetInfos"]
        session.detach()
    finally:
        context.close()
    assert [t["url"] for t in targets if t["url"].startswith("data:")], "the test's own page must be listed"
    webui = [t["url"] for t in targets if t["url"].startswith("chrome://")]
    assert webui == [], f"Chromium pages a test never shows: {webui}"
