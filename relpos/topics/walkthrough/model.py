"""Step logic of the classroom walkthrough: lesson order, per-pair arithmetic, takeaways.

Pure functions over a :class:`~relpos.core.examples.Scenario` and its
:class:`~relpos.core.attention.AttentionResult` (NumPy and the standard library only, no
Streamlit), so every number the walkthrough page shows is computed here and tested
without a server.

The lesson visits the query rows in order. Row ``i`` has ``n`` pair stops, one per key
``j`` (step ``j``), followed by one softmax stop (step ``n``) where the row is complete;
so a lesson over ``n`` tokens has ``n (n + 1)`` stops. Indices are 0-based here and
shown from 1 on screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from relpos.core.attention import AttentionResult
from relpos.core.examples import Scenario
from relpos.text import numbers
from relpos.text.escape import escape_markdown
from relpos.text.facts import RowFacts, row_facts, slip_tolerance

__all__ = [
    "K_CHOICES",
    "STEP_COLUMNS",
    "VALUE_LIMIT",
    "PairStep",
    "RowShift",
    "Stop",
    "asked_part",
    "changes_from",
    "lesson_stops",
    "next_stop",
    "pair_steps",
    "parse_value",
    "prediction_tolerance",
    "previous_stop",
    "reached_cells",
    "resize_table",
    "row_shift",
    "slip_values",
    "stop_id",
    "stop_index",
    "used_offsets",
]

#: Every editable number (q's, k's and a^K entries) must lie in [-VALUE_LIMIT, VALUE_LIMIT]:
#: hand-computable values; beyond ~10 the softmax is one-hot and the lesson says nothing.
VALUE_LIMIT = 10.0
#: Clipping distances the walkthrough offers (k = 3 already covers every offset of 4 tokens).
K_CHOICES = (0, 1, 2, 3)
#: Longest text accepted in one number field.
MAX_INPUT_CHARS = 32

#: Columns of the walkthrough's step table: on-screen name -> PairStep attribute.
STEP_COLUMNS = {
    "i": "i",
    "j": "j",
    "offset j−i": "offset",
    "clipped offset": "clipped",
    "q_i": "query",
    "k_j": "key",
    "aᴷ used": "embedding",
    "q_i·k_j": "content",
    "q_i·aᴷ": "position",
    "score": "score",
    "content-only weight": "content_weight",
    "combined weight": "weight",
}


_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)


# ---------------------------------------------------------------------------
# Lesson order
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Stop:
    """One stop of the lesson: a pair ``(row, step)`` or the softmax of a row.

    Attributes
    ----------
    row : int
        Query index ``i`` (0-based).
    step : int
        Key index ``j`` of the current pair, or ``n`` for the row's softmax stop.
    """

    row: int
    step: int

    def is_softmax(self, n: int) -> bool:
        """True at the row's softmax stop (after its last pair)."""
        return self.step == n


def lesson_stops(n: int) -> tuple[Stop, ...]:
    """Every stop of the lesson in order: each row's n pairs, then its softmax.

    >>> [(s.row, s.step) for s in lesson_stops(2)]
    [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    """
    return tuple(Stop(row, step) for row in range(n) for step in range(n + 1))


def _check_stop(stop: Stop, n: int) -> None:
    if not (0 <= stop.row < n and 0 <= stop.step <= n):
        raise ValueError(f"stop must have row in 0..{n - 1} and step in 0..{n}; got {stop}")


def stop_index(stop: Stop, n: int) -> int:
    """Position of `stop` in :func:`lesson_stops` (0-based).

    >>> stop_index(Stop(1, 0), 4)
    5
    """
    _check_stop(stop, n)
    return stop.row * (n + 1) + stop.step


def stop_id(stop: Stop, n: int) -> str:
    """A stop's name in a live class: ``r1j4`` (query 1, key 4) or ``r1softmax``.

    >>> stop_id(Stop(0, 3), 4), stop_id(Stop(1, 4), 4)
    ('r1j4', 'r2softmax')
    """
    return f"r{stop.row + 1}softmax" if stop.is_softmax(n) else f"r{stop.row + 1}j{stop.step + 1}"


def asked_part(kind: str, asked_at: str, stop: Stop, n: int) -> str | None:
    """What an open question asked at stop `asked_at` hides at `stop`: ``"score"`` (predict
    the pair's score), ``"gains"`` (which key gains most), or None (nothing of this stop).

    >>> asked_part("number", "r1j4", Stop(0, 3), 4), asked_part("choice", "r1softmax", Stop(0, 4), 4)
    ('score', 'gains')
    >>> asked_part("number", "r1j4", Stop(0, 2), 4) is None
    True
    """
    if asked_at != stop_id(stop, n):
        return None
    return {"number": "score", "choice": "gains"}.get(kind)


def used_offsets(steps, stop: Stop, n: int) -> list[int]:
    """The clipped offsets the stop reads: its pair's, or every pair's of the row at a softmax stop.

    >>> from relpos.core.examples import worked_example
    >>> steps = pair_steps(worked_example())
    >>> used_offsets(steps, Stop(0, 3), 4), used_offsets(steps, Stop(0, 4), 4)
    ([2], [0, 1, 2])
    """
    row = steps[stop.row * n : (stop.row + 1) * n]
    return sorted({s.clipped for s in row} if stop.is_softmax(n) else {row[stop.step].clipped})


def next_stop(stop: Stop, n: int) -> Stop:
    """The stop after `stop`; the last stop stays where it is.

    >>> next_stop(Stop(0, 4), 4)
    Stop(row=1, step=0)
    """
    stops = lesson_stops(n)
    return stops[min(stop_index(stop, n) + 1, len(stops) - 1)]


def previous_stop(stop: Stop, n: int) -> Stop:
    """The stop before `stop`; the first stop stays where it is.

    >>> previous_stop(Stop(1, 0), 4)
    Stop(row=0, step=4)
    """
    return lesson_stops(n)[max(stop_index(stop, n) - 1, 0)]


def reached_cells(stop: Stop, n: int) -> np.ndarray:
    """Which score cells the class has computed on arriving at `stop`.

    Returns
    -------
    reached : ndarray of bool, shape (n, n)
        Every cell of earlier rows, and the current row up to the current key (the
        whole row at its softmax stop).

    >>> reached_cells(Stop(1, 0), 2).astype(int)
    array([[1, 1],
           [1, 0]])
    """
    _check_stop(stop, n)
    rows = np.arange(n)[:, None]  # (n, 1)
    columns = np.arange(n)[None, :]  # (1, n)
    return (rows < stop.row) | ((rows == stop.row) & (columns <= stop.step))  # (n, n)


# ---------------------------------------------------------------------------
# Per-pair arithmetic
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PairStep:
    """The whole arithmetic of one pair ``(i, j)`` of a d = 1 scenario.

    The inputs (`query`, `key`, `embedding`) are the scenario's numbers; the terms and
    weights are read from :func:`relpos.relative_attention`'s result, so the page shows
    exactly what the core computed.
    """

    i: int  # query index (0-based)
    j: int  # key index (0-based)
    k: int  # clipping distance
    query: float  # q_i
    key: float  # k_j
    offset: int  # j - i
    clipped: int  # clip(j - i, k)
    embedding: float  # a^K_{clip(j - i, k)}
    content: float  # q_i k_j / sqrt(d)
    position: float  # q_i a^K / sqrt(d)
    score: float  # content + position
    content_weight: float  # softmax of the content row, at j
    weight: float  # softmax of the score row, at j

    @property
    def is_clipped(self) -> bool:
        """True when ``|j - i| > k``: the pair borrows the edge embedding."""
        return self.offset != self.clipped

    @property
    def table_row(self) -> int:
        """Row ``clip(j - i, k) + k`` of the ``(2k+1,)`` table."""
        return self.clipped + self.k


def pair_steps(scenario: Scenario, result: AttentionResult | None = None) -> tuple[PairStep, ...]:
    """The arithmetic of every pair, row by row (query 1's keys first).

    Parameters
    ----------
    scenario : Scenario
    result : AttentionResult, optional
        ``scenario.attention()``; computed when not given.

    Returns
    -------
    steps : tuple of PairStep, length n * n

    Examples
    --------
    >>> from relpos.core.examples import worked_example
    >>> last = pair_steps(worked_example())[3]
    >>> (last.offset, last.clipped, last.embedding, round(last.score, 4))
    (3, 2, -0.5, 0.7)
    """
    result = scenario.attention() if result is None else result
    n, k = scenario.n, scenario.k
    return tuple(
        PairStep(
            i=i,
            j=j,
            k=k,
            query=float(scenario.queries[i]),
            key=float(scenario.keys[j]),
            offset=j - i,
            clipped=int(result.offsets[i, j]),
            embedding=float(scenario.table[int(result.offsets[i, j]) + k]),
            content=float(result.content[i, j]),
            position=float(result.bias[i, j]),
            score=float(result.scores[i, j]),
            content_weight=float(result.content_weights[i, j]),
            weight=float(result.weights[i, j]),
        )
        for i in range(n)
        for j in range(n)
    )


def slip_values(scenario: Scenario, step: PairStep) -> tuple[float, float, float, float]:
    """What the common slips give for the score of `step` (as the quiz names them): the content
    term alone, the position term alone, the table row of i − j instead of j − i, the sign flipped.

    >>> from relpos.core.examples import worked_example
    >>> example = worked_example()
    >>> [round(v, 4) for v in slip_values(example, pair_steps(example)[3])]
    [1.2, -0.5, 0.9, -0.7]
    """
    flipped = int(np.clip(-step.offset, -step.k, step.k))  # the offset i − j, clipped
    wrong_row = step.content + step.query * float(scenario.table[flipped + step.k])  # d = 1: no 1/√d
    return step.content, step.position, wrong_row, -step.score


def prediction_tolerance(scenario: Scenario, step: PairStep) -> float:
    """How close a predicted score of `step` must be to count: no slip's value is that close
    (:func:`relpos.text.facts.slip_tolerance`, 0.01 at most, as in the quiz).

    >>> from relpos.core.examples import worked_example
    >>> example = worked_example()
    >>> prediction_tolerance(example, pair_steps(example)[3])
    0.01
    """
    return slip_tolerance(step.score, slip_values(scenario, step))


# ---------------------------------------------------------------------------
# The softmax step: what the position term did to one row
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RowShift:
    """How the position term moved one query row's softmax weights, with the facts the takeaway states."""

    row: int
    content_weights: tuple[float, ...]  # softmax(content row)
    weights: tuple[float, ...]  # softmax(score row)
    facts: RowFacts  # tied favourites, tied largest gain and loss, why nothing moved

    @property
    def changes(self) -> np.ndarray:
        """Combined minus content-only weight for each key, shape (n,)."""
        return np.subtract(self.weights, self.content_weights)

    @property
    def bias_spread(self) -> float:
        """Largest minus smallest position term of the row (0: a constant shift)."""
        return self.facts.spread


def row_shift(result: AttentionResult, row: int) -> RowShift:
    """One row's weights before and after, and the facts about them (ties at 3 decimals).

    Examples
    --------
    >>> from relpos.core.examples import worked_example
    >>> shift = row_shift(worked_example().attention(), 0)
    >>> shift.facts.gainers, shift.facts.losers, shift.facts.content_top, shift.facts.top
    ((0,), (3,), (3,), (0,))
    """
    n_q = result.scores.shape[0]
    if not 0 <= row < n_q:
        raise ValueError(f"row must be a query index in 0..{n_q - 1}; got {row}")
    content_weights = result.content_weights[row]  # (n_k,)
    weights = result.weights[row]  # (n_k,)
    return RowShift(
        row=row,
        content_weights=tuple(float(w) for w in content_weights),
        weights=tuple(float(w) for w in weights),
        facts=row_facts(content_weights, weights, result.bias[row], result.mask[row]),
    )


# ---------------------------------------------------------------------------
# Editing the example
# ---------------------------------------------------------------------------


def parse_value(text, *, name: str, limit: float = VALUE_LIMIT) -> tuple[float | None, str | None]:
    """Read one typed number; return ``(value, None)`` or ``(None, message)``.

    Accepts plain decimals with an optional sign and exponent (``-0.5``, ``+2``,
    ``.3``, ``1e-1``); a true minus ``−`` and a single decimal comma are read too.

    Parameters
    ----------
    text : str
        What was typed.
    name : str
        The value's on-screen name, used in the message (e.g. ``q₁``).
    limit : float
        Allowed range ``[-limit, limit]``.

    Examples
    --------
    >>> parse_value(" −0,5 ", name="q₁")
    (-0.5, None)
    >>> parse_value("abc", name="q₁")[1]
    'q₁: “abc” is not a number. Type a number from −10 to 10, such as 0.5 or −1.2.'
    >>> parse_value("12", name="k₂")[1]
    'k₂: 12.0 is outside the allowed range. Type a number from −10 to 10.'
    """
    allowed = f"from {numbers.number(-limit, 4, trim=0)} to {numbers.number(limit, 4, trim=0)}"
    raw = "" if text is None else str(text)
    cleaned = raw.strip().replace("\u2212", "-").replace("\u2013", "-")
    if cleaned.count(",") == 1 and "." not in cleaned:
        cleaned = cleaned.replace(",", ".")
    if not cleaned:
        return None, f"{name} is empty. Type a number {allowed}."
    if len(cleaned) > MAX_INPUT_CHARS or not _NUMBER.fullmatch(cleaned):
        return (
            None,
            f"{name}: “{escape_markdown(raw.strip(), limit=20)}” is not a number. "
            f"Type a number {allowed}, such as 0.5 or −1.2.",
        )
    value = float(cleaned)
    if not -limit <= value <= limit:
        shown = numbers.number(value, 4, trim=1) if abs(value) < 1e6 else numbers.scientific(value, 3)
        return None, f"{name}: {shown} is outside the allowed range. Type a number {allowed}."
    return value + 0.0, None


def changes_from(scenario: Scenario, original: Scenario) -> tuple[str, ...]:
    """What an edited `scenario` changed in `original`, in words for the reader.

    The table is compared only at the offsets both clipping distances share, so a new k
    alone reports the new k, not a changed table.

    Examples
    --------
    >>> from relpos.core.examples import worked_example
    >>> textbook = worked_example()
    >>> changes_from(textbook, textbook)
    ()
    >>> edited = Scenario(queries=(1.0, 0.5, 0.8, -0.1), keys=textbook.keys, table=textbook.table[1:-1])
    >>> changes_from(edited, textbook)
    ('k = 1 instead of 2', 'q₄ = −0.1 instead of 0.3')
    """
    changes = []
    if scenario.k != original.k:
        changes.append(f"k = {scenario.k} instead of {original.k}")
    for name, new, old in (("q", scenario.queries, original.queries), ("k", scenario.keys, original.keys)):
        changes.extend(_changed_values(name, dict(enumerate(new, 1)), dict(enumerate(old, 1))))
    new_table = dict(zip(range(-scenario.k, scenario.k + 1), scenario.table, strict=True))
    old_table = dict(zip(range(-original.k, original.k + 1), original.table, strict=True))
    changes.extend(_changed_values("aᴷ", new_table, old_table, signed_keys=True))
    return tuple(changes)


def _changed_values(name: str, new: dict, old: dict, *, signed_keys: bool = False) -> list[str]:
    """``name₂ = 0.1 instead of 0.3`` for each shared key whose value differs."""
    changed = []
    for key in sorted(new.keys() & old.keys()):
        if new[key] != old[key]:
            where = f"{name}{numbers.offset_subscript(key)}" if signed_keys else f"{name}{numbers.subscript(key)}"
            changed.append(
                f"{where} = {numbers.number(new[key], 4, trim=1)} instead of {numbers.number(old[key], 4, trim=1)}"
            )
    return changed


def resize_table(table, k: int, remembered: dict[int, float] | None = None) -> tuple[float, ...]:
    """The a^K table for a new clipping distance `k`.

    Entries whose offset survives keep their value. A new offset takes its
    `remembered` value when there is one, otherwise a copy of the nearest old edge
    entry: with those copies the scores do not change, since a pair that used to be
    clipped to the edge now reads the same number from its own row.

    Parameters
    ----------
    table : sequence of float, length 2k_old + 1
    k : int
        New clipping distance, at least 0.
    remembered : dict of int to float, optional
        Values seen earlier for offsets, e.g. before `k` was lowered.

    Returns
    -------
    table : tuple of float, length 2k + 1

    Examples
    --------
    >>> resize_table((-0.3, 0.4, 0.1, -0.2, -0.5), 1)
    (0.4, 0.1, -0.2)
    >>> resize_table((0.4, 0.1, -0.2), 2)
    (0.4, 0.4, 0.1, -0.2, -0.2)
    >>> resize_table((0.4, 0.1, -0.2), 2, {-2: -0.3, 2: -0.5})
    (-0.3, 0.4, 0.1, -0.2, -0.5)
    """
    old = [float(v) for v in table]
    if len(old) % 2 == 0:
        raise ValueError(f"table must have an odd number of entries 2k+1; got {len(old)}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be an integer >= 0; got {k!r}")
    old_k = (len(old) - 1) // 2
    remembered = remembered or {}
    by_offset = {offset: old[offset + old_k] for offset in range(-old_k, old_k + 1)}
    new = []
    for offset in range(-k, k + 1):
        if offset in by_offset:
            new.append(by_offset[offset])
        elif offset in remembered:
            new.append(float(remembered[offset]))
        else:
            new.append(by_offset[max(-old_k, min(old_k, offset))])
    return tuple(new)
