"""Offsets ``j − i`` on the query/key grid: computing, clipping and placing them (NumPy only).

Index letters are fixed throughout: ``i`` is a query position, ``j`` a key position,
``r`` a row of a relative-embedding table. Positions are 0-based. A table of shape
``(2k+1, d)`` holds in row ``r`` the embedding of offset ``r - k``, so row 0 is offset
``-k``, row ``k`` is offset 0 and row ``2k`` is ``+k``. A matrix that depends only on
``j − i`` is constant along diagonals: one offset is one diagonal.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from relpos.core.checks import as_count, as_matrix

__all__ = ["clip_offsets", "place_relative", "relative_offsets", "table_rows"]


def relative_offsets(n_q, n_k=None) -> np.ndarray:
    """Offsets ``j - i`` (key minus query) for every query/key pair.

    Parameters
    ----------
    n_q : int
        Number of queries, at least 1.
    n_k : int, optional
        Number of keys, at least 1; defaults to ``n_q``.

    Returns
    -------
    offsets : ndarray of int64, shape (n_q, n_k)
        ``offsets[i, j] = j - i``.

    Notes
    -----
    .. math:: \\mathrm{offset}_{ij} = j - i

    A positive offset means the key comes after the query. Cells with equal offset lie
    on one diagonal (top-left to bottom-right) of the matrix.

    Examples
    --------
    >>> relative_offsets(3)
    array([[ 0,  1,  2],
           [-1,  0,  1],
           [-2, -1,  0]])
    """
    n_q = as_count(n_q, "n_q")
    n_k = n_q if n_k is None else as_count(n_k, "n_k")
    # offset_ij = j - i
    return np.arange(n_k)[None, :] - np.arange(n_q)[:, None]  # (n_q, n_k)


def clip_offsets(offsets, k) -> np.ndarray:
    """Clip relative offsets to the window ``[-k, k]``.

    Parameters
    ----------
    offsets : array_like of int, any shape
        Offsets ``j - i``, for example from :func:`relative_offsets`.
    k : int
        Clipping distance, at least 0.

    Returns
    -------
    clipped : ndarray of int64, same shape as `offsets`
        ``max(-k, min(k, offset))``.

    Notes
    -----
    .. math:: \\mathrm{clip}(x, k) = \\max(-k, \\min(k, x))

    Every distance beyond ``k`` shares the embedding of distance ``k``, so a model
    needs only ``2k + 1`` embeddings whatever the sequence length.

    Examples
    --------
    >>> clip_offsets([-3, -1, 0, 2, 5], 2)
    array([-2, -1,  0,  2,  2])
    """
    k = as_count(k, "k", minimum=0)
    array = np.asarray(offsets)
    if array.size == 0:
        raise ValueError(f"offsets must not be empty; got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise ValueError(f"offsets must be an integer array; got dtype {array.dtype}")
    # clip(j - i, k) = max(-k, min(k, j - i))
    return np.clip(array.astype(np.int64, copy=False), -k, k)


def table_rows(n_q, n_k, k) -> np.ndarray:
    """Row of a ``(2k+1, d)`` relative-embedding table used by each pair ``(i, j)``.

    Parameters
    ----------
    n_q, n_k : int
        Numbers of queries and keys, at least 1.
    k : int
        Clipping distance, at least 0.

    Returns
    -------
    rows : ndarray of int64, shape (n_q, n_k)
        ``clip(j - i, k) + k``, a value in ``0 .. 2k``.

    Notes
    -----
    .. math:: r_{ij} = \\mathrm{clip}(j - i, k) + k

    Examples
    --------
    >>> table_rows(3, 4, 1)
    array([[1, 2, 2, 2],
           [0, 1, 2, 2],
           [0, 0, 1, 2]])
    """
    k = as_count(k, "k", minimum=0)
    # r_ij = clip(j - i, k) + k
    return clip_offsets(relative_offsets(n_q, n_k), k) + k  # (n_q, n_k)


def _offset_view(by_offset: np.ndarray, n_q: int, n_k: int) -> np.ndarray:
    """Read-only (n_q, n_k) view whose cell (i, j) is ``by_offset[j - i + n_q - 1]``.

    A matrix that depends only on j - i is constant along diagonals (Toeplitz), so it
    can be a strided view of its ``n_q + n_k - 1`` distinct values: no n x n buffer.
    """
    step = by_offset.strides[0]
    return as_strided(by_offset[n_q - 1 :], shape=(n_q, n_k), strides=(-step, step), writeable=False)


def place_relative(relative_logits, n_k) -> np.ndarray:
    """Spread per-offset logits over the query/key grid.

    Parameters
    ----------
    relative_logits : array_like, shape (n_q, 2k+1)
        ``relative_logits[i, r]`` is query ``i``'s logit for offset ``r - k``.
    n_k : int
        Number of keys, at least 1.

    Returns
    -------
    placed : ndarray of float64, shape (n_q, n_k)
        ``placed[i, j] = relative_logits[i, clip(j - i, k) + k]``.

    Notes
    -----
    .. math:: b_{ij} = L_{i,\\, \\mathrm{clip}(j - i, k) + k}

    Beyond the window every cell of a row takes the logit of offset ``-k`` (left) or
    ``+k`` (right), so the grid is first filled with those two per-row values, then
    the ``2k + 1`` diagonals of the window are written. This costs one pass over the
    output plus ``O(n k)``; no ``(n_q, n_k)`` index array and no Python loop over
    pairs.

    Examples
    --------
    >>> place_relative([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], 4)
    array([[2., 3., 3., 3.],
           [1., 2., 3., 3.]])
    """
    if np.ndim(relative_logits) != 2:
        raise ValueError(f"relative_logits must be 2-D (n_q, 2k+1); got {np.ndim(relative_logits)}-D input")
    logits = as_matrix(relative_logits, "relative_logits")  # (n_q, 2k+1)
    if logits.shape[1] % 2 == 0:
        raise ValueError(
            f"relative_logits must have an odd number of columns 2k+1 (offsets -k..+k); got {logits.shape[1]} columns"
        )
    k = (logits.shape[1] - 1) // 2
    n_q = logits.shape[0]
    n_k = as_count(n_k, "n_k")
    # outside the window: offset j - i >= k uses row 2k, offset <= -k uses row 0
    at_or_after_window = _offset_view(np.arange(-(n_q - 1), n_k) >= k, n_q, n_k)  # (n_q, n_k)
    placed = np.where(at_or_after_window, logits[:, -1:], logits[:, :1])  # (n_q, n_k)
    # inside the window: the diagonal with offset o = j - i uses row o + k
    flat = placed.reshape(-1)
    for offset in range(-k + 1, k):
        first_query = max(0, -offset)
        last_query = min(n_q, n_k - offset)  # exclusive
        if first_query >= last_query:
            continue
        start = first_query * n_k + first_query + offset
        flat[start : start + (last_query - first_query) * (n_k + 1) : n_k + 1] = logits[
            first_query:last_query, offset + k
        ]
    return placed
