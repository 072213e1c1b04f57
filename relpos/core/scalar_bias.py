"""Query-independent position bias: one learned scalar per clipped offset.

Shaw et al. (2018) add ``q_i · a^K_clip(j-i)``: the table row is shared along a
diagonal, but the bias still depends on the query. Later models (T5's bucketed bias,
ALiBi's linear penalty) add a number ``b_clip(j-i)`` that ignores the query, so every
diagonal of the bias matrix is exactly constant. This module computes that variant
with the same clipping convention as :mod:`relpos.core.attention` (entry ``r`` is offset
``r - k``), so the two can be compared cell by cell.
"""

from __future__ import annotations

import numpy as np

from relpos.core.attention import AttentionResult, combine_scores, content_scores
from relpos.core.checks import as_count, as_float_array, as_matrix, same_width
from relpos.core.offsets import place_relative

__all__ = ["scalar_bias_attention", "scalar_position_biases"]


def _as_scalar_table(per_offset) -> np.ndarray:
    """A 1-D table of 2k+1 finite scalars, or ValueError naming `per_offset`."""
    table = as_float_array(per_offset, "per_offset")
    if table.ndim != 1:
        raise ValueError(f"per_offset must be 1-D (2k+1,), one scalar per offset; got shape {table.shape}")
    if table.size % 2 == 0:
        raise ValueError(f"per_offset must have an odd length 2k+1 (offsets -k..+k); got {table.size} entries")
    return table


def scalar_position_biases(per_offset, n_q, n_k=None) -> np.ndarray:
    """Bias ``b_clip(j-i, k)`` that is the same for every query.

    Parameters
    ----------
    per_offset : array_like, shape (2k+1,)
        One scalar per offset; entry ``r`` is offset ``r - k``.
    n_q : int
        Number of queries, at least 1.
    n_k : int, optional
        Number of keys, at least 1; defaults to ``n_q``.

    Returns
    -------
    bias : ndarray of float64, shape (n_q, n_k)
        ``bias[i, j] = per_offset[clip(j - i, k) + k]``: constant along every diagonal.

    Notes
    -----
    .. math:: b_{ij} = w_{\\mathrm{clip}(j - i, k)}

    No query and no :math:`1/\\sqrt{d}`: the scalar is added to the logit as it is (T5
    and ALiBi do the same). Every query row sees the same ``2k + 1`` numbers, so the
    table is broadcast to ``(n_q, 2k+1)`` without a copy and placed on the grid by
    :func:`relpos.place_relative`.

    Examples
    --------
    >>> scalar_position_biases([-0.3, 0.4, 0.1, -0.2, -0.5], 3)
    array([[ 0.1, -0.2, -0.5],
           [ 0.4,  0.1, -0.2],
           [-0.3,  0.4,  0.1]])
    """
    table = _as_scalar_table(per_offset)  # (2k+1,)
    n_q = as_count(n_q, "n_q")
    n_k = n_q if n_k is None else as_count(n_k, "n_k")
    # b_ij = w_{clip(j - i, k)}: the same per-offset row for every query
    return place_relative(np.broadcast_to(table, (n_q, table.size)), n_k)  # (n_q, n_k)


def scalar_bias_attention(Q, K, per_offset, *, causal=False, scale=True) -> AttentionResult:
    """Attention whose position term is a scalar per offset instead of ``q_i · a^K``.

    Parameters
    ----------
    Q : array_like, shape (n_q, d) or (n_q,)
        Queries; a 1-D array means d = 1.
    K : array_like, shape (n_k, d) or (n_k,)
        Keys with the same d.
    per_offset : array_like, shape (2k+1,)
        The scalar bias of each offset ``-k..+k``.
    causal : bool, default False
        Mask keys after the query (``j > i``).
    scale : bool, default True
        Divide the content term by ``sqrt(d)`` (the scalar bias is never scaled).

    Returns
    -------
    result : AttentionResult
        ``bias`` holds the scalar biases; ``output`` fields are None.

    Notes
    -----
    .. math::
        e_{ij} = \\frac{q_i \\cdot k_j}{\\sqrt{d}} + w_{\\mathrm{clip}(j-i,k)}, \\quad
        \\alpha_{ij} = \\mathrm{softmax}_j(e_{ij})

    Examples
    --------
    >>> result = scalar_bias_attention([1.0, 0.5], [0.9, 0.7], [0.4, 0.1, -0.2])
    >>> result.bias
    array([[ 0.1, -0.2],
           [ 0.4,  0.1]])
    >>> result.scores
    array([[1.  , 0.5 ],
           [0.85, 0.45]])
    """
    Q = as_matrix(Q, "Q")  # (n_q, d)
    K = as_matrix(K, "K")  # (n_k, d)
    same_width("Q", Q, "K", K)
    table = _as_scalar_table(per_offset)  # (2k+1,)
    k = (table.size - 1) // 2
    n_q, n_k = Q.shape[0], K.shape[0]
    content = content_scores(Q, K, scale=scale)  # (n_q, n_k)
    bias = scalar_position_biases(table, n_q, n_k)  # (n_q, n_k)
    # e_ij = content_ij + w_{clip(j - i, k)}
    return combine_scores(content, bias, k, causal=causal)
