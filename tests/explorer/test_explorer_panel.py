"""The Explorer panel in a real browser: the heatmaps follow the sliders.

The browser's numbers are checked against the core (relpos.relative_attention and
relpos.scalar_bias_attention) on random states loaded through the component; drags,
touch drags and key presses repaint before anything reaches the server; a release writes
the URL, and that URL opens the same numbers in a fresh tab.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

import relpos
from relpos.plots import panels
from relpos.text import explain
from relpos.text.hover import format_cells
from relpos.topics.explorer import panel_spec
from relpos.topics.explorer import schema as explorer_schema
from tests.support import oracle
from tests.support.apptest import decode_z
from tests.support.browser import AppTab, deploy_options
from tests.support.pages import PANEL_PLOTS, assert_clean, open_explorer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

# Set every slider of the Explorer panel to new values with input events only (no change
# event: nothing is handed to the server), wait for the paint, return what is drawn.
SET_AND_READ_JS = """
async (values) => {
  const panel = window.__relposPanelLog;
  const before = panel.painted;
  for (const [group, list] of Object.entries(values)) {
    panel.sliders(group).forEach((input, index) => {
      input.value = list[index];
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
  }
  await new Promise((done) => {
    const check = () => (panel.painted > before ? requestAnimationFrame(done) : requestAnimationFrame(check));
    check();
  });
  const drawn = {};
  for (const [name, plot] of Object.entries(panel.plots())) {
    const trace = plot._fullData[0];
    drawn[name] = {
      z: Array.from(trace.z, (row) => Array.from(row)),
      text: Array.isArray(plot.data[0].text) ? plot.data[0].text : null,
      // the cell labels in the SVG, row by row: what the learner reads
      labels: Array.from(plot.querySelectorAll('g.heatmap-label text'), (label) => label.textContent),
      customdata: plot.data[0].customdata || null,
      hovertemplate: plot.data[0].hovertemplate || null,
    };
  }
  return { drawn, values: panel.values(), restyled: panel.restyled };
}
"""
STATS_JS = "() => ({ painted: window.__relposPanelLog.painted, sends: window.__relposPanelLog.sends.length })"


def wait_for_link(tab: AppTab, name: str, start: str) -> None:
    """Wait until the page's URL has `name` starting with `start` (a release's rerun writes it)."""
    tab.page.wait_for_function(
        "([name, start]) => (new URLSearchParams(location.search).get(name) || '').startsWith(start)",
        arg=[name, start],
        timeout=30_000,
    )
    tab.wait_idle()


def panel_stats(tab: AppTab) -> dict:
    return tab.page.evaluate(STATS_JS)


def random_state(rng: np.random.Generator, scalar: bool) -> dict:
    n = int(rng.integers(2, 17))
    query = {
        "preset": "random",
        "n": str(n),
        "k": str(int(rng.integers(0, n))),
        "d": str(int(rng.choice([1, 2]))),
        "seed": str(int(rng.integers(0, 1000))),
        "bias": "scalar" if scalar else "shaw",
    }
    return explorer_schema.EXPLORER.decode(query).state


def spec_of(state: dict) -> dict:
    """The spec the page would send for `state`, built by the Python side of the component."""
    return spec_and_figures(state)[0]


def spec_and_figures(state: dict) -> tuple[dict, dict]:
    """The spec for `state` and the whole figures (cells and all) Python's builders make for it."""
    inputs = explorer_schema.explorer_inputs(state)
    result = attention(inputs.queries, inputs.keys, inputs.table, state["bias"] == "scalar")
    scalar = state["bias"] == "scalar"
    hovers = panel_spec.explorer_hovers(inputs.queries, inputs.keys, inputs.table, result, scalar=scalar, cells=True)
    figures = oracle.explorer_panels(inputs.queries, inputs.keys, inputs.table, result, scalar=scalar, hovers=hovers)
    captions = explain.explorer_captions(result, scalar=scalar)
    spec = oracle.spec_from_figures(state, inputs, figures, captions, result=result, hovers=hovers, seq=1_000_000)
    return spec, figures


def attention(queries, keys, table, scalar: bool):
    if scalar:
        return relpos.scalar_bias_attention(queries, keys, table[:, 0])
    return relpos.relative_attention(queries, keys, A_K=table)


def with_first_column(matrix: np.ndarray, values: list[float]) -> np.ndarray:
    new = np.array(matrix, dtype=float)
    new[:, 0] = values
    return new


def test_live_numbers_equal_the_core_on_random_states(app_tab):
    """60 random states (n 2–16, k 0..n−1, both biases, d = 1 and 2): every drawn number.

    30 random structures are loaded through the component as the page would send them;
    in each, every slider is moved twice to random values and the browser's repaint is
    compared with the core.
    """
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    rng = np.random.default_rng(11)
    checked, seen = 0, set()
    restyled = app_tab.page.evaluate("() => window.__relposPanelLog.restyled")
    for number in range(30):
        state = random_state(rng, scalar=number % 2 == 1)
        spec = spec_of(state)
        app_tab.page.evaluate("(spec) => window.__relposPanelLog.load(spec)", spec)
        for _ in range(2):
            values = {
                g["name"]: [round(int(v) * 0.05, 2) for v in rng.integers(-40, 41, len(g["values"]))]
                for g in spec["groups"]
            }
            answer = app_tab.page.evaluate(SET_AND_READ_JS, values)
            assert answer["values"] == values
            assert answer["restyled"] == restyled, "a slider's paint redraws the cells, not the whole figure"
            assert_drawn_equals_core(answer["drawn"], state, values, spec["decimals"])
            checked += 1
        seen.add((state["d"], state["bias"], state["k"] == state["n"] - 1, state["k"] == 0))
    assert checked >= 50 and {(d, bias) for d, bias, *_ in seen} == {(d, b) for d in (1, 2) for b in ("shaw", "scalar")}
    assert_clean(app_tab)


# Draw a spec as the page's first load and every release do (the panel fills the cells of
# Python's skeletons) and return every drawn trace, as plotly.js holds it, with the time
# from the spec's arrival to its figures being on screen.
LOAD_AND_READ_JS = """
async (spec) => {
  const panel = window.__relposPanelLog;
  const shown = await panel.load(spec);
  const drawn = Object.fromEntries(Object.entries(panel.plots()).map(([name, plot]) => [name,
    { data: plot.data, layout: plot.layout }]));
  return { drawn, figures: shown.drawn, ms: shown.presentedAt - shown.startedAt };
}
"""
#: Settings where sentences and numbers go wrong first (the guide's degenerate settings),
#: the edges of every level of detail (text up to 12, hover up to 64 tokens, offset labels
#: up to 16 × 16, the offset map's table rows above 64 × 64) and n = 128 (no hover data).
EDGE_STATES = (
    {"k": "0"},
    {"preset": "none", "n": "6"},  # a zero table
    {"q": "0.5,0.5,0.5,0.5"},  # equal queries
    {"n": "2", "k": "1"},
    {"n": "2", "k": "0", "bias": "scalar"},
    {"d": "2", "n": "5", "preset": "random", "seed": "4"},
    {"bias": "scalar", "n": "12", "k": "3", "preset": "random", "seed": "8"},
    {"n": "13", "k": "12", "preset": "random", "seed": "2"},
    {"n": "16", "k": "5", "d": "2", "bias": "scalar", "preset": "random", "seed": "3"},
    {"n": "17", "k": "0", "preset": "locality"},
    {"n": "64", "k": "63", "preset": "random", "seed": "5"},
    {"n": "128", "k": "5", "d": "2", "preset": "random", "seed": "6"},
    {"n": "128", "k": "127", "bias": "scalar", "preset": "ahead"},
)


def test_compact_specs_draw_what_python_builds(app_tab):
    """The spec carries no cells; the browser fills them: every drawn trace equals Python's figure.

    13 edge states and 12 random ones (n 2–16, k 0..n−1, both biases, d = 1 and 2) are loaded
    through the component, as the page sends them on the first load and on every release.
    """
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    rng = np.random.default_rng(14)
    states = [explorer_schema.EXPLORER.decode(query).state for query in EDGE_STATES]
    states += [random_state(rng, scalar=number % 2 == 1) for number in range(12)]
    for state in states:
        spec, figures = spec_and_figures(state)
        assert not any(set(panel_spec.CELL_FIELDS) & set(figure["data"][0]) for figure in spec["figures"].values())
        assert not any("path" in shape for figure in spec["figures"].values() for shape in shapes_of(figure))
        answer = app_tab.page.evaluate(LOAD_AND_READ_JS, spec)
        assert answer["figures"] >= 6, (state, answer["figures"])  # a new spec redraws every value panel
        assert_drawn_as_built(answer["drawn"], figures, state)
    assert_clean(app_tab)


_SIZES_JS = """() => Object.fromEntries(Object.entries(window.__relposPanelLog.plots()).map(([name, plot]) =>
  [name, { height: plot.layout.height, drawnHeight: plot._fullLayout.height, drawnWidth: plot._fullLayout.width,
           boxWidth: plot.clientWidth }]))"""


def test_a_figure_drawn_while_the_window_resizes_keeps_its_height_and_follows_the_width(app_tab):
    """A narrower window, then at once a spec with more tokens (taller panels): each panel is
    drawn at the new spec's height and its box's width. plotly.js's own resize deleted the
    height of a figure drawn within 100 ms of a resize, which then kept the old height."""
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    states = [
        {"n": "9", "k": "3", "preset": "random", "seed": "2"},
        {"n": "12", "k": "5", "preset": "random", "seed": "3"},
    ]
    for width, query in zip((1100, 1400), states, strict=True):
        spec, figures = spec_and_figures(explorer_schema.EXPLORER.decode(query).state)
        app_tab.page.set_viewport_size({"width": width, "height": 1000})
        app_tab.page.evaluate(LOAD_AND_READ_JS, spec)
        # past plotly.js's 100 ms resize timer, and every width change seen (two frames)
        app_tab.page.wait_for_timeout(400)
        app_tab.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        sizes = app_tab.page.evaluate(_SIZES_JS)
        for name, size in sizes.items():
            wanted = figures[name].layout.height
            assert size["height"] == size["drawnHeight"] == wanted, (width, name, size, wanted)
            assert abs(size["drawnWidth"] - size["boxWidth"]) <= 1, (width, name, size)
    assert_clean(app_tab)


def shapes_of(figure: dict) -> list[dict]:
    return figure["layout"].get("shapes", [])


def same_property(drawn, sent) -> bool:
    """A trace property as plotly.js holds it equals the JSON Python sent (a typed array
    keeps its ``bdata`` and gains the decoded ``_inputArray``)."""
    if isinstance(sent, dict) and "bdata" in sent:
        return {**drawn, "_inputArray": None} == {**sent, "_inputArray": None}
    return drawn == sent


def themed(layout: dict) -> dict:
    """Python's layout as the panel draws it on the light theme's page (deploy/streamlit.toml):
    the page's colour behind the plot, the theme's text colour for its text."""
    page, text = (deploy_options()[f"theme.light.{name}"] for name in ("backgroundColor", "textColor"))
    return {**layout, "paper_bgcolor": page, "plot_bgcolor": page, "font": {**layout.get("font", {}), "color": text}}


def assert_drawn_as_built(drawn: dict, figures: dict, state: dict) -> None:
    """Every trace property the browser drew equals Python's figure, cells and skeleton alike, and
    so does the layout, in the page's theme (:func:`themed`).

    ``z`` within 1e-12 of the float64 matrices the builders are given (above 64 tokens
    Python's own figures round them to float32, and match within its precision), cell text
    and hover strings identical, numeric hover data as Python's float32 holds it.
    """
    inputs = explorer_schema.explorer_inputs(state)
    matrices = panels.panel_matrices(attention(inputs.queries, inputs.keys, inputs.table, state["bias"] == "scalar"))
    for name, figure in figures.items():
        built = oracle.figure_json(figure)
        expected = built["data"]
        # the layout too (the shared parts are sent once; the outline's paths come from the browser);
        # plotly.js writes what it computed for an axis (autorange …) back into it
        layout = drawn[name]["layout"]
        for axis in ("xaxis", "yaxis"):
            layout[axis] = {key: layout[axis][key] for key in built["layout"][axis]}
        layout.pop("autosize", None)  # plotly.js's note that it sized the figure to its box
        assert layout == {**themed(built["layout"]), "dragmode": False}, (name, state)
        drawn[name] = drawn[name]["data"]
        assert len(drawn[name]) == len(expected), (name, state)
        for trace, want in zip(drawn[name], expected, strict=True):
            assert set(trace) == set(want), (name, set(trace) ^ set(want), state)
            for key, value in want.items():
                if key not in panel_spec.CELL_FIELDS:
                    assert same_property(trace[key], value), (name, key, trace[key], value, state)
        trace, want = drawn[name][0], expected[0]
        z = np.array(trace["z"], dtype=float)
        assert np.abs(z - matrices[name]).max() <= 1e-12 or name == "offsets", (name, state)
        np.testing.assert_allclose(z, decode_z(want), rtol=1e-6, atol=1e-7 if name != "offsets" else 0)
        assert trace.get("text") == want.get("text"), (name, state)
        if isinstance(want.get("customdata"), list):  # strings: Python's, true minus signs and all
            assert trace["customdata"] == want["customdata"], (name, state)
        elif "customdata" in want:  # numbers Plotly formats (float32 or int16 in Python)
            np.testing.assert_allclose(
                np.array(trace["customdata"]), decode_z({"z": want["customdata"]}), rtol=1e-6, atol=1e-7
            )
        if name == "offsets":
            np.testing.assert_array_equal(z, decode_z(want))


def assert_drawn_equals_core(drawn: dict, state: dict, values: dict, decimals: dict) -> None:
    """Every drawn z within 1e-12 of the core's; cell text and hover data as Python makes them."""
    inputs = explorer_schema.explorer_inputs(state)
    queries, keys, table = (
        with_first_column(matrix, values[name])
        for matrix, name in ((inputs.queries, "q"), (inputs.keys, "keys"), (inputs.table, "a"))
    )
    scalar = state["bias"] == "scalar"
    result = attention(queries, keys, table, scalar)
    for name, expected in panel_spec.explorer_hovers(queries, keys, table, result, scalar=scalar, cells=True).items():
        assert drawn[name]["hovertemplate"] == expected.template, (name, state)
        if expected.as_text:  # the hover numbers as Python formats them, true minus signs
            assert drawn[name]["customdata"] == expected.customdata.tolist(), (name, state)
        else:  # float32 in Python
            np.testing.assert_allclose(np.array(drawn[name]["customdata"]), expected.customdata, rtol=1e-6, atol=1e-6)
    for name, expected in panels.panel_matrices(result).items():
        z = np.array(drawn[name]["z"], dtype=float)
        assert z.shape == expected.shape and np.abs(z - expected).max() <= 1e-12, (name, state)
        if drawn[name]["text"] is not None and name != "offsets":
            text = format_cells(expected, f".{decimals[name]}f").tolist()
            assert drawn[name]["text"] == text, (name, state)
            # drawn in matrix orientation: the SVG holds the rows in order
            assert drawn[name]["labels"] == [cell for row in text for cell in row], (name, state)


def thumb_x(box: dict, value: float) -> float:
    """Where a native range input (−2 to 2) draws its thumb for `value` (thumb ≈ 16 px wide)."""
    return box["x"] + 8 + (box["width"] - 16) * (value + 2) / 4


def test_mouse_drag_repaints_before_release_and_the_link_keeps_it(chromium, app_tab):
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    slider = app_tab.slider("aᴷ₊₂")
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    start, runs, stats = thumb_x(box, -0.5), app_tab.finished_runs(), panel_stats(app_tab)
    app_tab.page.mouse.move(start, y)
    app_tab.page.mouse.down()
    for step in range(1, 21):
        app_tab.page.mouse.move(start + step * (thumb_x(box, 1.0) - start) / 20, y)
        app_tab.page.wait_for_timeout(40)
    app_tab.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    during = panel_stats(app_tab)
    assert during["painted"] - stats["painted"] >= 5, "the panels must repaint many times while dragging"
    assert during["sends"] == stats["sends"] and app_tab.finished_runs() == runs, "nothing goes to the server"
    app_tab.interact(app_tab.page.mouse.up)  # release: the values go to Python, which reruns

    value = app_tab.slider_value("aᴷ₊₂")
    assert value > 0.5
    link = app_tab.page.url
    assert parse_qs(urlparse(link).query)["a"][0].split(",")[-1] == f"{value:g}"
    figures = app_tab.figures()
    table = np.array([-0.3, 0.4, 0.1, -0.2, value])[:, None]
    example = relpos.worked_example()
    expected = relpos.relative_attention(example.queries, example.keys, A_K=table)
    np.testing.assert_allclose(app_tab.figure("combined weights").z, expected.weights, rtol=0, atol=1e-12)

    fresh = AppTab.new(chromium, app_tab.base_url)
    try:
        fresh.goto(link)
        fresh.page.wait_for_function(PANEL_PLOTS)
        assert fresh.slider_value("aᴷ₊₂") == value
        for old, new in zip(figures, fresh.figures(), strict=True):
            assert new.title == old.title
            np.testing.assert_array_equal(new.z, old.z)
        assert_clean(fresh)
    finally:
        fresh.close()
    assert_clean(app_tab)


def test_keyboard_steps_repaint_before_the_server_hears_of_them(app_tab):
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    app_tab.open_tab("Queries qᵢ")
    slider = app_tab.slider("q₁")
    slider.focus()
    example = relpos.worked_example()
    for step in range(1, 4):
        before = panel_stats(app_tab)
        app_tab.page.keyboard.press("ArrowRight")
        app_tab.page.wait_for_function("(n) => window.__relposPanelLog.painted > n", arg=before["painted"])
        timing = app_tab.page.evaluate(
            "() => ({ painted: window.__relposPanelLog.paints.at(-1), sends: window.__relposPanelLog.sends })"
        )
        later_sends = timing["sends"][before["sends"] :]
        assert not later_sends or timing["painted"]["drawnAt"] < later_sends[0], "painted before any hand-back"
        queries = np.array(example.queries, dtype=float)
        queries[0] += 0.05 * step
        content = app_tab.figure("content").z
        np.testing.assert_allclose(content[0], queries[0] * np.array(example.keys), rtol=0, atol=1e-12)
        # this step's hand-back, before the next step: a slow machine's next paint may come
        # after it, and it must not be taken for the next step's
        app_tab.page.wait_for_function("(n) => window.__relposPanelLog.sends.length > n", arg=before["sends"])
    assert app_tab.page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "q₁"
    wait_for_link(app_tab, "q", "1.15,")  # the hand-back's rerun writes the URL

    # the query-independent toggle is live too: one number per diagonal, and its hover says so
    painted = panel_stats(app_tab)["painted"]
    app_tab.page.locator(".relpos-explorer-panel .ep-toggle input").check()
    app_tab.page.wait_for_function("(n) => window.__relposPanelLog.painted > n", arg=painted)
    bias = app_tab.figure("position bias").z
    _, spread = relpos.diagonal_spread(bias)
    assert not spread.any()
    template = app_tab.page.evaluate("() => window.__relposPanelLog.plots().bias.data[0].hovertemplate")
    assert "(the same for every query)" in template
    wait_for_link(app_tab, "bias", "scalar")
    assert parse_qs(urlparse(app_tab.page.url).query)["bias"] == ["scalar"]
    assert_clean(app_tab)


# Heights of every control of the Explorer panel a finger may aim at (CSS px).
TARGETS_JS = """
() => [...document.querySelectorAll(
  '.relpos-explorer-panel :is([role=tab], .ep-toggle, .ep-slider input, .ep-fit:not([hidden]))')]
  .filter((el) => el.getClientRects().length)
  .map((el) => [el.className || el.tagName, el.getBoundingClientRect().height])
"""
SLIDER_VALUE_JS = (
    "(label) => Number(document.querySelector(`.relpos-explorer-panel input[aria-label='${label}']`).value)"
)


def test_touch_drag_on_a_phone(chromium, app_server):
    """A finger moves a slider by its own movement, step by step from the value it had: no
    dead zone, no jump to where it landed; every control is a 44 px target; an open hover
    label closes while the numbers change."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(390, 844), touch=True)
    try:
        tab.open("explorer")
        tab.page.wait_for_function(PANEL_PLOTS)
        tab.wait_drawn()
        small = [target for target in tab.page.evaluate(TARGETS_JS) if target[1] < 44 - 0.5]
        assert not small, f"touch targets below 44 px: {small}"
        # a tap on a cell opens its hover label
        area = tab.page.locator(".relpos-explorer-panel .ep-weights .nsewdrag").first
        area.scroll_into_view_if_needed()
        cell = area.bounding_box()
        slider = tab.slider("aᴷ₊₂")
        slider.scroll_into_view_if_needed()  # the bar's row of sliders scrolls sideways
        box = slider.bounding_box()
        tab.page.touchscreen.tap(cell["x"] + cell["width"] * 0.4, cell["y"] + cell["height"] * 0.4)
        tab.page.locator(".relpos-explorer-panel .hoverlayer .hovertext").first.wait_for(state="attached", timeout=5000)
        box = slider.bounding_box()
        y = box["y"] + box["height"] / 2
        cdp = tab.page.context.new_cdp_session(tab.page)
        stats = panel_stats(tab)

        def touch(kind: str, x: float) -> None:
            points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        start = box["x"] + box["width"] * 0.9  # far from the thumb (at −0.5): no jump to the finger
        touch("touchStart", start)
        seen = []
        for step in range(1, 13):
            touch("touchMove", start + 8 * step)  # 8 px a move: two steps of 0.05
            tab.page.wait_for_timeout(40)
            seen.append(round(tab.page.evaluate(SLIDER_VALUE_JS, "aᴷ₊₂"), 2))
        tab.page.wait_for_timeout(100)
        labels = tab.page.locator(".relpos-explorer-panel .hoverlayer .hovertext").count()
        tab.screenshot("panel_touch_390_dragging", full_page=False)
        assert seen == [round(-0.5 + 0.1 * step, 2) for step in range(1, 13)], f"values under the finger: {seen}"
        assert panel_stats(tab)["painted"] - stats["painted"] >= 3, "a finger drag repaints the panels"
        assert labels == 0, "a hover label with the numbers from before the drag stays open"
        before = tab.finished_runs()
        touch("touchEnd", 0)
        tab.wait_idle(after=before)
        assert parse_qs(urlparse(tab.page.url).query)["a"][0].split(",")[-1] == "0.7"
        tab.screenshot("panel_touch_390")
        assert_clean(tab)
    finally:
        tab.close()


# Where the cell outline of each panel is, and where cell (i, j) of that panel is drawn.
MARKS_JS = """
([i, j, n]) => Object.fromEntries([...document.querySelectorAll('.relpos-explorer-panel .ep-panel')].map((figure) => {
  const name = [...figure.classList].find((c) => c.startsWith('ep-') && c !== 'ep-panel').slice(3);
  const mark = figure.querySelector('.ep-mark');
  const area = figure.querySelector('.nsewdrag').getBoundingClientRect();
  const box = mark.getBoundingClientRect();
  return [name, { shown: !mark.hidden && box.width > 0,
    centre: [box.x + box.width / 2, box.y + box.height / 2],
    cell: [area.x + area.width * (j + 0.5) / n, area.y + area.height * (i + 0.5) / n], size: area.width / n }];
}))
"""


def test_pointing_at_a_cell_outlines_that_pair_in_every_panel(chromium, app_server):
    tab = AppTab.new(chromium, app_server.base_url, viewport=(1440, 900))
    try:
        tab.open("explorer")
        tab.page.wait_for_function(PANEL_PLOTS)
        tab.wait_drawn()
        label = tab.hover_cell("combined weights", 1, 2, 4)  # pair (2, 3), 0-based (1, 2)
        assert label
        marks = tab.page.evaluate(MARKS_JS, [1, 2, 4])
        tab.page.locator(".relpos-explorer-panel .ep-grid").scroll_into_view_if_needed()
        tab.screenshot("panel_pair_outlined_1440", full_page=False)
        assert set(marks) == set(panel_spec.PANEL_ORDER), marks
        for name, mark in marks.items():
            assert mark["shown"], f"no outline in {name}"
            off = np.hypot(*np.subtract(mark["centre"], mark["cell"]))
            assert off < mark["size"] * 0.2, (name, mark)
        tab.page.mouse.move(5, 450)  # away from every panel: the outlines go
        tab.page.wait_for_function(
            "() => [...document.querySelectorAll('.relpos-explorer-panel .ep-mark')].every((m) => m.hidden)"
        )
        assert_clean(tab)
    finally:
        tab.close()


def test_hover_arithmetic_follows_a_move_before_release(app_tab):
    """The issue's hover example after aᴷ₊₂ moved to 0.5 in the browser only (nothing handed back)."""
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    stats = panel_stats(app_tab)
    app_tab.page.evaluate(SET_AND_READ_JS, {"a": [-0.3, 0.4, 0.1, -0.2, 0.5]})
    label = app_tab.hover_cell("combined score", 0, 3, 4)
    assert "1.00·(0.50) = 0.50" in label and "score 1.20 + (0.50) = 1.70" in label  # as Python writes it
    assert panel_stats(app_tab)["sends"] == stats["sends"], "an input event alone is never handed back"
    assert_clean(app_tab)


COLOUR_RANGES_JS = """
() => Object.fromEntries(Object.entries(window.__relposPanelLog.plots()).map(
  ([name, plot]) => [name, [plot._fullData[0].zmin, plot._fullData[0].zmax]]))
"""


PANELS_TOP_JS = "() => document.querySelector('.relpos-explorer-panel .ep-grid').getBoundingClientRect().top"


def test_colours_hold_still_while_dragging_and_refit_on_release(app_tab):
    """During a move the colour ranges stay and the content panel is untouched; release re-fits."""
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    ranges = app_tab.page.evaluate(COLOUR_RANGES_JS)
    content = app_tab.figure("content").z
    panels_at = app_tab.page.evaluate(PANELS_TOP_JS)
    table = [-0.3, 0.4, 0.1, -0.2, 2.0]  # aᴷ₊₂ to the top: biases beyond today's range
    app_tab.page.evaluate(SET_AND_READ_JS, {"a": table})
    assert app_tab.page.evaluate(COLOUR_RANGES_JS) == ranges, "no colour range moves while a slider moves"
    assert app_tab.page.evaluate(PANELS_TOP_JS) == panels_at, "nor do the panels (the status line floats)"
    np.testing.assert_array_equal(app_tab.figure("content").z, content)

    slider = app_tab.slider("aᴷ₊₂")
    app_tab.interact(lambda: slider.dispatch_event("change"))  # let go: Python rebuilds the figures
    example = relpos.worked_example()
    result = relpos.relative_attention(example.queries, example.keys, A_K=np.array(table)[:, None])
    limit = max(np.abs(matrix).max() for matrix in (result.content, result.bias, result.scores))  # one shared range
    refitted = app_tab.page.evaluate(COLOUR_RANGES_JS)
    assert limit > ranges["content"][1]
    for name in ("content", "bias", "scores"):
        assert refitted[name] == pytest.approx([-limit, limit])
    assert refitted["weights"] == ranges["weights"] == [0, 1]
    assert_clean(app_tab)


def test_colours_stay_on_release_while_the_numbers_fit_their_range(app_tab):
    """A release whose numbers stay inside the drawn ranges changes no colour range (Python's
    fit would shrink or widen every panel's); a preset re-fits, and so does "Fit colours"."""
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    ranges = app_tab.page.evaluate(COLOUR_RANGES_JS)
    slider = app_tab.slider("aᴷ₊₂")
    slider.focus()
    app_tab.interact(lambda: app_tab.page.keyboard.press("ArrowRight"))  # −0.5 → −0.45, then the release
    wait_for_link(app_tab, "a", "-0.3,0.4,0.1,-0.2,-0.45")
    app_tab.page.wait_for_function("() => !document.querySelector('.relpos-explorer-panel.ep-stale')")
    assert app_tab.page.evaluate(COLOUR_RANGES_JS) == ranges, "colours jump on release"
    fit = app_tab.page.locator(".relpos-explorer-panel .ep-fit")
    assert fit.is_visible(), "the ranges differ from Python's fit: the learner may ask for it"
    app_tab.screenshot("panel_kept_colours_1440", full_page=False)
    fit.click()
    example = relpos.worked_example()
    result = relpos.relative_attention(
        example.queries, example.keys, A_K=np.array([-0.3, 0.4, 0.1, -0.2, -0.45])[:, None]
    )
    limit = max(np.abs(matrix).max() for matrix in (result.content, result.bias, result.scores))
    fitted = app_tab.page.evaluate(COLOUR_RANGES_JS)
    assert fitted["difference"] != ranges["difference"] and fitted["scores"] == pytest.approx([-limit, limit])
    assert not fit.is_visible()

    app_tab.page.get_by_label("Preset").first.click()  # a structural change: Python's fit
    app_tab.interact(lambda: app_tab.page.get_by_role("option").nth(1).click())
    app_tab.page.wait_for_function("() => !document.querySelector('.relpos-explorer-panel.ep-stale')")
    spec = app_tab.page.evaluate("() => window.__relposPanelLog.spec")
    drawn = app_tab.page.evaluate(COLOUR_RANGES_JS)
    for name, figure in spec["figures"].items():
        assert drawn[name] == [figure["data"][0]["zmin"], figure["data"][0]["zmax"]], name
    assert_clean(app_tab)


# Scroll Streamlit's page (it scrolls an inner container) until `selector` ends at the
# bottom of the window; return whether what is drawn at the centre of each of `probes`
# is that element itself (not the header or the page scrolled over it).
SCROLL_AND_PROBE_JS = """
([selector, probes]) => {
  const target = document.querySelector(selector);
  const scroller = [...document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer]')]
    .find((el) => el.scrollHeight > el.clientHeight + 5) || document.scrollingElement;
  scroller.scrollTop += target.getBoundingClientRect().bottom - window.innerHeight + 4;
  const box = target.getBoundingClientRect();
  const seen = (el) => {
    const rect = el.getBoundingClientRect();
    const hit = document.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2);
    return hit === el || el.contains(hit);
  };
  return { targetOnScreen: box.top >= 0 && box.bottom <= window.innerHeight,
           probes: probes.map((probe) => seen(document.querySelector(probe))) };
}
"""


def test_sliders_and_the_panel_they_drive_share_one_screen(chromium, app_server):
    """Cause next to effect at 1440×900: scrolled to the weight-change panel, aᴷ₊₂ is still in reach."""
    tab = AppTab.new(chromium, app_server.base_url, viewport=(1440, 900))
    try:
        tab.open("explorer")
        tab.page.wait_for_function(PANEL_PLOTS)
        probes = [".relpos-explorer-panel [role=tab]", ".relpos-explorer-panel .ep-slider:nth-child(5) input"]  # aᴷ₊₂
        seen = tab.page.evaluate(SCROLL_AND_PROBE_JS, [".relpos-explorer-panel .ep-difference", probes])
        assert seen == {"targetOnScreen": True, "probes": [True, True]}
        tab.screenshot("panel_cause_effect_1440", full_page=False)
        before = panel_stats(tab)["painted"]
        tab.page.locator(probes[1]).focus()  # and it drives the panel on screen
        tab.page.keyboard.press("ArrowRight")
        tab.page.wait_for_function("(n) => window.__relposPanelLog.painted > n", arg=before)
        assert_clean(tab)
    finally:
        tab.close()


# Move the last aᴷ slider with an input event only (nothing handed back) and wait two frames.
NUDGE_JS = """
async (value) => {
  const panel = window.__relposPanelLog;
  const input = panel.sliders('a').at(-1);
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return { painted: panel.painted, stale: panel.root().classList.contains('ep-stale'),
           status: panel.root().querySelector('.ep-status').textContent };
}
"""


@pytest.mark.parametrize(("n", "panel_drawn"), [(64, True), (96, False)])
def test_live_up_to_64_tokens_then_on_release(app_tab, n, panel_drawn):
    """n = 64 repaints on input; beyond 64 the panels wait for the release, then show Python's numbers."""
    app_tab.open("explorer", {"preset": "random", "n": n, "k": 3, "seed": 1}, timeout=120)
    app_tab.page.wait_for_function(PANEL_PLOTS, timeout=120_000)
    app_tab.wait_idle()
    bias = app_tab.figure("position bias").z
    painted = panel_stats(app_tab)["painted"]
    moved = app_tab.page.evaluate(NUDGE_JS, 1.9)
    assert moved["stale"] and "when you let go" in moved["status"]
    assert (moved["painted"] > painted) == panel_drawn
    assert (not np.array_equal(app_tab.figure("position bias").z, bias)) == panel_drawn

    slider = app_tab.slider("aᴷ₊₃")
    app_tab.interact(lambda: slider.dispatch_event("change"))
    app_tab.page.wait_for_function("() => !document.querySelector('.relpos-explorer-panel.ep-stale')")
    assert parse_qs(urlparse(app_tab.page.url).query)["a"][0].endswith(",1.9")
    state = explorer_schema.EXPLORER.decode(
        {key: values[0] for key, values in parse_qs(urlparse(app_tab.page.url).query).items()}
    ).state
    inputs = explorer_schema.explorer_inputs(state)
    expected = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table).bias
    np.testing.assert_allclose(app_tab.figure("position bias").z, expected, rtol=0, atol=1e-6)  # float32 above 64
    assert_clean(app_tab)


A11Y_JS = """
() => {
  const panel = document.querySelector('.relpos-explorer-panel');
  const sliders = [...panel.querySelectorAll('input[type=range]')];
  return {
    labels: sliders.map((input) => [
      input.getAttribute('aria-label'), input.closest('label').querySelector('.ep-label').textContent]),
    tabs: [...panel.querySelectorAll('[role=tablist] [role=tab]')].map((tab) => tab.textContent),
    status: panel.querySelector('[role=status]').getAttribute('aria-live'),
    plots: [...panel.querySelectorAll('.ep-plot[role=img]')].map((plot) => plot.getAttribute('aria-label')),
  };
}
"""


def test_keyboard_and_screen_reader_use(app_tab):
    """Named sliders, tabs and pictures, a polite status line, a visible focus ring, Tab order."""
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    seen = app_tab.page.evaluate(A11Y_JS)
    names = [label for group in panel_spec.GROUPS for label in panel_spec.value_labels(group, 4, 2)]  # aᴷ₋₂ … k₄
    assert seen["labels"] == [[label, label] for label in names] and names[0] == "aᴷ₋₂"
    assert seen["tabs"] == list(panel_spec.GROUPS.values()) and seen["status"] == "polite"
    assert seen["plots"] == [f"Heatmap: {panels.plain_title(name)}" for name in panel_spec.PANEL_ORDER]
    app_tab.page.locator(".relpos-explorer-panel .ep-toggle input").focus()
    app_tab.page.keyboard.press("Tab")  # from the toggle to the first slider of the open tab
    focused = app_tab.page.evaluate(
        "() => [document.activeElement.getAttribute('aria-label'),"
        " getComputedStyle(document.activeElement).outlineStyle]"
    )
    assert focused == ["aᴷ₋₂", "solid"]
    app_tab.interact(lambda: app_tab.page.keyboard.press("ArrowLeft"))  # waits for the hand-back's rerun
    assert parse_qs(urlparse(app_tab.page.url).query)["a"][0].startswith("-0.35,")
    assert_clean(app_tab)


# What each panel's picture is: the heatmap image plotly.js rendered and the cell labels.
PICTURES_JS = """
() => Object.fromEntries(Object.entries(window.__relposPanelLog.plots()).map(([name, plot]) => [name, {
  image: plot.querySelector('g.heatmaplayer image').getAttribute('href'),
  labels: Array.from(plot.querySelectorAll('g.heatmap-label text'), (label) => label.textContent),
}]))
"""
# The same data drawn the documented way: Plotly.restyle of every panel with its own data.
RESTYLED_JS = """
() => {
  for (const plot of Object.values(window.__relposPanelLog.plots())) {
    const trace = plot.data[0];
    const update = { z: [trace.z] };
    if (trace.text) update.text = [trace.text];
    if (trace.customdata) update.customdata = [trace.customdata];
    window.Plotly.restyle(plot, update, [0]);
  }
}
"""


@pytest.mark.parametrize("query", [{}, {"preset": "random", "n": "16", "k": "5", "seed": "3", "bias": "scalar"}])
def test_the_cells_redraw_paints_what_plotly_restyle_paints(app_tab, query):
    """The live redraw skips Plotly.restyle's axes and colour bars: its picture must be restyle's."""
    open_explorer(app_tab, query)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    spec = app_tab.page.evaluate("() => window.__relposPanelLog.spec")
    # halved and shifted, on the slider grid: every data panel changes (negating both q and k would not)
    values = {g["name"]: [round(round(v * 10 + 6) * 0.05, 2) for v in g["values"]] for g in spec["groups"]}
    before = app_tab.page.evaluate(PICTURES_JS)
    app_tab.page.evaluate(SET_AND_READ_JS, values)
    drawn = app_tab.page.evaluate(PICTURES_JS)
    assert all(drawn[name]["image"] != before[name]["image"] for name in panel_spec.PANEL_ORDER if name != "offsets")
    app_tab.page.evaluate(RESTYLED_JS)
    assert app_tab.page.evaluate(PICTURES_JS) == drawn
    assert_clean(app_tab)


HOVER_ABOVE_MARK_JS = """(title) => {
  const panel = [...document.querySelectorAll('.relpos-explorer-panel .ep-panel')]
    .find((node) => (node.querySelector('.gtitle') || {}).textContent?.startsWith(title));
  const mark = panel.querySelector('.ep-mark');
  const hover = panel.querySelector('.hoverlayer').closest('svg');
  const text = panel.querySelector('.hoverlayer .hovertext');
  const [m, t] = [mark.getBoundingClientRect(), text.getBoundingClientRect()];
  return {
    overlap: !(t.right < m.left || t.left > m.right || t.bottom < m.top || t.top > m.bottom),
    mark: Number(getComputedStyle(mark).zIndex), hover: Number(getComputedStyle(hover).zIndex) || 0,
    shown: !mark.hidden, label: text.textContent,
  };
}"""


def test_a_hover_label_stays_above_the_cells_outline(app_tab):
    """Cell (1, 4) of the bias panel: its label opens to the left, across the cell's outline,
    which hid "… uses aᴷ₊₂", the fact the Explorer's second question asks for (issue 34)."""
    open_explorer(app_tab)
    app_tab.page.wait_for_function(PANEL_PLOTS)
    label = app_tab.hover_cell("position bias", 0, 3, 4)
    assert "offset j − i = +3, uses" in label
    seen = app_tab.page.evaluate(HOVER_ABOVE_MARK_JS, "position bias")
    assert seen["shown"] and seen["overlap"], seen  # the case: the label crosses the outline
    assert seen["hover"] > seen["mark"], f"the outline is drawn over the hover label: {seen}"
    assert_clean(app_tab)
