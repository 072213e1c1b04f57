"""The value side of Shaw et al.'s relative attention (NumPy only).

Besides ``a^K`` in the scores, Shaw et al. add a second table ``a^V`` to the values:
``z_i = Σ_j α_ij (v_j + a^V_clip(j−i, k))``. The output therefore splits into a content
part ``Σ_j α_ij v_j`` and a position part ``Σ_j α_ij a^V_clip(j−i, k)``. This module
holds the value-side example and the computations behind its page.

A *full* table covers every offset a sequence of n tokens has, ``−(n−1) .. n−1``
(``2n − 1`` rows); the table for clipping distance k is its middle ``2k + 1`` rows, so
changing k reuses the same learned numbers instead of inventing new ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relpos.core.attention import AttentionResult, relative_attention
from relpos.core.checks import as_count, as_matrix, as_table
from relpos.core.examples import worked_example
from relpos.core.offsets import table_rows

__all__ = [
    "QueryValueTerms",
    "ValueExample",
    "ValueParts",
    "query_value_terms",
    "value_example",
    "value_parts_by_k",
    "weight_per_offset",
    "window_table",
]


def window_table(full_table, k) -> np.ndarray:
    """The rows of a full relative table for offsets ``−k .. +k``.

    Parameters
    ----------
    full_table : array_like, shape (2m+1, d) or (2m+1,)
        Row ``r`` holds offset ``r − m``.
    k : int
        Clipping distance, ``0 <= k <= m``.

    Returns
    -------
    table : ndarray of float64, shape (2k+1, d)

    Notes
    -----
    .. math:: A^{(k)}_r = A_{r + m - k}, \\quad r = 0 .. 2k

    Examples
    --------
    >>> window_table([-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0], 1).ravel()
    array([-1.,  0.,  1.])
    """
    table, m = as_table(full_table, "full_table")  # (2m+1, d)
    k = as_count(k, "k", minimum=0)
    if k > m:
        raise ValueError(f"k must be at most {m}, the largest offset the full table covers; got k = {k}")
    return table[m - k : m + k + 1]  # (2k+1, d)


def weight_per_offset(weights, k) -> np.ndarray:
    """Attention mass each query puts on each clipped offset ``−k .. +k``.

    Parameters
    ----------
    weights : array_like, shape (n_q, n_k)
        Attention weights (rows sum to 1).
    k : int
        Clipping distance.

    Returns
    -------
    mass : ndarray of float64, shape (n_q, 2k+1)
        ``mass[i, r]`` is the total weight of the keys whose clipped offset is ``r − k``.

    Notes
    -----
    .. math:: W_{ir} = \\sum_{j:\\, \\mathrm{clip}(j-i,k) = r-k} \\alpha_{ij}

    The position part of the output is then :math:`\\sum_r W_{ir}\\, a^V_r`: the
    average of the a^V rows under query i's attention.

    Examples
    --------
    >>> weight_per_offset([[0.5, 0.3, 0.2]], 1)
    array([[0. , 0.5, 0.5]])
    """
    alpha = as_matrix(weights, "weights")  # (n_q, n_k)
    k = as_count(k, "k", minimum=0)
    n_q, n_k = alpha.shape
    rows = table_rows(n_q, n_k, k)  # (n_q, n_k), values 0..2k
    # W_ir = sum over j with row r of alpha_ij
    bins = (np.arange(n_q)[:, None] * (2 * k + 1) + rows).ravel()
    return np.bincount(bins, weights=alpha.ravel(), minlength=n_q * (2 * k + 1)).reshape(n_q, 2 * k + 1)


@dataclass(frozen=True)
class ValueExample:
    """A d = 1 scenario with values and full key- and value-side tables.

    Attributes
    ----------
    queries, keys, values : tuple of float, length n
    key_table, value_table : tuple of float, length 2n − 1
        ``a^K`` and ``a^V`` for offsets ``−(n−1) .. n−1``.
    """

    queries: tuple[float, ...]
    keys: tuple[float, ...]
    values: tuple[float, ...]
    key_table: tuple[float, ...]
    value_table: tuple[float, ...]

    def __post_init__(self):
        n = len(self.queries)
        for name in ("keys", "values"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} must have {n} entries, one per token; got {len(getattr(self, name))}")
        for name in ("key_table", "value_table"):
            if len(getattr(self, name)) != 2 * n - 1:
                raise ValueError(
                    f"{name} must have 2n − 1 = {2 * n - 1} entries (offsets −{n - 1}..+{n - 1}); "
                    f"got {len(getattr(self, name))}"
                )

    @property
    def n(self) -> int:
        return len(self.queries)

    def offsets(self) -> np.ndarray:
        """Offsets of the full tables, ``−(n−1) .. n−1``."""
        return np.arange(-(self.n - 1), self.n)

    def attention(self, k: int) -> AttentionResult:
        """Relative attention with both tables clipped at k."""
        return relative_attention(
            np.array(self.queries),
            np.array(self.keys),
            np.array(self.values),
            A_K=window_table(self.key_table, k),
            A_V=window_table(self.value_table, k),
        )


def value_example() -> ValueExample:
    """The textbook's four tokens, with values and an a^V table of our own.

    The queries, keys and the a^K entries for offsets −2..+2 are the textbook's; it
    gives no a^K for ±3, so those start equal to the ±2 entries (k = 3 then changes
    nothing on the key side until they are edited). The values ``v`` and the table
    ``a^V`` are illustrative numbers chosen for this app.

    Examples
    --------
    >>> example = value_example()
    >>> example.n, len(example.value_table)
    (4, 7)
    >>> example.attention(2).scores[0]
    array([ 1. ,  0.5, -0.1,  0.7])
    """
    textbook = worked_example()
    a_k = textbook.table
    return ValueExample(
        queries=textbook.queries,
        keys=textbook.keys,
        values=(0.6, -0.4, 1.0, 0.2),
        key_table=(a_k[0], *a_k, a_k[-1]),
        value_table=(-0.6, -0.3, 0.2, 0.5, 0.1, -0.2, -0.4),
    )


@dataclass(frozen=True)
class ValueParts:
    """Output parts of every query for each clipping distance ``k = 0 .. n − 1``.

    Attributes
    ----------
    ks : ndarray of int64, shape (m,)
    content, position, output : ndarray, shape (m, n_q, d)
        ``Σ_j α_ij v_j``, ``Σ_j α_ij a^V_clip(j−i,k)`` and their sum, for each k.
    """

    ks: np.ndarray
    content: np.ndarray
    position: np.ndarray
    output: np.ndarray


def value_parts_by_k(example: ValueExample) -> ValueParts:
    """The output split of `example` for every k from 0 to n − 1.

    Notes
    -----
    .. math::
        z_i(k) = \\underbrace{\\sum_j \\alpha_{ij}(k)\\, v_j}_{\\text{content}}
        + \\underbrace{\\sum_j \\alpha_{ij}(k)\\, a^V_{\\mathrm{clip}(j-i,k)}}_{\\text{position}}

    The weights :math:`\\alpha(k)` change with k too (through a^K), so the content
    part moves even though the values do not.

    Examples
    --------
    >>> parts = value_parts_by_k(value_example())
    >>> parts.ks
    array([0, 1, 2, 3])
    >>> bool(np.allclose(parts.position[0], value_example().value_table[3]))
    True
    """
    ks = np.arange(example.n)
    results = [example.attention(int(k)) for k in ks]
    return ValueParts(
        ks=ks,
        content=np.stack([r.output_content for r in results]),  # (m, n_q, d)
        position=np.stack([r.output_position for r in results]),  # (m, n_q, d)
        output=np.stack([r.output for r in results]),  # (m, n_q, d)
    )


@dataclass(frozen=True)
class QueryValueTerms:
    """Every term of one query's output ``z_i``, key by key.

    Attributes
    ----------
    query : int
        0-based query index ``i``.
    offsets, clipped : ndarray of int64, shape (n_k,)
        ``j − i`` and ``clip(j − i, k)``.
    weights : ndarray, shape (n_k,)
        ``α_ij``.
    values, value_embeddings : ndarray, shape (n_k, d)
        ``v_j`` and the table row ``a^V_clip(j−i,k)`` each key uses.
    content_terms, position_terms : ndarray, shape (n_k, d)
        ``α_ij v_j`` and ``α_ij a^V_clip(j−i,k)``; their column sums are the two parts.
    """

    query: int
    offsets: np.ndarray
    clipped: np.ndarray
    weights: np.ndarray
    values: np.ndarray
    value_embeddings: np.ndarray
    content_terms: np.ndarray
    position_terms: np.ndarray

    @property
    def content_part(self) -> np.ndarray:
        """``Σ_j α_ij v_j``, shape (d,)."""
        return self.content_terms.sum(axis=0)

    @property
    def position_part(self) -> np.ndarray:
        """``Σ_j α_ij a^V_clip(j−i,k)``, shape (d,)."""
        return self.position_terms.sum(axis=0)

    @property
    def output(self) -> np.ndarray:
        """``z_i``, shape (d,)."""
        return self.content_part + self.position_part


def query_value_terms(result: AttentionResult, V, A_V, query) -> QueryValueTerms:
    """Split query `query`'s output into its per-key content and position terms.

    Parameters
    ----------
    result : AttentionResult
        The attention pass (its weights and clipped offsets are used).
    V : array_like, shape (n_k, d) or (n_k,)
        The values that pass used.
    A_V : array_like, shape (2k+1, d) or (2k+1,), or None
        Its value-side table (None: no a^V, the position terms are zero).
    query : int
        0-based query index.

    Returns
    -------
    terms : QueryValueTerms

    Notes
    -----
    .. math::
        z_i = \\sum_j \\alpha_{ij} v_j + \\sum_j \\alpha_{ij}\\, a^V_{\\mathrm{clip}(j-i,k)}

    Examples
    --------
    >>> example = value_example()
    >>> result = example.attention(2)
    >>> terms = query_value_terms(result, example.values, window_table(example.value_table, 2), 0)
    >>> bool(np.allclose(terms.output, result.output[0]))
    True
    """
    n_q, n_k = result.weights.shape
    query = as_count(query, "query", minimum=0)
    if query >= n_q:
        raise ValueError(f"query must be an index in 0..{n_q - 1}; got {query}")
    values = as_matrix(V, "V")  # (n_k, d)
    if values.shape[0] != n_k:
        raise ValueError(f"V must have one row per key (n_k = {n_k}); got {values.shape[0]} rows")
    clipped = np.asarray(result.offsets[query])  # (n_k,)
    if A_V is None:
        embeddings = np.zeros_like(values)
    else:
        table, k = as_table(A_V, "A_V")  # (2k+1, d)
        if k != result.k:
            raise ValueError(f"A_V must have 2k+1 = {2 * result.k + 1} rows for k = {result.k}; got {len(table)}")
        embeddings = table[clipped + k]  # (n_k, d)
    weights = np.asarray(result.weights[query])  # (n_k,)
    return QueryValueTerms(
        query=query,
        offsets=np.arange(n_k) - query,
        clipped=clipped,
        weights=weights,
        values=values,
        value_embeddings=embeddings,
        # alpha_ij v_j and alpha_ij a^V_clip(j-i)
        content_terms=weights[:, None] * values,
        position_terms=weights[:, None] * embeddings,
    )
