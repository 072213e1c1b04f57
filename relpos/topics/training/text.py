"""Sentences about a training run, computed from its numbers (the "Train a tiny head" page).

Every function is pure: arrays and names in, plain text out. Percentages are the ones
the page shows (whole percent); a sentence compares those rounded numbers, so it never
says "falls" about two numbers that look the same on screen. Minus signs are "−".
"""

from __future__ import annotations

import numpy as np

from relpos.core.training_eval import shaw_rows_trained, t5_buckets_trained
from relpos.core.training_tasks import scored_positions, targets_for
from relpos.text import facts, numbers
from relpos.text.explain import number, offset_label, offsets_text
from relpos.text.facts import SCORE_DECIMALS
from relpos.text.numbers import percent

__all__ = [
    "KEPT_POINTS",
    "LEARNED_POINTS",
    "attention_summary",
    "bias_chart_title",
    "bias_summary",
    "length_label",
    "length_summary",
    "loss_summary",
    "offset_bars_caption",
    "percent",
    "target_hits",
]

#: A change of at most this many percentage points counts as "kept".
KEPT_POINTS = 5
#: A scheme learned the task when it gets at least this share (percent) of the asked
#: positions right at the training length: the tasks are deterministic, so a head that
#: learned one scores near 100%, and a head without positions already guesses about 30%.
LEARNED_POINTS = 50
#: Decimals of the accuracy table (percent): the learned threshold is judged on what it shows.
TABLE_DECIMALS = 1
#: Biases closer than this are the same (float noise of shared table rows).
TIE = 1e-12


def _points(value: float) -> int:
    return round(100 * float(value))


def length_label(length: int, trained: int) -> str:
    """``L = 16``, ``2L = 32`` (a multiple of the trained length), else ``n = 24``.

    >>> length_label(16, 16), length_label(64, 16), length_label(24, 16)
    ('L = 16', '4L = 64', 'n = 24')
    """
    if length == trained:
        return f"L = {length}"
    if length % trained == 0:
        return f"{length // trained}L = {length}"
    return f"n = {length}"


def _names(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def _best_sentence(names, column: np.ndarray, where: str) -> str:
    points = [_points(value) for value in column]
    best = max(points)
    leaders = [name for name, p in zip(names, points, strict=True) if p == best]
    if len(leaders) == len(names) and len(names) > 1:
        return f"At {where} every scheme scores {best}%."
    return f"At {where} the highest accuracy is {best}%: {_names(leaders)}."


def _change_sentences(names, first: np.ndarray, last: np.ndarray, start: str, end: str, *, everyone: bool) -> list[str]:
    """Who kept its accuracy from `start` to `end`, who fell and who rose (rounded points).

    `names` are the schemes that learned the task; `everyone` says they are all the
    schemes of the table (only then can a sentence say "every scheme").
    """
    changes = [(_points(b) - _points(a), name, a, b) for name, a, b in zip(names, first, last, strict=True)]
    kept = [name for change, name, _, _ in changes if abs(change) <= KEPT_POINTS]
    fell = sorted((c for c in changes if c[0] < -KEPT_POINTS), key=lambda c: c[0])
    rose = sorted((c for c in changes if c[0] > KEPT_POINTS), key=lambda c: -c[0])
    window = f"within {KEPT_POINTS} percentage points"
    if everyone and len(kept) == len(names) and len(names) > 1:
        return [f"From {start} to {end} every scheme stays {window}."]
    sentences = []
    if kept:
        verb = "stays" if len(kept) == 1 else "stay"
        sentences.append(f"From {start} to {end}, {_names(kept)} {verb} {window}.")
    for moved, verb in ((fell, "falls"), (rose, "rises")):
        if moved:
            parts = [f"{name} {verb} from {percent(a)} to {percent(b)}" for _, name, a, b in moved]
            text = _names(parts) + "."
            sentences.append(text[0].upper() + text[1:] if kept else f"From {start} to {end}, {text}")
    return sentences


def _learned(accuracy: float) -> bool:
    """Whether an accuracy reaches :data:`LEARNED_POINTS` as the accuracy table prints it (one decimal):
    49.6% has not learned, though its whole percent is 50%.

    >>> _learned(0.496), _learned(0.4996), _learned(0.501)
    (False, True, True)
    """
    return facts.printed(100 * float(accuracy), TABLE_DECIMALS) >= LEARNED_POINTS


def _below_threshold(accuracy: float) -> str:
    """An accuracy that did not reach :data:`LEARNED_POINTS`: a whole percent when that prints below it
    too, else the table's one decimal (``49.6%``, not ``50%`` beside "below 50%").

    >>> _below_threshold(0.32), _below_threshold(0.496)
    ('32%', '49.6%')
    """
    whole = percent(accuracy)
    return whole if int(whole[:-1]) < LEARNED_POINTS else f"{numbers.number(100 * accuracy, TABLE_DECIMALS)}%"


def _unlearned_sentence(names, first: np.ndarray, start: str, vocab: int | None) -> str:
    """The schemes that never learned the task at the training length, with their accuracy there
    ("A and B did not learn", never "all did not", which reads as "not all did")."""
    parts = [f"{name} ({_below_threshold(a)})" for name, a in zip(names, first, strict=True)]
    chance = f"; guessing scores {percent(1 / vocab)}" if vocab else ""
    subject = _names(parts)
    pronoun = "its" if len(names) == 1 else "their"
    text = (
        f"{subject} did not learn the task at {start} (below {LEARNED_POINTS}%{chance}), so {pronoun} "
        "accuracy on longer sequences says nothing about generalising."
    )
    return text[0].upper() + text[1:]


def length_summary(names, lengths, accuracy, *, vocab: int | None = None) -> list[str]:
    """What a "train short, test long" table shows, in sentences.

    Generalising needs having learned first: a scheme below :data:`LEARNED_POINTS` at
    the training length is said not to have learned the task, and is never counted
    among the schemes that keep (or lose) their accuracy on longer sequences.

    Parameters
    ----------
    names : sequence of str, length n_schemes
        The schemes' on-screen names, in row order.
    lengths : sequence of int, length n_lengths
        Test lengths; the first is the training length L.
    accuracy : array_like, shape (n_schemes, n_lengths)
        Fractions in [0, 1].
    vocab : int, optional
        Vocabulary size; adds what guessing a token at random would score.

    Returns
    -------
    sentences : list of str

    Examples
    --------
    >>> length_summary(["Shaw", "absolute"], [16, 64], [[1.0, 1.0], [0.99, 0.29]])
    ['At the training length L = 16 the highest accuracy is 100%: Shaw.', \
'From L = 16 to 4L = 64, Shaw stays within 5 percentage points.', 'Absolute falls from 99% to 29%.', \
'At 4L = 64 the highest accuracy is 100%: Shaw.']
    >>> length_summary(["Shaw", "ALiBi"], [16, 64], [[1.0, 1.0], [0.14, 0.15]], vocab=16)[1]
    'ALiBi (14%) did not learn the task at L = 16 (below 50%; guessing scores 6%), so its accuracy on longer \
sequences says nothing about generalising.'
    """
    names = [str(name) for name in names]
    lengths = [int(n) for n in lengths]
    table = np.asarray(accuracy, dtype=float).reshape(len(names), len(lengths))  # (n_schemes, n_lengths)
    if not names or not lengths:
        return []
    trained = lengths[0]
    start = length_label(trained, trained)
    sentences = [_best_sentence(names, table[:, 0], f"the training length {start}")]
    learned = np.array([_learned(a) for a in table[:, 0]])  # (n_schemes,)
    if not learned.all():
        unlearned = [name for name, ok in zip(names, learned, strict=True) if not ok]
        sentences.append(_unlearned_sentence(unlearned, table[~learned, 0], start, vocab))
    if len(lengths) > 1:
        end = length_label(lengths[-1], trained)
        if learned.any():
            learners = [name for name, ok in zip(names, learned, strict=True) if ok]
            first, last = table[learned, 0], table[learned, -1]
            sentences += _change_sentences(learners, first, last, start, end, everyone=bool(learned.all()))
        sentences.append(_best_sentence(names, table[:, -1], end))
    if vocab:
        sentences.append(f"Guessing a token at random would score {percent(1 / vocab)} (1 in {vocab}).")
    return sentences


def loss_summary(losses, *, vocab: int | None = None) -> str:
    """How the training loss moved: first step, last step, lowest.

    >>> loss_summary([2.8, 1.0, 0.05], vocab=16)
    'The loss went from 2.80 at step 1 to 0.05 at step 3 (guessing uniformly among 16 tokens gives ln 16 = 2.77).'
    >>> loss_summary([1.0])
    'One step: the loss was 1.00.'
    >>> loss_summary([2.0, 0.5, 0.9])
    'The loss went from 2.00 at step 1 to 0.90 at step 3; its lowest was 0.50 at step 2.'
    >>> loss_summary([2.0, 0.00041, 0.00044])
    'The loss went from 2.00 at step 1 to 0.0004 at step 3.'
    """
    values = np.asarray(losses, dtype=float)  # (steps,)
    if values.size == 0:
        return "No training steps yet."
    reference = (
        f" (guessing uniformly among {vocab} tokens gives ln {vocab} = {number(np.log(vocab))})" if vocab else ""
    )
    if values.size == 1:
        return f"One step: the loss was {number(values[0])}{reference}."
    text = f"The loss went from {number(values[0])} at step 1 to {number(values[-1])} at step {values.size}"
    lowest = int(values.argmin())
    if number(values[lowest]) != number(values[-1]):  # only a difference the shown numbers show
        text += f"; its lowest was {number(values[lowest])} at step {lowest + 1}"
    return text + reference + "."


def _tied(values: np.ndarray, among) -> np.ndarray:
    """Which of the entries `among` (indices, or a count: all) tie for their largest at 2 decimals, as printed."""
    among = np.arange(among) if np.isscalar(among) else np.asarray(among, dtype=int)
    chosen = np.zeros(values.shape, dtype=bool)
    chosen[among[list(facts.top(values[among], SCORE_DECIMALS))]] = True
    return chosen


def bias_summary(offsets, biases, *, step: int, k: int | None = None, learned: bool = True) -> str:
    """Which offset the position bias favours after `step` updates, and by how much.

    Parameters
    ----------
    offsets : array_like of int, shape (n,)
    biases : array_like of float, shape (n,)
        The bias per offset (e.g. from :func:`relpos.offset_biases`).
    step : int
        Updates done.
    k : int, optional
        Shaw's clipping distance: the bars are then the *mean* query's biases (single
        queries' biases vary around them), and with k = 0 every offset reads one row, so
        position can never change a weight. None for a bias that ignores the query (T5, ALiBi).
    learned : bool, default True
        False for a fixed bias (ALiBi): the sentence then names no step, since training
        never changes it.

    Examples
    --------
    >>> bias_summary([-2, -1, 0], [0.1, 2.0, -0.5], step=400)
    'After 400 steps the largest bias is at offset −1 (2.00), 1.90 above the next largest (0.10, at offset −2).'
    >>> bias_summary([-3, -2, -1, 0], [1.0, 1.0, 0.5, 0.0], step=1)
    'After 1 step the largest bias is at offsets −3 to −2 (1.00), 0.50 above the next largest (0.50, at offset −1).'
    >>> bias_summary([-1, 0], [0.0, 0.0], step=0)
    'After 0 steps every offset has the same bias, 0.00: at this step position changes no attention weight.'
    >>> bias_summary([-1, 0], [0.3, 0.3], step=400, k=0)
    'With k = 0 every offset reads the one row aᴷ₀, so every offset has the same bias (0.30 after 400 steps): \
each query adds one number to all of its keys, which never changes an attention weight, however long the head trains.'
    >>> bias_summary([-1, 0], [-0.5, 0.0], step=400, learned=False)
    'The penalty is fixed, not learned: the largest bias is at offset 0 (0.00), 0.50 above the next largest \
(−0.50, at offset −1).'
    """
    offsets = np.asarray(offsets, dtype=int)
    values = np.asarray(biases, dtype=float)  # (n,)
    if values.size == 0:
        return "There are no offsets to compare."
    steps = f"After {step} step{'' if step == 1 else 's'}" if learned else "The penalty is fixed, not learned:"
    leaders = _tied(values, values.size)
    if np.ptp(values) <= TIE or leaders.all():
        value = number(values[0])
        if k == 0:
            return (
                f"With k = 0 every offset reads the one row aᴷ₀, so every offset has the same bias ({value} "
                f"after {step} step{'' if step == 1 else 's'}): each query adds one number to all of its keys, "
                "which never changes an attention weight, however long the head trains."
            )
        if k is not None:  # Shaw: the bars are the mean query's; one query's biases can still differ
            return f"{steps} every offset has the same mean bias, {value} (a single query's biases can still differ)."
        if not learned:
            return f"{steps} every offset has the same bias, {value}, so position changes no attention weight."
        return f"{steps} every offset has the same bias, {value}: at this step position changes no attention weight."
    top = values.max()
    runners = offsets[_tied(values, np.flatnonzero(~leaders))]
    second = values[~leaders].max()
    shown = numbers.number  # at the 2 decimals the ties are judged at
    return (
        f"{steps} the largest bias is at {offsets_text(offsets[leaders])} ({shown(top)}), "
        f"{numbers.difference(second, top, SCORE_DECIMALS).lstrip('+')} above the next largest ({shown(second)}, "
        f"at {offsets_text(runners)})."
    )


#: Title of the bias chart per scheme; a learned bias names its step, ALiBi's fixed one does not.
BIAS_CHART_TITLES = {
    "shaw": "Shaw: mean bias q̄·aᴷ/√d per offset",
    "t5": "T5: learned bias per offset (one per bucket)",
    "alibi": "ALiBi: fixed penalty −0.5·|j − i| (not learned)",
}


def bias_chart_title(scheme: str, step: int) -> str:
    """The bias chart's title: the step for a learned bias, none for ALiBi's fixed penalty.

    >>> bias_chart_title("shaw", 400)
    'Shaw: mean bias q̄·aᴷ/√d per offset, step 400'
    >>> bias_chart_title("alibi", 400)
    'ALiBi: fixed penalty −0.5·|j − i| (not learned)'
    """
    title = BIAS_CHART_TITLES[scheme]
    return title if scheme == "alibi" else f"{title}, step {step}"


def _rows_text(first: int, last: int) -> str:
    """``row +1`` or ``rows +1 to +4`` of a^K."""
    if first == last:
        return f"row {offset_label(first)}"
    return f"rows {offset_label(first)} to {offset_label(last)}"


def _shaw_rows_sentences(offsets: np.ndarray, k: int, length: int) -> list[str]:
    """Which bars are paler, and which rows of a^K training never reached."""
    sentences = []
    if k > 0 and np.any(offsets < -k):
        edge = offset_label(-k)
        sentences.append(f"Pale bars: offsets below {edge}, which all read the row of {edge}.")
    trained = shaw_rows_trained(k, length)  # (2k+1,)
    rows = np.arange(-k, k + 1)
    if k > 0:
        sentences.append(
            f"Never trained: {_rows_text(1, k)} of aᴷ, for keys after the query. The head is causal: only "
            "masked cells read them, so they get no gradient and keep their random initial values."
        )
    far = rows[~trained & (rows < 0)]
    if far.size:
        sentences.append(
            f"Never trained either: {_rows_text(int(far.min()), int(far.max()))}, farther back than a training "
            f"sequence of L = {length} reaches (its offsets stop at {offset_label(-(length - 1))}); "
            "a longer test sequence reads these untrained rows."
        )
    return sentences


def _t5_buckets_sentence(length: int) -> str:
    trained = t5_buckets_trained(length)
    untrained = int((~trained).sum())
    if not untrained:
        return f"Training at L = {length} reaches every one of the {trained.size} buckets."
    return (
        f"{untrained} of {trained.size} buckets were never trained: no offset of a length-{length} sequence falls "
        "in them, so they keep their initial value 0 (longer test sequences reach some of them)."
    )


def offset_bars_caption(scheme: str, offsets, biases, *, step: int, k: int, length: int, vocab: int) -> str:
    """The caption under the bias-per-offset chart of the training page.

    Parameters
    ----------
    scheme : {"shaw", "t5", "alibi"}
    offsets, biases : array_like, shape (n,)
        The chart's bars (:func:`relpos.offset_biases`).
    step : int
        Updates done at the snapshot shown.
    k : int
        Shaw's clipping distance (ignored by the other schemes).
    length : int
        Training length L.
    vocab : int
        Vocabulary size (the mean query is averaged over it).

    Examples
    --------
    >>> offset_bars_caption("t5", [-1, 0], [0.0, 0.0], step=0, k=4, length=2, vocab=16)[:60]
    'After 0 steps every offset has the same bias, 0.00: at this '
    """
    offsets = np.asarray(offsets, dtype=int)
    values = np.asarray(biases, dtype=float)
    if scheme == "alibi":
        return bias_summary(offsets, values, step=step, learned=False)
    if scheme == "t5":
        return bias_summary(offsets, values, step=step) + " " + _t5_buckets_sentence(length)
    sentences = [
        bias_summary(offsets, values, step=step, k=k),
        f"q̄ is the query averaged over the {vocab} tokens: one token's query gives bars that vary around these.",
    ]
    if np.ptp(values) > TIE:
        sentences.append("Orange: the largest.")
    return " ".join(sentences + _shaw_rows_sentences(offsets, k, length))


def target_hits(weights, task: str) -> tuple[int, int, float]:
    """How a head's attention lines up with the key the task copies from.

    Parameters
    ----------
    weights : array_like, shape (n, n)
        Attention weights on one sequence.
    task : {"previous", "two_back", "first"}

    Returns
    -------
    hits : int
        Scored rows whose largest weight (or one of the tied largest) is on the source key.
    rows : int
        Scored rows (the positions the task asks about).
    mass : float
        Mean weight on the source key over the scored rows.

    >>> target_hits(np.array([[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.1, 0.8, 0.1]]), "previous")
    (2, 2, 0.85)
    """
    matrix = np.asarray(weights, dtype=float)  # (n, n)
    n = matrix.shape[0]
    rows = np.flatnonzero(scored_positions(task, n))  # (r,)
    # the source key of each row: the task's targets, computed on the positions themselves
    source = targets_for(task, np.arange(n)[None, :])[0][rows]  # (r,)
    on_source = matrix[rows, source]
    hits = int((on_source >= matrix[rows].max(axis=1) - TIE).sum())
    return hits, int(rows.size), float(on_source.mean()) if rows.size else 0.0


def attention_summary(patterns: dict[str, np.ndarray], task: str) -> str:
    """One sentence on how many rows attend most to the key the task copies from, per pattern.

    >>> attention_summary({"L = 3": np.array([[1.0, 0, 0], [0.9, 0.1, 0], [0.1, 0.8, 0.1]])}, "previous")
    'Rows whose largest weight is on the key the task copies from: 2 of 2 at L = 3 (mean weight on that key 0.85).'
    """
    parts = []
    for label, weights in patterns.items():
        hits, rows, mass = target_hits(weights, task)
        parts.append(f"{hits} of {rows} at {label} (mean weight on that key {number(mass)})")
    return "Rows whose largest weight is on the key the task copies from: " + "; ".join(parts) + "."
