"""Train a tiny attention head live and test it on longer sequences (NumPy only).

A one-layer, single-head, causal attention model (token embeddings, ``W_q``, ``W_k``,
``W_v`` and an output projection; see :mod:`relpos.core.training_model`) learns one of the
copying tasks of :mod:`relpos.core.training_tasks` with a chosen position scheme:

* ``"none"``: no position information at all;
* ``"absolute"``: a learned vector per position ``0 .. L − 1`` added to the token;
  positions at or beyond the trained length L all use the vector of position L − 1
  (the last trained one), since no other vector was ever trained;
* ``"sinusoidal"``: the Transformer's fixed sinusoids added to the token (defined at
  every length, nothing learned);
* ``"shaw"``: Shaw et al.'s key-side table a^K clipped at distance k, offset ``j − i``,
  row ``r`` holding offset ``r − k`` (as in :mod:`relpos.core.attention`);
* ``"t5"``: one learned scalar per T5 bucket of ``j − i``, with T5's *causal*
  (decoder) bucketing, since the head is causal: 16 buckets, distances 0..7 exact,
  then logarithmic buckets up to distance 32. Buckets that no training offset reaches
  keep their initial value 0;
* ``"alibi"``: the fixed penalty ``−m |j − i|`` with ``m = 0.5``, nothing learned;
* ``"rope"``: queries and keys rotated by their position (base 10000).

Training uses a hand-written backward pass and Adam, in float64. Everything random
comes from ``np.random.default_rng(seed)``: same settings, same numbers. Accuracy at
any length, attention patterns and the "train short, test long" table live in
:mod:`relpos.core.training_eval`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from relpos.core.checks import as_count
from relpos.core.training_model import POSITION_PARAMETER, TRAINING_SCHEMES, init_params, loss_and_gradient
from relpos.core.training_tasks import check_length, check_task, random_batch

__all__ = ["Adam", "TrainSettings", "TrainedHead", "check_head", "check_scheme", "make_settings", "train_head"]

#: Adam's moment decay rates and denominator guard (Kingma & Ba's defaults).
ADAM_BETAS = (0.9, 0.999)
ADAM_EPSILON = 1e-8


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


def check_scheme(scheme) -> str:
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
    task, scheme = check_task(task), check_scheme(scheme)
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


def check_head(head) -> TrainedHead:
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
        What each position must predict (see :mod:`relpos.core.training_tasks`).
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
    :func:`relpos.core.training_model.backward` and Adam (betas 0.9 and 0.999).

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
