"""Plain-loop reference implementations: slow, obvious, and the yardstick for relpos.

Each function spells out the formula one pair at a time, with Python scalars, so a
reader can check it against the paper by eye. The real code is tested against these.
"""

from __future__ import annotations

import math

import numpy as np


def rows_of(x) -> list[list[float]]:
    """A 1-D array means d = 1: turn it into one-element rows."""
    array = np.asarray(x, dtype=float)
    return [[float(v)] for v in array] if array.ndim == 1 else array.tolist()


def dot(u: list[float], v: list[float]) -> float:
    return sum(a * b for a, b in zip(u, v, strict=True))


def clip(offset: int, k: int) -> int:
    return max(-k, min(k, offset))


def offsets(n_q: int, n_k: int) -> np.ndarray:
    return np.array([[j - i for j in range(n_k)] for i in range(n_q)])


def content(Q, K, scale: bool = True) -> np.ndarray:
    Q, K = rows_of(Q), rows_of(K)
    divisor = math.sqrt(len(Q[0])) if scale else 1.0
    return np.array([[dot(q, k) / divisor for k in K] for q in Q])


def biases(Q, A_K, n_k: int, scale: bool = True) -> np.ndarray:
    Q, A_K = rows_of(Q), rows_of(A_K)
    k = (len(A_K) - 1) // 2
    divisor = math.sqrt(len(Q[0])) if scale else 1.0
    return np.array([[dot(q, A_K[clip(j - i, k) + k]) / divisor for j in range(n_k)] for i, q in enumerate(Q)])


def softmax_row(logits: list[float], keep: list[bool]) -> list[float]:
    kept = [x for x, use in zip(logits, keep, strict=True) if use]
    if not kept:
        return [0.0] * len(logits)
    top = max(kept)
    exps = [math.exp(x - top) if use else 0.0 for x, use in zip(logits, keep, strict=True)]
    total = sum(exps)
    return [e / total for e in exps]


def softmax_rows(x, mask=None) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    keep = np.ones(x.shape, dtype=bool) if mask is None else np.asarray(mask)
    return np.array([softmax_row(list(row), list(m)) for row, m in zip(x, keep, strict=True)])


def attention_output(weights, V, A_V=None) -> np.ndarray:
    """z_i = sum_j w_ij (v_j + a^V_clip(j-i)), one pair at a time."""
    V = rows_of(V)
    n_q, n_k, d = len(weights), len(V), len(V[0])
    table = rows_of(A_V) if A_V is not None else None
    k = (len(table) - 1) // 2 if table is not None else 0
    out = []
    for i in range(n_q):
        z = [0.0] * d
        for j in range(n_k):
            position = table[clip(j - i, k) + k] if table is not None else [0.0] * d
            for f in range(d):
                z[f] += weights[i][j] * (V[j][f] + position[f])
        out.append(z)
    return np.array(out)


def scalar_biases(per_offset, n_q: int, n_k: int) -> np.ndarray:
    """b_ij = w[clip(j - i, k) + k], one pair at a time (no query, no scaling)."""
    table = [float(v) for v in np.asarray(per_offset, dtype=float)]
    k = (len(table) - 1) // 2
    return np.array([[table[clip(j - i, k) + k] for j in range(n_k)] for i in range(n_q)])


def attention_distance(weights) -> np.ndarray:
    """sum_j w_ij |j - i| for each row, one pair at a time."""
    return np.array([sum(w * abs(j - i) for j, w in enumerate(row)) for i, row in enumerate(np.asarray(weights))])


def mean_offset(weights) -> np.ndarray:
    """sum_j w_ij (j - i) for each row, one pair at a time."""
    return np.array([sum(w * (j - i) for j, w in enumerate(row)) for i, row in enumerate(np.asarray(weights))])
