"""Short phrases built from numbers, for every computed sentence: a signed offset, a number,
a list of keys or rows, a change between two weights.

Plain text; positions shown from 1, offsets as ``j − i`` with a sign, minus signs as ``−``.
"""

from __future__ import annotations

import numpy as np

from relpos.text import facts, numbers
from relpos.text.facts import SCORE_DECIMALS, WEIGHT_DECIMALS

__all__ = [
    "cell_text",
    "change_text",
    "joined",
    "keys_text",
    "number",
    "offset_label",
    "offsets_text",
    "rows_text",
    "scaled",
    "score_text",
    "values_text",
    "weight_text",
]


def offset_label(offset: int) -> str:
    """Signed offset with a true minus: ``+1``, ``0``, ``−2`` (:func:`relpos.text.numbers.offset`).

    >>> [offset_label(o) for o in (-2, 0, 1)]
    ['−2', '0', '+1']
    """
    return numbers.offset(offset)


def number(value: float, *, paren: bool = False) -> str:
    """A number with 2 to 4 decimals (as many as it needs) and a true minus sign.

    ``paren`` wraps negative numbers in parentheses, for the right side of a product.

    >>> number(0.5), number(-0.2, paren=True), number(0.0025), number(1 / 3), number(-0.00001)
    ('0.50', '(−0.20)', '0.0025', '0.3333', '0.00')
    """
    text = numbers.number(value, 4, trim=2)
    return f"({text})" if paren and text.startswith(numbers.MINUS) else text


def values_text(values: np.ndarray, limit: int = 6) -> str:
    """The first `limit` numbers of a 1-D array, ``0.10, 0.05, …`` when there are more."""
    shown = ", ".join(number(v) for v in values[:limit])
    return shown + (", …" if values.size > limit else "")


def scaled(product: str, d: int) -> str:
    """A product as the app computes it: ``qᵢ·aᴷ₀`` for d = 1, ``qᵢ·aᴷ₀/√2`` for d = 2.

    >>> scaled("qᵢ·aᴷ₀", 1), scaled("qᵢ·aᴷ", 16)
    ('qᵢ·aᴷ₀', 'qᵢ·aᴷ/√16')
    """
    return product if d == 1 else f"{product}/√{d}"


def cell_text(i: int, j: int) -> str:
    """``query 1 → key 4`` for the 0-based cell (i, j)."""
    return f"query {i + 1} → key {j + 1}"


def joined(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def keys_text(indices) -> str:
    """``key 2``, ``keys 1 and 4`` or ``keys 1, 2 and 4`` (0-based in, positions from 1 out).

    >>> keys_text([1]), keys_text([0, 3]), keys_text([0, 1, 3])
    ('key 2', 'keys 1 and 4', 'keys 1, 2 and 4')
    """
    names = [str(int(j) + 1) for j in indices]
    return f"key {names[0]}" if len(names) == 1 else "keys " + joined(names)


def rows_text(rows, n_rows: int, limit: int = 6) -> str:
    """``every row``, ``row 2``, ``rows 1 and 3`` or ``rows 1, 2, …, 6 and 9 more`` (positions from 1)."""
    rows = [int(i) + 1 for i in rows]
    if len(rows) == n_rows:
        return "both rows" if n_rows == 2 else "every row"
    if len(rows) == 1:
        return f"row {rows[0]}"
    shown = [str(i) for i in rows[:limit]]
    return "rows " + (joined(shown) if len(rows) <= limit else ", ".join(shown) + f" and {len(rows) - limit} more")


def weight_text(value: float, decimals: int = WEIGHT_DECIMALS) -> str:
    """A weight at 3 decimals (or more, where a change needs them), true minus, never "−0.000"."""
    return numbers.number(value, decimals)


def change_text(before: float, after: float, decimals: int, *, first: str = "weights") -> str:
    """``0.265 → 0.373 (+0.108)`` (or ``+0.108 (0.265 → 0.373)`` with `first` ``change``): the change is
    the printed after minus the printed before, with the decimals that make it the true change
    rounded too (:func:`relpos.text.facts.change_decimals`, at least `decimals`).

    >>> change_text(0.3577, 0.2763, 3), change_text(0.265, 0.373, 3, first="change")
    ('0.3577 → 0.2763 (−0.0814)', '+0.108 (0.265 → 0.373)')
    """
    places = facts.change_decimals(before, after, decimals)
    weights, change = (
        f"{weight_text(before, places)} → {weight_text(after, places)}",
        numbers.difference(before, after, places),
    )
    return f"{change} ({weights})" if first == "change" else f"{weights} ({change})"


def score_text(value: float, decimals: int = SCORE_DECIMALS) -> str:
    """A score at the decimals its ties are judged at (:data:`relpos.text.facts.SCORE_DECIMALS`: 2)."""
    return numbers.number(value, decimals)


def offsets_text(offsets: np.ndarray) -> str:
    """``offset −1``, ``offsets −15 to −4`` (a run) or ``offsets −3, 0`` (not a run)."""
    if offsets.size == 1:
        return f"offset {offset_label(int(offsets[0]))}"
    if offsets.max() - offsets.min() + 1 == offsets.size:
        return f"offsets {offset_label(int(offsets.min()))} to {offset_label(int(offsets.max()))}"
    return "offsets " + ", ".join(offset_label(int(o)) for o in offsets)
