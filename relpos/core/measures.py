"""Numbers that summarise an attention pattern, for the text the pages compute.

All functions take score or weight matrices of shape ``(n_q, n_k)`` and use the
app's convention: offset = ``j - i`` (key minus query), positions 0-based.
"""

from __future__ import annotations

import numpy as np

from relpos.core.checks import as_float_array
from relpos.core.offsets import relative_offsets

__all__ = [
    "attention_distance",
    "diagonal_spread",
    "mean_offset",
    "row_spread",
    "shift_threshold",
    "weight_on_offsets",
]

#: Values closer than this count as equal in the sentences (float noise of sums of products).
SAME = 1e-12


def _as_grid(matrix, name: str = "matrix") -> np.ndarray:
    array = as_float_array(matrix, name)
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_q, n_k); got shape {array.shape}")
    return array


def diagonal_spread(matrix) -> tuple[np.ndarray, np.ndarray]:
    """Largest minus smallest value along every diagonal (one offset ``j - i``).

    Parameters
    ----------
    matrix : array_like, shape (n_q, n_k)

    Returns
    -------
    offsets : ndarray of int64, shape (n_q + n_k - 1,)
        ``-(n_q - 1) .. n_k - 1``.
    spread : ndarray of float64, shape (n_q + n_k - 1,)
        ``max - min`` over the cells with that offset; 0 means the diagonal is constant.

    Notes
    -----
    .. math:: s_o = \\max_{j - i = o} m_{ij} - \\min_{j - i = o} m_{ij}

    A Shaw bias ``q_i · a^K`` has non-zero spread whenever the queries differ; a
    query-independent bias has spread 0 on every diagonal.

    Examples
    --------
    >>> offsets, spread = diagonal_spread([[0.10, -0.20], [0.20, 0.05]])
    >>> offsets
    array([-1,  0,  1])
    >>> spread.round(2)
    array([0.  , 0.05, 0.  ])
    """
    grid = _as_grid(matrix)  # (n_q, n_k)
    n_q, n_k = grid.shape
    # diagonal index o + n_q - 1 of every cell, o = j - i
    which = (relative_offsets(n_q, n_k) + (n_q - 1)).ravel()  # (n_q * n_k,)
    highest = np.full(n_q + n_k - 1, -np.inf)
    lowest = np.full(n_q + n_k - 1, np.inf)
    np.maximum.at(highest, which, grid.ravel())
    np.minimum.at(lowest, which, grid.ravel())
    return np.arange(-(n_q - 1), n_k), highest - lowest


def attention_distance(weights) -> np.ndarray:
    """How far each query looks on average: ``sum_j alpha_ij |j - i|``.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k)
        Attention weights, each row summing to 1.

    Returns
    -------
    distance : ndarray of float64, shape (n_q,)

    Notes
    -----
    .. math:: D_i = \\sum_j \\alpha_{ij} \\, |j - i|

    Examples
    --------
    >>> attention_distance([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    array([0.5, 1. ])
    """
    grid = _as_grid(weights, "weights")  # (n_q, n_k)
    # D_i = sum_j alpha_ij |j - i|
    return np.einsum("ij,ij->i", grid, np.abs(relative_offsets(*grid.shape)))  # (n_q,)


def mean_offset(weights) -> np.ndarray:
    """Signed average offset of each query's attention: ``sum_j alpha_ij (j - i)``.

    Negative means the query looks back (to earlier keys) on average.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k)

    Returns
    -------
    offset : ndarray of float64, shape (n_q,)

    Notes
    -----
    .. math:: \\bar{o}_i = \\sum_j \\alpha_{ij} \\, (j - i)

    Examples
    --------
    >>> mean_offset([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    array([0.5, 1. ])
    """
    grid = _as_grid(weights, "weights")  # (n_q, n_k)
    # o_i = sum_j alpha_ij (j - i)
    return np.einsum("ij,ij->i", grid, relative_offsets(*grid.shape))  # (n_q,)


def weight_on_offsets(weights, offsets) -> np.ndarray:
    """Weight each query puts on keys at the given offsets ``j - i``.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k)
    offsets : iterable of int
        The offsets to total, e.g. ``(-2, -1)`` for "one or two back".

    Returns
    -------
    total : ndarray of float64, shape (n_q,)

    Notes
    -----
    .. math:: W_i = \\sum_{j:\\, j - i \\in S} \\alpha_{ij}

    Examples
    --------
    >>> weight_on_offsets([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], (-1,))
    array([0. , 0.6])
    """
    grid = _as_grid(weights, "weights")  # (n_q, n_k)
    chosen = np.isin(relative_offsets(*grid.shape), np.asarray(list(offsets), dtype=np.int64))  # (n_q, n_k)
    # W_i = sum over the chosen offsets of alpha_ij
    return np.where(chosen, grid, 0.0).sum(axis=1)  # (n_q,)


def row_spread(matrix, mask=None) -> np.ndarray:
    """Largest minus smallest value of each row, over the keys a query may see.

    A row of spread 0 adds one number to every score of the row: its softmax weights
    do not move.

    Parameters
    ----------
    matrix : array_like, shape (n_q, n_k)
    mask : array_like of bool, shape (n_q, n_k), optional
        Keys each query may attend to (default: all).

    Returns
    -------
    spread : ndarray of float64, shape (n_q,)

    Notes
    -----
    .. math:: s_i = \\max_{j} b_{ij} - \\min_{j} b_{ij}

    Examples
    --------
    >>> row_spread([[0.5, 0.5], [0.1, -0.2]]).round(2)
    array([0. , 0.3])
    """
    grid = _as_grid(matrix)  # (n_q, n_k)
    allowed = np.ones(grid.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    highest = np.where(allowed, grid, -np.inf).max(axis=1)  # (n_q,)
    lowest = np.where(allowed, grid, np.inf).min(axis=1)  # (n_q,)
    return highest - lowest


def shift_threshold(content_weights, bias) -> np.ndarray:
    """Each row's log-mean-exp of its biases, weighted by content: ``log sum_l w_l e^(b_l)`` (not an average).

    Adding biases to a row's scores multiplies key ``j``'s content weight ``w_j`` by
    ``e^(b_j - T_i)``: a key gains weight exactly when its bias is above ``T_i`` and loses
    it exactly when below. ``T_i`` lies between the row's smallest and largest bias and
    moves with them, so only differences within a row count.

    Parameters
    ----------
    content_weights : array_like, shape (n_q, n_k)
        Softmax of the content scores (masked keys 0).
    bias : array_like, shape (n_q, n_k)

    Returns
    -------
    threshold : ndarray of float64, shape (n_q,)

    Notes
    -----
    .. math::
        w'_{ij} = \\frac{w_{ij} e^{b_{ij}}}{\\sum_l w_{il} e^{b_{il}}} = w_{ij}\\, e^{b_{ij} - T_i},
        \\qquad T_i = \\log \\sum_l w_{il} e^{b_{il}}

    Examples
    --------
    >>> shift_threshold([[0.5, 0.5]], [[0.0, 0.0]])
    array([0.])
    >>> shift_threshold([[1.0, 0.0]], [[0.3, -5.0]]).round(6)
    array([0.3])
    """
    w = _as_grid(content_weights, "content_weights")  # (n_q, n_k)
    b = _as_grid(bias, "bias")  # (n_q, n_k)
    used = w > 0
    top = np.where(used, b, -np.inf).max(axis=1, keepdims=True)  # (n_q, 1)
    # T_i = log sum_l w_il e^(b_il), shifted by the row's largest used bias for stability
    total = np.where(used, w * np.exp(np.where(used, b - top, 0.0)), 0.0).sum(axis=1)  # (n_q,)
    return top[:, 0] + np.log(total)
