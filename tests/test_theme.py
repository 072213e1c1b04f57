"""Light and dark: the app follows the reader's theme, and both pass axe-core.

The themes are deploy/streamlit.toml's ``[theme.light]`` and ``[theme.dark]`` (the
developer's .streamlit/config.toml has the same); the app menu offers System (the
default, the browser's setting), Light and Dark. What a reader of the dark theme sees is
checked on every page by tests/test_accessibility.py (after each page's light audit, the
tab's system setting turns dark, Chromium's ``prefers-color-scheme`` emulation, which
"System" follows): axe-core finds nothing (contrast included), the page is dark, and every
chart, the Explorer panel's included, is drawn on the dark page in its light text; presenter
mode too. Here: the palettes, a page opened dark from its first paint, and a switch in
the menu, which recolours the figures as well (relpos.ui.theme reruns the page).
Screenshots go to ``test-artifacts/screens/dark-*.png``.
"""

from __future__ import annotations

import re
import threading
import tomllib
from types import SimpleNamespace

import numpy as np
import pytest

from relpos.plots import style
from relpos.server.internals import css_class
from relpos.topics.value_side import figures as value_figures
from relpos.ui import theme
from tests.support.browser import DEPLOY_CONFIG, ROOT, AppTab
from tests.support.theme import PAGE_JS, assert_drawn_dark, chart_colours, contrast, hex_colour

DEVELOPER_CONFIG = ROOT / ".streamlit" / "config.toml"


def _themes(path) -> dict[str, dict]:
    return tomllib.loads(path.read_text(encoding="utf-8"))["theme"]


# ------------------------------------------------------------------ configuration and palettes


class TestConfiguration:
    def test_both_themes_are_configured_and_the_developers_config_matches_the_deployments(self):
        deployed, developer = _themes(DEPLOY_CONFIG), _themes(DEVELOPER_CONFIG)
        assert set(deployed) == {"light", "dark"}, "two themes, no pinned base: the menu offers both"
        assert developer == deployed

    def test_the_menu_with_the_theme_choice_is_shown(self):
        for path in (DEPLOY_CONFIG, DEVELOPER_CONFIG):
            assert tomllib.loads(path.read_text(encoding="utf-8"))["client"]["toolbarMode"] == "viewer"

    @pytest.mark.parametrize("name", ["light", "dark"])
    def test_each_palette_draws_on_its_themes_page(self, name):
        assert _themes(DEPLOY_CONFIG)[name]["backgroundColor"] == style.PALETTES[name].page

    @pytest.mark.parametrize("name", ["light", "dark"])
    def test_text_and_primary_colour_read_on_the_page(self, name):
        theme = _themes(DEPLOY_CONFIG)[name]
        page, text, primary = theme["backgroundColor"], theme["textColor"], theme["primaryColor"]
        assert contrast(text, page) >= 7
        # captions: the text colour at 60 % opacity
        blended = "#" + "".join(
            f"{round(0.6 * int(text[i : i + 2], 16) + 0.4 * int(page[i : i + 2], 16)):02x}" for i in (1, 3, 5)
        )
        assert contrast(blended, page) >= 4.5
        # selected pills and slider values print the primary colour on the page
        assert contrast(primary, page) >= (3 if name == "light" else 4.5)
        # primary buttons print their label in the page's colour (page_helpers.js)
        assert contrast(page, primary) >= 4.5

    def test_the_style_sheet_pairs_the_configured_colours(self):
        themes = _themes(DEPLOY_CONFIG)
        page = f"light-dark({themes['light']['backgroundColor']}, {themes['dark']['backgroundColor']})"
        assert f"color: {page};" in theme.THEME_CSS  # primary buttons' labels

        def faded(text: str) -> str:
            return "rgba(" + ", ".join(str(int(text[i : i + 2], 16)) for i in (1, 3, 5)) + ", 0.62)"

        text = f"light-dark({faded(themes['light']['textColor'])}, {faded(themes['dark']['textColor'])})"
        assert f"color: {text};" in theme.THEME_CSS  # disabled labels
        no_room = f'[data-testid="stLayoutWrapper"]:has(> .{css_class(theme.BOX)}) {{ display: none; }}'
        assert no_room in theme.THEME_CSS


class TestPalettes:
    @pytest.mark.parametrize("name", ["light", "dark"])
    def test_colours_stand_out_from_the_page_as_their_role_asks(self, name):
        colours = style.PALETTES[name]
        assert contrast(colours.ink, colours.page) >= 7
        assert contrast(colours.strong_guide, colours.page) >= 4.5
        assert contrast(style.GUIDE_GREY, colours.page) >= 3
        for faint in (colours.faint_guide, colours.faded_line, colours.grid, colours.blank_cell):
            assert 1.2 <= contrast(faint, colours.page) < 3, faint
        # Okabe–Ito's yellow is faint on white (1.3:1) as its black would be on the dark page
        assert min(contrast(colour, colours.page) for colour in colours.categories) >= 1.3

    def test_each_dark_colour_stands_out_about_as_much_as_its_light_twin(self):
        for role in ("ink", "strong_guide", "faint_guide", "faded_line", "grid", "blank_cell"):
            light = contrast(getattr(style.LIGHT, role), style.LIGHT.page)
            dark = contrast(getattr(style.DARK, role), style.DARK.page)
            assert 0.85 <= dark / light <= 1.3, (role, light, dark)

    def test_a_figure_takes_the_palette_of_the_theme_it_is_drawn_in(self):
        parts = np.array([[0.3], [0.1]])
        result = SimpleNamespace(output_content=parts, output_position=parts, output=2 * parts)

        def output_colour():
            fig = value_figures.value_outputs_figure(result)
            return next(trace.marker.color for trace in fig.data if trace.name.startswith("output"))

        assert output_colour() == style.LIGHT.ink
        with style.drawing_in("dark"):
            assert output_colour() == style.DARK.ink
        assert output_colour() == style.LIGHT.ink

    def test_each_thread_draws_in_its_own_theme(self):
        seen = {}

        def session(name):
            style.use_theme(name)
            seen[name] = style.palette().name

        threads = [threading.Thread(target=session, args=(name,)) for name in ("dark", "light")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert seen == {"dark": "dark", "light": "light"}
        assert style.palette() is style.LIGHT


# ------------------------------------------------------------------ in a browser


@pytest.fixture
def dark_tab(chromium, app_server):
    """A tab whose system setting is dark: the app's default ("System") follows it."""
    tab = AppTab.new(chromium, app_server.base_url, color_scheme="dark")
    yield tab
    tab.close()


_LABEL_COLOURS_JS = """() => [...document.querySelectorAll(
  '[data-testid=stBaseButton-primaryFormSubmit], [data-testid=stBaseButton-primary]')]
  .filter((button) => !button.disabled)
  .map((button) => getComputedStyle(button.querySelector('p') || button).color)"""


@pytest.mark.browser
@pytest.mark.timeout(240)
def test_primary_buttons_read_on_the_dark_page_before_streamlits_html_code_arrives(dark_tab):
    """The theme's style sheet (dark labels on the dark theme's light red: white reads 2.8:1)
    is in the page's head, so it holds from the first paint. Sent only by a run, it waited
    for Streamlit's lazily loaded html code, and axe-core once found five white "Check my
    answer" labels on the quiz."""
    held = []
    dark_tab.page.route(re.compile(r"/static/js/Html\.[\w-]+\.js$"), lambda route: held.append(route))
    dark_tab.open("quiz", timeout=90)
    dark_tab.page.wait_for_function(f"() => ({_LABEL_COLOURS_JS})().length >= 5", timeout=30_000)
    labels = {hex_colour(colour) for colour in dark_tab.page.evaluate(_LABEL_COLOURS_JS)}
    assert labels == {style.DARK.page}, f"primary button labels in {labels}, before the html code ({len(held)} held)"
    for route in held:
        route.continue_()


def _choose_theme(tab: AppTab, label: str) -> None:
    """Pick Light or Dark in the app menu and wait for the run the switch asks for."""
    before = tab.finished_runs()
    tab.page.locator("[data-testid=stMainMenu]").click()
    tab.page.locator(f"[data-testid=stMainMenuItem-theme-{label}]").click()
    tab.wait_idle(after=before, timeout=60)
    tab.page.keyboard.press("Escape")


@pytest.mark.browser
@pytest.mark.timeout(240)
def test_choosing_dark_in_the_menu_recolours_the_figures_and_light_brings_them_back(app_tab):
    """The switch restyles the page without a run; the theme component asks for one, in which
    the figures take the dark palette (the value side's output markers: its ink)."""
    app_tab.open("value_side", timeout=90)
    app_tab.wait_plots(3)

    def outputs() -> set[str]:
        return {
            colour for chart in chart_colours(app_tab) for name, colour in chart["markers"].items() if "output" in name
        }

    assert outputs() == {style.LIGHT.ink}
    _choose_theme(app_tab, "Dark")
    app_tab.wait_drawn()
    assert_drawn_dark(app_tab, "/value_side after choosing Dark")
    assert outputs() == {style.DARK.ink}
    app_tab.screenshot("dark-value_side-chosen")
    _choose_theme(app_tab, "Light")
    app_tab.wait_drawn()
    assert hex_colour(app_tab.page.evaluate(PAGE_JS)) == style.LIGHT.page
    assert outputs() == {style.LIGHT.ink}
    assert {chart["paper"] for chart in chart_colours(app_tab)} == {style.LIGHT.page}
    assert not app_tab.errors, app_tab.errors
