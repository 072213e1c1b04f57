"""Relative position self-attention (Shaw, Uszkoreit & Vaswani, 2018) in NumPy.

Index letters are fixed throughout: ``i`` is a query position, ``j`` a key position,
``d`` a feature, ``r`` a row of a relative-embedding table. Positions are 0-based.
A table ``A`` of shape ``(2k+1, d)`` holds in row ``r`` the embedding of offset
``r - k``, so row 0 is offset ``-k``, row ``k`` is offset 0 and row ``2k`` is ``+k``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from relpos.core.checks import as_count, as_float_array, as_matrix, as_table, same_width

# the offset helpers live in relpos.core.offsets; imported here for the attention code
# (and so that ``relpos.core.attention.table_rows`` and friends keep working)
from relpos.core.offsets import clip_offsets, place_relative, relative_offsets, table_rows

__all__ = [
    "AttentionResult",
    "clip_offsets",
    "content_scores",
    "place_relative",
    "position_biases",
    "relative_attention",
    "relative_offsets",
    "softmax",
    "table_rows",
]


def _scale_factor(d: int, scale: bool) -> float:
    """Divisor sqrt(d) that keeps dot products of width d at unit scale (or 1)."""
    return float(np.sqrt(d)) if scale else 1.0


def content_scores(Q, K, *, scale=True) -> np.ndarray:
    """Content term of the attention logits, ``q_i · k_j / sqrt(d)``.

    Parameters
    ----------
    Q : array_like, shape (n_q, d) or (n_q,)
        Queries; a 1-D array means d = 1.
    K : array_like, shape (n_k, d) or (n_k,)
        Keys with the same d.
    scale : bool, default True
        Divide by ``sqrt(d)``; ``False`` gives the raw dot products.

    Returns
    -------
    content : ndarray of float64, shape (n_q, n_k)

    Notes
    -----
    .. math:: c_{ij} = \\frac{q_i \\cdot k_j}{\\sqrt{d}}

    Examples
    --------
    >>> content_scores([1.0, 0.5], [0.9, 0.7, 0.4])
    array([[0.9 , 0.7 , 0.4 ],
           [0.45, 0.35, 0.2 ]])
    """
    Q = as_matrix(Q, "Q")  # (n_q, d)
    K = as_matrix(K, "K")  # (n_k, d)
    same_width("Q", Q, "K", K)
    # c_ij = q_i · k_j / sqrt(d), the einsum "id,jd->ij" done as one matrix product
    return (Q @ K.T) / _scale_factor(Q.shape[1], scale)  # (n_q, n_k)


def position_biases(Q, A_K, *, n_k=None, scale=True) -> np.ndarray:
    """Position term of the attention logits, ``q_i · a^K_clip(j-i) / sqrt(d)``.

    Parameters
    ----------
    Q : array_like, shape (n_q, d) or (n_q,)
        Queries; a 1-D array means d = 1.
    A_K : array_like, shape (2k+1, d) or (2k+1,)
        Key-side relative embeddings; row ``r`` is offset ``r - k``. The number of
        rows must be odd and fixes the clipping distance k.
    n_k : int, optional
        Number of keys; defaults to ``n_q``.
    scale : bool, default True
        Divide by ``sqrt(d)``, matching :func:`content_scores`.

    Returns
    -------
    bias : ndarray of float64, shape (n_q, n_k)

    Notes
    -----
    .. math:: b_{ij} = \\frac{q_i \\cdot a^K_{\\mathrm{clip}(j - i, k)}}{\\sqrt{d}}

    Each query meets only ``2k + 1`` distinct embeddings, so the ``(n_q, 2k+1)``
    relative logits ``Q A_K^T`` are computed once and then placed on the grid by
    :func:`place_relative`; the ``(n_q, n_k, d)`` tensor of gathered embeddings is
    never built.

    Examples
    --------
    >>> position_biases([1.0, 0.5], [-0.3, 0.4, 0.1, -0.2, -0.5], n_k=4)
    array([[ 0.1 , -0.2 , -0.5 , -0.5 ],
           [ 0.2 ,  0.05, -0.1 , -0.25]])
    """
    Q = as_matrix(Q, "Q")  # (n_q, d)
    A_K, _ = as_table(A_K, "A_K")  # (2k+1, d)
    same_width("Q", Q, "A_K", A_K)
    n_k = Q.shape[0] if n_k is None else as_count(n_k, "n_k")
    # L_ir = q_i · a^K_r / sqrt(d), the einsum "id,rd->ir"
    relative_logits = (Q @ A_K.T) / _scale_factor(Q.shape[1], scale)  # (n_q, 2k+1)
    # b_ij = L_{i, clip(j - i, k) + k}
    return place_relative(relative_logits, n_k)  # (n_q, n_k)


def softmax(x, axis=-1, mask=None) -> np.ndarray:
    """Numerically stable softmax with an optional mask.

    Parameters
    ----------
    x : array_like of float, any shape
        Logits; must be finite.
    axis : int, default -1
        Axis along which the weights sum to one.
    mask : array_like of bool, optional
        Broadcastable to ``x``; entries where `mask` is False get weight exactly 0.

    Returns
    -------
    weights : ndarray of float64, same shape as `x`
        Non-negative; each slice along `axis` sums to 1. A slice whose entries are
        all masked is all zeros (no key may be attended to, so no weight is given),
        never NaN.

    Notes
    -----
    .. math:: \\alpha_{ij} = \\frac{\\exp(e_{ij} - m_i)}{\\sum_{j'} \\exp(e_{ij'} - m_i)},
              \\quad m_i = \\max_{j'} e_{ij'}

    Subtracting the row maximum leaves the result unchanged but keeps every exponent
    at most 0, so logits of ``±1e6`` do not overflow.

    Examples
    --------
    >>> softmax([1.0, 1.0, 1.0, 1.0])
    array([0.25, 0.25, 0.25, 0.25])
    >>> softmax([[1e6, 0.0], [3.0, 4.0]], mask=[[True, True], [False, False]])
    array([[1., 0.],
           [0., 0.]])
    """
    x = as_float_array(x, "x")
    if not isinstance(axis, (int, np.integer)) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis must be an integer in [{-x.ndim}, {x.ndim - 1}]; got {axis!r}")
    if mask is None:
        keep = np.ones_like(x, dtype=bool)
    else:
        keep = np.asarray(mask)
        if keep.dtype != bool:
            raise ValueError(f"mask must be a boolean array; got dtype {keep.dtype}")
        try:
            keep = np.broadcast_to(keep, x.shape)
        except ValueError:
            raise ValueError(
                f"mask must be broadcastable to the shape of x {x.shape}; got shape {keep.shape}"
            ) from None
    masked = np.where(keep, x, -np.inf)
    # m_i = max_j e_ij over the kept entries (0 for a row with none, to avoid inf - inf)
    row_max = np.max(masked, axis=axis, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    # exp(e_ij - m_i); exp(-inf) is exactly 0 for masked entries
    exponentials = np.exp(masked - row_max)
    # alpha_ij = exp(e_ij - m_i) / sum_j' exp(e_ij' - m_i)
    totals = np.sum(exponentials, axis=axis, keepdims=True)
    return exponentials / np.where(totals > 0, totals, 1.0)


def _readonly(array):
    """Mark an array read-only so a frozen result cannot be changed in place."""
    if array is not None:
        array.setflags(write=False)
    return array


@dataclass(frozen=True)
class AttentionResult:
    """Every intermediate of one relative-position attention pass (read-only arrays).

    Attributes
    ----------
    k : int
        Clipping distance (inferred from the tables; ``max(n_q, n_k) - 1``, meaning
        no clipping, when no table is given).
    offsets : ndarray of int64, shape (n_q, n_k)
        Clipped offsets ``clip(j - i, k)``.
    content : ndarray, shape (n_q, n_k)
        ``q_i · k_j / sqrt(d)``.
    bias : ndarray, shape (n_q, n_k)
        ``q_i · a^K_clip(j-i) / sqrt(d)``; zeros without ``A_K``.
    scores : ndarray, shape (n_q, n_k)
        ``content + bias``.
    weights : ndarray, shape (n_q, n_k)
        Softmax of `scores` over keys (masked keys get 0).
    content_weights : ndarray, shape (n_q, n_k)
        Softmax of `content` alone, with the same mask.
    mask : ndarray of bool, shape (n_q, n_k)
        Which keys each query may attend to.
    output : ndarray, shape (n_q, d) or None
        ``z_i = sum_j weights_ij (v_j + a^V_clip(j-i))``; None without ``V``.
    output_content : ndarray, shape (n_q, d) or None
        The value part ``sum_j weights_ij v_j``.
    output_position : ndarray, shape (n_q, d) or None
        The position part ``sum_j weights_ij a^V_clip(j-i)``; zeros without ``A_V``.
    """

    k: int
    offsets: np.ndarray
    content: np.ndarray
    bias: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    content_weights: np.ndarray
    mask: np.ndarray
    output: np.ndarray | None = None
    output_content: np.ndarray | None = None
    output_position: np.ndarray | None = None

    def __post_init__(self):
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                _readonly(value)


def _clip_distance(A_K, A_V, n_q: int, n_k: int) -> tuple[np.ndarray | None, np.ndarray | None, int]:
    """Validate the two tables and return them with their shared clipping distance."""
    tables = {}
    for name, table in (("A_K", A_K), ("A_V", A_V)):
        if table is not None:
            tables[name] = as_table(table, name)
    distances = {name: k for name, (_, k) in tables.items()}
    if len(set(distances.values())) > 1:
        raise ValueError(
            "A_K and A_V must have the same number of rows (one clipping distance k); "
            f"got {tables['A_K'][0].shape[0]} and {tables['A_V'][0].shape[0]} rows"
        )
    k = next(iter(distances.values()), max(n_q, n_k) - 1)
    A_K = tables["A_K"][0] if "A_K" in tables else None
    A_V = tables["A_V"][0] if "A_V" in tables else None
    return A_K, A_V, k


def _position_values(weights: np.ndarray, A_V: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Sum_j weights_ij a^V_{rows_ij}, by first totalling each row's weight per table row."""
    n_q, n_rows = weights.shape[0], A_V.shape[0]
    # W_ir = sum over j with r_ij = r of alpha_ij
    flat_bins = (np.arange(n_q)[:, None] * n_rows + rows).ravel()
    weight_per_row = np.bincount(flat_bins, weights=weights.ravel(), minlength=n_q * n_rows)
    # sum_r W_ir a^V_r, the einsum "ir,rd->id"
    return weight_per_row.reshape(n_q, n_rows) @ A_V  # (n_q, d)


def relative_attention(Q, K, V=None, *, A_K=None, A_V=None, causal=False, scale=True) -> AttentionResult:
    """Self-attention with relative position representations (Shaw et al., 2018).

    Parameters
    ----------
    Q : array_like, shape (n_q, d) or (n_q,)
        Queries; a 1-D array means d = 1.
    K : array_like, shape (n_k, d) or (n_k,)
        Keys.
    V : array_like, shape (n_k, d) or (n_k,), optional
        Values; without them ``output`` is None.
    A_K : array_like, shape (2k+1, d) or (2k+1,), optional
        Key-side relative embeddings; without them the bias is zero.
    A_V : array_like, shape (2k+1, d) or (2k+1,), optional
        Value-side relative embeddings (needs `V`; same k as `A_K`).
    causal : bool, default False
        Mask keys after the query (``j > i``).
    scale : bool, default True
        Divide both logit terms by ``sqrt(d)``.

    Returns
    -------
    result : AttentionResult

    Notes
    -----
    .. math::
        e_{ij} = \\frac{q_i \\cdot (k_j + a^K_{\\mathrm{clip}(j-i,k)})}{\\sqrt{d}}, \\quad
        \\alpha_{ij} = \\mathrm{softmax}_j(e_{ij}), \\quad
        z_i = \\sum_j \\alpha_{ij} (v_j + a^V_{\\mathrm{clip}(j-i,k)})

    Examples
    --------
    >>> result = relative_attention([1.0, 0.5], [0.9, 0.7], A_K=[0.4, 0.1, -0.2])
    >>> result.scores
    array([[1.  , 0.5 ],
           [0.65, 0.4 ]])
    >>> result.weights.sum(axis=1)
    array([1., 1.])
    """
    Q = as_matrix(Q, "Q")  # (n_q, d)
    K = as_matrix(K, "K")  # (n_k, d)
    same_width("Q", Q, "K", K)
    n_q, n_k = Q.shape[0], K.shape[0]
    A_K, A_V, k = _clip_distance(A_K, A_V, n_q, n_k)
    for name, table in (("A_K", A_K), ("A_V", A_V)):
        if table is not None:
            same_width("Q", Q, name, table)
    if A_V is not None and V is None:
        raise ValueError("A_V needs values V to add to; got A_V but V is None")
    if V is not None:
        V = as_matrix(V, "V")  # (n_k, d)
        if V.shape[0] != n_k:
            raise ValueError(f"V must have one row per key (n_k = {n_k}); got {V.shape[0]} rows")
        same_width("Q", Q, "V", V)

    content = content_scores(Q, K, scale=scale)  # (n_q, n_k)
    if A_K is None:
        bias = np.zeros((n_q, n_k))
    else:
        bias = position_biases(Q, A_K, n_k=n_k, scale=scale)  # (n_q, n_k)
    result = combine_scores(content, bias, k, causal=causal)
    if V is None:
        return result
    # sum_j alpha_ij v_j, the einsum "ij,jd->id"
    output_content = result.weights @ V  # (n_q, d)
    if A_V is None:
        output_position = np.zeros_like(output_content)
    else:
        output_position = _position_values(result.weights, A_V, result.offsets + k)  # (n_q, d)
    # z_i = sum_j alpha_ij (v_j + a^V_clip(j-i))
    output = output_content + output_position
    return dataclasses.replace(result, output=output, output_content=output_content, output_position=output_position)


def combine_scores(content: np.ndarray, bias: np.ndarray, k: int, *, causal: bool = False) -> AttentionResult:
    """The tail every attention variant shares: sum the terms, mask, take both softmaxes.

    Parameters
    ----------
    content : ndarray, shape (n_q, n_k)
        Content scores ``q_i·k_j/√d``.
    bias : ndarray, shape (n_q, n_k)
        Position term of each pair (``q_i·a^K/√d``, or one scalar per offset).
    k : int
        Clipping distance the offsets are clipped to.
    causal : bool, default False
        Mask keys after the query (``j > i``).

    Returns
    -------
    result : AttentionResult
        Without value outputs.

    Notes
    -----
    .. math::
        e_{ij} = c_{ij} + b_{ij}, \\quad \alpha_{ij} = \\mathrm{softmax}_j(e_{ij}), \\quad
        \alpha^{\\mathrm{content}}_{ij} = \\mathrm{softmax}_j(c_{ij})

    Examples
    --------
    >>> combine_scores(np.zeros((2, 2)), np.array([[0.0, -np.log(3)], [0.0, 0.0]]), 1).weights
    array([[0.75, 0.25],
           [0.5 , 0.5 ]])
    """
    n_q, n_k = content.shape
    offsets = relative_offsets(n_q, n_k)  # (n_q, n_k), j - i
    # causal: query i may see keys j <= i, i.e. offset j - i <= 0
    mask = offsets <= 0 if causal else np.ones((n_q, n_k), dtype=bool)
    # e_ij = content_ij + bias_ij
    scores = content + bias  # (n_q, n_k)
    return AttentionResult(
        k=k,
        offsets=clip_offsets(offsets, k),
        content=content,
        bias=bias,
        scores=scores,
        weights=softmax(scores, mask=mask),
        content_weights=softmax(content, mask=mask),
        mask=mask,
    )
