"""Words computed from numbers: the Explorer's "what to notice" captions.

Everything here is plain text built from the arrays the core returns; nothing is canned.
Positions are shown from 1, offsets as ``j − i`` with a sign, minus signs as ``−``. The
short phrases they are made of are :mod:`relpos.text.phrases`; why a weight moved (and the
weight-change caption) is :mod:`relpos.text.weight_change`. Both are re-exported here.
"""

from __future__ import annotations

import numpy as np

from relpos.core.attention import AttentionResult
from relpos.core.measures import diagonal_spread
from relpos.text import facts, numbers
from relpos.text.facts import SCORE_DECIMALS, VISIBLE_CHANGE, WEIGHT_DECIMALS
from relpos.text.numbers import subscript
from relpos.text.phrases import (
    cell_text,
    change_text,
    joined,
    keys_text,
    number,
    offset_label,
    offsets_text,
    scaled,
    score_text,
    values_text,
    weight_text,
)
from relpos.text.weight_change import (
    SHOWN,
    difference_caption,
    difference_derivation,
    row_log_mean_exp,
    weight_shift_cause,
    weight_shift_reason,
)

__all__ = [
    "SCALAR_TOGGLE_LABEL",
    "VISIBLE_CHANGE",
    "bias_kind",
    "change_text",
    "diagonal_note",
    "difference_derivation",
    "explorer_captions",
    "keys_text",
    "number",
    "offset_label",
    "offsets_text",
    "row_log_mean_exp",
    "scaled",
    "subscript",
    "weight_shift_cause",
    "weight_shift_reason",
]

#: The Explorer's switch to a query-independent bias (neither T5 nor ALiBi learns one number per offset).
SCALAR_TOGGLE_LABEL = (
    "Query-independent bias: one number per offset, the same for every query "
    "(T5 learns one per bucket of offsets; ALiBi learns none, it subtracts a fixed slope × distance)"
)


def _columns(values) -> np.ndarray:
    """(n, d) float array; a 1-D input means d = 1."""
    array = np.asarray(values, dtype=float)
    return array.reshape(-1, 1) if array.ndim == 1 else array


def diagonal_note(queries, table, result: AttentionResult, *, scalar: bool = False) -> str:
    """What is and is not constant along the main diagonal, with the actual numbers.

    The biases it prints are ``qᵢ·aᴷ₀/√d``, and it names them so for d > 1.

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
    product = scaled("qᵢ·aᴷ₀", A.shape[1])
    diagonal = np.diagonal(result.bias)
    row = A[result.k]
    row_text = number(row[0]) if row.size == 1 else "(" + ", ".join(number(v) for v in row) + ")"
    if scalar:
        return (
            f"With a query-independent bias every cell on the offset-0 diagonal is exactly b₀ = {number(row[0])}, "
            "and every other diagonal is constant too: the bias no longer looks at the query."
        )
    if facts.zero(row):
        whole = " The whole table is zero here: no position information at all." if facts.zero(A) else ""
        return (
            f"Every cell on the offset-0 diagonal uses aᴷ₀ = {row_text}, and that row is zero, so every bias "
            f"on the diagonal is {product} = 0 whatever the query.{whole}"
        )
    if facts.constant(diagonal):
        return (
            f"Every cell on the offset-0 diagonal uses aᴷ₀ = {row_text}, and here the biases are all "
            f"{number(diagonal[0])} only because the queries give equal products with it; "
            "change a qᵢ to see them differ."
        )
    return (
        f"Every cell on the offset-0 diagonal uses the same table row aᴷ₀ = {row_text}, yet its biases are "
        f"{values_text(diagonal)}: each is {product}, so it changes with the row's query. "
        "The table row is constant along a diagonal; the Shaw bias is not."
    )


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
    return facts.bias_kind(result.bias, result.mask)


def _row_constant_reason(result: AttentionResult) -> str:
    """Why each row's bias is one number (k = 0: every pair reads aᴷ₀)."""
    reason = " With k = 0 every pair reads aᴷ₀." if result.k == 0 else ""
    return f"Every key of a row gets the same bias ({values_text(result.bias[:, 0])}, row by row).{reason}"


def _zero_bias_caption(scalar: bool, inputs: tuple | None) -> str:
    """Why every bias is 0, from the inputs when given: the table, the queries, or their products.

    >>> _zero_bias_caption(False, ([[0.0], [0.0]], [[0.5], [-1.0], [0.2]]))
    'The bias is 0 in every cell because every query is 0: qᵢ·aᴷ vanishes whatever the table, which is not zero.'
    """
    head = "The bias is 0 in every cell"
    if scalar:
        return f"{head}: every b is 0, so this table adds no position information."
    if inputs is None:
        return f"{head}, so position changes no score."
    queries, table = inputs
    if facts.zero(table):
        return f"{head}: every entry of aᴷ is 0, so this table adds no position information."
    if facts.zero(queries):
        return f"{head} because every query is 0: qᵢ·aᴷ vanishes whatever the table, which is not zero."
    return f"{head}: each query's product qᵢ·aᴷ with the rows it reads is 0, though neither aᴷ nor every query is."


def _bias_caption(
    result: AttentionResult,
    kind: str,
    scalar: bool,
    spread: tuple | None = None,
    d: int = 1,
    decimals: int | None = None,
) -> str:
    """The bias panel's caption: zero, one number per row, constant diagonals, or varying.

    `decimals`: print the diagonal's values as the cells do (None: 2 to 4 decimals, as many
    as each needs).
    """
    bias = result.bias
    if kind == "row_constant":
        return _row_constant_reason(result) + " Only differences within a row count, so this moves no weight."
    if scalar:
        return "Every diagonal is exactly constant: one number per offset, whatever the query."
    if kind == "diagonal_constant":
        return (
            "Each diagonal uses one table row, and here every diagonal is constant too: the queries give "
            f"equal products {scaled('qᵢ·aᴷ', d)} with the rows they read."
        )
    product = scaled("qᵢ·aᴷ", d)
    if decimals is None:
        offsets, spread = diagonal_spread(bias) if spread is None else spread
        widest = facts.top(spread, SCORE_DECIMALS)[0]  # any diagonal whose values differ shows it
        values = np.diagonal(bias, int(offsets[widest]))
        low, high = number(values.min()), number(values.max())
    else:  # the diagonal whose printed values differ most, so the two numbers shown differ if any do
        offsets = np.arange(-(bias.shape[0] - 1), bias.shape[1])
        ends = [(np.diagonal(bias, int(o)).min(), np.diagonal(bias, int(o)).max()) for o in offsets]
        printed = [facts.printed(top, decimals) - facts.printed(bottom, decimals) for bottom, top in ends]
        widest = int(np.argmax(printed))
        low, high = (numbers.number(value, decimals) for value in ends[widest])
        if low == high:
            return (
                f"Each diagonal uses one table row, and the bias is {product}, so it can change down a diagonal "
                "with each query; here it changes by less than the cells show: each diagonal prints one value."
            )
    return (
        f"Each diagonal uses one table row, but the bias is {product}, so it changes down the diagonal with each "
        f"query: along offset {offset_label(int(offsets[widest]))} it runs from {low} to {high}."
    )


def _row_tops(result: AttentionResult) -> tuple[list, list]:
    """Every row's tied top content score and tied top combined score, at 2 decimals."""
    return (
        facts.row_tops(result.content, SCORE_DECIMALS, result.mask),
        facts.row_tops(result.scores, SCORE_DECIMALS, result.mask),
    )


def _scores_caption(result: AttentionResult, kind: str) -> str:
    """The combined-scores caption: which rows' top keys the position term moved, ties named (2 decimals)."""
    content, scores = result.content, result.scores
    if kind == "zero":
        return "Content + position, with a position term of 0: the scores equal the content scores."
    if kind == "row_constant":
        return "Content + position: each row's scores shift by one number, so no row changes its top key."
    before, after = _row_tops(result)
    changed = [i for i in range(len(before)) if before[i] != after[i]]
    if not changed:
        return (
            "Content + position. Here the position term changes the scores but no row changes its top key "
            "(ties counted at 2 decimals)."
        )
    moved = [i for i in changed if not set(before[i]) & set(after[i])]
    i = (moved or changed)[0]
    each_before = " each" if len(before[i]) > 1 else ""
    each_after = " each" if len(after[i]) > 1 else ""
    count = f"{len(changed)} of {len(before)} rows change their top key. " if len(changed) > 1 else ""
    verb = "moves from" if moved else "goes from"
    return (
        f"Content + position. {count}In row {i + 1} the top score {verb} {keys_text(before[i])} "
        f"(content {score_text(content[i, before[i][0]])}{each_before}) to {keys_text(after[i])} "
        f"({score_text(scores[i, after[i][0]])}{each_after})."
    )


def _beyond_window(n_q: int, n_k: int, k: int) -> int:
    """How many pairs are further apart than k, ``|j − i| > k``, counted per row and column
    (every release asks; an (n_q, n_k) offset grid for one number is 2 MiB at n = 512).

    >>> _beyond_window(4, 4, 1), _beyond_window(3, 5, 0), _beyond_window(2, 2, 1)
    (6, 12, 0)
    """
    after = np.clip(n_k - k - 1 - np.arange(n_q), 0, None).sum()  # keys more than k after query i
    before = np.clip(n_q - k - 1 - np.arange(n_k), 0, None).sum()  # queries more than k after key j
    return int(after + before)


def offsets_caption(result: AttentionResult, n: int, *, scalar: bool = False) -> str:
    """The offset map's caption: how many cells are clipped, and to which rows (of b in the
    query-independent mode, whose table is one number per offset)."""
    k, table = result.k, "b" if scalar else "aᴷ"
    beyond = _beyond_window(*result.scores.shape, k)
    if not beyond:
        return (
            f"What IS constant along a diagonal: the table row. Each colour is one row of {table}. "
            f"No pair is further apart than k = {k}, so nothing is clipped; lower k to see clipping."
        )
    sub = numbers.offset_subscript
    edges = f"{table}{sub(-k)} or {table}{sub(k)}" if k else f"{table}₀, the only row"
    return (
        f"What IS constant along a diagonal: the table row. Each colour is one row of {table}; "
        f"the {beyond} cells beyond the dashed lines are further apart than k = {k} and reuse {edges}."
    )


def _favourite_text(keys, weights_row, n_k: int, decimals: int = WEIGHT_DECIMALS) -> str:
    """``key 4, 0.358``, ``keys 1 and 4, 0.327 each`` or ``every key, 0.250 each`` (ties at the decimals shown)."""
    value = weight_text(weights_row[keys[0]], decimals)
    if len(keys) == 1:
        return f"key {keys[0] + 1}, {value}"
    return f"{'every key' if len(keys) == n_k else keys_text(keys)}, {value} each"


def weights_captions(result: AttentionResult, row: int, decimals: int = WEIGHT_DECIMALS) -> tuple[str, str]:
    """The two weight panels' captions, about one query row (every key tied for the largest at
    `decimals` is named)."""
    n_k = result.weights.shape[1]
    mask = result.mask[row]
    before = facts.top(result.content_weights[row], decimals, mask)
    after = facts.top(result.weights[row], decimals, mask)
    content = (
        f"Softmax of content alone; every row sums to 1. Query {row + 1}'s largest weight: "
        f"{_favourite_text(before, result.content_weights[row], n_k, decimals)}."
    )
    still = "still" if after == before else "now"
    combined = (
        f"Softmax of the combined scores. Query {row + 1}'s largest weight is {still} on "
        f"{_favourite_text(after, result.weights[row], n_k, decimals)}."
    )
    largest = float(result.weights.max())
    if largest < 0.1:  # on the 0–1 scale such weights all look alike
        note = (
            f" On the 0–1 scale these weights (at most {weight_text(largest, decimals)}; {n_k} keys share each row, "
            f"1/{n_k} = {weight_text(1 / n_k, decimals)} on average) look alike; the weight-change panel shows where "
            "the position term moves them."
        )
        content, combined = content + note, combined + note
    return content, combined


def _content_caption(result: AttentionResult, limit: int = SHOWN, decimals: int = SCORE_DECIMALS) -> str:
    """The content panel's caption: the largest content score and every cell tied for it (at `decimals`)."""
    cells = facts.top_cells(result.content, decimals, result.mask)  # (m, 2)
    first = tuple(cells[0].tolist())
    value = score_text(result.content[first], decimals)
    head = "Content depends on what the tokens are, not where they are. "
    if len(cells) == 1:
        return head + f"Largest: {cell_text(*first)}, {value}."
    more = [f"{len(cells) - limit} more"] if len(cells) > limit else []
    named = joined([cell_text(*cell) for cell in cells[:limit].tolist()] + more)
    return head + f"Largest, {value}, in {len(cells)} tied cells: {named}."


def explorer_captions(
    result: AttentionResult,
    *,
    scalar: bool = False,
    d: int = 1,
    cell_decimals: tuple[int, int] | None = None,
    inputs: tuple | None = None,
) -> dict[str, str]:
    """One "what to notice" sentence or two for each Explorer heatmap, from the numbers.

    Keys: ``content``, ``bias``, ``scores``, ``content_weights``, ``weights``,
    ``difference``, ``offsets``. Degenerate biases (all zero, one number per row,
    constant diagonals) get their own wording: see :func:`bias_kind`. Every "largest",
    "top" and "no weight moved" comes from :mod:`relpos.text.facts` (ties at the precision
    printed); `d` is the width of the vectors, so a product is named with its 1/√d.
    `cell_decimals` (scores, weights): the content, bias and weight captions print their
    numbers, and judge their ties, with the decimals of the cells beside them (default: 2
    for scores, 2 to 4 for a bias, 3 for weights). `inputs` (queries, table): a zero bias then
    names its cause (a zero table, zero queries, or products that vanish).

    Examples
    --------
    >>> import relpos, textwrap
    >>> example = relpos.worked_example()
    >>> captions = explorer_captions(example.attention())
    >>> print(textwrap.fill(captions["difference"], 80, break_on_hyphens=False))
    Red: weight the position term added; blue: weight it took away. Largest gain:
    query 1 → key 1 (offset 0), +0.108 (0.265 → 0.373), because its bias 0.10 is
    above the row's log-mean-exp. Largest loss: query 1 → key 4 (offset +3, clipped
    to +2), −0.0812 (0.3576 → 0.2764), because its bias −0.50 is below the row's
    log-mean-exp.
    """
    n_q, n_k = result.scores.shape
    kind, spread = _kind_and_spread(result)
    change = result.weights - result.content_weights
    moved = kind not in ("zero", "row_constant")
    row = facts.top_cells(change, WEIGHT_DECIMALS, result.mask)[0][0] if moved else 0  # the row of a largest gain
    scores, weights = cell_decimals or (SCORE_DECIMALS, WEIGHT_DECIMALS)
    captions = {
        "content": _content_caption(result, decimals=scores),
        "bias": _zero_bias_caption(scalar, inputs)
        if kind == "zero"
        else _bias_caption(result, kind, scalar, spread, d, decimals=None if cell_decimals is None else scores),
        "scores": _scores_caption(result, kind),
        "difference": difference_caption(result, kind),
        "offsets": offsets_caption(result, max(n_q, n_k), scalar=scalar),
    }
    if result.k < max(n_q, n_k) - 1 and kind != "zero":
        captions["bias"] += f" Cells further apart than k = {result.k} repeat the edge entries."
    captions["content_weights"], captions["weights"] = weights_captions(result, row, weights)
    return captions
