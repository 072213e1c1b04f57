"""Sentences of the Position effects page, computed from the numbers of the experiment.

The captions reuse the Explorer's caption builders (:mod:`relpos.text.explain`); the
summary says what the position term did to attention, and only what the numbers show.
"""

from __future__ import annotations

import numpy as np

from relpos.core.attention import AttentionResult
from relpos.core.measures import attention_distance, mean_offset, weight_on_offsets
from relpos.core.offsets import relative_offsets
from relpos.text import facts, numbers
from relpos.text.explain import bias_kind, explorer_captions, number, offset_label, offsets_text
from relpos.text.facts import SCORE_DECIMALS
from relpos.text.hover import format_cells
from relpos.text.numbers import percent
from relpos.topics.position_effects import model as position_effects_model

__all__ = [
    "favourite_rows",
    "position_effects_captions",
    "position_effects_summary",
    "preferred_row_sentence",
    "trained_preset_note",
]


def position_effects_captions(
    result: AttentionResult, favoured: tuple[int, ...], *, d: int = 1, cell_decimals: tuple[int, int] = (2, 2)
) -> dict[str, str]:
    """ "What to notice" under each Position effects panel.

    Keys as :data:`relpos.plots.panels.POSITION_EFFECTS_PANELS`.

    `d` is the queries' width d_k: the bias caption names the product with its 1/√d_k.
    `cell_decimals` (scores, weights): the decimals of the panels' numbers
    (:func:`relpos.plots.panels.position_effects_decimals`); the captions print theirs alike, and
    judge ties at them.

    Examples
    --------
    >>> import relpos
    >>> result = relpos.relative_attention([[1.0], [1.0], [1.0]], [[0.0], [0.0], [0.0]], A_K=[[3.0], [0.0], [0.0]])
    >>> position_effects_captions(result, (-1,))["weights"]
    'Softmax of the combined scores. Weight on offset −1: 22% → 47% on average (with content alone → with positions).'
    """
    captions = explorer_captions(result, d=d, cell_decimals=cell_decimals)
    if favoured:
        before = weight_on_offsets(result.content_weights, favoured).mean()
        after = weight_on_offsets(result.weights, favoured).mean()
        captions["weights"] = (
            f"Softmax of the combined scores. Weight on {_offsets_named(favoured)}: {before:.0%} → {after:.0%} on "
            "average (with content alone → with positions)."
        )
    return {name: captions[name] for name in ("content", "bias", "content_weights", "weights")}


def position_effects_summary(
    queries,
    result: AttentionResult,
    favoured: tuple[int, ...],
    direction=None,
    *,
    trained: bool = False,
    table=None,
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
    table : array_like, shape (2k+1, d_k), optional
        The table a^K. For a table that favours nothing by design (`favoured` empty), the
        summary then says which rows the queries themselves prefer (:func:`favourite_rows`).

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
    elif table is not None:
        sentences.append(preferred_row_sentence(queries, table, result))
    beyond = int(np.count_nonzero(np.abs(relative_offsets(n)) > k))
    if beyond:
        sentences.append(
            f"{beyond} of {n * n} pairs are further apart than k = {k} and share the table's edge rows (n > k + 1)."
        )
    return sentences


def _distance_effect(before: float, after: float, kind: str) -> tuple[str, int]:
    """What the position term did to the average distance, and the decimals (at least 2) that print
    ``before``, ``after`` and their change so that the printed change is printed after − before."""
    shift = after - before
    if kind in ("zero", "row_constant"):
        return "the position term moved nothing: the weights are exactly the content weights", 2
    if not facts.visible(shift, 2):  # prints as ±0.00
        return "the position term moved it by less than 0.005", 2
    places = facts.change_decimals(before, after, facts.decimals_showing([before], [after], 2))
    direction = "(more local)" if shift < 0 else "(more spread out)"
    return f"the position term moved it by {numbers.difference(before, after, places)} {direction}", places


def _distance_sentences(result: AttentionResult, kind: str) -> list[str]:
    """Average attention distance and offset, before and after; "nothing moved" when nothing did."""
    before, after = attention_distance(result.content_weights).mean(), attention_distance(result.weights).mean()
    drift_before, drift_after = mean_offset(result.content_weights).mean(), mean_offset(result.weights).mean()
    effect, places = _distance_effect(before, after, kind)
    return [
        f"Average attention distance Σⱼ αᵢⱼ |j − i|: {numbers.number(before, places)} with content only, "
        f"{numbers.number(after, places)} with positions — {effect}.",
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


def _offsets_named(favoured) -> str:
    """``offset −1`` or ``offsets −2, −1``: the noun agrees with the count.

    >>> _offsets_named((-1,)), _offsets_named((-2, -1))
    ('offset −1', 'offsets −2, −1')
    """
    return ("offset " if len(favoured) == 1 else "offsets ") + ", ".join(offset_label(o) for o in favoured)


def _favoured_sentences(queries, result: AttentionResult, favoured, direction, trained: bool) -> list[str]:
    """Weight on the favoured offsets, who is pushed toward them, and what clipping adds."""
    n, k = result.scores.shape[0], result.k
    share_before = weight_on_offsets(result.content_weights, favoured).mean()
    share_after = weight_on_offsets(result.weights, favoured).mean()
    sentences = [f"Weight on {_offsets_named(favoured)}: {share_before:.0%} → {share_after:.0%} on average."]
    if direction is not None:
        aligned = int(np.count_nonzero(np.asarray(queries, dtype=float) @ np.asarray(direction, dtype=float) > 0))
        text = (
            f"The table points along the queries' mean direction: {aligned} of {n} queries have a positive "
            "component along it and are pushed toward these offsets"
        )
        if aligned < n:
            text += f"; the other {n - aligned} are pushed away, because a Shaw bias qᵢ·aᴷ depends on the query"
        sentences.append(text + ".")
    if leak := _leak_sentence(favoured, n, k, trained):
        sentences.append(leak)
    return sentences


def _leak_sentence(favoured, n: int, k: int, trained: bool) -> str:
    """Clipping advice, only when a non-favoured key really reads a bonus row (empty otherwise), with a
    k the slider allows (at most n − 1)."""
    rows, leaked = position_effects_model.clipping_leaks(favoured, n, k)
    if not leaked:
        return ""
    if trained:
        advice = "A new k trains a new head, which may favour other offsets."
    else:
        advice = f"Raise k to {position_effects_model.leak_free_k(favoured, n, k)} to keep it to the favoured offsets."
    row_names = " and ".join(f"aᴷ{numbers.offset_subscript(row)}" for row in rows)
    readers = offsets_text(np.array(leaked))
    return (
        f"Clipping: with k = {k}, every offset beyond ±{k} reuses the edge rows, so the bonus in {row_names} also "
        f"reaches {readers}, which {'is' if len(leaked) == 1 else 'are'} not favoured. {advice}"
    )


def favourite_rows(queries, table, rows) -> list[frozenset[int]]:
    """Per query, the offsets among `rows` whose table row it scores highest.

    Scores are ``q_i · a^K_o / sqrt(d_k)``, the bias panel's numbers; two rows whose
    scores print the same (2 decimals) are tied, and both count as favourite.

    Parameters
    ----------
    queries : array_like, shape (n, d_k)
    table : array_like, shape (2k+1, d_k)
        Row ``o + k`` holds offset ``o``.
    rows : array_like of int
        Offsets to compare (the ones a grid actually reads).

    Examples
    --------
    >>> [sorted(chosen) for chosen in favourite_rows([[1.0], [-1.0]], [[0.5], [0.0], [0.5]], [-1, 0, 1])]
    [[-1, 1], [0]]
    """
    q, a = np.asarray(queries, dtype=float), np.asarray(table, dtype=float)
    offsets = np.asarray(rows, dtype=int)
    k = (a.shape[0] - 1) // 2
    scores = q @ a[offsets + k].T / np.sqrt(q.shape[1])  # (n, r)
    result = []
    for row in scores:
        best = numbers.number(row.max())
        result.append(frozenset(int(o) for o, v in zip(offsets, row, strict=True) if numbers.number(v) == best))
    return result


def _offsets_phrase(offsets) -> str:
    """``the row of offset −1`` or ``the rows of offsets −1 and +2``."""
    names = [offset_label(int(o)) for o in offsets]
    if len(names) == 1:
        return f"the row of offset {names[0]}"
    return f"the rows of offsets {', '.join(names[:-1])} and {names[-1]}"


def preferred_row_sentence(queries, table, result: AttentionResult) -> str:
    """Whether the queries agree on the table row they score highest (a random table can favour one).

    Only the rows the grid reads count (``clip(j − i, k)`` over every pair). A random
    table has no preferred offset by design, but the queries share a common part (the
    *shared direction in X*), which meets each row the same way for all of them, so
    they often agree.

    Examples
    --------
    >>> import relpos
    >>> q = [[1.0, 0.1], [1.0, -0.1], [0.9, 0.0]]
    >>> a = [[0.0, 0.0], [2.0, 0.0], [0.0, 1.0]]
    >>> result = relpos.relative_attention(q, [[0.0, 0.0]] * 3, A_K=a)
    >>> preferred_row_sentence(q, a, result)[:100]
    'Even a random table can have a preferred offset: all 3 queries score the row of offset 0 highest amo'
    """
    rows = np.unique(result.offsets)  # the offsets some pair reads
    sets = favourite_rows(queries, table, rows)
    n = len(sets)
    counts = {int(o): sum(int(o) in chosen for chosen in sets) for o in rows}
    agreed = [o for o, count in counts.items() if count == n]
    if agreed:
        everyone = "both queries" if n == 2 else f"all {n} queries"
        text = (
            f"Even a random table can have a preferred offset: {everyone} score {_offsets_phrase(agreed)} highest "
            f"among the {rows.size} rows this grid reads (their largest qᵢ·aᴷ/√d)"
        )
        mean = favourite_rows(np.asarray(queries, dtype=float).mean(axis=0, keepdims=True), table, rows)[0]
        if set(agreed) <= mean:
            text += (
                ", and so does their mean query q̄: the part the queries have in common (the *shared direction "
                "in X* makes it large) adds the same score to a row for every query"
            )
        unused = [i + 1 for i in range(result.offsets.shape[0]) if not set(agreed) & set(result.offsets[i].tolist())]
        if len(unused) == 1:
            text += f". Query {unused[0]} has no key at that offset, so its own row of the bias panel never reads it"
        elif unused:
            names = ", ".join(str(i) for i in unused)
            text += f". Queries {names} have no key at that offset, so their own rows of the bias panel never read it"
        return text + "."
    top = max(counts.values())
    leaders = [o for o, count in counts.items() if count == top]
    if top > n / 2:
        parts = [f"{top} of {n} queries score the row of offset {offset_label(o)} highest" for o in leaders]
        others = "the other query prefers another row" if n - top == 1 else f"the other {n - top} prefer other rows"
        return "; ".join(parts) + f"; {others}, so no offset is favoured by every query."
    where = ", ".join(offset_label(o) for o in leaders)
    return (
        f"The queries do not agree on a favourite row of this random table: the most any row gets is {top} of "
        f"{n} queries (offset{'s' if len(leaders) > 1 else ''} {where}), so no offset is preferred across the rows."
    )


def trained_preset_note(
    task_name: str, *, length, steps, seed, d, biases, accuracy, k, strength, flat: bool
) -> list[str]:
    """What a trained Position effects preset is: the run, its learned profile, and how the page uses it.

    Parameters
    ----------
    task_name : str
        The training task as the page names it ("previous token").
    length, steps, seed, d : int
        The head's training length L, Adam steps, seed and width.
    biases : array_like of float, shape (k_t+1,)
        The head's mean bias per offset ``−k_t .. 0`` (:func:`relpos.offset_biases`).
    accuracy : float
        The head's next-token accuracy on fresh sequences of length L.
    k : int
        The page's clipping distance.
    strength : float
        The page's preset strength.
    flat : bool
        The page's profile is all zeros (the learned biases do not tell offsets apart).

    Examples
    --------
    >>> note = trained_preset_note("previous token", length=16, steps=400, seed=0, d=16,
    ...     biases=[-1.0, 5.0, -2.0], accuracy=1.0, k=2, strength=2.0, flat=False)
    >>> note[1]
    'Its learned mean bias per offset, q̄·a^K/√d: −2: −1.00, −1: 5.00, 0: −2.00 (largest at offset −1).'
    """
    values = np.asarray(biases, dtype=float)  # (k_t+1,)
    k_trained = values.size - 1
    offsets = np.arange(-k_trained, 1)
    sentences = [
        f"This table comes from a head trained live on this server: one causal attention head with Shaw's "
        f"a^K (k = {k_trained}, d = {d}), trained on the {task_name} task with L = {length}, {steps} steps, "
        f"seed {seed}. Its next-token accuracy on fresh sequences of length {length} is {percent(accuracy)}."
    ]
    shown = format_cells(values, ".2f")  # (k_t+1,)
    listing = ", ".join(f"{offset_label(int(o))}: {b}" for o, b in zip(offsets, shown, strict=True))
    if flat:
        single = "With k = 0 the head has one row, aᴷ₀, for every offset, so its" if k_trained == 0 else "Its"
        sentences.append(
            f"{single} learned mean bias is one number for all offsets ({listing}): this preset adds no position bias."
        )
        return sentences
    top = offsets_text(offsets[list(facts.top(values, SCORE_DECIMALS))])
    sentences.append(f"Its learned mean bias per offset, q̄·a^K/√d: {listing} (largest at {top}).")
    sentences.append(
        f"The page keeps the shape of that profile over the offsets, not the head's {d}-dimensional vectors: "
        "centred on its mean and scaled so that its largest entry adds the preset strength "
        f"({number(strength)}) on average, along the queries' mean direction, like the hand-made presets."
    )
    if k > 0:
        sentences.append(
            "Keys after the query (j > i, right of the diagonal) were never trained: the head is causal and masks "
            "them, so their rows get the profile's mean, 0 after centring."
        )
    if k > k_trained:
        sentences.append(
            f"A training sequence of {length} tokens holds offsets down to {offset_label(-k_trained)} only; "
            f"with k = {k}, the rows of offsets {offset_label(-k)} to {offset_label(-k_trained - 1)} reuse "
            f"row {offset_label(-k_trained)}."
        )
    return sentences
