"""The one escaper for text a learner typed (or a link carried) that a page shows in Markdown.

Streamlit renders ``st.markdown``, ``st.warning`` and friends as Markdown with KaTeX
(``$…$``) and its own directives (``:red[…]``, ``:material/…:``); HTML is never
enabled for user text. :func:`escape_markdown` backslash-escapes *every* ASCII
punctuation character, which CommonMark always reads as the literal character, so
no character of the input can start emphasis, a link, an image, a heading, a list,
a table, code, maths, a directive, an entity or an HTML tag. Non-printable characters
(newlines, NUL, bidi controls) become ``?``, so the text stays on its line.
"""

from __future__ import annotations

import string

__all__ = ["escape_markdown", "printable"]

_ESCAPES = str.maketrans({char: "\\" + char for char in string.punctuation})


def printable(text: object, limit: int | None = None) -> str:
    """`text` with non-printable characters as ``?``, cut to `limit` characters with ``…``.

    >>> printable("a\\nb\\x00c"), printable("abcdef", limit=3)
    ('a?b?c', 'abc…')
    """
    text = str(text)
    cut = text if limit is None or len(text) <= limit else text[:limit]
    shown = "".join(char if char.isprintable() else "?" for char in cut)
    return shown + ("…" if len(cut) < len(text) else "")


def escape_markdown(text: object, limit: int | None = None) -> str:
    """Untrusted `text` made to render literally in Streamlit Markdown.

    Parameters
    ----------
    text : object
        What to show (``str()`` of it).
    limit : int, optional
        Show at most this many characters, then ``…``.

    Returns
    -------
    escaped : str
        Every ASCII punctuation character preceded by a backslash; non-printable
        characters shown as ``?``.

    Examples
    --------
    >>> print(escape_markdown("[x](http://e) $1$ :red[a] <b>*"))
    \\[x\\]\\(http\\:\\/\\/e\\) \\$1\\$ \\:red\\[a\\] \\<b\\>\\*
    >>> print(escape_markdown("a\\nb*$"), escape_markdown("x" * 30, limit=5))
    a\\?b\\*\\$ xxxxx…
    """
    return printable(text, limit).translate(_ESCAPES)
