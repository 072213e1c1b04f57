"""One notation for the position tables: a plain-text name and its LaTeX twin.

The key-side table is written ``aᴷ`` in plain text (labels, hover text, table headers,
sentences) and ``a^K`` in LaTeX (formulas); one entry is ``aᴷ₊₂`` / ``a^K_{+2}``. The
value side is ``aⱽ`` / ``a^V`` likewise. Plain text, so a screen reader announces a
control or a column in words, never as raw LaTeX source.
"""

from __future__ import annotations

from relpos.text.numbers import offset_subscript, tex_offset

#: Superscript K and V of the plain-text table names.
_SUPERSCRIPTS = {"K": "ᴷ", "V": "ⱽ"}

#: The two tables' names in plain text.
TABLE_K, TABLE_V = "aᴷ", "aⱽ"


def _side(side: str) -> str:
    if side not in _SUPERSCRIPTS:
        raise ValueError(f"side must be 'K' or 'V'; got {side!r}")
    return side


def table(side: str = "K") -> str:
    """Plain-text name of a whole table: ``aᴷ`` or ``aⱽ``.

    >>> table("K"), table("V")
    ('aᴷ', 'aⱽ')
    """
    return f"a{_SUPERSCRIPTS[_side(side)]}"


def entry(side: str, offset: int) -> str:
    """Plain-text name of one table entry, the twin of LaTeX ``a^K_{+2}``: ``aᴷ₊₂``, ``aⱽ₀``.

    >>> entry("K", 2), entry("V", -1), entry("K", 0)
    ('aᴷ₊₂', 'aⱽ₋₁', 'aᴷ₀')
    """
    return table(side) + offset_subscript(offset)


def tex_entry(side: str, offset: int) -> str:
    """LaTeX source of one table entry (no ``$``): ``a^K_{+2}``, ``a^V_{0}``, ``a^K_{-1}``.

    >>> tex_entry("K", 2), tex_entry("V", 0), tex_entry("K", -1)
    ('a^K_{+2}', 'a^V_{0}', 'a^K_{-1}')
    """
    return f"a^{_side(side)}_{{{tex_offset(offset)}}}"
