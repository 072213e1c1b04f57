"""Computing relative position logits without the ``(n, n, d)`` tensor.

Three ways to get the position term ``b_ij = q_i · a_{clip(j−i)} / √d``:

1. :func:`naive_position_biases` gathers one embedding per query/key pair into an
   ``(n_q, n_k, d)`` tensor and takes dot products: obvious, and ``O(n² d)`` memory.
2. :func:`relpos.position_biases` multiplies the queries with the ``2k + 1`` table rows
   once, ``Q A_Kᵀ`` of shape ``(n, 2k+1)``, and places those logits on the grid.
3. Music Transformer's *skewing* (Huang et al., 2018), for the causal case: multiply
   the queries with one embedding per offset ``−(L−1) .. 0``, ``Q Eᵀ`` of shape
   ``(L, L)``, then pad one column, reshape and drop a row (:func:`skew`), which moves
   every logit to its query/key cell without any index arithmetic.

Memory formulas for the three live here too (:func:`memory_footprint`). NumPy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relpos.core.checks import as_count, as_matrix, as_table, same_width
from relpos.core.offsets import table_rows

__all__ = [
    "MemoryFootprint",
    "SkewSteps",
    "memory_footprint",
    "naive_position_biases",
    "skew",
    "skew_array",
    "skew_embeddings",
    "skew_labels",
    "skewed_position_biases",
]


@dataclass(frozen=True)
class SkewSteps:
    """The intermediates of the skewing trick on an ``(L, L)`` relative-logit matrix.

    Attributes
    ----------
    relative_logits : ndarray, shape (L, L)
        Input: ``relative_logits[i, m]`` is query ``i``'s logit for offset ``m − (L−1)``,
        so column 0 is offset ``−(L−1)`` and the last column is offset 0.
    padded : ndarray, shape (L, L+1)
        One dummy column (zeros, or the pad label) added on the left.
    reshaped : ndarray, shape (L+1, L)
        The same numbers in the same memory order, read as ``L + 1`` rows of ``L``.
    sliced : ndarray, shape (L, L)
        ``reshaped`` without its first row: cell ``(i, j)`` holds the logit of offset
        ``j − i`` for every ``j ≤ i``; cells above the diagonal hold leftovers
        (pad values and logits of the next query) that a causal mask hides.
    causal : ndarray of bool, shape (L, L)
        ``j ≤ i``: the cells where `sliced` is meaningful.
    result : ndarray, shape (L, L)
        `sliced` with the cells above the diagonal replaced by the pad value.
    """

    relative_logits: np.ndarray
    padded: np.ndarray
    reshaped: np.ndarray
    sliced: np.ndarray
    causal: np.ndarray
    result: np.ndarray


def skew_array(relative_logits: np.ndarray, pad_value) -> SkewSteps:
    """The bare pad/reshape/slice moves on any square array, without validation.

    Parameters
    ----------
    relative_logits : ndarray, shape (L, L), any dtype
        Numbers, labels, offsets or masks: whatever should follow the moves.
    pad_value : scalar
        Value of the dummy column (and of the cells above the diagonal in ``result``).

    Returns
    -------
    steps : SkewSteps

    Notes
    -----
    :func:`skew` and :func:`skew_labels` call this, so the labels drawn on the page
    move exactly like the numbers.

    Examples
    --------
    >>> skew_array(np.array([[True, False], [True, True]]), False).sliced
    array([[False, False],
           [ True,  True]])
    """
    n = relative_logits.shape[0]
    pad_column = np.full((n, 1), pad_value, dtype=relative_logits.dtype)
    # pad a dummy column on the left: (L, L) -> (L, L+1)
    padded = np.concatenate([pad_column, relative_logits], axis=1)
    # read the same row-major memory as L+1 rows of length L
    reshaped = padded.reshape(n + 1, n)
    # drop the first row: S_rel[i, j] = relative_logits[i, j - i + L - 1] for j <= i
    sliced = reshaped[1:]
    causal = np.tril(np.ones((n, n), dtype=bool))
    result = np.where(causal, sliced, np.asarray(pad_value, dtype=relative_logits.dtype))
    for array in (padded, causal, result):
        array.setflags(write=False)
    return SkewSteps(relative_logits, padded, reshaped, sliced, causal, result)


def skew(relative_logits) -> SkewSteps:
    """Music Transformer's skewing: move per-offset logits onto the query/key grid.

    Parameters
    ----------
    relative_logits : array_like, shape (L, L)
        ``relative_logits[i, m] = q_i · e_m``, where embedding ``e_m`` belongs to the
        offset ``m − (L−1)``: column 0 is offset ``−(L−1)``, column ``L−1`` offset 0.

    Returns
    -------
    steps : SkewSteps
        ``padded`` (L, L+1), ``reshaped`` (L+1, L), ``sliced`` (L, L) and ``result``
        (L, L), which holds ``q_i · e_{j−i}`` for ``j ≤ i`` and 0 above the diagonal.

    Notes
    -----
    .. math:: S^{\\mathrm{rel}}_{ij} = (Q E^\\top)_{i,\\, j - i + L - 1}, \\quad j \\le i

    Row ``i`` of the padded ``(L, L+1)`` matrix starts at flat position
    ``i (L+1)``; read in rows of ``L``, row ``i + 1`` starts at ``(i+1) L``, which
    is ``L − i`` cells into padded row ``i``: exactly where offset ``−i`` (key 0)
    sits. Each later row starts one cell earlier, so every row shifts by one more:
    the shift that turns per-offset columns into per-key columns. Only the causal
    half (``j ≤ i``) is meaningful; the rest is masked in a decoder anyway.

    Examples
    --------
    >>> steps = skew([[1.0, 2.0], [3.0, 4.0]])  # columns: offsets -1, 0
    >>> steps.padded
    array([[0., 1., 2.],
           [0., 3., 4.]])
    >>> steps.reshaped
    array([[0., 1.],
           [2., 0.],
           [3., 4.]])
    >>> steps.result  # (0, 0): offset 0 -> 2; (1, 0): offset -1 -> 3; (1, 1): offset 0 -> 4
    array([[2., 0.],
           [3., 4.]])
    """
    if np.ndim(relative_logits) != 2:
        raise ValueError(f"relative_logits must be 2-D (L, L); got {np.ndim(relative_logits)}-D input")
    logits = as_matrix(relative_logits, "relative_logits")  # (L, L)
    if logits.shape[0] != logits.shape[1]:
        raise ValueError(
            f"relative_logits must be square (L, L): one column per offset -(L-1)..0; got shape {logits.shape}"
        )
    return skew_array(logits, 0.0)


def skew_labels(length, *, query: str = "q", embedding: str = "e", pad: str = "0", offset_name=str) -> SkewSteps:
    """The skewing steps on symbolic labels, for drawing the trick cell by cell.

    Parameters
    ----------
    length : int
        Sequence length L, at least 1.
    query, embedding : str
        Symbols for queries and embeddings.
    pad : str
        Label of the dummy cells.
    offset_name : callable, int -> str
        Writes an offset (0, -1, ...). The math stays text-free: pages pass the one
        number formatter, ``relpos.text.numbers.offset``, for a true minus sign.

    Returns
    -------
    steps : SkewSteps
        The same pad/reshape/slice as :func:`skew`, applied to the labels
        ``"q{i}·e({offset})"`` with positions numbered from 1 (as on screen).

    Notes
    -----
    .. math:: \\text{label}_{i m} = q_{i+1} \\cdot e_{m - (L-1)}

    Examples
    --------
    >>> skew_labels(2).result.tolist()
    [['q1·e(0)', '0'], ['q2·e(-1)', 'q2·e(0)']]
    """
    n = as_count(length, "length")
    offsets = np.arange(-(n - 1), 1)  # (L,): the offset of each column
    names = [offset_name(int(offset)) for offset in offsets]
    labels = np.array([[f"{query}{i + 1}·{embedding}({name})" for name in names] for i in range(n)], dtype=object)
    return skew_array(labels, pad)


def skew_embeddings(A_K, length) -> np.ndarray:
    """The ``(L, d)`` embedding matrix E the skewing trick needs, from a clipped table.

    Parameters
    ----------
    A_K : array_like, shape (2k+1, d) or (2k+1,)
        Relative embeddings; row ``r`` is offset ``r − k``.
    length : int
        Sequence length L, at least 1.

    Returns
    -------
    E : ndarray, shape (L, d)
        Row ``m`` is the embedding of offset ``m − (L−1)``, clipped to ``[−k, 0]``
        (offsets of a causal model are never positive). With ``k ≥ L − 1`` nothing
        is clipped and E is simply the table's rows for offsets ``−(L−1) .. 0``.

    Notes
    -----
    .. math:: E_m = a^K_{\\mathrm{clip}(m - (L-1),\\, k)}

    Examples
    --------
    >>> skew_embeddings([10.0, 20.0, 30.0], 4).ravel()  # k = 1: offsets -3, -2, -1, 0
    array([10., 10., 10., 20.])
    """
    table, k = as_table(A_K, "A_K")  # (2k+1, d)
    n = as_count(length, "length")
    # table row of offset o = m - (L-1) is clip(o, k) + k; the offsets -(L-1)..0 are
    # the first column of table_rows(L, 1, k): query i against key 0 has offset -i.
    rows = table_rows(n, 1, k)[::-1, 0]  # (L,)
    return table[rows]  # (L, d)


def skewed_position_biases(Q, A_K, *, scale=True) -> np.ndarray:
    """Causal position term by Music Transformer's skewing; zero above the diagonal.

    Parameters
    ----------
    Q : array_like, shape (L, d) or (L,)
        Queries, one per position (self-attention: queries and keys share positions).
    A_K : array_like, shape (2k+1, d) or (2k+1,)
        Relative embeddings; row ``r`` is offset ``r − k``.
    scale : bool, default True
        Divide by ``sqrt(d)``.

    Returns
    -------
    bias : ndarray of float64, shape (L, L)
        ``q_i · a^K_{clip(j−i, k)} / √d`` for ``j ≤ i`` (the same numbers as
        :func:`relpos.position_biases` there) and 0 for ``j > i``.

    Notes
    -----
    .. math:: S^{\\mathrm{rel}} = \\mathrm{skew}\\!\\left(Q E^\\top\\right) / \\sqrt{d}

    The only extra memory is E, ``(L, d)``, and one padded ``(L, L+1)`` copy of the
    logits, never an ``(L, L, d)`` tensor.

    Examples
    --------
    >>> skewed_position_biases([1.0, 0.5, 0.8], [-0.3, 0.4, 0.1, -0.2, -0.5])
    array([[ 0.1 ,  0.  ,  0.  ],
           [ 0.2 ,  0.05,  0.  ],
           [-0.24,  0.32,  0.08]])
    """
    Q = as_matrix(Q, "Q")  # (L, d)
    table, _ = as_table(A_K, "A_K")  # (2k+1, d)
    same_width("Q", Q, "A_K", table)
    n = Q.shape[0]
    E = skew_embeddings(table, n)  # (L, d)
    # Q E^T, written straight into the padded buffer (the dummy column stays 0):
    # query i against the embedding of every offset -(L-1)..0, einsum "id,md->im"
    padded = np.zeros((n, n + 1))  # (L, L+1)
    np.matmul(Q, E.T, out=padded[:, 1:])
    if scale:
        padded[:, 1:] /= np.sqrt(Q.shape[1])
    # reshape (a view: nothing is copied) and drop the first row, as in skew()
    sliced = padded.reshape(n + 1, n)[1:]  # (L, L)
    # keep j <= i; above the diagonal sit leftovers
    return np.tril(sliced)  # (L, L)


def naive_position_biases(Q, A_K, *, n_k=None, scale=True) -> np.ndarray:
    """The gather baseline: build every pair's embedding, then take dot products.

    Parameters
    ----------
    Q : array_like, shape (n_q, d) or (n_q,)
        Queries.
    A_K : array_like, shape (2k+1, d) or (2k+1,)
        Relative embeddings; row ``r`` is offset ``r − k``.
    n_k : int, optional
        Number of keys; defaults to ``n_q``.
    scale : bool, default True
        Divide by ``sqrt(d)``.

    Returns
    -------
    bias : ndarray of float64, shape (n_q, n_k)
        The same numbers as :func:`relpos.position_biases`.

    Notes
    -----
    .. math:: A_{ij} = a^K_{\\mathrm{clip}(j-i,\\,k)}, \\quad
              b_{ij} = \\frac{q_i \\cdot A_{ij}}{\\sqrt{d}}

    ``A`` has shape ``(n_q, n_k, d)``: ``n_q · n_k · d · 8`` bytes in float64. This
    is the reference the efficient methods are timed against; do not use it for
    long sequences.

    Examples
    --------
    >>> naive_position_biases([1.0, 0.5], [-0.3, 0.4, 0.1, -0.2, -0.5], n_k=4)
    array([[ 0.1 , -0.2 , -0.5 , -0.5 ],
           [ 0.2 ,  0.05, -0.1 , -0.25]])
    """
    Q = as_matrix(Q, "Q")  # (n_q, d)
    table, k = as_table(A_K, "A_K")  # (2k+1, d)
    same_width("Q", Q, "A_K", table)
    n_q = Q.shape[0]
    n_k = n_q if n_k is None else as_count(n_k, "n_k")
    # A_ij = a^K_clip(j - i, k): one d-vector per pair
    gathered = table[table_rows(n_q, n_k, k)]  # (n_q, n_k, d)
    # b_ij = q_i · A_ij / sqrt(d)
    return np.einsum("id,ijd->ij", Q, gathered) / (np.sqrt(Q.shape[1]) if scale else 1.0)  # (n_q, n_k)


@dataclass(frozen=True)
class MemoryFootprint:
    """Bytes of the intermediates each method needs for one layer (all heads).

    Attributes
    ----------
    gathered : int
        Naive gather: one ``d_head`` vector per pair and head, ``n² · D`` numbers.
    relative_logits : int
        ``Q A_Kᵀ``: ``heads · n · (2k+1)`` numbers.
    skew_embeddings : int
        Skewing's ``E``: one ``d_head`` embedding per offset and head, ``n · D``
        numbers (``L × D_h`` per head in the Music Transformer paper).
    scores : int
        The ``heads · n²`` attention logits every method produces (needed anyway).
    """

    gathered: int
    relative_logits: int
    skew_embeddings: int
    scores: int


def memory_footprint(n, d_model, *, k=None, heads=1, itemsize=4) -> MemoryFootprint:
    """Memory formulas for the three ways of computing relative logits.

    Parameters
    ----------
    n : int
        Sequence length (L in the Music Transformer paper).
    d_model : int
        Total feature size D over all heads (``heads · d_head``).
    k : int, optional
        Clipping distance of the Shaw table; defaults to ``n − 1`` (no clipping).
    heads : int, default 1
        Number of attention heads; must divide `d_model`.
    itemsize : int, default 4
        Bytes per number (4 for float32, 2 for float16, 8 for float64).

    Returns
    -------
    footprint : MemoryFootprint

    Notes
    -----
    .. math::
        \\text{gather} = n^2 D b, \\quad
        \\text{Q}A^\\top = H n (2k+1) b, \\quad
        E = n D b, \\quad
        \\text{scores} = H n^2 b

    Examples
    --------
    >>> memory = memory_footprint(2048, 512, heads=8)  # Music Transformer's example
    >>> memory.gathered, memory.skew_embeddings
    (8589934592, 4194304)
    """
    n = as_count(n, "n")
    d_model = as_count(d_model, "d_model")
    heads = as_count(heads, "heads")
    itemsize = as_count(itemsize, "itemsize")
    k = n - 1 if k is None else as_count(k, "k", minimum=0)
    if d_model % heads:
        raise ValueError(f"d_model must be a multiple of heads; got d_model = {d_model}, heads = {heads}")
    return MemoryFootprint(
        gathered=n * n * d_model * itemsize,
        relative_logits=heads * n * (2 * k + 1) * itemsize,
        skew_embeddings=n * d_model * itemsize,
        scores=heads * n * n * itemsize,
    )
