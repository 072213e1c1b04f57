"""Sentences of the Position effects page, computed from the numbers of the experiment.

The captions reuse the Explorer's caption builders (:mod:`relpos.text.explain`); the
summary says what the position term did to attention, and only what the numbers show.
"""

from __future__ import annotations

import numpy as np

from relpos.core.attention import AttentionResult
from relpos.core.measures import (
    attention_distance,
    mean_offset,
    weight_on_offsets,
)
from relpos.core.offsets import relative_offsets
from relpos.text import facts, numbers
from relpos.text.explain import bias_kind, explorer_captions, offset_label

__all__ = ["effects_captions", "effects_summary"]


def effects_captions(result: AttentionResult, favoured: tuple[int, ...], *, d: int = 1) -> dict[str, str]:
    """ "What to notice" under each Position effects panel (keys as :data:`relpos.plots.panels.EFFECTS_PANELS`).

    `d` is the queries' width d_k: the bias caption names the product with its 1/√d_k.

    Examples
    --------
    >>> import relpos
    >>> result = relpos.relative_attention([[1.0], [1.0], [1.0]], [[0.0], [0.0], [0.0]], A_K=[[3.0], [0.0], [0.0]])
    >>> effects_captions(result, (-1,))["weights"]
    'Softmax of the combined scores. Weight on offset −1: 22% → 47% on average (with content alone → with positions).'
    """
    captions = explorer_captions(result, d=d)
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


def effects_summary(
    queries, result: AttentionResult, favoured: tuple[int, ...], direction=None, *, trained: bool = False
) -> list[str]:
    """Sentences on what the position term did in the position_effects experiment.

    Parameters
    ----------
    queries : array_like, shape (n, d_k)
    result : AttentionResult
    favoured : tuple of int
        Offsets the table favours (empty for a random table).
    direction : array_like, shape (d_k,), optional
        Unit vector the structured table points along.
    trained : bool, default False
        The table is a trained preset: its favoured offsets come from a head trained with
        the page's k, so the clipping note gives no "raise k" advice (a new k trains a new head).

    Returns
    -------
    sentences : list of str
    """
    n, k = result.scores.shape[0], result.k
    kind = bias_kind(result)
    sentences = _distance_sentences(result, kind)
    if kind in ("zero", "row_constant"):
        sentences.append(_no_effect_sentence(result, kind))
    elif favoured:
        sentences += _favoured_sentences(queries, result, favoured, direction, trained)
    else:
        sentences.append(
            "A random table has no preferred offset: it reshuffles the weights without a systematic pattern "
            "(the other presets are built to favour particular offsets; try them)."
        )
    beyond = int(np.count_nonzero(np.abs(relative_offsets(n)) > k))
    if beyond:
        sentences.append(
            f"{beyond} of {n * n} pairs are further apart than k = {k} and share the table's edge rows (n > k + 1)."
        )
    return sentences


def _distance_sentences(result: AttentionResult, kind: str) -> list[str]:
    """Average attention distance and offset, before and after; "nothing moved" when nothing did."""
    before, after = attention_distance(result.content_weights).mean(), attention_distance(result.weights).mean()
    drift_before, drift_after = mean_offset(result.content_weights).mean(), mean_offset(result.weights).mean()
    shift = after - before
    if kind in ("zero", "row_constant"):
        effect = "the position term moved nothing: the weights are exactly the content weights"
    elif not facts.visible(shift, 2):  # prints as ±0.00
        effect = "the position term moved it by less than 0.005"
    else:
        effect = f"the position term moved it by {numbers.number(shift, sign=True)} "
        effect += "(more local)" if shift < 0 else "(more spread out)"
    return [
        f"Average attention distance Σⱼ αᵢⱼ |j − i|: {numbers.number(before)} with content only, "
        f"{numbers.number(after)} with positions — {effect}.",
        f"Average offset Σⱼ αᵢⱼ (j − i): {numbers.number(drift_before, sign=True)} → "
        f"{numbers.number(drift_after, sign=True)} (negative means looking back).",
    ]


def _no_effect_sentence(result: AttentionResult, kind: str) -> str:
    """Why a table that gives each row one bias changes no weight."""
    if kind == "zero":
        return "The bias is 0 in every cell, so the position term has no effect on any score or weight."
    if result.k == 0:
        return (
            "No offset is favoured: with k = 0 every pair reads the one row aᴷ₀, so each query adds the same "
            "bias to all of its keys, and adding one number to a whole row leaves the softmax unchanged. "
            "Raise k to let the table tell offsets apart."
        )
    return (
        "No offset is favoured: each query adds the same bias to all of its keys, and adding one number to a "
        "whole row leaves the softmax unchanged."
    )


def _favoured_sentences(queries, result: AttentionResult, favoured, direction, trained: bool) -> list[str]:
    """Weight on the favoured offsets, who is pushed toward them, and what clipping adds."""
    n, k = result.scores.shape[0], result.k
    names = ", ".join(offset_label(o) for o in favoured)
    share_before = weight_on_offsets(result.content_weights, favoured).mean()
    share_after = weight_on_offsets(result.weights, favoured).mean()
    sentences = [f"Weight on offsets {names}: {share_before:.0%} → {share_after:.0%} on average."]
    if direction is not None:
        aligned = int(np.count_nonzero(np.asarray(queries, dtype=float) @ np.asarray(direction, dtype=float) > 0))
        text = (
            f"The table points along the queries' mean direction: {aligned} of {n} queries have a positive "
            "component along it and are pushed toward these offsets"
        )
        if aligned < n:
            text += f"; the other {n - aligned} are pushed away, because a Shaw bias qᵢ·aᴷ depends on the query"
        sentences.append(text + ".")
    edge = [o for o in favoured if abs(o) >= k and abs(o) < n - 1 and o != 0]
    if edge:
        reach = max(abs(o) for o in favoured)
        advice = (
            "A new k trains a new head, which may favour other offsets."
            if trained
            else f"Raise k to {reach + 1} to keep it to the favoured offsets."
        )
        sentences.append(
            f"Clipping: with k = {k}, every offset beyond ±{k} reuses the edge rows, so the bonus for "
            f"{', '.join(offset_label(o) for o in edge)} also reaches every farther key on that side. {advice}"
        )
    return sentences
