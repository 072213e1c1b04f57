"""Streamlit's icon font with only the icons a page can show.

Streamlit draws every icon, its own (the sidebar's arrows, an expander's chevron) and the
app's (``icon=":material/tune:"``, ``:material/…:`` in Markdown), with one font, Material
Symbols Rounded: 375 KB of woff2 holding some 4,300 icons, each a ligature of its name's
letters. Every page loads it (Streamlit preloads it at start), and uses a few dozen.

:func:`subset` keeps the ligatures of the names a page can show and the letters they are
made of; :func:`icon_names` finds those names: every ``:material/name:`` in Streamlit's
frontend code and in the app's sources (relpos/, pages/, content/, app.py). A user's text
never reaches the font (relpos.text.escape escapes ``:material/``). An icon whose name is
missing would show its name in letters; tests/test_icon_font.py looks at every page's icons
in Chromium.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path

from relpos.static.static_folder import Transform

__all__ = ["app_sources", "icon_names", "subset", "transform"]

ROOT = Path(__file__).resolve().parents[2]


def app_sources(root: Path = ROOT) -> list[Path]:
    """The files an app's icon name can be written in."""
    found = [root / "app.py", *root.glob("pages/*.py"), *root.glob("relpos/**/*.py"), *root.glob("content/**/*.md")]
    return sorted(path for path in found if path.is_file())


def icon_names(static_root: Path, sources: Iterable[Path], prefix: str) -> set[str]:
    """Every icon name written ``<prefix>name:`` (``:material/name:``) in Streamlit's frontend
    code (below `static_root`) and in `sources`."""
    named = re.compile(re.escape(prefix) + r"([a-z0-9_]+):")
    files = [*static_root.glob("static/js/*.js"), *sources]
    return {name for path in files for name in named.findall(path.read_text(encoding="utf-8", errors="replace"))}


def ligatures(font) -> dict[str, str]:
    """name → glyph of every ligature in the font's GSUB (lookup type 4, or 7 wrapping it)."""
    letters = {glyph: chr(code) for code, glyph in font.getBestCmap().items()}
    found: dict[str, str] = {}
    for lookup in font["GSUB"].table.LookupList.Lookup:
        for table in lookup.SubTable:
            table = getattr(table, "ExtSubTable", table)
            for first, entries in getattr(table, "ligatures", {}).items():
                for entry in entries:
                    parts = [first, *entry.Component]
                    if all(part in letters for part in parts):
                        found["".join(letters[part] for part in parts)] = entry.LigGlyph
    return found


def subset(data: bytes, names: Iterable[str]) -> bytes | None:
    """The woff2 font `data` with only the ligatures of `names` (and the letters they are
    made of); None when the font has no ligature for any of them."""
    from fontTools import subset as subsetting
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(data))
    if "GSUB" not in font:
        return None
    known = ligatures(font)
    wanted = sorted(name for name in set(names) if name in known)
    if not wanted:
        return None
    cmap = font.getBestCmap()
    glyphs = {cmap[ord(letter)] for name in wanted for letter in name} | {known[name] for name in wanted}
    options = subsetting.Options()
    options.layout_closure = False  # keep only the ligatures asked for, not every one their letters make
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.flavor = "woff2"
    subsetter = subsetting.Subsetter(options)
    subsetter.populate(glyphs=sorted(glyphs))
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def transform(static_root: Path, prefix: str) -> Transform:
    """The :class:`relpos.static.static_folder.Transform` serving the font with the icons of this
    build of Streamlit (below `static_root`) and of the app, named ``<prefix>name:``."""
    names = sorted(icon_names(static_root, app_sources(), prefix))
    code = Path(__file__).read_text(encoding="utf-8")
    return Transform(lambda data: subset(data, names), f"icon-font {' '.join(names)} {code}")
