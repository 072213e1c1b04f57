"""Named slips: the wrong answers that common mistakes give, computed from a question's own numbers.

A slip is a mistaken rule (leave out a term, read the offset the wrong way round, forget to
clip) applied to the question's numbers; its ``value`` is the answer that rule gives. A typed
answer is put down to a slip (:func:`matching`) only when it matches the slip's value within
the question's tolerance and does not match the right answer, and a slip whose value is itself
the right answer (within the tolerance) is never named: for these numbers it is no slip. When
several slips give the typed answer, all of them are named (:func:`slips_text`).

A slip's ``why`` says what the right rule does instead, with the question's numbers, but never
the answer itself: it is shown before the learner's second try. NumPy only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from relpos.core.offsets import clip_offsets, relative_offsets
from relpos.quizbank.model import Question
from relpos.text import numbers
from relpos.text.facts import distance, slip_tolerance

__all__ = [
    "Slip",
    "cells_slips",
    "flips_sign",
    "matching",
    "offset_slips",
    "question_slips",
    "question_tolerance",
    "score_slips",
    "score_sum_slips",
    "sign_slip",
    "slips_text",
    "weight_grows_slips",
    "weight_sum_slips",
]

_COUNT_WORDS = {2: "two", 3: "three", 4: "four"}


@dataclass(frozen=True)
class Slip:
    """One common mistake and the answer it gives.

    Attributes
    ----------
    name : str
        What went wrong, as said to the learner: ``you left out the position term``.
    why : str
        What the right rule does instead, with the question's numbers (never the answer).
    value : float, int or frozenset
        The answer the mistake gives for this question.
    """

    name: str
    why: str
    value: float | int | frozenset

    @property
    def sentence(self) -> str:
        """``You left out the position term: … .``"""
        return f"{self.name[0].upper()}{self.name[1:]}: {self.why}."


def _same(a, b, tolerance: float) -> bool:
    if isinstance(a, frozenset) or isinstance(b, frozenset):
        return a == b
    return distance(a, b) <= tolerance


def matching(slips: Iterable[Slip | None], given, expected, tolerance: float = 0.0) -> tuple[Slip, ...]:
    """The slips that give the typed answer `given`, in the order given (each name once).

    None when `given` is right; a slip whose value is the right answer is never named.

    >>> slips = [Slip("a", "x", 1.0), Slip("b", "y", 1.004), Slip("c", "z", 2.0)]
    >>> [slip.name for slip in matching(slips, 1.002, 2.0, 0.01)]
    ['a', 'b']
    >>> matching(slips, 2.0, 2.0, 0.01), matching(slips, 1.995, 2.0, 0.01)
    ((), ())
    """
    if _same(given, expected, tolerance):
        return ()
    found: dict[str, Slip] = {}
    for slip in slips:
        if slip is None or slip.name in found or _same(slip.value, expected, tolerance):
            continue
        if _same(given, slip.value, tolerance):
            found[slip.name] = slip
    return tuple(found.values())


def slips_text(slips: Sequence[Slip]) -> str:
    """The slips as sentences for the learner: one named, or every one that fits, said so.

    >>> slips_text([Slip("the sign is flipped", "check the signs", -1.0)])
    'The sign is flipped: check the signs.'
    >>> slips_text([Slip("a", "x", 0.0), Slip("b", "y", 0.0)])
    'That answer fits two slips. A: x. Or b: y.'
    """
    if not slips:
        return ""
    if len(slips) == 1:
        return slips[0].sentence
    count = _COUNT_WORDS.get(len(slips), str(len(slips)))
    rest = " ".join(f"Or {slip.name}: {slip.why}." for slip in slips[1:])
    return f"That answer fits {count} slips. {slips[0].sentence} {rest}"


# ---------------------------------------------------------------- numbers: the sign


def flips_sign(given: float, expected: float, tolerance: float) -> bool:
    """Whether `given` is `expected` with its sign flipped (and `expected` is no zero within the tolerance).

    >>> flips_sign(0.5, -0.5, 0.01), flips_sign(0.004, -0.005, 0.01)
    (True, False)
    """
    return abs(expected) > tolerance and distance(given, -expected) <= tolerance


def sign_slip(expected: float, tolerance: float, why: str) -> Slip | None:
    """The flipped sign as a slip (None when the expected value is a zero within the tolerance)."""
    return Slip("the sign is flipped", why, -expected) if abs(expected) > tolerance else None


def _text(value: float) -> str:
    """A number in a slip's text, with every decimal it has (up to 6) and a true minus: −0.24, 0.3."""
    return numbers.number(value, 6, trim=1)


def _signed(value: float) -> str:
    """A change with its sign: +0.3, −0.5."""
    return numbers.number(value, 6, sign=True, trim=1)


def _clip(offset: int, k: int) -> int:
    return int(clip_offsets(np.array([offset]), k)[0])


# ---------------------------------------------------------------- compute a score


def score_slips(queries, keys, table, i: int, j: int, tolerance: float) -> tuple[Slip | None, ...]:
    """Slips of ``e_ij = (q_i·k_j + q_i·a^K_clip(j−i,k)) / √d``; `i`, `j` from 1.

    Parameters
    ----------
    queries, keys : array_like, shape (n,) or (n, d)
    table : array_like, shape (2k+1,) or (2k+1, d)
        ``a^K`` for offsets ``−k .. +k``.
    i, j : int
        Query and key position, from 1.
    tolerance : float
        The question's tolerance (a sign flip of a value within it is no slip).

    Returns
    -------
    slips : tuple of Slip or None
        The content term alone, the position term alone, the table row of i − j, the
        score without the 1/√d scale (None when d = 1: it is the score) and the sign flip.
    """
    q, kk, a = (np.asarray(values, dtype=float) for values in (queries, keys, table))
    q, kk, a = (values.reshape(len(values), -1) for values in (q, kk, a))
    d, k = q.shape[1], (len(a) - 1) // 2
    scale = 1 / math.sqrt(d)
    offset, flipped = j - i, _clip(i - j, k)
    row = _clip(offset, k)
    content = float(q[i - 1] @ kk[j - 1]) * scale
    position = float(q[i - 1] @ a[row + k]) * scale
    wrong_row = float(q[i - 1] @ a[flipped + k]) * scale
    score = content + position
    dot = "" if d == 1 else "·"
    qi, kj = f"q{numbers.subscript(i)}", f"k{numbers.subscript(j)}"
    beyond = f"; j − i = {numbers.offset(offset)} lies beyond ±{k}, but clipping still gives it a table entry"
    return (
        Slip(
            "you left out the position term",
            f"{_text(content)} is the content term {qi}{dot}{kj} alone; the score also adds the position term "
            f"{qi}{dot}aᴷ of the offset j − i" + (beyond if row != offset else ""),
            content,
        ),
        Slip(
            "you left out the content term",
            f"{_text(position)} is the position term {qi}{dot}aᴷ{numbers.offset_subscript(row)} alone; the score "
            f"also adds the content term {qi}{dot}{kj}",
            position,
        ),
        Slip(
            "you read the table row of i − j",
            f"the offset is key minus query, j − i = {j} − {i} = {numbers.offset(offset)}, not i − j",
            content + wrong_row,
        ),
        Slip(
            "you forgot to divide by √d",
            f"with d = {d} both terms are divided by √{d}",
            score / scale,
        )
        if d > 1
        else None,
        sign_slip(score, tolerance, "check the sign of each product; a minus times a minus is a plus"),
    )


# ---------------------------------------------------------------- which table row


def offset_slips(expected: int, k: int, raw: int | None = None) -> tuple[Slip, ...]:
    """Slips of a table row's offset label ``clip(j − i, k)``; `raw` is ``j − i`` (unclipped).

    The two slips of clipping only where clipping changed the offset (not without `raw`).

    >>> [slip.value for slip in offset_slips(-2, 2, raw=-4)]
    [2, -4, 4, 0, 1]
    >>> [slip.value for slip in offset_slips(-1, 2, raw=-1)]
    [1, 1, 2]
    """
    edge = "every offset beyond it shares the nearest edge row"
    clipping = (
        (
            Slip("you did not clip", f"j − i lies beyond the window ±{k}, and {edge}", raw),
            Slip("you used i − j and did not clip", f"the offset is j − i, key minus query, and {edge} ±{k}", -raw),
        )
        if raw is not None and raw != expected
        else ()
    )
    return (
        Slip(
            "you used i − j (query minus key)",
            "the offset is j − i, key minus query, so the sign flips",
            -expected,
        ),
        *clipping,
        Slip("that is the row's 0-based index in code", "the question asks for its offset label", expected + k),
        Slip("that counts the rows from the top", "the question asks for the row's offset label", expected + k + 1),
    )


# ---------------------------------------------------------------- whose weight grows


def _keys_at(i: int, n: int, k: int, offset: int, *, clip: bool = True) -> frozenset[int]:
    """Key positions (from 1) whose offset from query `i` (from 1) is `offset`, clipped at `k` or not."""
    offsets = relative_offsets(n)[i - 1]
    if clip:
        offsets = clip_offsets(offsets, k)
    return frozenset(int(j) + 1 for j in np.flatnonzero(offsets == offset))


def _grown(users: frozenset[int], n: int, rises: bool) -> frozenset[int]:
    """Keys whose weight grows when the scores of `users` all move by one amount (up if `rises`).

    Softmax weights add up to 1: the keys whose scores rise gain, all others lose; when
    no key or every key moves, no weight changes.
    """
    if not users or len(users) == n:
        return frozenset()
    return users if rises else frozenset(range(1, n + 1)) - users


def weight_grows_slips(query: float, delta: float, i: int, n: int, k: int, offset: int = -1) -> tuple[Slip, ...]:
    """Slips of "which keys gain weight when ``a^K_offset`` grows by `delta`?" (`i` from 1).

    The right answer is ``_grown(keys at offset, n, query·delta > 0)``; the slips turn the
    direction around, take the keys at i − j, or forget to clip.
    """
    rises = query * delta > 0
    label, qi = numbers.offset(offset), f"q{numbers.subscript(i)}"
    entry = f"aᴷ{numbers.offset_subscript(offset)}"
    users = _keys_at(i, n, k, offset)
    sign = "positive" if query > 0 else "negative"
    return (
        Slip(
            "the sign is flipped",
            f"the scores that read {entry} change by {qi} × {_text(delta)}, and {qi} = {_text(query)} is {sign}",
            _grown(users, n, not rises),
        ),
        Slip(
            "you took the keys at i − j",
            f"{entry} is read by the keys whose offset j − i (key minus query) from query {i}, clipped at ±{k}, "
            f"is {label}",
            _grown(_keys_at(i, n, k, -offset), n, rises),
        ),
        Slip(
            "you did not clip",
            f"with k = {k}, keys further away than ±{k} are clipped to the edge row and read it as well",
            _grown(_keys_at(i, n, k, offset, clip=False), n, rises),
        ),
    )


# ---------------------------------------------------------------- row sums


def score_sum_slips(
    query: float, delta: float, i: int, n: int, k: int, offset: int, tolerance: float
) -> tuple[Slip | None, ...]:
    """Slips of "by how much does ``Σ_j e_ij`` change when ``a^K_offset`` changes by `delta`?" (`i` from 1).

    The right answer is ``query × delta × #{j : clip(j − i, k) = offset}``.
    """
    count = len(_keys_at(i, n, k, offset))
    qi, entry, label = f"q{numbers.subscript(i)}", f"aᴷ{numbers.offset_subscript(offset)}", numbers.offset(offset)
    change = query * delta
    readers = (
        f"every key whose offset j − i from query {i} is clipped to {label} reads {entry}, "
        "and each of their scores moves"
        if count
        else f"no key's offset j − i from query {i} is clipped to {label}, so no score reads {entry}"
    )
    return (
        Slip("you counted one key", readers, change),
        Slip(
            "you left out the query",
            f"each score that reads {entry} moves by {qi} times the change",
            delta * count,
        ),
        Slip(
            "you counted the keys at i − j",
            "the offset is j − i, key minus query",
            change * len(_keys_at(i, n, k, -offset)),
        ),
        Slip(
            "you did not clip",
            f"keys further away than ±{k} are clipped to the edge row and read it as well",
            change * len(_keys_at(i, n, k, offset, clip=False)),
        ),
        sign_slip(
            change * count, tolerance, f"{qi} = {_text(query)} and the change is {_signed(delta)}: mind both signs"
        ),
    )


def weight_sum_slips(query: float, delta: float, i: int, n: int, k: int, offset: int) -> tuple[Slip, ...]:
    """Slips of "what do query `i`'s weights add up to after the change?" (the answer is 1)."""
    count = len(_keys_at(i, n, k, offset))
    return (
        Slip(
            "you gave the change, not the sum",
            "the question asks what the weights add up to, not by how much their sum changes",
            0.0,
        ),
        Slip(
            "you answered for the scores",
            "that is how much the sum of the scores changes; the weights are softmax of the scores",
            query * delta * count,
        ),
        Slip("the sign is flipped", "a weight is never negative", -1.0),
    )


# ---------------------------------------------------------------- which cells change


def _cells(n: int, keep) -> frozenset[tuple[int, int]]:
    """Cells (i, j) from 1 whose offset j − i passes `keep`."""
    return frozenset((i, j) for i in range(1, n + 1) for j in range(1, n + 1) if keep(j - i))


def cells_slips(n: int, k_from: int, k_to: int) -> tuple[Slip, ...]:
    """Slips of "which cells' biases change when k goes from `k_from` to `k_to`?".

    The right answer is every cell with ``|j − i| > k_to``.
    """
    return (
        Slip(
            "you listed one side of the diagonal only",
            f"offsets below −{k_to} are clipped as well as those above +{k_to}",
            _cells(n, lambda o: o > k_to),
        ),
        Slip(
            "you listed one side of the diagonal only",
            f"offsets above +{k_to} are clipped as well as those below −{k_to}",
            _cells(n, lambda o: o < -k_to),
        ),
        Slip(
            f"you included the cells at offset ±{k_to}",
            f"they keep their own rows aᴷ₋{numbers.subscript(k_to)} and aᴷ₊{numbers.subscript(k_to)}",
            _cells(n, lambda o: abs(o) >= k_to),
        ),
        Slip(
            f"you left out the cells beyond ±{k_from}",
            f"they were clipped to ±{k_from} and now read ±{k_to}, another table entry",
            _cells(n, lambda o: k_to < abs(o) <= k_from),
        ),
        Slip(
            "you listed the cells that keep their row",
            "the question asks for the cells whose bias changes",
            _cells(n, lambda o: abs(o) <= k_to),
        ),
    )


# ---------------------------------------------------------------- a question's slips and tolerance


#: What each kind's slips are computed from: its parameters, and whether it needs the scenario.
_SLIP_NUMBERS = {
    "score": (("i", "j"), True),
    "table_row": (("i", "j"), False),
    "weight_grows": (("i", "delta", "offset"), True),
    "row_sum": (("i", "delta", "offset"), True),
    "cells_change": (("k_from", "k_to"), False),
}


def question_slips(question: Question) -> tuple[Slip | None, ...]:
    """Every named slip of `question`, computed from its own numbers (see :mod:`relpos.quizbank.slips`);
    none for a question without the numbers its kind's slips need."""
    p, scenario, n, k = question.parameters, question.scenario, question.n, question.k
    if question.kind not in _SLIP_NUMBERS:
        return ()
    names, needs_scenario = _SLIP_NUMBERS[question.kind]
    if any(name not in p for name in names) or (needs_scenario and scenario is None):
        return ()
    if question.kind == "score":
        return score_slips(scenario.queries, scenario.keys, scenario.table, p["i"], p["j"], question.tolerance)
    if question.kind == "table_row":
        return offset_slips(question.expected, k, raw=p["j"] - p["i"])
    if question.kind == "cells_change":
        return cells_slips(n, p["k_from"], p["k_to"])
    query = scenario.queries[p["i"] - 1]
    if question.kind == "weight_grows":
        return weight_grows_slips(query, p["delta"], p["i"], n, k, p["offset"])
    if p.get("variant") == "weights":
        return weight_sum_slips(query, p["delta"], p["i"], n, k, p["offset"])
    return score_sum_slips(query, p["delta"], p["i"], n, k, p["offset"], question.tolerance)


def question_tolerance(question: Question) -> float:
    """The tolerance a numeric question gets: no named slip's value is within it
    (:func:`relpos.text.facts.slip_tolerance`, at most the question's own).

    Quiz numbers are exact hundredths, so a slip is often 0.01 away (0.06, the content term
    alone, against the score 0.07): the tolerance is then 0.005, not 0.01.
    """
    values = [slip.value for slip in question_slips(question) if slip is not None]
    return slip_tolerance(float(question.expected), values, question.tolerance)
