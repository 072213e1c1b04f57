"""The app in a real browser: Debian's Chromium driven by Playwright (tests/support/browser.py).

Every page declared in relpos.ui.navigation.PAGES is loaded, checked and photographed
(with its axe-core audit, in tests/test_accessibility.py), so a newly merged page is
covered without editing either file. Page-specific tests fail if their page
leaves PAGES; their labels live in tests/support/ui_contract.py.

Skipped with the reason when Chromium or Playwright is missing.
"""

from __future__ import annotations

import contextlib
import re
import socket
import time
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

import relpos
from relpos.topics.position_effects import schema as position_effects_schema
from relpos.ui.navigation import PAGES
from tests.support.browser import ROOT, SELECTORS, AppTab, StreamlitServer
from tests.support.pages import assert_clean, assert_texts, open_explorer, require_page
from tests.support.ui_contract import EXPLORER, POSITION_EFFECTS, WALKTHROUGH, contract, url_path

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def changed_rows(before: np.ndarray, after: np.ndarray) -> set[int]:
    return set(np.flatnonzero(~np.isclose(before, after).all(axis=1)).tolist())


# ---------------------------------------------------------------------------------------
# Every page


# Each page's clean load, content and icons are checked with its axe-core audit, in one
# load (tests/test_accessibility.py::test_page_loads_cleanly_and_has_no_accessibility_violations_in_light_and_dark).


def test_root_url_first_page_by_name_and_the_sidebar_reach_every_page(app_tab):
    """ "/" shows the first page; /overview (typed, bookmarked, or from an old link) is that
    start page at "/", not "Page not found"; the sidebar's links reach every page."""
    app_tab.open("")
    assert_clean(app_tab)
    first = PAGES[0]
    assert_texts(app_tab, contract(first).texts)

    app_tab.open(first.url_path, {"probe": "1"})  # the server has run app.py: the lookup is st.navigation's
    app_tab.wait_idle()
    assert_clean(app_tab)
    assert urlparse(app_tab.page.url).path.strip("/") == ""
    assert parse_qs(urlparse(app_tab.page.url).query) == {"probe": ["1"]}
    assert_texts(app_tab, contract(first).texts)

    for spec in PAGES:
        link = app_tab.page.locator("[data-testid=stSidebarNav] a").filter(has_text=spec.title).first
        app_tab.interact(link.click)
        assert app_tab.page.url.split("?")[0] == f"{app_tab.base_url}/{url_path(spec)}", spec.title
        assert app_tab.exceptions() == [], spec.title
    assert app_tab.errors == []


#: The start page and the last page: the mechanism is the same for every page, and each
#: fresh server costs a Streamlit process.
FRESH_LINK_PAGES = (PAGES[0], PAGES[-1])


@pytest.fixture(scope="module")
def fresh_servers(chromium):
    """One never-visited server per page (started in parallel): a link is its first request."""
    servers = {spec.url_path: StreamlitServer(ROOT / "app.py") for spec in FRESH_LINK_PAGES}
    try:
        for server in servers.values():
            server.launch()
        for server in servers.values():
            server.wait_healthy()
        yield servers
    finally:
        for server in servers.values():
            server.stop()


@pytest.mark.parametrize("spec", FRESH_LINK_PAGES, ids=[spec.url_path for spec in FRESH_LINK_PAGES])
def test_link_on_a_fresh_server_runs_through_app_py(chromium, fresh_servers, spec):
    """A lesson link opened before anyone visited "/" still gets the app's navigation.

    (Streamlit runs pages/<page>.py alone, as a legacy pages-folder app, until app.py's
    st.navigation has run once in the process; relpos.server.routing corrects that.)
    """
    tab = AppTab.new(chromium, fresh_servers[spec.url_path].base_url)
    try:
        # /<url_path> even for the default page (which lives at "/"): on a fresh server
        # that path is what used to bypass app.py.
        tab.open(spec.url_path, {"probe": "1"})
        nav = tab.page.locator(SELECTORS["sidebar_link"]).all_inner_texts()
        titles = [spec.title for spec in PAGES]
        if len(PAGES) > 1:
            assert [text.strip().split("\n")[-1].strip() for text in nav] == titles
        else:
            assert nav == [], "a one-page app shows no page list (a list means legacy pages/ mode)"
        # the link's page survives (pages that keep their state in the URL may rewrite the query)
        path = urlparse(tab.page.url).path.strip("/")
        assert path == spec.url_path or (spec == PAGES[0] and path == "")
        assert_texts(tab, contract(spec).texts)
        assert_clean(tab)
    finally:
        tab.close()


# ---------------------------------------------------------------------------------------
# The helpers themselves, proven on the floor app (a bare page with one slider)


@pytest.fixture(scope="module")
def floor_server(chromium):
    with StreamlitServer("bench/floor_app.py") as server:
        yield server


def test_keyboard_slider_redraws_heatmaps_on_floor_app(chromium, floor_server):
    tab = AppTab.new(chromium, floor_server.base_url)
    try:
        tab.open("", {"n": 4, "heatmaps": 2})
        tab.wait_plots(2)
        before = [figure.z for figure in tab.figures()]
        assert [z.shape for z in before] == [(4, 4), (4, 4)]

        assert tab.press_slider("shift", "ArrowRight") == pytest.approx(0.1)
        after = [figure.z for figure in tab.figures()]
        for old, new in zip(before, after, strict=True):
            np.testing.assert_allclose(new - old, 0.1, atol=1e-9)  # every cell moved by one step

        assert tab.press_slider("shift", "ArrowLeft") == pytest.approx(0.0)
        for old, new in zip(before, [figure.z for figure in tab.figures()], strict=True):
            np.testing.assert_allclose(new, old, atol=1e-9)
        assert_clean(tab)
        tab.screenshot("floor_app")
    finally:
        tab.close()


# ---------------------------------------------------------------------------------------
# Explorer


def drawn(tab: AppTab, *titles) -> list[np.ndarray]:
    """The first heatmap of each titled figure, as plotly.js drew it."""
    return [tab.figure(title).z for title in titles]


def changed_cells(before: np.ndarray, after: np.ndarray) -> set[tuple[int, int]]:
    return {(int(i), int(j)) for i, j in np.argwhere(~np.isclose(before, after, rtol=0, atol=1e-9))}


def test_explorer_hover_and_keyboard_sliders_redraw_only_their_cells(app_tab):
    """On the textbook example: the hover shows a cell's arithmetic; an aᴷ slider's key
    press redraws only its diagonal, a query slider's only its row, each by the exact step."""
    open_explorer(app_tab)
    # the example, as plotly.js shows it: true minus signs, negative factors in parentheses
    label = app_tab.hover_cell("combined score", 0, 3, 4)
    assert "offset j − i = +3" in label
    assert "1.00·(1.20) = 1.20" in label and "1.00·(−0.50) = −0.50" in label
    assert "score 1.20 + (−0.50) = 0.70" in label

    # a table slider: one diagonal of the bias and the scores, the content untouched
    panels = (EXPLORER.content_title, EXPLORER.bias_title, EXPLORER.scores_title)
    content, bias, scores = drawn(app_tab, *panels)
    app_tab.press_slider(EXPLORER.diagonal_slider, "ArrowRight")
    new_content, new_bias, new_scores = drawn(app_tab, *panels)
    n = content.shape[0]
    diagonal = {(i, i + EXPLORER.diagonal_offset) for i in range(n - EXPLORER.diagonal_offset)}
    assert changed_cells(bias, new_bias) == diagonal
    assert changed_cells(scores, new_scores) == diagonal
    np.testing.assert_array_equal(new_content, content)
    queries = np.array(relpos.worked_example().queries)
    for i, j in diagonal:  # q_i · (a + 0.05) − q_i · a
        assert new_bias[i, j] - bias[i, j] == pytest.approx(0.05 * queries[i])

    # a query slider: its row in every panel, and back
    app_tab.open_tab(EXPLORER.row_tab)  # a lazy tab: its sliders exist once it is open
    panels = (EXPLORER.content_title, EXPLORER.bias_title, EXPLORER.scores_title, EXPLORER.weights_title)
    before = drawn(app_tab, *panels)
    value = app_tab.slider_value(EXPLORER.row_slider)
    assert app_tab.press_slider(EXPLORER.row_slider, "ArrowRight") == pytest.approx(value + 0.05)
    after = drawn(app_tab, *panels)
    for title, old, new in zip(panels, before, after, strict=True):
        assert changed_rows(old, new) == {EXPLORER.row_index}, title.pattern
    # d = 1: the content row moves by exactly one slider step times each key
    keys = np.array(relpos.worked_example().keys)
    np.testing.assert_allclose(after[0][EXPLORER.row_index] - before[0][EXPLORER.row_index], 0.05 * keys, atol=1e-9)
    app_tab.press_slider(EXPLORER.row_slider, "ArrowLeft")
    for old, new in zip(before, drawn(app_tab, *panels), strict=True):
        np.testing.assert_allclose(new, old, atol=1e-12)
    assert_clean(app_tab)


def _bold_once(title: str) -> str:
    """A drawn title with Streamlit's bold applied once: its Plotly theme wraps a title in
    ``<b>`` when it draws it, and a chart drawn again from the same figure (a fresh tab's
    second run) can get ``<b><b>…</b></b>``, which looks the same."""
    return re.sub(r"(</b>)+", "</b>", re.sub(r"(<b>)+", "<b>", title))


def assert_link_restores_state(chromium, app_tab, spec, slider) -> None:
    """Change a slider, then open the page's URL in a new session: same sliders, same pictures."""
    app_tab.open(spec.url_path)
    app_tab.wait_plots(contract(spec).min_charts)
    app_tab.press_slider(slider, "ArrowRight")
    link = app_tab.page.url
    assert "?" in link, "the changed state must be written to the URL"
    sliders = {label: app_tab.slider_value(label) for label in app_tab.slider_labels()}
    figures = app_tab.figures()

    fresh = AppTab.new(chromium, app_tab.base_url)
    try:
        fresh.goto(link)
        fresh.wait_plots(len(figures))
        assert {label: fresh.slider_value(label) for label in fresh.slider_labels()} == sliders
        for old, new in zip(figures, fresh.figures(), strict=True):
            assert _bold_once(new.title) == _bold_once(old.title)
            for old_z, new_z in zip(old.heatmaps, new.heatmaps, strict=True):
                np.testing.assert_allclose(new_z, old_z)
        assert parse_qs(urlparse(fresh.page.url).query) == parse_qs(urlparse(link).query)
        assert_clean(fresh)
    finally:
        fresh.close()


def test_explorer_lesson_link_opens_exact_state(chromium, app_tab):
    spec = require_page(EXPLORER.path, "explorer")
    assert_link_restores_state(chromium, app_tab, spec, EXPLORER.diagonal_slider)


def numbers(text: str) -> np.ndarray:
    return np.array([float(value) for value in text.split(",")])


def test_explorer_lesson_query_restores_its_values(app_tab):
    """A hand-written link: every slider and every panel shows exactly the numbers in it."""
    query = EXPLORER.lesson_query
    open_explorer(app_tab, query)
    assert_clean(app_tab)
    assert app_tab.count("warning") == 0
    q, keys, table = numbers(query["q"]), numbers(query["keys"]), numbers(query["a"])
    k = int(query["k"])
    assert app_tab.slider_value(EXPLORER.k_slider) == k
    for offset, value in zip(range(-k, k + 1), table, strict=True):
        label = "aᴷ" + ("0" if offset == 0 else f"{offset:+d}")
        assert app_tab.slider_value(label) == pytest.approx(value)
    expected = relpos.relative_attention(q[:, None], keys[:, None], A_K=table[:, None])
    content, bias, scores, weights = drawn(
        app_tab, EXPLORER.content_title, EXPLORER.bias_title, EXPLORER.scores_title, EXPLORER.weights_title
    )
    np.testing.assert_allclose(content, expected.content)
    np.testing.assert_allclose(bias, expected.bias)
    np.testing.assert_allclose(scores, expected.scores)
    np.testing.assert_allclose(weights, expected.weights)
    app_tab.open_tab(EXPLORER.row_tab)
    assert [app_tab.slider_value(f"q{i + 1}") for i in range(len(q))] == pytest.approx(q.tolist())
    # the page keeps the link as it is (it rewrites the URL only when the state changes)
    assert {key: values[-1] for key, values in parse_qs(urlparse(app_tab.page.url).query).items()} == query


def test_explorer_hostile_query_warns_and_keeps_working(app_tab):
    open_explorer(app_tab, EXPLORER.hostile_query)
    assert app_tab.count("warning") == 1, "malformed parameters must be reported"
    warning = app_tab.page.locator(SELECTORS["warning"]).inner_text()
    for name in EXPLORER.hostile_query:
        assert f"{name}: expected" in warning
    assert_clean(app_tab)
    assert app_tab.figure(EXPLORER.content_title).z.shape == (4, 4), "the defaults replace the bad values"
    before = app_tab.figure(EXPLORER.bias_title).z
    app_tab.press_slider(EXPLORER.diagonal_slider, "ArrowRight")  # still usable
    assert (app_tab.figure(EXPLORER.bias_title).z != before).any()
    assert_clean(app_tab)


@pytest.mark.parametrize("fields", [5_000, 10_000])
def test_a_link_too_long_for_streamlit_is_reported(app_tab, fields):
    """Streamlit drops a query string of over 1,000 parameters without a word; the page says so."""
    query = "&".join(f"zz{i}=1" for i in range(fields))
    app_tab.open(require_page(EXPLORER.path, "explorer").url_path, query)
    # the guard reloads the page once; a locator (unlike a script) outlives that navigation
    notice = app_tab.page.locator(SELECTORS["warning"]).filter(has_text=f"holds {fields:,} parameters").first
    notice.wait_for(timeout=30_000)
    warning = notice.inner_text()
    assert f"holds {fields:,} parameters" in warning and "shows its defaults" in warning
    assert_clean(app_tab)


@pytest.mark.parametrize("size", ["10,000 parameters", "the longest query Streamlit reads"])
def test_a_long_link_that_arrives_in_pieces_gets_its_page(app_server, size):
    """A long link's request as a network delivers it, in pieces (4 KiB, 5 ms apart): the server
    reads the whole request and answers with the page, whose guard then reports the link.
    (uvicorn's own limit answered 400 past 16 KiB; a loopback often delivers 89 KB at once.)"""
    from relpos.server.internals import QUERY_MAX_CHARS

    if size == "10,000 parameters":
        query = "&".join(f"zz{i}=1" for i in range(10_000))
    else:
        query = "&".join(f"z{i:03d}=" + "1" * (QUERY_MAX_CHARS // 100 - 6) for i in range(100))
        assert len(query) <= QUERY_MAX_CHARS
    port = urlparse(app_server.base_url).port
    request = (
        f"GET /explorer?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/html\r\n"
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/125.0\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        sent, status = 0, "(connection reset)"
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # an answer before the end
            for sent in range(0, len(request), 4096):
                connection.sendall(request[sent : sent + 4096])
                time.sleep(0.005)
        with contextlib.suppress(ConnectionResetError):
            status = connection.makefile("rb").readline().decode() or "(connection closed)"
    assert status.split()[1:2] == ["200"], f"{len(request):,} bytes in pieces, answered after {sent:,}: {status!r}"


# ---------------------------------------------------------------------------------------
# Position effects


def test_position_effects_lesson_link_opens_exact_state(chromium, app_tab):
    spec = require_page(POSITION_EFFECTS.path, "position effects")
    assert_link_restores_state(chromium, app_tab, spec, POSITION_EFFECTS.slider)


def test_position_effects_lesson_query_restores_its_values(app_tab):
    spec = require_page(POSITION_EFFECTS.path, "position effects")
    query = POSITION_EFFECTS.lesson_query
    app_tab.open(spec.url_path, query)
    app_tab.wait_plots(contract(spec).min_charts)
    assert_clean(app_tab)
    assert app_tab.count("warning") == 0
    for label, name in (
        ("Tokens n", "n"),
        (POSITION_EFFECTS.slider, "k"),
        ("Preset strength", "strength"),
        ("Shared direction in X", "shared"),
    ):
        assert app_tab.slider_value(label) == pytest.approx(float(query[name])), label
    state = position_effects_schema.POSITION_EFFECTS.decode(query).state
    inputs = position_effects_schema.state_inputs(state)
    expected = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    content, bias, weights = drawn(
        app_tab, POSITION_EFFECTS.content_title, POSITION_EFFECTS.bias_title, POSITION_EFFECTS.weights_title
    )
    np.testing.assert_allclose(content, expected.content, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(bias, expected.bias, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(weights, expected.weights, rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------------------------------
# Walkthrough


def test_walkthrough_steps_forward_and_back_by_buttons_and_a_presentation_clicker(app_tab):
    """Next and Previous step through the pairs; so do a clicker's Page Down and Page Up,
    whose listening buttons stay invisible."""
    spec = require_page(WALKTHROUGH.path, "walkthrough")
    app_tab.open(spec.url_path)
    assert WALKTHROUGH.first_stop in app_tab.main_text()
    assert "Query i = 1, key j = 1" in app_tab.main_text()

    app_tab.click(WALKTHROUGH.next_button)
    assert WALKTHROUGH.second_stop in app_tab.main_text(), "Next must show the next pair"
    assert "Query i = 1, key j = 2" in app_tab.main_text()
    app_tab.click(WALKTHROUGH.previous_button)
    assert WALKTHROUGH.first_stop in app_tab.main_text(), "Previous must return to the first pair"
    assert "Query i = 1, key j = 1" in app_tab.main_text()

    app_tab.page.locator(".st-key-clicker button").last.wait_for(state="attached")
    app_tab.interact(lambda: app_tab.page.keyboard.press("PageDown"))
    assert WALKTHROUGH.second_stop in app_tab.main_text(), "Page Down must show the next pair"
    app_tab.interact(lambda: app_tab.page.keyboard.press("PageUp"))
    assert WALKTHROUGH.first_stop in app_tab.main_text(), "Page Up must return to the first pair"
    assert not app_tab.page.get_by_text("Page Down: next stop").is_visible()
    assert_clean(app_tab)


def test_walkthrough_lesson_link_opens_exact_state(chromium, app_tab):
    """A lesson link holds the stop: a fresh tab on the copied address opens the same stop."""
    spec = require_page(WALKTHROUGH.path, "walkthrough")
    app_tab.open(spec.url_path)
    app_tab.wait_plots(contract(spec).min_charts)
    for _ in range(2):
        app_tab.click(WALKTHROUGH.next_button)
    link = app_tab.page.url
    assert parse_qs(urlparse(link).query).get("j") == ["3"], f"the address lost the walkthrough's stop: {link}"
    where = "Stop 3 of 20 · pair (1, 3)"
    assert where in app_tab.main_text()
    figures = app_tab.figures()

    fresh = AppTab.new(chromium, app_tab.base_url)
    try:
        fresh.goto(link)
        fresh.wait_plots(len(figures))
        assert where in fresh.main_text()
        for old, new in zip(figures, fresh.figures(), strict=True):
            assert new.title == old.title
            for old_z, new_z in zip(old.heatmaps, new.heatmaps, strict=True):
                np.testing.assert_allclose(new_z, old_z)
        assert_clean(fresh)
    finally:
        fresh.close()


def test_walkthrough_presenter_mode_enlarges_text(app_tab):
    spec = require_page(WALKTHROUGH.path, "walkthrough")
    app_tab.open(spec.url_path)
    app_tab.wait_plots(contract(spec).min_charts)
    body = app_tab.font_size(WALKTHROUGH.body_text)
    formula = app_tab.font_size("[data-testid=stMain] .katex")
    app_tab.screenshot(f"{spec.url_path}-normal")

    app_tab.toggle(WALKTHROUGH.presenter_toggle)
    app_tab.wait_plots(contract(spec).min_charts)
    app_tab.screenshot(f"{spec.url_path}-presenter")
    assert app_tab.font_size(WALKTHROUGH.body_text) > body
    assert app_tab.font_size("[data-testid=stMain] .katex") > formula

    # Next stays within reach: visible in the viewport even after scrolling to the bottom.
    app_tab.page.mouse.wheel(0, 100_000)
    app_tab.page.wait_for_timeout(300)
    next_box = app_tab.button(WALKTHROUGH.next_button).bounding_box()
    viewport = app_tab.page.viewport_size
    assert next_box is not None and 0 <= next_box["y"] <= viewport["height"] - next_box["height"]
    assert_clean(app_tab)


# ---------------------------------------------------------------------------------------
# Train a tiny head


def test_pressing_train_draws_the_trained_head(app_tab):
    """A student presses Train: the loss curve, the learned bias per offset and the head's
    attention at L and 4L appear; attention is causal and every row sums to 1."""
    spec = require_page("pages/training.py", "training")
    app_tab.open(spec.url_path, {"steps": "100", "L": "8"})
    assert "Nothing trained yet" in app_tab.main_text()
    app_tab.click(re.compile(r"Train: "))
    app_tab.wait_plots(4, timeout=60)
    titles = [re.sub(r"<[^>]+>", "", figure.title) for figure in app_tab.figures()]
    assert any(title.startswith("Training loss") for title in titles), titles
    assert any("mean bias" in title and "step 100" in title for title in titles), titles
    attention = [figure for figure in app_tab.figures() if "weights at" in figure.title]
    assert [figure.z.shape for figure in attention] == [(8, 8), (32, 32)], titles
    for figure in attention:
        np.testing.assert_allclose(figure.z.sum(axis=1), 1.0, atol=1e-6)
        assert np.allclose(np.triu(figure.z, 1), 0.0), "a causal head never looks ahead"
    assert "Nothing trained yet" not in app_tab.main_text()
    assert_clean(app_tab)


def test_the_classroom_helpers_reach_a_tab_whose_html_code_arrives_after_a_second_run(app_tab):
    """Streamlit draws ``st.html`` with code it loads lazily. When that code arrives only
    after a second run has finished (a slow link, a busy machine), the tab must still get
    the helpers: a run that sent them once and then dropped them left the tab without
    fitted formulas, and axe-core then found a scroll region no keyboard could reach."""
    held = []
    app_tab.page.route(re.compile(r"/static/js/Html\.[\w-]+\.js$"), lambda route: held.append(route))
    app_tab.open("walkthrough", {"i": 1, "j": 2})
    app_tab.click("Next")  # a second run, finished while the html code is still held back
    assert held, "the page never asked for Streamlit's html code"
    helpers_js = "() => !!document.getElementById('relpos-page-helpers-css')"
    assert not app_tab.page.evaluate(helpers_js)
    for route in held:
        route.continue_()
    app_tab.page.wait_for_function(helpers_js, timeout=20_000)
    app_tab.wait_drawn()
    unfitted = app_tab.page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=stMain] .katex-display')]"
        ".filter((box) => !box.dataset.relposFitted).length"
    )
    assert unfitted == 0
    assert_clean(app_tab)
