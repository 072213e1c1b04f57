"""Words computed from numbers: hover arithmetic and "what to notice" captions.

Everything here is plain text (hover labels may use Plotly's ``<br>``), built from
the arrays the core returns; nothing is canned. Positions are shown from 1, offsets
as ``j − i`` with a sign, minus signs as ``−``.
"""

from __future__ import annotations

import numpy as np

from relpos.core import AttentionResult, relative_offsets
from relpos.measures import attention_distance, diagonal_spread, mean_offset, weight_on_offsets

__all__ = [
    "SCALAR_TOGGLE_LABEL",
    "diagonal_note",
    "effects_captions",
    "effects_summary",
    "explorer_captions",
    "number",
    "offset_label",
    "subscript",
]

#: The Explorer's switch to a query-independent bias (neither T5 nor ALiBi learns one number per offset).
SCALAR_TOGGLE_LABEL = (
    "Query-independent bias: one number per offset, the same for every query "
    "(T5 learns one per bucket of offsets; ALiBi learns none, it subtracts a fixed slope × distance)"
)

#: a^K in hover labels (Plotly renders the HTML superscript).
_HOVER_A = "a<sup>K</sup>"
_SUBSCRIPTS = str.maketrans("0123456789+-", "₀₁₂₃₄₅₆₇₈₉₊₋")


def subscript(text: object) -> str:
    """Unicode subscript of digits and signs: ``subscript(12) == '₁₂'``.

    >>> subscript("+1") + subscript(-2)
    '₊₁₋₂'
    """
    return str(text).translate(_SUBSCRIPTS)


def offset_label(offset: int) -> str:
    """Signed offset with a true minus: ``+1``, ``0``, ``−2``.

    >>> [offset_label(o) for o in (-2, 0, 1)]
    ['−2', '0', '+1']
    """
    return f"{offset:+d}".replace("-", "−") if offset else "0"


def number(value: float, *, paren: bool = False) -> str:
    """A number with 2 to 4 decimals (as many as it needs) and a true minus sign.

    ``paren`` wraps negative numbers in parentheses, for the right side of a product.

    >>> number(0.5), number(-0.2, paren=True), number(0.0025), number(1 / 3)
    ('0.50', '(−0.20)', '0.0025', '0.3333')
    """
    text = f"{value:.4f}"
    whole, _, decimals = text.partition(".")
    decimals = decimals.rstrip("0").ljust(2, "0")
    text = f"{whole}.{decimals}"
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")  # no "−0.00"
    negative = text.startswith("-")
    text = text.replace("-", "−")
    return f"({text})" if paren and negative else text


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


def diagonal_note(queries, table, result: AttentionResult, *, scalar: bool = False) -> str:
    """What is and is not constant along the main diagonal, with the actual numbers.

    Examples
    --------
    >>> import relpos
    >>> example = relpos.worked_example()
    >>> note = diagonal_note(example.queries, example.table, example.attention())
    >>> note[:88]
    'Every cell on the offset-0 diagonal uses the same table row a^K₀ = 0.10, yet its biases '
    >>> note[88:131]
    'are 0.10, 0.05, 0.08, 0.03: each is qᵢ·a^K₀'

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
    if np.ptp(diagonal) == 0:
        return (
            f"Every cell on the offset-0 diagonal uses a^K₀ = {row_text}, and here the biases are all "
            f"{number(diagonal[0])} only because the queries give equal products; change a qᵢ to see them differ."
        )
    return (
        f"Every cell on the offset-0 diagonal uses the same table row a^K₀ = {row_text}, yet its biases are "
        f"{_values_text(diagonal)}: each is qᵢ·a^K₀, so it changes with the row's query. "
        "The table row is constant along a diagonal; the Shaw bias is not."
    )


def _cell(i: int, j: int) -> str:
    return f"query {i + 1} → key {j + 1}"


def explorer_captions(result: AttentionResult, *, scalar: bool = False) -> dict[str, str]:
    """One "what to notice" sentence or two for each Explorer heatmap, from the numbers.

    Keys: ``content``, ``bias``, ``scores``, ``content_weights``, ``weights``,
    ``difference``, ``offsets``.

    Examples
    --------
    >>> import relpos, textwrap
    >>> example = relpos.worked_example()
    >>> captions = explorer_captions(example.attention())
    >>> print(textwrap.fill(captions["difference"], 80))
    Red: weight the position term added; blue: weight it took away. Largest gain:
    query 1 → key 1, +0.108 (0.265 → 0.373). Largest loss: query 1 → key 4, −0.081
    (0.358 → 0.276), because its bias is −0.50 (offset +3, clipped to +2).
    """
    n_q, n_k = result.scores.shape
    k = result.k
    raw = relative_offsets(n_q, n_k)
    content, bias, scores = result.content, result.bias, result.scores
    change = result.weights - result.content_weights
    top = np.unravel_index(np.argmax(content), content.shape)
    captions = {
        "content": (
            "No diagonal pattern: content depends on what the tokens are, not where they are. "
            f"Largest: {_cell(*top)}, {number(content[top])}."
        ),
    }
    offsets, spread = diagonal_spread(bias)
    if scalar:
        captions["bias"] = "Every diagonal is exactly constant: one number per offset, whatever the query."
    else:
        widest = int(np.argmax(spread))
        values = np.diagonal(bias, int(offsets[widest]))
        captions["bias"] = (
            "Each diagonal uses one table row, but the bias is qᵢ·a^K, so it changes down the diagonal with "
            f"each query: along offset {offset_label(int(offsets[widest]))} it runs from "
            f"{number(values.min())} to {number(values.max())}."
        )
    if k < max(n_q, n_k) - 1:
        captions["bias"] += f" Cells further apart than k = {k} repeat the edge entries."
    moved = np.flatnonzero(np.argmax(content, axis=1) != np.argmax(scores, axis=1))
    if moved.size:
        i = int(moved[0])
        before, after = int(np.argmax(content[i])), int(np.argmax(scores[i]))
        captions["scores"] = (
            f"Content + position. In row {i + 1} the top score moves from key {before + 1} "
            f"(content {number(content[i, before])}) to key {after + 1} ({number(scores[i, after])})."
        )
    else:
        captions["scores"] = (
            "Content + position. Here the position term shifts the scores but no row changes its top key."
        )
    gain = np.unravel_index(np.argmax(change), change.shape)
    loss = np.unravel_index(np.argmin(change), change.shape)
    row = gain[0]
    best_before = int(np.argmax(result.content_weights[row]))
    best_after = int(np.argmax(result.weights[row]))
    captions["content_weights"] = (
        f"Softmax of content alone; every row sums to 1. Query {row + 1}'s largest weight: "
        f"key {best_before + 1}, {result.content_weights[row, best_before]:.3f}."
    )
    captions["weights"] = (
        f"Softmax of the combined scores. Query {row + 1}'s largest weight is now on key {best_after + 1}, "
        f"{result.weights[row, best_after]:.3f}."
    )
    largest = float(result.weights.max())
    if largest < 0.1:  # on the 0–1 scale such weights all look alike
        note = (
            f" On the 0–1 scale these weights (at most {largest:.3f}) look uniform: each of {n_k} keys gets "
            f"about 1/{n_k}; the weight-change panel shows where the position term moves them."
        )
        captions["content_weights"] += note
        captions["weights"] += note
    clip_note = ""
    if raw[loss] != result.offsets[loss]:
        clip_note = f", clipped to {offset_label(int(result.offsets[loss]))}"
    captions["difference"] = (
        "Red: weight the position term added; blue: weight it took away. "
        f"Largest gain: {_cell(*gain)}, {change[gain]:+.3f} "
        f"({result.content_weights[gain]:.3f} → {result.weights[gain]:.3f}). "
        f"Largest loss: {_cell(*loss)}, {change[loss]:+.3f} "
        f"({result.content_weights[loss]:.3f} → {result.weights[loss]:.3f}), because its bias is "
        f"{number(bias[loss])} (offset {offset_label(int(raw[loss]))}{clip_note})."
    ).replace("-", "−")
    beyond = int(np.count_nonzero(np.abs(raw) > k))
    if beyond:
        captions["offsets"] = (
            "What IS constant along a diagonal: the table row. Each colour is one row of a^K; "
            f"the {beyond} cells beyond the dashed lines are further apart than k = {k} "
            f"and reuse a^K{subscript(-k) if k else '₀'} or a^K{subscript(f'+{k}') if k else '₀'}."
        )
    else:
        captions["offsets"] = (
            "What IS constant along a diagonal: the table row. Each colour is one row of a^K. "
            f"No pair is further apart than k = {k}, so nothing is clipped; lower k to see clipping."
        )
    return captions


def effects_captions(result: AttentionResult, favoured: tuple[int, ...]) -> dict[str, str]:
    """ "What to notice" under each Position effects panel (keys as :data:`relpos.panels.EFFECTS_PANELS`).

    Examples
    --------
    >>> import relpos
    >>> result = relpos.relative_attention([[1.0], [1.0], [1.0]], [[0.0], [0.0], [0.0]], A_K=[[3.0], [0.0], [0.0]])
    >>> effects_captions(result, (-1,))["weights"]
    'Softmax of the combined scores. Weight on offset −1: 22% → 47% on average (with content alone → with positions).'
    """
    captions = explorer_captions(result)
    if favoured:
        names = ", ".join(offset_label(o) for o in favoured)
        before = weight_on_offsets(result.content_weights, favoured).mean()
        after = weight_on_offsets(result.weights, favoured).mean()
        plural = "s" if len(favoured) > 1 else ""
        captions["weights"] = (
            f"Softmax of the combined scores. Weight on offset{plural} {names}: {before:.0%} → {after:.0%} on "
            "average (with content alone → with positions)."
        )
    return {name: captions[name] for name in ("content", "bias", "content_weights", "weights")}


def effects_summary(queries, result: AttentionResult, favoured: tuple[int, ...], direction=None) -> list[str]:
    """Sentences on what the position term did in the position_effects experiment.

    Parameters
    ----------
    queries : array_like, shape (n, d_k)
    result : AttentionResult
    favoured : tuple of int
        Offsets the table favours (empty for a random table).
    direction : array_like, shape (d_k,), optional
        Unit vector the structured table points along.

    Returns
    -------
    sentences : list of str
    """
    Q = np.asarray(queries, dtype=float)
    n = result.scores.shape[0]
    k = result.k
    before, after = attention_distance(result.content_weights).mean(), attention_distance(result.weights).mean()
    drift_before, drift_after = mean_offset(result.content_weights).mean(), mean_offset(result.weights).mean()
    shift = after - before
    trend = "more local" if shift < 0 else "more spread out"
    sentences = [
        f"Average attention distance Σⱼ αᵢⱼ |j − i|: {before:.2f} with content only, {after:.2f} with positions — "
        f"the position term moved it by {shift:+.2f} ({trend}).".replace("-", "−"),
        f"Average offset Σⱼ αᵢⱼ (j − i): {drift_before:+.2f} → {drift_after:+.2f} "
        "(negative means looking back).".replace("-", "−"),
    ]
    if favoured:
        names = ", ".join(offset_label(o) for o in favoured)
        share_before = weight_on_offsets(result.content_weights, favoured).mean()
        share_after = weight_on_offsets(result.weights, favoured).mean()
        sentences.append(f"Weight on offsets {names}: {share_before:.0%} → {share_after:.0%} on average.")
        if direction is not None:
            aligned = int(np.count_nonzero(Q @ np.asarray(direction, dtype=float) > 0))
            text = (
                f"The table points along the queries' mean direction: {aligned} of {n} queries have a positive "
                "component along it and are pushed toward these offsets"
            )
            if aligned < n:
                text += f"; the other {n - aligned} are pushed away, because a Shaw bias qᵢ·a^K depends on the query"
            sentences.append(text + ".")
        edge = [o for o in favoured if abs(o) >= k and abs(o) < n - 1 and o != 0]
        if edge:
            reach = max(abs(o) for o in favoured)
            sentences.append(
                f"Clipping: with k = {k}, every offset beyond ±{k} reuses the edge rows, so the bonus for "
                f"{', '.join(offset_label(o) for o in edge)} also reaches every farther key on that side. "
                f"Raise k to {reach + 1} to keep it to the favoured offsets."
            )
    else:
        sentences.append(
            "A random table has no preferred offset: it reshuffles the weights without a systematic pattern "
            "(the other presets are illustrative hand-made tables with a preferred offset; try them)."
        )
    beyond = int(np.count_nonzero(np.abs(relative_offsets(n)) > k))
    if beyond:
        sentences.append(
            f"{beyond} of {n * n} pairs are further apart than k = {k} and share the table's edge rows (n > k + 1)."
        )
    return sentences
