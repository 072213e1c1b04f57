"""Train a tiny attention head live and test it on longer sequences (NumPy only).

A one-layer, single-head, causal attention model (token embeddings, ``W_q``, ``W_k``,
``W_v`` and an output projection; see :mod:`relpos.training_model`) learns one of the
copying tasks of :mod:`relpos.training_tasks` with a chosen position scheme:

* ``"none"``: no position information at all;
* ``"absolute"``: a learned vector per position ``0 .. L − 1`` added to the token;
  positions at or beyond the trained length L all use the vector of position L − 1
  (the last trained one), since no other vector was ever trained;
* ``"sinusoidal"``: the Transformer's fixed sinusoids added to the token (defined at
  every length, nothing learned);
* ``"shaw"``: Shaw et al.'s key-side table a^K clipped at distance k, offset ``j − i``,
  row ``r`` holding offset ``r − k`` (as in :mod:`relpos.core`);
* ``"t5"``: one learned scalar per T5 bucket of ``j − i``, with T5's *causal*
  (decoder) bucketing, since the head is causal: 16 buckets, distances 0..7 exact,
  then logarithmic buckets up to distance 32. Buckets that no training offset reaches
  keep their initial value 0;
* ``"alibi"``: the fixed penalty ``−m |j − i|`` with ``m = 0.5``, nothing learned;
* ``"rope"``: queries and keys rotated by their position (base 10000).

Training uses a hand-written backward pass and Adam, in float64. Everything random
comes from ``np.random.default_rng(seed)``: same settings, same numbers.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from relpos._checks import as_count
from relpos.training_model import POSITION_PARAMETER, TRAINING_SCHEMES, forward, init_params, loss_and_gradient
from relpos.training_tasks import TRAINING_TASKS, TaskBatch, check_length, check_task, random_batch, task_sequences

__all__ = [
    "TRAINING_SCHEMES",
    "TRAINING_TASKS",
    "LengthTable",
    "TrainSettings",
    "TrainedHead",
    "accuracy",
    "attention_pattern",
    "predict",
    "task_sequences",
    "train_head",
    "train_short_test_long",
]

#: Adam's moment decay rates and denominator guard (Kingma & Ba's defaults).
ADAM_BETAS = (0.9, 0.999)
ADAM_EPSILON = 1e-8

#: Most attention cells (batch × n × n) one evaluation pass builds; longer runs go in chunks.
_CELLS_PER_CHUNK = 2**22


@dataclass(frozen=True)
class TrainSettings:
    """Everything that decides a training run (with the same settings, the same head).

    Attributes
    ----------
    task : str
        One of :data:`TRAINING_TASKS`.
    scheme : str
        One of :data:`TRAINING_SCHEMES`.
    length : int
        Training sequence length L.
    steps : int
        Adam updates, one fresh batch each.
    seed : int
        Seed of ``np.random.default_rng`` for the initial parameters and the batches.
    k : int
        Shaw's clipping distance (used by ``"shaw"`` only).
    vocab : int
        Vocabulary size V.
    d : int
        Model width.
    lr : float
        Adam's learning rate.
    batch : int
        Sequences per step.
    """

    task: str
    scheme: str
    length: int
    steps: int
    seed: int
    k: int
    vocab: int
    d: int
    lr: float
    batch: int


@dataclass(frozen=True, eq=False)
class TrainedHead:
    """A trained head: final parameters, loss history and snapshots along the way.

    Attributes
    ----------
    settings : TrainSettings
    params : dict of str to ndarray
        Final parameters (read-only arrays): ``embed`` (V, d), ``W_q``, ``W_k``, ``W_v``
        (d, d), ``W_o`` (d, V), plus ``positions`` (L, d) for "absolute", ``A_K``
        (2k+1, d) for "shaw" (row r is offset r − k) or ``t5_bias`` (16,) for "t5".
    losses : ndarray, shape (steps,)
        Training loss of the batch of each step, before that step's update.
    snapshot_steps : ndarray of int64, shape (m,)
        Updates done when each snapshot was taken, from 0 (the initial parameters) to `steps`.
    snapshots : tuple of dict
        All parameters at each of `snapshot_steps` (read-only arrays).
    """

    settings: TrainSettings
    params: dict
    losses: np.ndarray
    snapshot_steps: np.ndarray
    snapshots: tuple

    @property
    def position_parameter(self) -> str | None:
        """Name of the learned position parameter, or None for a scheme that learns none."""
        return POSITION_PARAMETER.get(self.settings.scheme)

    @property
    def position_snapshots(self) -> np.ndarray | None:
        """The learned position parameter at every snapshot, shape (m, *its shape); None if none."""
        name = self.position_parameter
        return None if name is None else np.stack([snapshot[name] for snapshot in self.snapshots])


# ----------------------------------------------------------------------------- checks


def _check_scheme(scheme) -> str:
    if not isinstance(scheme, str) or scheme not in TRAINING_SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(map(repr, TRAINING_SCHEMES))}; got {scheme!r}")
    return scheme


def _check_rate(lr) -> float:
    if isinstance(lr, (bool, np.bool_)) or not isinstance(lr, numbers.Real):
        raise ValueError(f"lr must be a finite number > 0; got {lr!r}")
    if not math.isfinite(float(lr)) or lr <= 0:
        raise ValueError(f"lr must be a finite number > 0; got {lr!r}")
    return float(lr)


def make_settings(task, scheme, *, length, steps, seed, k, vocab, d, lr, batch) -> TrainSettings:
    """Validated :class:`TrainSettings`; ValueError naming the first bad argument."""
    task, scheme = check_task(task), _check_scheme(scheme)
    d = as_count(d, "d")
    if scheme == "rope" and d % 2:
        raise ValueError(f"d must be even for scheme 'rope' (features rotate in pairs); got d = {d}")
    return TrainSettings(
        task=task,
        scheme=scheme,
        length=check_length(task, length),
        steps=as_count(steps, "steps"),
        seed=as_count(seed, "seed", minimum=0),
        k=as_count(k, "k", minimum=0),
        vocab=as_count(vocab, "vocab", minimum=2),
        d=d,
        lr=_check_rate(lr),
        batch=as_count(batch, "batch"),
    )


def _snapshot_steps(snapshots, steps: int) -> np.ndarray:
    """Evenly spaced update counts 0 .. steps (at most steps + 1 of them)."""
    count = as_count(snapshots, "snapshots", minimum=2)
    return np.unique(np.linspace(0, steps, min(count, steps + 1)).round().astype(np.int64))  # (m,)


def _check_head(head) -> TrainedHead:
    if not isinstance(head, TrainedHead):
        raise ValueError(f"head must be a TrainedHead from train_head(); got {type(head).__name__}")
    return head


# ----------------------------------------------------------------------------- training


def _frozen_copy(params: dict) -> dict:
    copies = {name: value.copy() for name, value in params.items()}
    for value in copies.values():
        value.setflags(write=False)
    return copies


class Adam:
    """Adam (Kingma & Ba, 2015) over a dict of float64 arrays, updated in place."""

    def __init__(self, params: dict, lr: float):
        self.lr, self.t = lr, 0
        self.m = {name: np.zeros_like(value) for name, value in params.items()}
        self.v = {name: np.zeros_like(value) for name, value in params.items()}

    def step(self, params: dict, grads: dict) -> None:
        beta1, beta2 = ADAM_BETAS
        self.t += 1
        # bias corrections 1 − beta^t fold into the step size
        step_size = self.lr * math.sqrt(1 - beta2**self.t) / (1 - beta1**self.t)
        epsilon = ADAM_EPSILON * math.sqrt(1 - beta2**self.t)
        for name, grad in grads.items():
            m, v = self.m[name], self.v[name]
            # m_t = beta1 m_{t−1} + (1 − beta1) g,  v_t = beta2 v_{t−1} + (1 − beta2) g²
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad * grad
            # theta −= lr m̂ / (sqrt(v̂) + eps), with m̂ = m / (1 − beta1^t), v̂ = v / (1 − beta2^t)
            params[name] -= step_size * m / (np.sqrt(v) + epsilon)


def train_head(
    task,
    scheme,
    *,
    length=16,
    steps=400,
    seed=0,
    k=4,
    vocab=16,
    d=16,
    lr=0.01,
    batch=32,
    snapshots=21,
    progress: Callable[[int, int, float], object] | None = None,
) -> TrainedHead:
    """Train a one-layer, single-head causal attention model on a copying task.

    Parameters
    ----------
    task : {"previous", "two_back", "first"}
        What each position must predict (see :mod:`relpos.training_tasks`).
    scheme : {"none", "absolute", "sinusoidal", "shaw", "t5", "alibi", "rope"}
        How the head sees position (see the module docstring).
    length : int, default 16
        Training sequence length L, at least 2 (3 for "two_back").
    steps : int, default 400
        Adam updates, at least 1; each draws a fresh batch.
    seed : int, default 0
        Seed of ``np.random.default_rng`` (initial parameters, then batches), at least 0.
    k : int, default 4
        Shaw's clipping distance, at least 0 (ignored by the other schemes).
    vocab : int, default 16
        Vocabulary size V, at least 2.
    d : int, default 16
        Model width, at least 1 (even for "rope").
    lr : float, default 0.01
        Adam's learning rate, finite and > 0.
    batch : int, default 32
        Sequences per step, at least 1.
    snapshots : int, default 21
        How many evenly spaced copies of the parameters to keep, including the
        initial and the final ones; at least 2 (at most ``steps + 1`` are kept).
    progress : callable, optional
        Called after every update as ``progress(step, steps, loss)``, step counting
        from 1, so a page can draw a progress bar.

    Returns
    -------
    head : TrainedHead

    Raises
    ------
    ValueError
        For an unknown task or scheme, or any setting outside the ranges above.

    Notes
    -----
    Each step minimises the mean cross-entropy over the scored positions of a batch:

    .. math:: \\mathcal{L} = -\\frac{1}{N} \\sum_{(b, i)\\ \\mathrm{scored}} \\log p_\\theta(y_{b,i} \\mid x_{b, 0..i})

    with gradients from the hand-written backward pass of
    :func:`relpos.training_model.backward` and Adam (betas 0.9 and 0.999).

    Examples
    --------
    >>> head = train_head("previous", "shaw", length=8, steps=5, seed=1, snapshots=3)
    >>> head.losses.shape, head.snapshot_steps, head.position_snapshots.shape
    ((5,), array([0, 2, 5]), (3, 9, 16))
    """
    settings = make_settings(
        task, scheme, length=length, steps=steps, seed=seed, k=k, vocab=vocab, d=d, lr=lr, batch=batch
    )
    keep = _snapshot_steps(snapshots, settings.steps)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable progress(step, total, loss) or None; got {progress!r}")
    rng = np.random.default_rng(settings.seed)
    params = init_params(
        settings.scheme, vocab=settings.vocab, d=settings.d, k=settings.k, length=settings.length, rng=rng
    )
    optimizer = Adam(params, settings.lr)
    losses = np.empty(settings.steps)
    kept = [_frozen_copy(params)] if keep[0] == 0 else []
    for step in range(1, settings.steps + 1):
        data = random_batch(settings.task, settings.batch, settings.length, settings.vocab, rng)
        losses[step - 1], grads = loss_and_gradient(params, data.tokens, data.targets, data.scored, settings.scheme)
        optimizer.step(params, grads)
        if step in keep:
            kept.append(_frozen_copy(params))
        if progress is not None:
            progress(step, settings.steps, float(losses[step - 1]))
    losses.setflags(write=False)
    keep.setflags(write=False)
    return TrainedHead(settings, _frozen_copy(params), losses, keep, tuple(kept))


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
    head = _check_head(head)
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
    head = _check_head(head)
    run = forward(head.params, _as_tokens(tokens, head.settings.vocab), head.settings.scheme)
    return run.logits[0].argmax(axis=-1)  # (n,)


def _correct_count(head: TrainedHead, data: TaskBatch) -> int:
    """Scored positions whose arg-max prediction equals the target, evaluated in chunks."""
    n = data.tokens.shape[1]
    chunk = max(1, _CELLS_PER_CHUNK // (n * n))
    correct = 0
    for start in range(0, data.tokens.shape[0], chunk):
        logits = forward(head.params, data.tokens[start : start + chunk], head.settings.scheme).logits
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
    head = _check_head(head)
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


def _check_factors(factors) -> tuple[int, ...]:
    values = tuple(factors) if isinstance(factors, (list, tuple)) else (factors,)
    if not values:
        raise ValueError("factors must list at least one length multiple, e.g. (1, 2, 4); got none")
    return tuple(as_count(value, "each factor") for value in values)


def train_short_test_long(
    task, *, schemes=None, length=16, factors=(1, 2, 4), samples=256, progress=None, **settings
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
    samples : int, default 256
        Test sequences per length (same seed as training, see :func:`accuracy`).
    progress : callable, optional
        Called as ``progress(done, total, scheme)`` after each scheme, counting from 1.
    **settings
        Passed on to :func:`train_head` (``steps``, ``seed``, ``k``, ``vocab``, ``d``,
        ``lr``, ``batch``).

    Returns
    -------
    table : LengthTable

    Examples
    --------
    >>> table = train_short_test_long("previous", schemes=["none", "shaw"], length=4, steps=2, samples=4)
    >>> table.lengths, table.accuracy.shape
    (array([ 4,  8, 16]), (2, 3))
    """
    chosen = tuple(TRAINING_SCHEMES) if schemes is None else tuple(_check_scheme(s) for s in schemes)
    if not chosen:
        raise ValueError(f"schemes must name at least one of {', '.join(map(repr, TRAINING_SCHEMES))}; got none")
    lengths = np.array([check_length(task, length) * f for f in _check_factors(factors)], dtype=np.int64)
    seed = settings.get("seed", 0)
    heads, rows = [], []
    for done, scheme in enumerate(chosen, start=1):
        head = train_head(task, scheme, length=length, **settings)
        heads.append(head)
        rows.append([accuracy(head, int(n), seed=seed, samples=samples) for n in lengths])
        if progress is not None:
            progress(done, len(chosen), scheme)
    return LengthTable(check_task(task), chosen, lengths, np.array(rows), tuple(heads))
