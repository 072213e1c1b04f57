"""Our own inline Markdown as runs a browser can draw without HTML: plain, bold and maths.

The sentences of :mod:`relpos.text.explain` and the lessons' text modules use three inline
forms: ``**bold**``, ``$maths$`` (LaTeX) and plain text. A live class's follow view
(:mod:`relpos.topics.walkthrough.spec`) hands them to the student's browser as runs, which
its script draws with ``textContent`` and KaTeX: nothing is ever parsed as HTML.
"""

from __future__ import annotations

import re

__all__ = ["runs"]

_INLINE = re.compile(r"\*\*(.+?)\*\*|\$(.+?)\$")


def runs(text: str) -> list[list[str]]:
    """`text` as ``[kind, text]`` runs: kind ``""`` plain, ``"b"`` bold, ``"m"`` maths.

    >>> runs("Each **diagonal** reads $a^K$ once.")
    [['', 'Each '], ['b', 'diagonal'], ['', ' reads '], ['m', 'a^K'], ['', ' once.']]
    >>> runs("plain")
    [['', 'plain']]
    """
    out, at = [], 0
    for match in _INLINE.finditer(text):
        if match.start() > at:
            out.append(["", text[at : match.start()]])
        out.append(["b", match.group(1)] if match.group(1) is not None else ["m", match.group(2)])
        at = match.end()
    if at < len(text):
        out.append(["", text[at:]])
    return out
