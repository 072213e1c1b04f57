"""The tiny attention head relpos trains: forward pass and hand-written backward pass (NumPy only).

One layer, one head, causal, over a vocabulary of V tokens, width d, on a batch of
B sequences of n tokens (index letters: ``b`` sequence, ``i`` query, ``j`` key,
``d`` feature, ``r`` table row, ``v`` vocabulary entry):

.. math::
    h_i = E_{x_i} + p_i, \\quad q_i = h_i W_q, \\; k_i = h_i W_k, \\; v_i = h_i W_v,

    e_{ij} = \\frac{q_i \\cdot k_j}{\\sqrt{d}} + b_{ij} \\; (j \\le i), \\quad
    \\alpha_{ij} = \\mathrm{softmax}_j(e_{ij}), \\quad
    \\mathrm{logits}_i = \\Big(\\sum_j \\alpha_{ij} v_j\\Big) W_o

where the position scheme supplies the absolute vector :math:`p_i`, the bias
:math:`b_{ij}`, or rotates :math:`q_i, k_j`. There is no residual path and no
layer norm: the prediction is read from the attended value alone, so a head that
cannot find the right position cannot copy its token.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from relpos.core.attention import softmax
from relpos.core.offsets import relative_offsets, table_rows
from relpos.core.schemes import alibi_bias, sinusoidal_positions, t5_bucket

__all__ = [
    "ALIBI_SLOPE",
    "POSITION_PARAMETER",
    "T5_BUCKETS",
    "T5_MAX_DISTANCE",
    "TRAINING_SCHEMES",
    "Forward",
    "backward",
    "forward",
    "init_params",
    "loss_and_gradient",
]

#: The position schemes, in display order: key -> on-screen name.
TRAINING_SCHEMES = {
    "none": "no positions",
    "absolute": "learned absolute",
    "sinusoidal": "absolute sinusoidal",
    "shaw": "Shaw relative (clip k)",
    "t5": "T5 bucketed bias",
    "alibi": "ALiBi",
    "rope": "RoPE (rotary)",
}

#: The learned position parameter of each scheme (the others learn none).
POSITION_PARAMETER = {"absolute": "positions", "shaw": "A_K", "t5": "t5_bias"}

#: T5 buckets of the head (causal: 8 exact distances 0..7, then 8 logarithmic ones up to 32),
#: as on the schemes page.
T5_BUCKETS = 16
T5_MAX_DISTANCE = 32

#: ALiBi's fixed slope m: the steepest of the standard 8-head set (2^(−8/8)), as on the
#: schemes page; a lone head with the 1-head slope 2^(−8) would barely see position.
ALIBI_SLOPE = 0.5


def init_params(scheme: str, *, vocab: int, d: int, k: int, length: int, rng: np.random.Generator) -> dict:
    """Random starting parameters (float64) for a head with this scheme.

    Token embeddings and absolute positions are N(0, 1); projections are N(0, 1/d), so
    queries, keys and values start with unit-scale entries; Shaw's table is N(0, 1)
    like an embedding; T5's bucket values start at 0, so a bucket that no training
    offset reaches keeps adding nothing.
    """
    scale = 1.0 / math.sqrt(d)
    params = {
        "embed": rng.standard_normal((vocab, d)),  # (V, d)
        "W_q": rng.standard_normal((d, d)) * scale,  # (d, d)
        "W_k": rng.standard_normal((d, d)) * scale,  # (d, d)
        "W_v": rng.standard_normal((d, d)) * scale,  # (d, d)
        "W_o": rng.standard_normal((d, vocab)) * scale,  # (d, V)
    }
    if scheme == "absolute":
        params["positions"] = rng.standard_normal((length, d))  # (L, d)
    elif scheme == "shaw":
        params["A_K"] = rng.standard_normal((2 * k + 1, d))  # (2k+1, d)
    elif scheme == "t5":
        params["t5_bias"] = np.zeros(T5_BUCKETS)  # (T5_BUCKETS,)
    return params


# ----------------------------------------------------------------------------- fixed geometry, per length


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@functools.lru_cache(maxsize=64)
def _causal_mask(n: int) -> np.ndarray:
    """Query i may see keys j <= i, i.e. offset j − i <= 0."""
    return _frozen(relative_offsets(n) <= 0)  # (n, n)


@functools.lru_cache(maxsize=64)
def _sinusoids(n: int, d: int) -> np.ndarray:
    return _frozen(sinusoidal_positions(n, d))  # (n, d)


@functools.lru_cache(maxsize=64)
def _shaw_one_hot(n: int, k: int) -> np.ndarray:
    """one_hot[i, j, r] = 1 where clip(j − i, k) + k = r."""
    rows = table_rows(n, n, k)  # (n, n)
    return _frozen((rows[:, :, None] == np.arange(2 * k + 1)).astype(np.float64))  # (n, n, 2k+1)


@functools.lru_cache(maxsize=64)
def _t5_buckets(n: int) -> np.ndarray:
    """Causal T5 bucket of each offset j − i (keys after the query share bucket 0, masked anyway)."""
    return _frozen(t5_bucket(relative_offsets(n), T5_BUCKETS, T5_MAX_DISTANCE, bidirectional=False))  # (n, n)


@functools.lru_cache(maxsize=64)
def _alibi(n: int) -> np.ndarray:
    return _frozen(alibi_bias(relative_offsets(n), ALIBI_SLOPE))  # (n, n)


def _rotate(x: np.ndarray, sin: np.ndarray, cos: np.ndarray) -> np.ndarray:
    """RoPE on a batch: rotate feature pairs (2t, 2t+1) of row i by angle i θ_t."""
    even, odd = x[..., 0::2], x[..., 1::2]  # (B, n, d/2) each
    rotated = np.empty_like(x)
    # (x'_2t, x'_2t+1) = (x_2t cos − x_2t+1 sin, x_2t sin + x_2t+1 cos)
    rotated[..., 0::2] = even * cos - odd * sin
    rotated[..., 1::2] = even * sin + odd * cos
    return rotated  # (B, n, d)


def _rope_angles(n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """sin and cos of i θ_t, the same angles as the sinusoidal encoding's even and odd columns."""
    table = _sinusoids(n, d)  # (n, d): sin in even columns, cos in odd ones
    return table[:, 0::2], table[:, 1::2]  # (n, d/2) each


# ----------------------------------------------------------------------------- forward


@dataclass(frozen=True)
class Forward:
    """Intermediates of one forward pass, kept for the backward pass.

    Shapes: ``tokens`` (B, n); ``h``, ``q``, ``k``, ``v``, ``q_rot``, ``k_rot``,
    ``z`` (B, n, d); ``weights`` (B, n, n); ``logits`` (B, n, V). ``q_rot`` and
    ``k_rot`` are the queries and keys entering the content term (rotated for RoPE,
    the same arrays otherwise).
    """

    scheme: str
    tokens: np.ndarray
    h: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    q_rot: np.ndarray
    k_rot: np.ndarray
    weights: np.ndarray
    z: np.ndarray
    logits: np.ndarray


def _absolute_rows(n: int, trained_length: int) -> np.ndarray:
    """Row of the learned position table used at each position: beyond the trained length, the last."""
    return np.minimum(np.arange(n), trained_length - 1)  # (n,)


def _inputs(params: dict, tokens: np.ndarray, scheme: str) -> np.ndarray:
    """h_i = E_{x_i} + p_i (p = 0 without absolute positions)."""
    n, d = tokens.shape[1], params["embed"].shape[1]
    h = params["embed"][tokens]  # (B, n, d)
    if scheme == "absolute":
        table = params["positions"]  # (L, d)
        h = h + table[_absolute_rows(n, table.shape[0])]
    elif scheme == "sinusoidal":
        h = h + _sinusoids(n, d)
    return h  # (B, n, d)


def _position_bias(params: dict, q: np.ndarray, scheme: str) -> np.ndarray | float:
    """b_ij of the additive schemes; 0.0 for the others."""
    n, d = q.shape[1], q.shape[2]
    if scheme == "shaw":
        A_K = params["A_K"]  # (2k+1, d)
        # L_ir = q_i · a^K_r / sqrt(d)
        relative_logits = q @ (A_K.T / math.sqrt(d))  # (B, n, 2k+1)
        # b_ij = L_{i, clip(j − i, k) + k}: per query i, (B, 2k+1) @ (2k+1, n)
        one_hot = _shaw_one_hot(n, (A_K.shape[0] - 1) // 2)  # (n, n, 2k+1)
        placed = np.matmul(relative_logits.transpose(1, 0, 2), one_hot.transpose(0, 2, 1))  # (n, B, n)
        return placed.transpose(1, 0, 2)  # (B, n, n)
    if scheme == "t5":
        # b_ij = beta[bucket(j − i)]
        return params["t5_bias"][_t5_buckets(n)]  # (n, n)
    if scheme == "alibi":
        # b_ij = −m |j − i|
        return _alibi(n)  # (n, n)
    return 0.0


def forward(params: dict, tokens: np.ndarray, scheme: str, *, rotation=None) -> Forward:
    """Run the head on a batch of token sequences (B, n); see the module docstring.

    ``rotation``: for "rope", other ``(sin, cos)`` arrays of shape (n, d/2) to rotate by
    (a context extension applied at inference, :func:`relpos.rope_rotation`); None for
    the trained angles.
    """
    n, d = tokens.shape[1], params["embed"].shape[1]
    h = _inputs(params, tokens, scheme)  # (B, n, d)
    q, k, v = h @ params["W_q"], h @ params["W_k"], h @ params["W_v"]  # (B, n, d) each
    q_rot, k_rot = q, k
    if scheme == "rope":
        sin, cos = _rope_angles(n, d) if rotation is None else rotation
        q_rot, k_rot = _rotate(q, sin, cos), _rotate(k, sin, cos)
    # e_ij = q_i · k_j / sqrt(d) + b_ij
    scores = q_rot @ (k_rot.transpose(0, 2, 1) / math.sqrt(d)) + _position_bias(params, q, scheme)  # (B, n, n)
    # alpha_ij = softmax_j(e_ij) over the keys j <= i
    weights = softmax(scores, mask=_causal_mask(n))  # (B, n, n)
    # z_i = sum_j alpha_ij v_j
    z = weights @ v  # (B, n, d)
    logits = z @ params["W_o"]  # (B, n, V)
    return Forward(scheme, tokens, h, q, k, v, q_rot, k_rot, weights, z, logits)


# ----------------------------------------------------------------------------- loss and backward


def cross_entropy(logits: np.ndarray, targets: np.ndarray, scored: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy over the scored positions and its gradient with respect to the logits.

    Returns the loss and ``dL/dlogits`` of shape (B, n, V).
    """
    # log p_iv = logits_iv − log sum_v' exp(logits_iv'), shifted by the row maximum for stability
    shifted = logits - logits.max(axis=-1, keepdims=True)  # (B, n, V)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # (B, n, V)
    count = targets.shape[0] * int(scored.sum())
    target_log_probs = np.take_along_axis(log_probs, targets[..., None], axis=-1)[..., 0]  # (B, n)
    # L = −(1/N) sum over scored (b, i) of log p_{i, y_i}
    loss = -float(target_log_probs[:, scored].sum()) / count
    # dL/dlogits_iv = (p_iv − [v = y_i]) / N at scored positions, 0 elsewhere
    grad = np.exp(log_probs)  # (B, n, V)
    np.put_along_axis(grad, targets[..., None], np.take_along_axis(grad, targets[..., None], axis=-1) - 1.0, axis=-1)
    grad *= scored[None, :, None] / count
    return loss, grad


def _score_gradients(params: dict, run: Forward, d_scores: np.ndarray, grads: dict) -> tuple[np.ndarray, np.ndarray]:
    """dL/dq and dL/dk from dL/de (B, n, n); adds the position parameters' gradients to `grads`."""
    n, d = d_scores.shape[1], run.q.shape[2]
    # e_ij ∋ q_i · k_j / sqrt(d): dq_i = sum_j de_ij k_j / sqrt(d), dk_j = sum_i de_ij q_i / sqrt(d)
    dq = d_scores @ (run.k_rot / math.sqrt(d))  # (B, n, d)
    dk = d_scores.transpose(0, 2, 1) @ (run.q_rot / math.sqrt(d))  # (B, n, d)
    if run.scheme == "rope":
        # rotations are orthogonal: the gradient rotates back by −i θ_t
        sin, cos = _rope_angles(n, d)
        dq, dk = _rotate(dq, -sin, cos), _rotate(dk, -sin, cos)
    elif run.scheme == "shaw":
        A_K = params["A_K"]  # (2k+1, d)
        one_hot = _shaw_one_hot(n, (A_K.shape[0] - 1) // 2)  # (n, n, 2k+1)
        # G_ir = sum over keys j with clip(j − i, k) + k = r of de_ij: the per-offset totals of
        # each query row, the transpose of the placement in relpos.core.attention.place_relative
        per_offset = np.matmul(d_scores.transpose(1, 0, 2), one_hot).transpose(1, 0, 2)  # (B, n, 2k+1)
        # b_ij = q_i · a^K_r / sqrt(d): dq_i += sum_r G_ir a^K_r / sqrt(d)
        dq += per_offset @ (A_K / math.sqrt(d))
        # a shared table entry's gradient is the sum of dL/de_ij · q_i / sqrt(d) over its
        # diagonal(s) (every diagonal beyond the window for r = 0): dA_r = sum_i G_ir q_i / sqrt(d)
        grads["A_K"] = per_offset.reshape(-1, A_K.shape[0]).T @ run.q.reshape(-1, d) / math.sqrt(d)  # (2k+1, d)
    elif run.scheme == "t5":
        # b_ij = beta[bucket(j − i)]: dbeta_u = sum of de_ij over the cells in bucket u
        per_cell = d_scores.sum(axis=0)  # (n, n)
        grads["t5_bias"] = np.bincount(_t5_buckets(n).ravel(), weights=per_cell.ravel(), minlength=T5_BUCKETS)
    return dq, dk


def _input_gradients(params: dict, run: Forward, dh: np.ndarray, grads: dict) -> None:
    """Token-embedding (and learned position) gradients from dL/dh (B, n, d)."""
    vocab, d = params["embed"].shape
    # h_i = E_{x_i} + p_i: dE_v = sum of dh_i over positions holding token v
    one_hot = (run.tokens.reshape(-1, 1) == np.arange(vocab)).astype(np.float64)  # (B n, V)
    grads["embed"] = one_hot.T @ dh.reshape(-1, d)  # (V, d)
    if run.scheme == "absolute":
        trained_length, n = params["positions"].shape[0], dh.shape[1]
        per_position = dh.sum(axis=0)  # (n, d)
        # dp_l = sum over the batch of dh_l for l < L − 1 ...
        grads["positions"] = np.zeros_like(params["positions"])  # (L, d)
        grads["positions"][: min(n, trained_length)] = per_position[:trained_length]
        # ... and the last row also collects every position i >= L, which reads it too
        grads["positions"][-1] += per_position[trained_length:].sum(axis=0)


def _flat(x: np.ndarray) -> np.ndarray:
    """(B, n, m) -> (B n, m): every position of every sequence as one row."""
    return x.reshape(-1, x.shape[-1])


def backward(params: dict, run: Forward, d_logits: np.ndarray) -> dict:
    """Gradient of the loss with respect to every parameter, given dL/dlogits (B, n, V)."""
    grads = {}
    # logits_i = z_i W_o
    grads["W_o"] = _flat(run.z).T @ _flat(d_logits)  # (d, V)
    dz = d_logits @ params["W_o"].T  # (B, n, d)
    # z_i = sum_j alpha_ij v_j
    d_weights = dz @ run.v.transpose(0, 2, 1)  # (B, n, n)
    dv = run.weights.transpose(0, 2, 1) @ dz  # (B, n, d)
    # softmax: de_ij = alpha_ij (dalpha_ij − sum_j' alpha_ij' dalpha_ij'); masked cells have alpha = 0
    d_scores = run.weights * (d_weights - (run.weights * d_weights).sum(axis=-1, keepdims=True))  # (B, n, n)
    dq, dk = _score_gradients(params, run, d_scores, grads)
    # q = h W_q, k = h W_k, v = h W_v
    for name, upstream in (("W_q", dq), ("W_k", dk), ("W_v", dv)):
        grads[name] = _flat(run.h).T @ _flat(upstream)  # (d, d)
    dh = dq @ params["W_q"].T + dk @ params["W_k"].T + dv @ params["W_v"].T  # (B, n, d)
    _input_gradients(params, run, dh, grads)
    return grads


def loss_and_gradient(params: dict, tokens, targets, scored, scheme: str) -> tuple[float, dict]:
    """Cross-entropy of the head on one batch and its gradient for every parameter."""
    run = forward(params, tokens, scheme)
    loss, d_logits = cross_entropy(run.logits, targets, scored)
    return loss, backward(params, run, d_logits)
