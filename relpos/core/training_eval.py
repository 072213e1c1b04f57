"""Using a trained head: accuracy at any length, attention patterns, learned per-offset
biases, and the "train short, test long" table (NumPy only).

Test sequences come from :func:`relpos.task_sequences`, i.e. ``np.random.default_rng(seed)``
on its own, a stream apart from the one :func:`relpos.train_head` draws its batches from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relpos.core.checks import as_count
from relpos.core.offsets import clip_offsets
from relpos.core.schemes import alibi_bias, t5_bucket, t5_buckets_seen
from relpos.core.training import TrainedHead, check_head, check_scheme, train_head
from relpos.core.training_model import ALIBI_SLOPE, T5_BUCKETS, T5_MAX_DISTANCE, TRAINING_SCHEMES, forward
from relpos.core.training_tasks import TaskBatch, check_length, check_task, task_sequences

__all__ = [
    "LengthTable",
    "accuracy",
    "attention_pattern",
    "offset_biases",
    "predict",
    "shaw_rows_trained",
    "t5_buckets_trained",
    "train_short_test_long",
    "trained_rows",
]

#: Most attention cells (batch × n × n) one evaluation pass builds; longer runs go in chunks.
_CELLS_PER_CHUNK = 2**22


# ----------------------------------------------------------------------------- using a trained head


def _as_tokens(tokens, vocab: int) -> np.ndarray:
    """One sequence of token ids as a (1, n) int64 array, or ValueError."""
    array = np.asarray(tokens)
    if array.ndim != 1 or array.size == 0 or array.dtype.kind not in "iu":
        raise ValueError(f"tokens must be a non-empty 1-D array of integers; got {array.dtype} shape {array.shape}")
    if array.min() < 0 or array.max() >= vocab:
        raise ValueError(
            f"tokens must lie in 0 .. {vocab - 1} (the head's vocabulary); got values {array.min()} .. {array.max()}"
        )
    return array.astype(np.int64).reshape(1, -1)


def attention_pattern(head, tokens) -> np.ndarray:
    """Attention weights of a trained head on one sequence.

    Parameters
    ----------
    head : TrainedHead
    tokens : array_like of int, shape (n,)
        Token ids in ``0 .. V − 1``; any length n >= 1 (beyond the trained length too).

    Returns
    -------
    weights : ndarray of float64, shape (n, n)
        ``weights[i, j]`` is how much query i attends to key j; zero for ``j > i``,
        each row sums to 1.

    Notes
    -----
    .. math:: \\alpha_{ij} = \\mathrm{softmax}_{j \\le i}(e_{ij})

    Examples
    --------
    >>> head = train_head("previous", "alibi", length=4, steps=1)
    >>> weights = attention_pattern(head, [3, 1, 4, 1, 5, 9])  # longer than trained: fine
    >>> weights.shape, weights.sum(axis=1)
    ((6, 6), array([1., 1., 1., 1., 1., 1.]))
    >>> bool(np.triu(weights, 1).any())  # causal: no weight on later keys
    False
    """
    head = check_head(head)
    run = forward(head.params, _as_tokens(tokens, head.settings.vocab), head.settings.scheme)
    return run.weights[0]  # (n, n)


def predict(head, tokens) -> np.ndarray:
    """The token a trained head predicts at each position of one sequence, shape (n,).

    Examples
    --------
    >>> head = train_head("previous", "none", length=4, steps=1)
    >>> predict(head, [3, 1, 4]).shape
    (3,)
    """
    head = check_head(head)
    run = forward(head.params, _as_tokens(tokens, head.settings.vocab), head.settings.scheme)
    return run.logits[0].argmax(axis=-1)  # (n,)


def _correct_count(head: TrainedHead, data: TaskBatch, rotation=None) -> int:
    """Scored positions whose arg-max prediction equals the target, evaluated in chunks.

    ``rotation``: other RoPE ``(sin, cos)`` for a "rope" head (see :func:`forward`).
    """
    n = data.tokens.shape[1]
    chunk = max(1, _CELLS_PER_CHUNK // (n * n))
    correct = 0
    for start in range(0, data.tokens.shape[0], chunk):
        batch = data.tokens[start : start + chunk]
        logits = forward(head.params, batch, head.settings.scheme, rotation=rotation).logits
        hits = logits.argmax(axis=-1) == data.targets[start : start + chunk]  # (chunk, n)
        correct += int(hits[:, data.scored].sum())
    return correct


def accuracy(head, length, *, seed=0, samples=256) -> float:
    """Next-token accuracy of a trained head on fresh sequences of any length.

    Parameters
    ----------
    head : TrainedHead
    length : int
        Test sequence length, at least 2 (3 for "two_back"); may exceed the trained length.
    seed : int, default 0
        Seed of ``np.random.default_rng`` for the test sequences (see :func:`task_sequences`).
    samples : int, default 256
        Number of test sequences, at least 1.

    Returns
    -------
    accuracy : float
        Fraction of scored positions where the most likely token is the target.

    Notes
    -----
    .. math::
        \\mathrm{acc} = \\frac{1}{N} \\sum_{(b, i)\\ \\mathrm{scored}}
            [\\arg\\max_v \\mathrm{logits}_{b,i,v} = y_{b,i}]

    For "absolute", positions at or beyond the trained length all read the last
    trained position vector, so the head sees them as position L − 1.

    Examples
    --------
    >>> head = train_head("previous", "shaw", length=8, steps=5)
    >>> 0.0 <= accuracy(head, 32, samples=8) <= 1.0
    True
    """
    head = check_head(head)
    task = head.settings.task
    data = task_sequences(task, check_length(task, length), samples=samples, vocab=head.settings.vocab, seed=seed)
    return _correct_count(head, data) / (data.tokens.shape[0] * int(data.scored.sum()))


# ----------------------------------------------------------------------------- train short, test long


@dataclass(frozen=True)
class LengthTable:
    """Accuracy of every scheme, trained at one length and tested at several.

    Attributes
    ----------
    task : str
    schemes : tuple of str
        Row order.
    lengths : ndarray of int64, shape (n_lengths,)
        Test lengths (the first is the training length when the factors start at 1).
    accuracy : ndarray of float64, shape (n_schemes, n_lengths)
        ``accuracy[s, t]``: scheme ``schemes[s]`` at length ``lengths[t]``.
    heads : tuple of TrainedHead
        The trained heads, one per scheme.
    """

    task: str
    schemes: tuple
    lengths: np.ndarray
    accuracy: np.ndarray
    heads: tuple = ()

    def __post_init__(self):
        self.lengths.setflags(write=False)
        self.accuracy.setflags(write=False)


def _check_factors(factors) -> tuple[int, ...]:
    values = tuple(factors) if isinstance(factors, (list, tuple)) else (factors,)
    if not values:
        raise ValueError("factors must list at least one length multiple, e.g. (1, 2, 4); got none")
    return tuple(as_count(value, "each factor") for value in values)


def train_short_test_long(
    task,
    *,
    schemes=None,
    length=16,
    factors=(1, 2, 4),
    steps=400,
    seed=0,
    k=4,
    vocab=16,
    d=16,
    lr=0.01,
    batch=32,
    samples=256,
    progress=None,
) -> LengthTable:
    """Train every scheme at length L and measure its accuracy at ``f × L`` for each factor f.

    Parameters
    ----------
    task : {"previous", "two_back", "first"}
    schemes : sequence of str, optional
        Schemes to train, in row order; all of :data:`TRAINING_SCHEMES` by default.
    length : int, default 16
        Training length L.
    factors : sequence of int, default (1, 2, 4)
        Test lengths as multiples of L, each at least 1.
    steps, seed, k, vocab, d, lr, batch
        As in :func:`relpos.train_head`, the same for every scheme; `seed` also draws
        the test sequences (see :func:`accuracy`).
    samples : int, default 256
        Test sequences per length.
    progress : callable, optional
        Called as ``progress(done, total, scheme)`` after each scheme, counting from 1.

    Returns
    -------
    table : LengthTable

    Examples
    --------
    >>> table = train_short_test_long("previous", schemes=["none", "shaw"], length=4, steps=2, samples=4)
    >>> table.lengths, table.accuracy.shape
    (array([ 4,  8, 16]), (2, 3))
    """
    if schemes is None:
        schemes = tuple(TRAINING_SCHEMES)
    chosen = tuple(check_scheme(s) for s in ((schemes,) if isinstance(schemes, str) else schemes))
    if not chosen:
        raise ValueError(f"schemes must name at least one of {', '.join(map(repr, TRAINING_SCHEMES))}; got none")
    lengths = np.array([check_length(task, length) * f for f in _check_factors(factors)], dtype=np.int64)
    settings = {"steps": steps, "seed": seed, "k": k, "vocab": vocab, "d": d, "lr": lr, "batch": batch}
    heads, rows = [], []
    for done, scheme in enumerate(chosen, start=1):
        head = train_head(task, scheme, length=length, **settings)
        heads.append(head)
        rows.append([accuracy(head, int(n), seed=seed, samples=samples) for n in lengths])
        if progress is not None:
            progress(done, len(chosen), scheme)
    return LengthTable(check_task(task), chosen, lengths, np.array(rows), tuple(heads))


# ----------------------------------------------------------------------------- learned position biases

#: Schemes whose position term is a bias per offset j − i.
OFFSET_BIAS_SCHEMES = ("shaw", "t5", "alibi")


def _snapshot_params(head: TrainedHead, snapshot) -> dict:
    count = len(head.snapshots)
    if isinstance(snapshot, (bool, np.bool_)) or not isinstance(snapshot, (int, np.integer)):
        raise ValueError(f"snapshot must be an integer index into the {count} snapshots; got {snapshot!r}")
    if not -count <= snapshot < count:
        raise ValueError(f"snapshot must be in {-count} .. {count - 1} (the head kept {count}); got {snapshot}")
    return head.snapshots[snapshot]


def offset_biases(head, length=None, *, snapshot=-1) -> tuple[np.ndarray, np.ndarray]:
    """The position bias a head adds for each causal offset ``j − i = −(n − 1) .. 0``.

    Parameters
    ----------
    head : TrainedHead
        Trained with scheme "shaw", "t5" or "alibi".
    length : int, optional
        Sequence length n whose offsets to report, at least 1; the trained length by default.
    snapshot : int, default -1
        Which of ``head.snapshots`` to read (-1: the final parameters; 0: before training).

    Returns
    -------
    offsets : ndarray of int64, shape (n,)
        ``−(n − 1) .. 0``, farthest key first.
    biases : ndarray of float64, shape (n,)
        The bias of each offset. For "shaw" the bias ``q_i · a^K_clip(j−i,k) / sqrt(d)``
        depends on the query; this is its mean over the vocabulary (tokens are uniform
        and the bias is linear in q), constant for every offset at or beyond ``−k``.

    Notes
    -----
    .. math::
        \\bar b_o = \\frac{\\bar q \\cdot a^K_{\\mathrm{clip}(o, k)}}{\\sqrt{d}}, \\;
        \\bar q = \\frac{1}{V} \\sum_v E_v W_q \\;\\; \\text{(Shaw)}; \\quad
        \\beta_{\\mathrm{bucket}(o)} \\;\\; \\text{(T5)}; \\quad
        -m |o| \\;\\; \\text{(ALiBi)}

    Rows of a^K for offsets after the query (``o > 0``) never receive a gradient in a
    causal head, so they keep their initial values and are not reported.

    Examples
    --------
    >>> head = train_head("previous", "alibi", length=4, steps=1)
    >>> offset_biases(head)
    (array([-3, -2, -1,  0]), array([-1.5, -1. , -0.5,  0. ]))
    """
    head = check_head(head)
    scheme = head.settings.scheme
    if scheme not in OFFSET_BIAS_SCHEMES:
        raise ValueError(
            f"offset_biases needs a head whose scheme adds a bias per offset ({', '.join(OFFSET_BIAS_SCHEMES)}); "
            f"got scheme {scheme!r}"
        )
    n = head.settings.length if length is None else as_count(length, "length")
    params = _snapshot_params(head, snapshot)
    offsets = np.arange(-(n - 1), 1)  # (n,)
    if scheme == "shaw":
        A_K = params["A_K"]  # (2k+1, d)
        k, d = (A_K.shape[0] - 1) // 2, A_K.shape[1]
        # q̄ = mean over tokens of E_v W_q; b̄_r = q̄ · a^K_r / sqrt(d)
        per_row = (params["embed"].mean(axis=0) @ params["W_q"]) @ A_K.T / np.sqrt(d)  # (2k+1,)
        return offsets, per_row[clip_offsets(offsets, k) + k]
    if scheme == "t5":
        # b_o = beta[bucket(o)]
        return offsets, params["t5_bias"][t5_bucket(offsets, T5_BUCKETS, T5_MAX_DISTANCE, bidirectional=False)]
    # b_o = −m |o|
    return offsets, alibi_bias(offsets, ALIBI_SLOPE)


# ----------------------------------------------------------------------------- rows training reaches


def shaw_rows_trained(k, length) -> np.ndarray:
    """Which rows of a causal head's a^K (row r is offset r − k) training can change.

    A training sequence of L tokens holds the causal offsets ``−(L − 1) .. 0`` only, so
    the rows that receive a gradient are those of ``−min(k, L − 1) .. 0``. Rows after
    the query (``+1 .. +k``) are read only by masked cells, and rows beyond ``−(L − 1)``
    by no cell at all: both keep their initial values (Adam moves nothing without a
    gradient), and a longer test sequence that reaches them reads untrained numbers.

    >>> shaw_rows_trained(2, 16).tolist()
    [True, True, True, False, False]
    >>> shaw_rows_trained(4, 3).astype(int).tolist()
    [0, 0, 1, 1, 1, 0, 0, 0, 0]
    """
    k, length = as_count(k, "k", minimum=0), as_count(length, "length")
    offsets = np.arange(-k, k + 1)  # (2k+1,)
    return (offsets <= 0) & (offsets >= -min(k, length - 1))


def t5_buckets_trained(length) -> np.ndarray:
    """Which of the head's causal T5 buckets the offsets of a length-`length` sequence reach.

    >>> t5_buckets_trained(4).astype(int).tolist()
    [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    """
    seen = t5_buckets_seen(length, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE, bidirectional=False)
    trained = np.zeros(T5_BUCKETS, dtype=bool)
    trained[seen] = True
    return trained


def trained_rows(head) -> np.ndarray:
    """One flag per row of the head's learned position parameter: does training reach it?

    Shaw: :func:`shaw_rows_trained`; T5: :func:`t5_buckets_trained`; learned absolute
    positions: every row (one per trained position). A scheme that learns no position
    parameter has no rows.

    >>> head = train_head("previous", "shaw", length=4, k=4, steps=1)
    >>> trained_rows(head).astype(int).tolist()
    [0, 1, 1, 1, 1, 0, 0, 0, 0]
    """
    head = check_head(head)
    settings = head.settings
    if settings.scheme == "shaw":
        return shaw_rows_trained(settings.k, settings.length)
    if settings.scheme == "t5":
        return t5_buckets_trained(settings.length)
    if settings.scheme == "absolute":
        return np.ones(settings.length, dtype=bool)
    return np.zeros(0, dtype=bool)
