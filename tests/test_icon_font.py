"""Streamlit's icon font served with only the icons a page can show (relpos/static/icon_font.py).

The subset keeps exactly the ligatures asked for; the names found cover Streamlit's own
icons and every page icon of the app; and in Chromium every icon on every page is drawn
as a glyph (one em wide), not as its name spelled out in letters.
"""

from __future__ import annotations

import io

import pytest

from relpos.server import internals
from relpos.static import icon_font
from relpos.ui.navigation import PAGES

MB = 1_000_000


@pytest.fixture(scope="module")
def font_bytes():
    (path,) = internals.static_dir().glob(internals.ICON_FONT_GLOB)
    return path.read_bytes()


def font_ligatures(data: bytes) -> dict[str, str]:
    from fontTools.ttLib import TTFont

    return icon_font.ligatures(TTFont(io.BytesIO(data)))


def test_the_subset_keeps_exactly_the_icons_asked_for(font_bytes):
    kept = icon_font.subset(font_bytes, ["tune", "home", "expand_more", "no_such_icon"])
    assert kept is not None and kept[:4] == b"wOF2"
    assert len(kept) < len(font_bytes) / 20, f"{len(kept)} of {len(font_bytes)} bytes"
    assert set(font_ligatures(kept)) == {"tune", "home", "expand_more"}
    assert len(font_ligatures(font_bytes)) > 3000


def test_a_subset_of_no_known_icon_leaves_the_font_alone(font_bytes):
    assert icon_font.subset(font_bytes, ["no_such_icon"]) is None


def test_the_names_cover_streamlits_own_icons_and_every_page_icon():
    names = icon_font.icon_names(internals.static_dir(), icon_font.app_sources(), internals.ICON_NAME_PREFIX)
    assert {"keyboard_double_arrow_left", "keyboard_double_arrow_right", "expand_more", "check"} <= names
    pages = {spec.icon.removeprefix(internals.ICON_NAME_PREFIX).rstrip(":") for spec in PAGES}
    assert pages <= names, sorted(pages - names)
    assert {"warning", "download"} <= names  # st.warning(icon=…), download buttons


# Each icon's name as the icon font draws it: one em wide when the font has its ligature,
# one em a letter when it spells the name out (the element itself is clipped to one em, so
# only the text's own width tells).
ICONS_JS = """() => {
  const canvas = document.createElement('canvas').getContext('2d');
  canvas.font = '100px "Material Symbols Rounded"';
  return [...document.querySelectorAll('[data-testid=stIconMaterial]')]
    .map((icon) => [icon.textContent, canvas.measureText(icon.textContent).width / 100]);
}"""


def assert_icons_are_glyphs(tab, where: str) -> None:
    """Every Material icon on the open page is drawn from the icon font as one glyph (an
    icon the subset lacks is spelled out: its name's letters, several ems wide). The
    per-page test (tests/test_accessibility.py) calls it on every page."""
    tab.page.evaluate("document.fonts.ready.then(() => true)")
    tab.page.wait_for_function("document.fonts.check('1em \"Material Symbols Rounded\"', 'tune')")
    icons = tab.page.evaluate(ICONS_JS)
    assert len(icons) >= len(PAGES), f"{where}: {icons}"  # the sidebar's page icons at least
    wide = [(name, round(width, 1)) for name, width in icons if width > 1.5]
    assert not wide, f"{where} spells out icons: {wide}"


@pytest.mark.browser
def test_the_icon_font_is_served_as_a_small_subset(chromium, app_server):
    from tests.support.browser import AppTab

    tab = AppTab.new(chromium, app_server.base_url, fresh=True)  # a first visit, which fetches the font
    fonts = []
    try:
        tab.page.on("response", lambda answer: fonts.append(answer.url) if "MaterialSymbols" in answer.url else None)
        tab.open("walkthrough")
        assert_icons_are_glyphs(tab, "/walkthrough")
        assert fonts, "the icon font was loaded"
        (url,) = set(fonts)
        served = tab.page.request.get(url).body()
    finally:
        tab.close()
    assert len(served) < 0.05 * MB and served[:4] == b"wOF2", len(served)
