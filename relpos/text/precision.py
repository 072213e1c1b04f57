"""Numbers as printed: what a value prints as, how many decimals a sentence needs for the
arithmetic it shows to add up and every change it claims to show, and how far a typed answer
is from the expected one (the distance a verdict compares and prints).

A reader checks what is printed, not the values behind it: :func:`printed` reads a value back
as the formatter prints it, and every rule here is stated on those printed numbers.
:mod:`relpos.text.facts` builds its ties and claims on them and re-exports the public names.

NumPy and the standard library only.
"""

from __future__ import annotations

import math

import numpy as np

from relpos.core.measures import SAME

__all__ = [
    "ANSWER_DECIMALS",
    "EXTRA_DECIMALS",
    "MAX_DECIMALS",
    "TOLERANCES",
    "adds_up",
    "alike_edge",
    "change_decimals",
    "decimals_adding_up",
    "decimals_showing",
    "distance",
    "printed",
    "slip_tolerance",
]

#: More decimals than this are never needed to show a change between two float64 weights.
MAX_DECIMALS = 17
#: Typed answers are compared to this many decimals: what float noise of a decimal typed in leaves exact.
ANSWER_DECIMALS = 9


def printed(value: float, decimals: int) -> float:
    """`value` as the formatter prints it at `decimals`, read back (``−0.000`` reads as 0).

    >>> printed(0.32715, 3), printed(-0.0004, 3), printed(2.675, 2)
    (0.327, 0.0, 2.67)
    """
    return float(f"{float(value):.{decimals}f}") + 0.0


def alike_edge(value: float, decimals: int, direction: float) -> float:
    """The float furthest from `value` towards `direction` (±inf) that still prints like it."""
    value = float(value)
    if not math.isfinite(value):
        return value
    target = printed(value, decimals)
    edge = target + math.copysign(0.5 * 10.0**-decimals, direction)
    edge = min(edge, value) if direction < 0 else max(edge, value)
    # walk onto the exact edge: the decimal half-way point is rarely a float, and rounding is half-to-even
    while printed(edge, decimals) != target:
        edge = float(np.nextafter(edge, -direction))
    while printed(np.nextafter(edge, direction), decimals) == target:
        edge = float(np.nextafter(edge, direction))
    return edge


def adds_up(terms, total: float, decimals: int) -> bool:
    """Whether the terms, each printed at `decimals`, add up to the total printed at `decimals`.

    A reader checks a printed sum (or a change ``after − before``, the terms ``after`` and
    ``−before``) on the printed numbers, not on the values behind them.

    >>> adds_up([0.224, 0.226, 0.134, 0.272, 0.144], 1.0, 2), adds_up([0.3577, -0.2763], 0.0814, 3)
    (False, False)
    >>> adds_up([0.3577, -0.2763], 0.0814, 4)
    True
    """
    shown = sum(printed(term, decimals) for term in np.ravel(np.asarray(terms, dtype=float)))
    return printed(shown, decimals) == printed(total, decimals)


def decimals_adding_up(terms, total: float, minimum: int) -> int:
    """The fewest decimals (at least `minimum`) at which the printed terms add up to the printed total.

    >>> decimals_adding_up([0.224, 0.226, 0.134, 0.272, 0.144], 1.0, 2)
    3
    """
    for decimals in range(minimum, MAX_DECIMALS + 1):
        if adds_up(terms, total, decimals):
            return decimals
    return MAX_DECIMALS


def decimals_showing(before, after, minimum: int) -> int:
    """The fewest decimals (at least `minimum`) at which every pair ``before → after`` that differs prints differently.

    Parameters
    ----------
    before, after : array_like, shape (n,)
        The two values of each claimed change (e.g. a weight with content alone and with positions).
    minimum : int
        The precision the page uses otherwise.

    Returns
    -------
    decimals : int
        Pairs that differ by float noise only (:data:`relpos.core.measures.SAME`) are not asked to show.

    Examples
    --------
    >>> decimals_showing([0.2231, 0.5], [0.2249, 0.4], 2), decimals_showing([0.26541], [0.26549], 3)
    (3, 4)
    """
    old, new = np.atleast_1d(np.asarray(before, dtype=float)), np.atleast_1d(np.asarray(after, dtype=float))
    moved = np.abs(new - old) > SAME
    for decimals in range(minimum, MAX_DECIMALS + 1):
        if all(printed(a, decimals) != printed(b, decimals) for a, b in zip(old[moved], new[moved], strict=True)):
            return decimals
    return MAX_DECIMALS


#: A printed change gets at most this many decimals beyond its sentence's own to be the true change rounded.
EXTRA_DECIMALS = 2


def change_decimals(before: float, after: float, minimum: int) -> int:
    """The decimals for one ``before → after (change)``: the fewest (at least `minimum`, at most
    :data:`EXTRA_DECIMALS` more) at which the printed change is both the printed ``after − before``
    and the true change rounded.

    A sentence prints the change with :func:`relpos.text.numbers.difference`, from the printed
    operands, so it adds up at any precision; past the extra decimals it may differ from the true
    change rounded by one unit in the last place (one pair in ~64), rather than grow 8 digits.

    >>> change_decimals(0.3577, 0.2763, 3), change_decimals(0.265, 0.373, 3)  # 0.358 → 0.276 is −0.082, not −0.081
    (4, 3)
    """
    for decimals in range(minimum, minimum + EXTRA_DECIMALS):
        if adds_up((after, -before), after - before, decimals):
            return decimals
    return minimum + EXTRA_DECIMALS


def distance(given: float, expected: float) -> float:
    """How far a typed answer is from the expected one, as the verdict compares and prints it.

    Rounded to 9 decimals: 0.64 − 0.65 is 0.010000000000000009 in binary, yet a learner who typed
    0.64 is exactly 0.01 away.

    >>> distance(-0.2691, -0.28), distance(0.64, 0.65)
    (0.0109, 0.01)
    """
    return round(abs(float(given) - float(expected)), ANSWER_DECIMALS) + 0.0


#: The tolerances a typed number can get, largest first (1, 5, 2 steps down to a millionth): a
#: tolerance a learner can read off, not 0.0043.
TOLERANCES = tuple(round(step * 10.0**-power, power + 1) for power in range(2, 7) for step in (1, 0.5, 0.2))


def slip_tolerance(expected: float, slip_values, ceiling: float = 0.01) -> float:
    """The tolerance for a typed answer `expected`: the largest of :data:`TOLERANCES` (at most
    `ceiling`) within which no slip's value lies, nor any number that is also within it of a slip.

    Parameters
    ----------
    expected : float
    slip_values : iterable of float
        What each known slip gives (leaving out a term, the wrong table row, the sign flipped).
        One equal to `expected` (:func:`distance` 0) is no slip for these numbers.
    ceiling : float
        The tolerance when every slip is far away.

    Returns
    -------
    tolerance : float
        At most half the smallest gap between `expected` and a slip, so a slip's value is always
        further than the tolerance (0 when a slip is closer than two millionths: exact answers only).

    Examples
    --------
    >>> slip_tolerance(0.07, [0.06, 0.01, -0.07]), slip_tolerance(0.5, [0.1, -0.5]), slip_tolerance(0.5, [0.5])
    (0.005, 0.01, 0.01)
    >>> slip_tolerance(0.2902, [0.3, 0.2898])
    0.0001
    """
    gaps = [gap for gap in (distance(value, expected) for value in slip_values) if gap > 0]
    limit = min([*gaps, 2 * float(ceiling)]) / 2
    return next((step for step in TOLERANCES if step <= min(limit, ceiling)), 0.0)
