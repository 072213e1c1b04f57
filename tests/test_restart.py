"""A server restart under open pages loses nothing (relpos.server.reconnect).

One server of its own: five browser tabs in the middle of a lesson (the Explorer after
slider moves, the Explorer just opened, the walkthrough two steps in, Position effects
after a sidebar change, the Explorer with its "Load a scenario file" section open) see
their server stopped (SIGTERM, then SIGKILL) and started again on the same port. Each
tab must reconnect by itself with the same view, without a page reload, and its very
next interaction must be drawn; for the last tab that interaction is a scenario upload,
whose ``on_change`` callback a session that had never run the page could not call.
"""

from __future__ import annotations

import signal
from urllib.parse import parse_qs, urlsplit

import pytest

from relpos.state import export
from relpos.topics.explorer.schema import EXPLORER, apply_preset
from tests.support.browser import ARTIFACTS, CONNECTED_JS, NO_RELOAD_MARK_JS, SAME_PAGE_JS, AppTab, StreamlitServer

pytestmark = pytest.mark.browser

#: Seconds to wait for an interaction's rerun; without the fix none ever comes.
APPLIED_WITHIN = 45  # generous: a busy machine is slow, and the failure it guards never reruns


def _query(tab: AppTab) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(tab.page.url).query).items()}


def _applied(tab: AppTab, action, what: str) -> None:
    """Run an interaction and insist that the server reran the page for it."""
    try:
        tab.interact(action, timeout=APPLIED_WITHIN)
    except TimeoutError as error:
        pytest.fail(f"{what} after the restart was not applied (no rerun within {APPLIED_WITHIN} s): {error}")


def _explorer_move(tab: AppTab) -> None:
    before = tab.figure("position bias").z
    a_before = _query(tab)["a"]
    _applied(tab, lambda: _press(tab, "aᴷ₊₁"), "the Explorer's slider move")
    assert _query(tab)["a"] != a_before, "the URL must follow the slider"
    assert (tab.figure("position bias").z != before).any(), "the bias panel must redraw with the new value"


def _press(tab: AppTab, label: str) -> None:
    tab.slider(label).focus()
    tab.page.keyboard.press("ArrowRight")


def _walkthrough_next(tab: AppTab) -> None:
    step = (_query(tab)["i"], _query(tab)["j"])
    _applied(tab, tab.button("Next").click, "the walkthrough's Next")
    assert (_query(tab)["i"], _query(tab)["j"]) != step, "Next must move to the next stop"


def _position_effects_move(tab: AppTab) -> None:
    n_before = _query(tab)["n"]
    _applied(tab, lambda: _press(tab, "Tokens n"), "Position effects' slider move")
    assert int(_query(tab)["n"]) == int(n_before) + 1
    assert tab.figure("position bias").z.shape[0] == int(n_before) + 1, "the panels must be redrawn at the new n"


def _upload(tab: AppTab, n: int, restart: str) -> None:
    """Load a scenario file at n tokens: the view must switch to it."""
    state = apply_preset(EXPLORER.decode({"n": str(n), "preset": "ahead"}).state, "ahead")
    path = ARTIFACTS / f"restart-scenario-{restart}.json"
    path.write_text(export.scenario_json("explorer", EXPLORER, state), encoding="utf-8")
    field = tab.page.locator("[data-testid=stSidebar] input[type=file]")
    _applied(tab, lambda: field.set_input_files(str(path)), "the first scenario upload")
    assert _query(tab)["n"] == str(n), "the uploaded scenario must be in the URL"
    assert tab.figure("position bias").z.shape[0] == n, "the panels must be redrawn at the uploaded n"
    assert "Scenario loaded" in tab.page.locator("[data-testid=stSidebar]").inner_text()


def _open_tabs(chromium, server: StreamlitServer) -> dict[str, AppTab]:
    names = ("moved", "fresh", "walk", "position_effects", "upload")
    tabs = {name: AppTab.new(chromium, server.base_url) for name in names}
    tabs["moved"].open("explorer", {"n": 8})
    tabs["moved"].wait_plots(7)
    tabs["moved"].press_slider("aᴷ₊₁", "ArrowRight", 2)
    tabs["fresh"].open("explorer", {"n": 8})
    tabs["fresh"].wait_plots(7)
    tabs["walk"].open("walkthrough")
    tabs["walk"].click("Next")
    tabs["walk"].click("Next")
    tabs["position_effects"].open("position_effects")
    tabs["position_effects"].press_slider("Tokens n")
    tabs["upload"].open("explorer", {"n": 8})
    tabs["upload"].wait_plots(7)
    section = tabs["upload"].page.locator("[data-testid=stSidebar] summary").filter(has_text="Load a scenario file")
    tabs["upload"].interact(section.click)  # the section is built on the server only while open
    return tabs


def _restart(server: StreamlitServer, how: signal.Signals, tabs: dict[str, AppTab]) -> StreamlitServer:
    """Stop the server with a signal, start a new one on the same port, wait for every tab."""
    views = {name: (tab.page.url, tab.fingerprint()) for name, tab in tabs.items()}
    for tab in tabs.values():
        tab.page.evaluate(NO_RELOAD_MARK_JS)
    server.process.send_signal(how)
    server.process.wait(timeout=20)
    log = ARTIFACTS / f"streamlit-restart-{how.name}.log"
    server = StreamlitServer(server.script, port=server.port, options=server.options, log_path=log).start()
    for name, tab in tabs.items():
        tab.page.wait_for_function(CONNECTED_JS, timeout=60_000)
        tab.wait_idle(timeout=60)
        assert tab.page.evaluate(SAME_PAGE_JS), f"{name}: the page was reloaded"
        assert (tab.page.url, tab.fingerprint()) == views[name], f"{name}: the view changed on reconnect"
    return server


def test_next_interaction_after_a_restart_is_drawn(chromium):
    server = StreamlitServer("app.py", log_path=ARTIFACTS / "streamlit-restart.log").start()
    tabs = _open_tabs(chromium, server)
    try:
        for how in (signal.SIGTERM, signal.SIGKILL):
            server = _restart(server, how, tabs)
            _explorer_move(tabs["moved"])
            _explorer_move(tabs["fresh"])
            _walkthrough_next(tabs["walk"])
            _position_effects_move(tabs["position_effects"])
            _upload(tabs["upload"], {signal.SIGTERM: 6, signal.SIGKILL: 5}[how], how.name)
            for name, tab in tabs.items():
                assert not tab.exceptions(), f"{name}: {tab.exceptions()}"
                assert tab.page.evaluate(SAME_PAGE_JS), f"{name}: the page was reloaded"
    finally:
        for tab in tabs.values():
            tab.close()
        server.stop()
