"""Why attention weights moved: the log-mean-exp reason one key gained or lost, and the
weight-change panel's caption (the largest gain and loss, or why nothing moved).

A bias moves a weight by the factor e^(bⱼ − T), T the row's content-weighted log-mean-exp
(:func:`relpos.core.measures.shift_threshold`); every "largest" and "no weight moved" comes
from :mod:`relpos.text.facts`, ties judged at the precision printed.
"""

from __future__ import annotations

import numpy as np

from relpos.core.attention import AttentionResult
from relpos.core.measures import row_spread, shift_threshold
from relpos.text import facts, numbers
from relpos.text.facts import VISIBLE_CHANGE
from relpos.text.phrases import cell_text, change_text, number, offset_label, rows_text

__all__ = [
    "SHOWN",
    "difference_caption",
    "difference_derivation",
    "row_log_mean_exp",
    "weight_shift_cause",
    "weight_shift_reason",
]


def weight_shift_cause(content_weights, bias, j: int, *, term: str = "bias") -> str:
    """Why key `j` of one row gained or lost weight, in one plain clause; the arithmetic
    (T and the factor) is :func:`weight_shift_reason`, which pages show on request.

    A key gains exactly when its bias is above the row's log-mean-exp T and loses exactly
    when below. Arguments as :func:`weight_shift_reason`.

    >>> weight_shift_cause([0.5, 0.5], [0.1, -0.1], 1)
    "its bias −0.10 is below the row's log-mean-exp"
    """
    bias_j, threshold = _bias_and_threshold(content_weights, bias, j)
    side = "above" if bias_j > threshold else "below"
    return f"its {term} {number(bias_j)} is {side} the row's log-mean-exp"


def row_log_mean_exp(content_weights, bias) -> float:
    """One row's content-weighted log-mean-exp T = log Σₗ wₗ·e^(bₗ) (arguments as :func:`weight_shift_reason`).

    >>> round(row_log_mean_exp([0.5, 0.5], [0.1, -0.1]), 4)
    0.005
    """
    w = np.asarray(content_weights, dtype=float)[None, :]  # (1, n_k)
    b = np.asarray(bias, dtype=float)[None, :]  # (1, n_k)
    return float(shift_threshold(w, b)[0])


def _bias_and_threshold(content_weights, bias, j: int) -> tuple[float, float]:
    """Key `j`'s bias bⱼ and its row's T."""
    return float(np.asarray(bias, dtype=float)[j]), row_log_mean_exp(content_weights, bias)


def weight_shift_reason(content_weights, bias, j: int, *, term: str = "bias") -> str:
    """Why key `j` of one row gained or lost weight, with the row's numbers.

    Softmax turns a bias into a factor: w′ⱼ = wⱼ·e^(bⱼ) / Σₗ wₗ·e^(bₗ) = wⱼ·e^(bⱼ − T),
    T = log Σₗ wₗ·e^(bₗ) (see :func:`relpos.core.measures.shift_threshold`). A key gains
    exactly when its bias is above T and loses exactly when below. A factor too large or
    too small for fixed decimals is printed in E notation.

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
    >>> weight_shift_reason([1 - 1e-100, 1e-100], [0.0, 200.0], 1)[-34:]
    'multiplied by e^(bⱼ − T) = 7.23e86'
    """
    bias_j, threshold = _bias_and_threshold(content_weights, bias, j)
    # w'_j / w_j = e^(b_j - T)
    factor = float(np.exp(bias_j - threshold))
    side = "above" if bias_j > threshold else "below"
    return (
        f"its {term} {number(bias_j)} is {side} the row's content-weighted log-mean-exp "
        f"T = log Σₗ wₗ·e^(bₗ) = {number(threshold)}, so its weight is multiplied by e^(bⱼ − T) = "
        f"{numbers.readable(factor)}"
    )


def _still_caption(result: AttentionResult) -> str:
    """Why no weight of any row moved by 0.0005: per row, a tiny bias spread or content that saturates it."""
    causes = facts.still_causes(result.content_weights, result.bias, result.mask)  # (n_q,)
    spreads = row_spread(result.bias, result.mask)  # (n_q,)
    n_rows = causes.size
    parts = ["No weight moved by 0.0005 or more."]
    largest = np.abs(result.weights - result.content_weights).max(axis=1)  # (n_q,)
    for cause in ("saturated", "small", "modest", "constant"):
        rows = np.flatnonzero(causes == cause)
        if not rows.size:
            continue
        where, widest = rows_text(rows, n_rows), float(spreads[rows].max())
        span, reach = numbers.readable(widest), facts.reach(widest)
        # a bound below 0.0005 in E notation, so it never prints as 0.0005
        most = numbers.readable(reach) if reach >= VISIBLE_CHANGE else numbers.scientific_below(reach, VISIBLE_CHANGE)
        if cause == "saturated":
            text = (
                f"Content saturates {where}: with content alone every weight there is already 0.000 or 1.000, and "
                f"weights pinned at 0 and 1 barely move, though the biases span up to {span} (with other content "
                f"they could move a weight by up to {most})."
            )
        elif cause == "small":
            text = (
                f"In {where} the biases span at most {span}, too little to move any weight by 0.0005 whatever the "
                f"content (at most tanh(spread/4) = {most})."
            )
        elif cause == "modest":
            most = numbers.scientific_below(largest[rows].max(), VISIBLE_CHANGE)
            text = (
                f"In {where} the biases span up to {span}, but with these rows' content weights no change reaches "
                f"0.0005 (at most {most})."
            )
        else:
            text = f"In {where} every key gets the same bias."
        parts.append(text[0].upper() + text[1:])
    return " ".join(parts)


#: A caption names at most this many of the cells tied for a largest gain, loss or content score.
SHOWN = 3


def _where(result: AttentionResult, i: int, j: int) -> str:
    """``offset +3, clipped to +2``: the pair's offset and the table row it reads."""
    raw, used = int(j - i), int(result.offsets[i, j])
    return f"offset {offset_label(raw)}" + (f", clipped to {offset_label(used)}" if raw != used else "")


def _shift_sentences(result: AttentionResult, name: str, cells, decimals: int, limit: int = SHOWN) -> list[str]:
    """``Largest gain: query 1 → key 1 (offset 0), +0.108 (0.265 → 0.373), because its bias 0.10 is above the
    row's log-mean-exp.`` for each tied cell (the arithmetic: :func:`difference_derivation`)."""
    sentences = []
    tie = f" (one of {len(cells)} tied)" if len(cells) > 1 else ""
    for i, j in cells[:limit].tolist():
        cause = weight_shift_cause(result.content_weights[i], result.bias[i], int(j))
        sentences.append(
            f"Largest {name}{tie}: {cell_text(i, j)} ({_where(result, i, j)}), "
            f"{change_text(result.content_weights[i, j], result.weights[i, j], decimals, first='change')}, "
            f"because {cause}."
        )
    if len(cells) > limit:
        more = len(cells) - limit
        sentences.append(f"{more} more {'cell ties' if more == 1 else 'cells tie'} for the largest {name}.")
    return sentences


def _largest_changes(result: AttentionResult) -> tuple:
    """The cells the weight-change caption names: tied largest gains and losses, and their decimals."""
    return facts.largest_changes(result.content_weights, result.weights, result.mask, shown=SHOWN)


def difference_derivation(result: AttentionResult, limit: int = SHOWN) -> list[str]:
    """The arithmetic behind the weight-change caption: for each cell it names, the row's
    log-mean-exp T and the factor e^(bⱼ − T) its weight was multiplied by (empty when it names none).

    >>> import relpos
    >>> print(difference_derivation(relpos.worked_example().attention())[0])  # doctest: +ELLIPSIS
    Query 1 → key 1 (largest gain): its bias 0.10 is above the row's content-weighted log-mean-exp T = ... = 1.4085.
    """
    if facts.bias_kind(result.bias, result.mask)[0] in ("zero", "row_constant"):
        return []
    gains, losses, _ = _largest_changes(result)
    lines = []
    for name, cells in (("gain", gains), ("loss", losses)):
        for i, j in cells[:limit].tolist():
            reason = weight_shift_reason(result.content_weights[i], result.bias[i], int(j))
            lines.append(f"Query {i + 1} → key {j + 1} (largest {name}): {reason}.")
    return lines


def difference_caption(result: AttentionResult, kind: str) -> str:
    """The weight-change caption: nothing moved and why, or the largest gain and loss (ties named) with their cause."""
    head = "Red: weight the position term added; blue: weight it took away. "
    if kind == "zero":
        return head + "Nothing moved: the bias is 0 everywhere, so the weights equal the content weights."
    if kind == "row_constant":
        return head + (
            "Nothing moved: every key of a row got the same bias, and adding one number to a whole row "
            "leaves its softmax unchanged."
        )
    gains, losses, decimals = _largest_changes(result)
    if not len(gains) and not len(losses):
        return head + _still_caption(result)
    parts = [head.rstrip()]
    for name, cells in (("gain", gains), ("loss", losses)):
        parts += _shift_sentences(result, name, cells, decimals)
    return " ".join(parts)
