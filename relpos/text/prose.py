"""The app's own prose: ``content/<name>.md``, read without its source notes (no Streamlit).

Every claim in content/*.md carries its source as an HTML comment (docs/sources.md). A page
(:func:`relpos.ui.prose.markdown`) and a browser-drawn view (a live class's follow view,
:mod:`relpos.topics.walkthrough.spec`) show the prose without them.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

__all__ = ["CONTENT_DIR", "read_content", "without_source_notes"]

CONTENT_DIR = Path(__file__).resolve().parents[2] / "content"

#: A source note in content/*.md (docs/sources.md): an HTML comment, on lines of its own
#: or at the end of a line. Streamlit would print raw HTML as text, so the page never gets it.
_NOTE_LINES = re.compile(r"^[ \t]*<!--.*?-->[ \t]*(?:\n|\Z)", re.DOTALL | re.MULTILINE)
_NOTE_INLINE = re.compile(r"[ \t]*<!--.*?-->", re.DOTALL)


def without_source_notes(text: str) -> str:
    r"""`text` with its ``<!-- ... -->`` notes removed (a note on its own lines with them).

    >>> without_source_notes("A claim.\n<!-- source: a paper -->\n\nNext.\n")
    'A claim.\n\nNext.\n'
    >>> without_source_notes("A claim. <!-- source: a paper -->\nMore.")
    'A claim.\nMore.'
    """
    return _NOTE_INLINE.sub("", _NOTE_LINES.sub("", text))


@cache
def read_content(name: str) -> str:
    """``content/<name>.md`` as a reader sees it: without its source notes."""
    return without_source_notes((CONTENT_DIR / f"{name}.md").read_text(encoding="utf-8"))
