"""Facts between the numbers and the words: every claim a sentence makes is computed here once.

A sentence never takes its own argmax or picks its own threshold; it asks for a fact and
chooses its wording from the answer:

* **ties at the precision shown**: :func:`top`, :func:`bottom` and :func:`top_cells` return
  every index whose value *prints* like the largest (smallest), so two weights shown as
  0.327 and 0.327 are both named;
* **visible change**: :func:`visible` says whether a change prints as non-zero at 3 decimals,
  :func:`decimals_showing` how many decimals make every claimed change visible;
* **why nothing moved**: :func:`still_causes` tells a bias spread too small to move any
  weight (whatever the content) from a softmax that content already saturates;
* **one row's story**: :func:`row_facts` bundles the tied favourites before and after, the
  tied largest gain and loss, and the cause when nothing moved visibly;
* **a numeric verdict**: :func:`distance` is the distance a quiz verdict compares and prints;
* **a tolerance no slip meets**: :func:`slip_tolerance` is the tolerance a typed number gets, so
  that no known slip's value is ever marked right;
* **printed arithmetic**: :func:`adds_up` says whether printed terms add up to their printed
  total, :func:`decimals_adding_up` how many decimals make them (a reader re-adds what is shown);
* **degenerate biases**: :func:`zero`, :func:`constant` and :func:`bias_kind` (all zero, one
  number per row, constant diagonals), equal up to float noise.

The decimals, the distance and the tolerance live in :mod:`relpos.text.precision` (re-exported
here). NumPy and the standard library only. Positions are 0-based here (sentences add 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from relpos.core.measures import SAME, diagonal_spread, row_spread
from relpos.text.precision import (
    MAX_DECIMALS,
    adds_up,
    alike_edge,
    change_decimals,
    decimals_adding_up,
    decimals_showing,
    distance,
    printed,
    slip_tolerance,
)

__all__ = [
    "MAX_DECIMALS",
    "SCORE_DECIMALS",
    "VISIBLE_CHANGE",
    "WEIGHT_DECIMALS",
    "RowFacts",
    "adds_up",
    "bias_kind",
    "bottom",
    "change_decimals",
    "constant",
    "decimals_adding_up",
    "decimals_showing",
    "distance",
    "largest_changes",
    "pinned",
    "printed",
    "reach",
    "row_facts",
    "row_tops",
    "slip_tolerance",
    "spread",
    "still_causes",
    "top",
    "top_cells",
    "visible",
    "zero",
]

#: Weights and weight changes are printed with this many decimals.
WEIGHT_DECIMALS = 3
#: Scores (content, bias, combined) in sentences are compared at this many decimals, as the cells show them.
SCORE_DECIMALS = 2
#: A weight change below this prints as 0.000 at 3 decimals.
VISIBLE_CHANGE = 5e-4


def zero(values) -> bool:
    """Whether every value is 0, float noise of sums of products aside.

    >>> zero([0.0, -1e-17]), zero([0.0, 0.001])
    (True, False)
    """
    return bool(np.all(np.abs(np.asarray(values, dtype=float)) <= SAME))


def constant(values) -> bool:
    """Whether every value is the same, float noise aside (a bias that moves no weight).

    >>> constant([0.3, 0.3 + 1e-16]), constant([0.3, 0.31])
    (True, False)
    """
    return spread(values) <= SAME


def bias_kind(bias, mask=None) -> tuple[str, tuple | None]:
    """Which wording a bias matrix needs, and the diagonal spread it computed on the way (or None).

    Returns
    -------
    kind : str
        ``zero`` (every bias is 0), ``row_constant`` (each query adds one number to all its
        keys, so no weight moves), ``diagonal_constant`` (every diagonal holds one value) or ``varying``.
    spread : (offsets, spread) or None
        :func:`relpos.core.measures.diagonal_spread` of the bias, when it was needed.

    Examples
    --------
    >>> bias_kind([[0.5, 0.5], [1.0, 1.0]])[0], bias_kind([[0.5, 0.2], [0.1, 0.5]])[0]
    ('row_constant', 'diagonal_constant')
    """
    b = np.asarray(bias, dtype=float)  # (n_q, n_k)
    allowed = np.ones(b.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    if zero(b[allowed]):
        return "zero", None
    if np.all(row_spread(b, allowed) <= SAME):
        return "row_constant", None
    offsets, spreads = diagonal_spread(b)
    return ("diagonal_constant" if np.all(spreads <= SAME) else "varying"), (offsets, spreads)


def _masked(values, mask) -> tuple[np.ndarray, np.ndarray]:
    array = np.asarray(values, dtype=float)
    allowed = np.ones(array.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    if array.shape != allowed.shape:
        raise ValueError(f"mask must have the shape of the values {array.shape}; got {allowed.shape}")
    return array, allowed


def top(values, decimals: int, mask=None) -> tuple[int, ...]:
    """Every index tied for the largest value at the precision shown (ascending).

    Parameters
    ----------
    values : array_like, shape (n,)
    decimals : int
        Two values that print the same with this many decimals are tied.
    mask : array_like of bool, shape (n,), optional
        Entries that count (default: all). No entry counts: ``()``.

    Returns
    -------
    indices : tuple of int

    Notes
    -----
    .. math:: \\operatorname{top}(v) = \\{ j : \\mathrm{round}_d(v_j) = \\mathrm{round}_d(\\max_l v_l) \\}

    Examples
    --------
    >>> top([0.32715, 0.1985, 0.147, 0.32724], 3), top([0.25] * 4, 3), top([0.3, 0.1], 3)
    ((0, 3), (0, 1, 2, 3), (0,))
    """
    array, allowed = _masked(values, mask)
    if not allowed.any():
        return ()
    low = alike_edge(float(array[allowed].max()), decimals, -math.inf)
    return tuple(np.flatnonzero(allowed & (array >= low)).tolist())


def bottom(values, decimals: int, mask=None) -> tuple[int, ...]:
    """Every index tied for the smallest value at the precision shown (see :func:`top`).

    >>> bottom([0.1, -0.0816, -0.0809, 0.05], 3), bottom([0.1, -0.0816, -0.0809, 0.05], 1)
    ((1,), (1, 2))
    """
    return top(-np.asarray(values, dtype=float), decimals, mask)


def top_cells(matrix, decimals: int, mask=None) -> np.ndarray:
    """Every cell ``(i, j)`` tied for the largest value of a matrix, row by row.

    Returns
    -------
    cells : ndarray of int64, shape (m, 2)
        One row ``(i, j)`` per tied cell (an array: every cell of a 512 × 512 panel can tie).

    Examples
    --------
    >>> top_cells([[1.0, 0.5], [1.004, -2.0]], 2).tolist(), top_cells([[1.0, 0.5], [1.006, -2.0]], 2).tolist()
    ([[0, 0], [1, 0]], [[1, 0]])
    """
    array = np.atleast_2d(np.asarray(matrix, dtype=float))  # (n_q, n_k)
    flat = top(array.ravel(), decimals, None if mask is None else np.asarray(mask, dtype=bool).ravel())
    return _cells(flat, array.shape[1])


def _cells(flat, width: int) -> np.ndarray:
    """Flat indices as cells ``(i, j)``, shape (m, 2)."""
    return np.stack(np.divmod(np.asarray(flat, dtype=np.int64), width), axis=-1).reshape(-1, 2)


def spread(values, mask=None) -> float:
    """Largest minus smallest of the entries that count (0 for none or one).

    .. math:: s = \\max_j b_j - \\min_j b_j

    >>> spread([1.0, -2.0, -5.0, -5.0]), spread([0.3]), spread([4.0, -9.0], [True, False])
    (6.0, 0.0, 0.0)
    """
    array, allowed = _masked(values, mask)
    if not allowed.any():
        return 0.0
    return float(array[allowed].max() - array[allowed].min())


def reach(bias_spread) -> np.ndarray | float:
    """The most any softmax weight can move when biases of this spread are added, whatever the content.

    Notes
    -----
    Adding ``b`` to a row's scores moves each weight by at most the total-variation distance,
    and that is at most ``tanh(s / 4)`` for a spread ``s = max b − min b``; two keys holding all
    the weight, at the two extreme biases, come arbitrarily close to it.

    .. math:: \\max_j |w'_j - w_j| \\le \\tanh(s / 4)

    >>> round(reach(6.0), 4), reach(0.0), reach(0.0018) < VISIBLE_CHANGE
    (0.9051, 0.0, True)
    """
    result = np.tanh(np.asarray(bias_spread, dtype=float) / 4)
    return float(result) if result.ndim == 0 else result


def visible(changes, decimals: int = WEIGHT_DECIMALS) -> np.ndarray:
    """Whether each change prints as non-zero with `decimals` (3: at least 0.0005 away from 0).

    >>> visible([0.0005, -0.00049, 0.2, 1e-17]).tolist()
    [True, False, True, False]
    """
    array = np.abs(np.asarray(changes, dtype=float))
    return array > alike_edge(0.0, decimals, math.inf)


def pinned(content_weights, mask=None) -> np.ndarray:
    """Whether each row's content weights all print as 0 or 1 at 3 decimals: the softmax is saturated.

    >>> pinned([[0.99966, 0.00034], [0.9, 0.1]]).tolist()
    [True, False]
    """
    w, allowed = _masked(np.atleast_2d(content_weights), None if mask is None else np.atleast_2d(mask))
    zero = alike_edge(0.0, WEIGHT_DECIMALS, math.inf)
    one = alike_edge(1.0, WEIGHT_DECIMALS, -math.inf)
    return np.all(~allowed | (w <= zero) | (w >= one), axis=1)


def still_causes(content_weights, bias, mask=None) -> np.ndarray:
    """Why a row's weights would not move visibly, from its numbers (ask only of rows that did not move).

    Returns
    -------
    causes : ndarray of str, shape (n_q,)
        ``constant``: every key gets the same bias (float noise aside), so nothing moves at all;
        ``small``: the bias spread is too small to move any weight by 0.0005, whatever the
        content (:func:`reach`); ``saturated``: the spread could move weights, but content pins
        every weight at 0 or 1 (:func:`pinned`); ``modest``: neither, so only this row's content
        weights keep every change ``wⱼ·(e^(bⱼ − T) − 1)`` below 0.0005 (other content could show one).

    Examples
    --------
    >>> still_causes([[1.0, 0.0], [0.5, 0.5], [0.5, 0.5]], [[1.0, -5.0], [0.0, 0.0], [0.0, 1e-4]]).tolist()
    ['saturated', 'constant', 'small']
    """
    w, allowed = _masked(np.atleast_2d(content_weights), None if mask is None else np.atleast_2d(mask))
    b = np.atleast_2d(np.asarray(bias, dtype=float))  # (n_q, n_k)
    spreads = np.where(allowed, b, -np.inf).max(axis=1) - np.where(allowed, b, np.inf).min(axis=1)  # (n_q,)
    causes = np.full(w.shape[0], "modest", dtype=object)
    causes[pinned(w, allowed)] = "saturated"
    causes[reach(spreads) < VISIBLE_CHANGE] = "small"
    causes[spreads <= SAME] = "constant"
    return causes.astype(str)


@dataclass(frozen=True)
class RowFacts:
    """What the position term did to one row of weights, at the precision the page prints.

    Attributes
    ----------
    content_top, top : tuple of int
        Keys tied for the largest weight with content alone, and with the position term.
    gainers, losers : tuple of int
        Keys tied for the largest gain and the largest loss (empty when that change is not visible).
    decimals : int
        Decimals at which every named gain and loss shows its ``before → after`` (at least 3).
    spread : float
        Largest minus smallest bias of the row.
    still : str
        ``""`` when some weight moved visibly, else the cause from :func:`still_causes`.
    largest_change : float
        The largest ``|w′ⱼ − wⱼ|`` of the row.
    """

    content_top: tuple[int, ...]
    top: tuple[int, ...]
    gainers: tuple[int, ...]
    losers: tuple[int, ...]
    decimals: int
    spread: float
    still: str
    largest_change: float

    @property
    def reach(self) -> float:
        """The most any weight could move with this spread (:func:`reach`)."""
        return reach(self.spread)

    @property
    def gain_verdict(self) -> str:
        """Who gained the most, as a question's answer states it: ``one``, ``tie`` or ``none``.

        Read from :attr:`gainers`, the one decision the takeaway names too, so a question's true
        answer, its reveal, a student's feedback and the takeaway never disagree (ties judged at
        :attr:`decimals`). ``none`` when no gain prints as non-zero: a row where nothing moves
        (k = 0, a constant table, a saturated softmax) has no tie of gains, it has no gain.

        >>> RowFacts((0,), (0,), (2,), (1,), 3, 1.0, "", 0.1).gain_verdict
        'one'
        >>> RowFacts((0,), (0,), (), (), 3, 0.0, "constant", 0.0).gain_verdict
        'none'
        """
        return {0: "none", 1: "one"}.get(len(self.gainers), "tie")


def _named_changes(before: np.ndarray, after: np.ndarray, mask: np.ndarray, shown=None) -> tuple[tuple, tuple, int]:
    """Tied largest gain and loss of flat arrays, judged at the fewest decimals (at least 3) at which
    the first `shown` of each tie (all by default) print their ``before → after`` differently."""
    change = np.where(mask, after - before, 0.0)
    decimals = WEIGHT_DECIMALS
    while True:
        gainers = top(change, decimals, mask) if visible(change.max(initial=0.0)) else ()
        losers = bottom(change, decimals, mask) if visible(change.min(initial=0.0)) else ()
        named = list(gainers[:shown] + losers[:shown])
        if decimals_showing(before[named], after[named], decimals) == decimals or decimals == MAX_DECIMALS:
            return gainers, losers, decimals
        decimals += 1  # one at a time: the fewest decimals at which the ties named all show


def largest_changes(content_weights, weights, mask=None, *, shown: int | None = None) -> tuple:
    """The cells tied for the largest visible gain and loss of a whole weight matrix, and the decimals that show them.

    Parameters
    ----------
    content_weights, weights : array_like, shape (n_q, n_k)
    mask : array_like of bool, shape (n_q, n_k), optional
    shown : int, optional
        How many cells of each tie a sentence prints ``before → after`` for (default: all).

    Returns
    -------
    gains, losses : ndarray of int64, shape (m, 2)
        Cells ``(i, j)`` whose change ``w′ᵢⱼ − wᵢⱼ`` prints like the largest (smallest), row by
        row; none when that change prints as 0 at 3 decimals.
    decimals : int
        At least 3; more where a printed cell's ``before → after`` would otherwise print alike.

    Examples
    --------
    >>> gains, losses, decimals = largest_changes([[0.5, 0.5], [0.5, 0.5]], [[0.6, 0.4], [0.6, 0.4]])
    >>> gains.tolist(), losses.tolist(), decimals
    ([[0, 0], [1, 0]], [[0, 1], [1, 1]], 3)
    """
    before, after = np.atleast_2d(np.asarray(content_weights, dtype=float)), np.asarray(weights, dtype=float)
    allowed = np.ones(before.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    gains, losses, decimals = _named_changes(before.ravel(), after.ravel(), allowed.ravel(), shown)
    return _cells(gains, before.shape[1]), _cells(losses, before.shape[1]), decimals


def row_tops(matrix, decimals: int, mask=None) -> list[tuple[int, ...]]:
    """:func:`top` of every row of a matrix (vectorised: only rows with near-ties are checked one by one).

    >>> row_tops([[1.0, 1.001, 0.0], [0.0, 2.0, 1.0]], 2)
    [(0, 1), (1,)]
    """
    array, allowed = _masked(np.atleast_2d(matrix), None if mask is None else np.atleast_2d(mask))
    highest = np.where(allowed, array, -np.inf).max(axis=1, keepdims=True)  # (n_q, 1)
    # two values that print alike differ by at most 10^-d: this keeps every tie, and perhaps a few more
    near = allowed & (array >= highest - 1.01 * 10.0**-decimals)  # (n_q, n_k)
    counts, first = near.sum(axis=1).tolist(), near.argmax(axis=1).tolist()
    return [(first[i],) if counts[i] == 1 else top(array[i], decimals, allowed[i]) for i in range(array.shape[0])]


def row_facts(content_weights, weights, bias, mask=None) -> RowFacts:
    """The facts of one row: tied favourites, tied largest gain and loss, and why nothing moved.

    Parameters
    ----------
    content_weights, weights, bias : array_like, shape (n_k,)
        The row's softmax of content alone, softmax with the position term, and its biases.
    mask : array_like of bool, shape (n_k,), optional
        Keys the query may see (default: all).

    Returns
    -------
    facts : RowFacts

    Examples
    --------
    >>> import relpos
    >>> from relpos.topics.walkthrough.model import resize_table
    >>> example = relpos.worked_example()
    >>> result = relpos.Scenario(example.queries, example.keys, resize_table(example.table, 1)).attention()
    >>> facts = row_facts(result.content_weights[0], result.weights[0], result.bias[0])
    >>> facts.content_top, facts.top, facts.gainers, facts.losers, facts.still
    ((3,), (0, 3), (0,), (3,), '')
    """
    before, after, b = (np.asarray(v, dtype=float) for v in (content_weights, weights, bias))  # (n_k,)
    allowed = np.ones(before.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    gainers, losers, decimals = _named_changes(before, after, allowed)
    moved = bool(gainers or losers)
    return RowFacts(
        content_top=top(before, WEIGHT_DECIMALS, allowed),
        top=top(after, WEIGHT_DECIMALS, allowed),
        gainers=gainers,
        losers=losers,
        decimals=decimals,
        spread=spread(b, allowed),
        still="" if moved else str(still_causes(before, b, allowed)[0]),
        largest_change=float(np.max(np.abs(np.where(allowed, after - before, 0.0)), initial=0.0)),
    )
