"""Words computed from numbers: hover arithmetic and "what to notice" captions.

Everything here is plain text (hover labels may use Plotly's ``<br>``), built from
the arrays the core returns; nothing is canned. Positions are shown from 1, offsets
as ``j − i`` with a sign, minus signs as ``−``.
"""

from __future__ import annotations

import numpy as np

from relpos.core.attention import AttentionResult
from relpos.core.measures import (
    SAME,
    diagonal_spread,
    row_spread,
    shift_threshold,
)
from relpos.text import numbers
from relpos.text.numbers import subscript

__all__ = [
    "SCALAR_TOGGLE_LABEL",
    "VISIBLE_CHANGE",
    "bias_kind",
    "diagonal_note",
    "explorer_captions",
    "number",
    "offset_label",
    "subscript",
    "weight_shift_reason",
]

#: The Explorer's switch to a query-independent bias (neither T5 nor ALiBi learns one number per offset).
SCALAR_TOGGLE_LABEL = (
    "Query-independent bias: one number per offset, the same for every query "
    "(T5 learns one per bucket of offsets; ALiBi learns none, it subtracts a fixed slope × distance)"
)


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


def _columns(values) -> np.ndarray:
    """(n, d) float array; a 1-D input means d = 1."""
    array = np.asarray(values, dtype=float)
    return array.reshape(-1, 1) if array.ndim == 1 else array


def _dot(left_name: str, left: np.ndarray, right_name: str, right: np.ndarray) -> str:
    """``q₂·k₃ = 0.50·0.40`` (d = 1) or ``q₂·k₃ = (0.50·0.40 + 0.30·(−0.10))/√2`` (d > 1)."""
    terms = " + ".join(f"{number(a)}·{number(b, paren=True)}" for a, b in zip(left, right, strict=True))
    if len(left) == 1:
        return f"{left_name}·{right_name} = {terms}"
    return f"{left_name}·{right_name} = ({terms})/√{len(left)}"


def _values_text(values: np.ndarray, limit: int = 6) -> str:
    shown = ", ".join(number(v) for v in values[:limit])
    return shown + (", …" if values.size > limit else "")


def _zero(values) -> bool:
    """Whether every value is 0 (up to float noise)."""
    return bool(np.all(np.abs(values) <= SAME))


def diagonal_note(queries, table, result: AttentionResult, *, scalar: bool = False) -> str:
    """What is and is not constant along the main diagonal, with the actual numbers.

    Examples
    --------
    >>> import relpos
    >>> example = relpos.worked_example()
    >>> note = diagonal_note(example.queries, example.table, example.attention())
    >>> note[:87]
    'Every cell on the offset-0 diagonal uses the same table row aᴷ₀ = 0.10, yet its biases '
    >>> note[87:129]
    'are 0.10, 0.05, 0.08, 0.03: each is qᵢ·aᴷ₀'
    >>> diagonal_note(example.queries, [[0.0], [0.0], [0.0], [0.0], [0.0]], example.attention())[:63]
    'Every cell on the offset-0 diagonal uses aᴷ₀ = 0.00, and that r'
    """
    A = _columns(table)
    diagonal = np.diagonal(result.bias)
    row = A[result.k]
    row_text = number(row[0]) if row.size == 1 else "(" + ", ".join(number(v) for v in row) + ")"
    if scalar:
        return (
            f"With a query-independent bias every cell on the offset-0 diagonal is exactly b₀ = {number(row[0])}, "
            "and every other diagonal is constant too: the bias no longer looks at the query."
        )
    if _zero(row):
        whole = " The whole table is zero here: no position information at all." if _zero(A) else ""
        return (
            f"Every cell on the offset-0 diagonal uses aᴷ₀ = {row_text}, and that row is zero, so every bias "
            f"on the diagonal is qᵢ·aᴷ₀ = 0 whatever the query.{whole}"
        )
    if np.ptp(diagonal) <= SAME:
        return (
            f"Every cell on the offset-0 diagonal uses aᴷ₀ = {row_text}, and here the biases are all "
            f"{number(diagonal[0])} only because the queries give equal products with it; "
            "change a qᵢ to see them differ."
        )
    return (
        f"Every cell on the offset-0 diagonal uses the same table row aᴷ₀ = {row_text}, yet its biases are "
        f"{_values_text(diagonal)}: each is qᵢ·aᴷ₀, so it changes with the row's query. "
        "The table row is constant along a diagonal; the Shaw bias is not."
    )


def _cell(i: int, j: int) -> str:
    return f"query {i + 1} → key {j + 1}"


def _keys(indices) -> str:
    """``key 2`` or ``keys 1, 3`` (positions from 1)."""
    indices = [int(j) + 1 for j in indices]
    return f"key {indices[0]}" if len(indices) == 1 else "keys " + ", ".join(str(j) for j in indices)


def _weight(value: float) -> str:
    """A weight or weight change at 3 decimals, true minus, never "−0.000"."""
    return numbers.number(value, 3)


def _change(value: float) -> str:
    return numbers.number(value, 3, sign=True)


def bias_kind(result: AttentionResult) -> str:
    """Which wording the bias needs: ``zero``, ``row_constant``, ``diagonal_constant`` or ``varying``.

    ``zero``: every bias is 0. ``row_constant``: each query adds one number to all its
    keys (so no weight moves). ``diagonal_constant``: every diagonal holds one value.

    >>> import relpos
    >>> bias_kind(relpos.relative_attention([[1.0], [2.0]], [[0.0], [1.0]], A_K=[[0.5]]))
    'row_constant'
    """
    return _kind_and_spread(result)[0]


def _kind_and_spread(result: AttentionResult) -> tuple[str, tuple | None]:
    """:func:`bias_kind` and the :func:`diagonal_spread` it computed, if any (the caption reuses it)."""
    if _zero(result.bias[result.mask]):
        return "zero", None
    if np.all(row_spread(result.bias, result.mask) <= SAME):
        return "row_constant", None
    spread = diagonal_spread(result.bias)
    return ("diagonal_constant" if np.all(spread[1] <= SAME) else "varying"), spread


def _row_constant_reason(result: AttentionResult) -> str:
    """Why each row's bias is one number (k = 0: every pair reads aᴷ₀)."""
    reason = " With k = 0 every pair reads aᴷ₀." if result.k == 0 else ""
    return f"Every key of a row gets the same bias ({_values_text(result.bias[:, 0])}, row by row).{reason}"


def _bias_caption(result: AttentionResult, kind: str, scalar: bool, spread: tuple | None = None) -> str:
    """The bias panel's caption: zero, one number per row, constant diagonals, or varying."""
    bias = result.bias
    if kind == "zero":
        return "The bias is 0 in every cell: this table adds no position information."
    if kind == "row_constant":
        return _row_constant_reason(result) + " Only differences within a row count, so this moves no weight."
    if scalar:
        return "Every diagonal is exactly constant: one number per offset, whatever the query."
    if kind == "diagonal_constant":
        return (
            "Each diagonal uses one table row, and here every diagonal is constant too: the queries give "
            "equal products qᵢ·aᴷ with the rows they read."
        )
    offsets, spread = diagonal_spread(bias) if spread is None else spread
    widest = int(np.argmax(spread))
    values = np.diagonal(bias, int(offsets[widest]))
    return (
        "Each diagonal uses one table row, but the bias is qᵢ·aᴷ, so it changes down the diagonal with "
        f"each query: along offset {offset_label(int(offsets[widest]))} it runs from "
        f"{number(values.min())} to {number(values.max())}."
    )


def _scores_caption(result: AttentionResult, kind: str) -> str:
    """The combined-scores caption: which row's top key the position term moved, if any."""
    content, scores = result.content, result.scores
    if kind == "zero":
        return "Content + position, with a position term of 0: the scores equal the content scores."
    if kind == "row_constant":
        return "Content + position: each row's scores shift by one number, so no row changes its top key."
    for i in range(scores.shape[0]):
        before = np.flatnonzero(content[i] >= content[i].max() - SAME)  # ties: every top key
        after = np.flatnonzero(scores[i] >= scores[i].max() - SAME)
        if after.size == 1 and after[0] not in before:
            return (
                f"Content + position. In row {i + 1} the top score moves from {_keys(before)} "
                f"(content {number(content[i, before[0]])}) to key {after[0] + 1} ({number(scores[i, after[0]])})."
            )
    return "Content + position. Here the position term changes the scores but no row changes its top key."


#: Weight changes smaller than this do not show at 3 decimals.
VISIBLE_CHANGE = 5e-4


def weight_shift_reason(content_weights, bias, j: int, *, term: str = "bias") -> str:
    """Why key `j` of one row gained or lost weight, with the row's numbers.

    Softmax turns a bias into a factor: w′ⱼ = wⱼ·e^(bⱼ) / Σₗ wₗ·e^(bₗ) = wⱼ·e^(bⱼ − T),
    T = log Σₗ wₗ·e^(bₗ) (see :func:`relpos.core.measures.shift_threshold`). A key gains
    exactly when its bias is above T and loses exactly when below.

    Parameters
    ----------
    content_weights, bias : array_like, shape (n_k,)
        One row's content-only weights wₗ and biases bₗ.
    j : int
        The key (0-based).
    term : str
        What to call the bias ("bias" or "position term").

    Examples
    --------
    >>> weight_shift_reason([0.5, 0.5], [0.1, -0.1], 1)[:64]
    "its bias −0.10 is below the row's content-weighted log-mean-exp "
    >>> weight_shift_reason([0.5, 0.5], [0.1, -0.1], 1)[64:]
    'T = log Σₗ wₗ·e^(bₗ) = 0.005, so its weight is multiplied by e^(bⱼ − T) = 0.9003'
    """
    w = np.asarray(content_weights, dtype=float)[None, :]  # (1, n_k)
    b = np.asarray(bias, dtype=float)[None, :]  # (1, n_k)
    threshold = float(shift_threshold(w, b)[0])
    # w'_j / w_j = e^(b_j - T)
    factor = float(np.exp(b[0, j] - threshold))
    side = "above" if b[0, j] > threshold else "below"
    return (
        f"its {term} {number(b[0, j])} is {side} the row's content-weighted log-mean-exp "
        f"T = log Σₗ wₗ·e^(bₗ) = {number(threshold)}, so its weight is multiplied by e^(bⱼ − T) = {number(factor)}"
    )


def difference_caption(result: AttentionResult, kind: str) -> str:
    """The weight-change caption: nothing moved, or the largest gain and loss with their cause."""
    head = "Red: weight the position term added; blue: weight it took away. "
    if kind == "zero":
        return head + "Nothing moved: the bias is 0 everywhere, so the weights equal the content weights."
    if kind == "row_constant":
        return head + (
            "Nothing moved: every key of a row got the same bias, and adding one number to a whole row "
            "leaves its softmax unchanged."
        )
    change = result.weights - result.content_weights  # (n_q, n_k)
    if np.max(np.abs(change)) < VISIBLE_CHANGE:
        return head + "No weight moved by 0.0005 or more: the biases within each row are too close to matter."
    parts = [head.rstrip()]
    for name, pick in (("gain", np.argmax), ("loss", np.argmin)):
        i, j = np.unravel_index(pick(change), change.shape)
        if abs(change[i, j]) < VISIBLE_CHANGE:
            continue
        raw, used = int(j - i), int(result.offsets[i, j])
        where = f"offset {offset_label(raw)}" + (f", clipped to {offset_label(used)}" if raw != used else "")
        reason = weight_shift_reason(result.content_weights[i], result.bias[i], int(j))
        parts.append(
            f"Largest {name}: {_cell(i, j)} ({where}), {_change(change[i, j])} "
            f"({_weight(result.content_weights[i, j])} → {_weight(result.weights[i, j])}): {reason}."
        )
    return " ".join(parts)


def _beyond_window(n_q: int, n_k: int, k: int) -> int:
    """How many pairs are further apart than k, ``|j − i| > k``, counted per row and column
    (every release asks; an (n_q, n_k) offset grid for one number is 2 MiB at n = 512).

    >>> _beyond_window(4, 4, 1), _beyond_window(3, 5, 0), _beyond_window(2, 2, 1)
    (6, 12, 0)
    """
    after = np.clip(n_k - k - 1 - np.arange(n_q), 0, None).sum()  # keys more than k after query i
    before = np.clip(n_q - k - 1 - np.arange(n_k), 0, None).sum()  # queries more than k after key j
    return int(after + before)


def offsets_caption(result: AttentionResult, n: int) -> str:
    """The offset map's caption: how many cells are clipped, and to which rows."""
    k = result.k
    beyond = _beyond_window(*result.scores.shape, k)
    if not beyond:
        return (
            "What IS constant along a diagonal: the table row. Each colour is one row of aᴷ. "
            f"No pair is further apart than k = {k}, so nothing is clipped; lower k to see clipping."
        )
    edges = f"aᴷ{numbers.offset_subscript(-k)} or aᴷ{numbers.offset_subscript(k)}" if k else "aᴷ₀, the only row"
    return (
        "What IS constant along a diagonal: the table row. Each colour is one row of aᴷ; "
        f"the {beyond} cells beyond the dashed lines are further apart than k = {k} and reuse {edges}."
    )


def weights_captions(result: AttentionResult, row: int) -> tuple[str, str]:
    """The two weight panels' captions, about one query row."""
    n_k = result.weights.shape[1]
    before = int(np.argmax(result.content_weights[row]))
    after = int(np.argmax(result.weights[row]))
    content = (
        f"Softmax of content alone; every row sums to 1. Query {row + 1}'s largest weight: "
        f"key {before + 1}, {_weight(result.content_weights[row, before])}."
    )
    still = "still" if after == before else "now"
    combined = (
        f"Softmax of the combined scores. Query {row + 1}'s largest weight is {still} on key {after + 1}, "
        f"{_weight(result.weights[row, after])}."
    )
    largest = float(result.weights.max())
    if largest < 0.1:  # on the 0–1 scale such weights all look alike
        note = (
            f" On the 0–1 scale these weights (at most {_weight(largest)}; {n_k} keys share each row, "
            f"1/{n_k} = {_weight(1 / n_k)} on average) look alike; the weight-change panel shows where "
            "the position term moves them."
        )
        content, combined = content + note, combined + note
    return content, combined


def explorer_captions(result: AttentionResult, *, scalar: bool = False) -> dict[str, str]:
    """One "what to notice" sentence or two for each Explorer heatmap, from the numbers.

    Keys: ``content``, ``bias``, ``scores``, ``content_weights``, ``weights``,
    ``difference``, ``offsets``. Degenerate biases (all zero, one number per row,
    constant diagonals) get their own wording: see :func:`bias_kind`.

    Examples
    --------
    >>> import relpos, textwrap
    >>> example = relpos.worked_example()
    >>> captions = explorer_captions(example.attention())
    >>> print(textwrap.fill(captions["difference"], 80))
    Red: weight the position term added; blue: weight it took away. Largest gain:
    query 1 → key 1 (offset 0), +0.108 (0.265 → 0.373): its bias 0.10 is above the
    row's content-weighted log-mean-exp T = log Σₗ wₗ·e^(bₗ) = −0.2425, so its
    weight is multiplied by e^(bⱼ − T) = 1.4085. Largest loss: query 1 → key 4
    (offset +3, clipped to +2), −0.081 (0.358 → 0.276): its bias −0.50 is below the
    row's content-weighted log-mean-exp T = log Σₗ wₗ·e^(bₗ) = −0.2425, so its
    weight is multiplied by e^(bⱼ − T) = 0.773.
    """
    n_q, n_k = result.scores.shape
    content = result.content
    kind, spread = _kind_and_spread(result)
    top = np.unravel_index(np.argmax(content), content.shape)
    change = result.weights - result.content_weights
    row = int(np.unravel_index(np.argmax(change), change.shape)[0]) if kind not in ("zero", "row_constant") else 0
    captions = {
        "content": "Content depends on what the tokens are, not where they are. "
        f"Largest: {_cell(*top)}, {number(content[top])}.",
        "bias": _bias_caption(result, kind, scalar, spread),
        "scores": _scores_caption(result, kind),
        "difference": difference_caption(result, kind),
        "offsets": offsets_caption(result, max(n_q, n_k)),
    }
    if result.k < max(n_q, n_k) - 1 and kind != "zero":
        captions["bias"] += f" Cells further apart than k = {result.k} repeat the edge entries."
    captions["content_weights"], captions["weights"] = weights_captions(result, row)
    return captions
