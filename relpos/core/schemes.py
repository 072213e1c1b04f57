"""Other ways to give attention a sense of position, next to Shaw et al.'s (NumPy only).

Each scheme below is written to match its paper and the reference code its authors
published, so the app can put them side by side on the same queries and keys:

* absolute sinusoidal encodings (Vaswani et al., 2017), added to the token embeddings;
* T5's bucketed scalar bias (Raffel et al., 2020), one learned number per bucket of j − i;
* ALiBi (Press et al., 2022), a fixed linear penalty ``−m·|j − i|`` with one slope per head;
* RoPE (Su et al., 2021), which rotates queries and keys by an angle proportional to
  their position, so that ``q·k`` depends only on the offset j − i.

The comparison of all of them on one scenario (the translation and length tests) is in
:mod:`relpos.core.scheme_comparison`.

Offsets are ``j − i`` (key minus query) everywhere, as in the rest of relpos.
"""

from __future__ import annotations

import math

import numpy as np

from relpos.core.attention import content_scores
from relpos.core.checks import as_count, as_flag, as_float_array, as_matrix, as_offsets, as_positive, same_width

__all__ = [
    "SCHEMES",
    "alibi_bias",
    "alibi_slopes",
    "rope",
    "rope_offset_scores",
    "sinusoidal_positions",
    "t5_bias",
    "t5_bucket",
    "t5_buckets_seen",
]

#: The compared schemes, in display order: key -> on-screen name.
SCHEMES = {
    "none": "no positions",
    "sinusoidal": "absolute sinusoidal",
    "shaw": "Shaw relative (clip k)",
    "t5": "T5 bucketed bias",
    "alibi": "ALiBi",
    "rope": "RoPE (rotary)",
}


# ----------------------------------------------------------------------------- T5


def t5_bucket(relative_position, num_buckets=32, max_distance=128, bidirectional=True) -> np.ndarray:
    """T5's bucket index for each relative position ``j − i``.

    Parameters
    ----------
    relative_position : array_like of int, any shape
        Offsets ``j − i`` (memory position minus query position, as in T5's code).
    num_buckets : int, default 32
        Buckets in total (both directions when `bidirectional`); at least 4
        bidirectional, 2 otherwise.
    max_distance : int, default 128
        Distances at or beyond this share the last bucket of their direction; must
        exceed the number of exact buckets ``num_buckets // 4`` (bidirectional).
    bidirectional : bool, default True
        Keys before and after the query get separate buckets (T5's encoder); when
        False every key after the query falls into bucket 0 (T5's decoder).

    Returns
    -------
    buckets : ndarray of int64, same shape as `relative_position`
        Values in ``0 .. num_buckets − 1``.

    Notes
    -----
    With :math:`B` buckets per direction (``num_buckets // 2`` when bidirectional),
    :math:`E = \\lfloor B/2 \\rfloor` exact buckets and :math:`n = |j - i|`:

    .. math::
        \\mathrm{bucket}(n) = \\begin{cases}
            n & n < E \\\\
            \\min\\left(B - 1,\\; E + \\left\\lfloor
                \\frac{\\ln(n / E)}{\\ln(D / E)} (B - E) \\right\\rfloor\\right) & n \\ge E
        \\end{cases}

    plus :math:`B` when the key comes after the query (bidirectional). Small distances
    each get their own bucket; larger ones share logarithmically wider buckets up to
    :math:`D` = `max_distance`. The logarithm is taken in float32, as in the reference
    code (Mesh TensorFlow and Hugging Face ``_relative_position_bucket``), so the bucket
    edges match it exactly.

    Examples
    --------
    >>> t5_bucket([0, -1, -8, -16, 1, 16, 127, 500])
    array([ 0,  1,  8, 10, 17, 26, 31, 31])
    >>> t5_bucket([-3, 0, 3], bidirectional=False)
    array([3, 0, 0])
    """
    offsets = as_offsets(relative_position, "relative_position")
    bidirectional = as_flag(bidirectional, "bidirectional")
    num_buckets = as_count(num_buckets, "num_buckets", minimum=4 if bidirectional else 2)
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    max_exact = per_direction // 2
    max_distance = as_count(max_distance, "max_distance", minimum=max_exact + 1)
    if bidirectional:
        # keys after the query (j − i > 0) use the upper half of the buckets
        direction = np.where(offsets > 0, per_direction, 0)
        distance = np.abs(offsets)
    else:
        # only keys before the query are told apart; later keys all map to bucket 0
        direction = np.zeros_like(offsets)
        distance = np.maximum(-offsets, 0)
    # E + floor(ln(n/E) / ln(D/E) · (B − E)), in float32 like the reference code;
    # max(n, 1) only avoids ln(0) in cells that take the exact branch anyway
    ratio = np.maximum(distance, 1).astype(np.float32) / np.float32(max_exact)
    scaled = np.log(ratio) / np.float32(math.log(max_distance / max_exact)) * np.float32(per_direction - max_exact)
    logarithmic = np.minimum(max_exact + scaled.astype(np.int64), per_direction - 1)
    return direction + np.where(distance < max_exact, distance, logarithmic)


def t5_bias(offsets, bucket_values, *, max_distance=128, bidirectional=True) -> np.ndarray:
    """T5's scalar position bias ``b[bucket(j − i)]``, the same for every query.

    Parameters
    ----------
    offsets : array_like of int, any shape
        Offsets ``j − i``.
    bucket_values : array_like, shape (num_buckets,)
        One learned number per bucket (one head); its length is `num_buckets`.
    max_distance, bidirectional
        As in :func:`t5_bucket`.

    Returns
    -------
    bias : ndarray of float64, same shape as `offsets`

    Notes
    -----
    .. math:: b_{ij} = \\beta_{\\mathrm{bucket}(j - i)}

    Examples
    --------
    >>> t5_bias([[0, 1], [-1, 0]], np.arange(8.0), max_distance=8)
    array([[0., 5.],
           [1., 0.]])
    """
    values = as_float_array(bucket_values, "bucket_values")
    if values.ndim != 1:
        raise ValueError(f"bucket_values must be 1-D (num_buckets,); got shape {values.shape}")
    buckets = t5_bucket(offsets, len(values), max_distance, bidirectional)
    # b_ij = beta[bucket(j − i)]
    return values[buckets]


def t5_buckets_seen(length, num_buckets=32, max_distance=128, bidirectional=True) -> np.ndarray:
    """Buckets that occur among the offsets of a sequence of `length` tokens.

    Parameters
    ----------
    length : int
        Sequence length L, at least 1.
    num_buckets, max_distance, bidirectional
        As in :func:`t5_bucket`.

    Returns
    -------
    buckets : ndarray of int64, shape (m,)
        Sorted, distinct bucket indices.

    Notes
    -----
    .. math:: \\{\\mathrm{bucket}(o) : |o| \\le L - 1\\}

    A model trained only on sequences of this length has learned values for these
    buckets alone; any other bucket still holds its initial value.

    Examples
    --------
    >>> t5_buckets_seen(3, num_buckets=8, max_distance=8)
    array([0, 1, 2, 5, 6])
    """
    length = as_count(length, "length")
    offsets = np.arange(-(length - 1), length)  # every j − i with 0 <= i, j < length
    return np.unique(t5_bucket(offsets, num_buckets, max_distance, bidirectional))


# ----------------------------------------------------------------------------- ALiBi


def _power_of_two_slopes(n_heads: int) -> np.ndarray:
    """2^(−8h/H) for h = 1..H."""
    return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)


def alibi_slopes(n_heads) -> np.ndarray:
    """ALiBi's fixed slope ``m`` for each of `n_heads` attention heads.

    Parameters
    ----------
    n_heads : int
        Number of heads, at least 1.

    Returns
    -------
    slopes : ndarray of float64, shape (n_heads,)
        In the order of the reference code (head 1 first).

    Notes
    -----
    For a power of two :math:`H` the slopes are a geometric sequence

    .. math:: m_h = 2^{-8h/H}, \\quad h = 1, \\dots, H

    Otherwise, with :math:`P = 2^{\\lfloor \\log_2 H \\rfloor}` (the closest power of
    two below), the first :math:`P` slopes are those of :math:`P` heads and the other
    :math:`H - P` are every other slope of :math:`2P` heads
    (:math:`2^{-8/(2P)}, 2^{-3 \\cdot 8/(2P)}, \\dots`), as in the paper's code.

    Examples
    --------
    >>> alibi_slopes(8) * 256
    array([128.,  64.,  32.,  16.,   8.,   4.,   2.,   1.])
    >>> alibi_slopes(6) * 256
    array([ 64.,  16.,   4.,   1., 128.,  32.])
    """
    n_heads = as_count(n_heads, "n_heads")
    closest_power = 1 << (n_heads.bit_length() - 1)  # 2^floor(log2 H)
    slopes = _power_of_two_slopes(closest_power)
    if closest_power == n_heads:
        return slopes
    # the remaining heads interleave between those: every other slope of 2P heads
    extra = _power_of_two_slopes(2 * closest_power)[0::2][: n_heads - closest_power]
    return np.concatenate([slopes, extra])  # (n_heads,)


def alibi_bias(offsets, slope) -> np.ndarray:
    """ALiBi's linear distance penalty ``−m·|j − i|``.

    Parameters
    ----------
    offsets : array_like of int, any shape
        Offsets ``j − i``.
    slope : float
        The head's slope ``m > 0`` (see :func:`alibi_slopes`).

    Returns
    -------
    bias : ndarray of float64, same shape as `offsets`

    Notes
    -----
    .. math:: b_{ij} = -m\\,|j - i|

    ALiBi was designed for causal language models, where only keys with ``j <= i``
    are seen and the penalty is :math:`-m(i - j)`; using :math:`|j - i|` extends it to
    keys on both sides.

    Examples
    --------
    >>> alibi_bias([-2, -1, 0, 1], 0.5)
    array([-1. , -0.5,  0. , -0.5])
    """
    offsets = as_offsets(offsets, "offsets")
    slope = as_positive(slope, "slope")
    # b_ij = −m |j − i|  (0.0 − … keeps offset 0 at +0.0, not −0.0)
    return 0.0 - slope * np.abs(offsets).astype(np.float64)


# ----------------------------------------------------------------------------- sinusoids and RoPE


def rotation_frequencies(d: int, base: float) -> np.ndarray:
    """θ_p = base^(−2p/d) for p = 0 .. ceil(d/2) − 1, fastest first."""
    return base ** (-np.arange(0, d, 2) / d)  # (ceil(d/2),)


def sinusoidal_positions(n, d, base=10000.0) -> np.ndarray:
    """The Transformer's fixed sinusoidal position encodings for positions ``0 .. n − 1``.

    Parameters
    ----------
    n : int
        Number of positions, at least 1.
    d : int
        Encoding width (the model width), at least 1.
    base : float, default 10000.0
        Wavelength scale; must be > 1.

    Returns
    -------
    encodings : ndarray of float64, shape (n, d)
        Row ``p`` is added to the embedding of the token at position ``p``.

    Notes
    -----
    .. math::
        PE_{p,\\,2t} = \\sin\\left(\\frac{p}{b^{2t/d}}\\right), \\quad
        PE_{p,\\,2t+1} = \\cos\\left(\\frac{p}{b^{2t/d}}\\right)

    (sine in even columns, cosine in odd ones, as in the paper's formula; some code
    puts all sines first, which only permutes the columns).

    Examples
    --------
    >>> sinusoidal_positions(2, 4).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.01  , 1.    ]])
    """
    n = as_count(n, "n")
    d = as_count(d, "d")
    base = as_positive(base, "base", minimum_exclusive=1.0)
    # angle_{p,t} = p / base^(2t/d)
    angles = np.arange(n)[:, None] * rotation_frequencies(d, base)[None, :]  # (n, ceil(d/2))
    encodings = np.empty((n, d))
    encodings[:, 0::2] = np.sin(angles)
    encodings[:, 1::2] = np.cos(angles[:, : d // 2])
    return encodings


def rope(x, positions, base=10000.0) -> np.ndarray:
    """Rotary position embedding: rotate each feature pair of each row by its position.

    Parameters
    ----------
    x : array_like, shape (n, d)
        Rows to rotate (queries or keys); d must be even.
    positions : array_like, shape (n,)
        Position of each row (integers or reals; a shift by a constant is allowed).
    base : float, default 10000.0
        Wavelength scale; must be > 1.

    Returns
    -------
    rotated : ndarray of float64, shape (n, d)

    Notes
    -----
    Features ``(2t, 2t+1)`` form a pair (the paper's convention) rotated by the angle
    :math:`p\\,\\theta_t` with :math:`\\theta_t = b^{-2t/d}`:

    .. math::
        \\begin{pmatrix} x'_{2t} \\\\ x'_{2t+1} \\end{pmatrix} =
        \\begin{pmatrix} \\cos p\\theta_t & -\\sin p\\theta_t \\\\
                         \\sin p\\theta_t & \\cos p\\theta_t \\end{pmatrix}
        \\begin{pmatrix} x_{2t} \\\\ x_{2t+1} \\end{pmatrix}

    Rotations keep lengths, and :math:`R_{p_q}^T R_{p_k} = R_{p_k - p_q}`, so the
    rotated :math:`q \\cdot k` depends on the positions only through :math:`p_k - p_q`.
    (GPT-NeoX and Hugging Face's LLaMA pair feature ``t`` with ``t + d/2`` instead,
    a fixed permutation of the features with the same property.)

    Examples
    --------
    >>> rope([[1.0, 0.0], [1.0, 0.0]], [0, 1]).round(4)
    array([[1.    , 0.    ],
           [0.5403, 0.8415]])
    """
    rows = as_matrix(x, "x")  # (n, d)
    n, d = rows.shape
    if d % 2:
        raise ValueError(f"x must have an even feature size d (features rotate in pairs); got d = {d}")
    where = as_float_array(positions, "positions")
    if where.shape != (n,):
        raise ValueError(f"positions must be 1-D with one entry per row of x ({n}); got shape {where.shape}")
    base = as_positive(base, "base", minimum_exclusive=1.0)
    # angle_{p,t} = p θ_t
    angles = where[:, None] * rotation_frequencies(d, base)[None, :]  # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = rows[:, 0::2], rows[:, 1::2]  # (n, d/2) each
    rotated = np.empty_like(rows)
    # (x'_2t, x'_2t+1) = (x_2t cos − x_2t+1 sin, x_2t sin + x_2t+1 cos)
    rotated[:, 0::2] = even * cos - odd * sin
    rotated[:, 1::2] = even * sin + odd * cos
    return rotated


def rope_offset_scores(q, k, offsets, base=10000.0, *, scale=True) -> np.ndarray:
    """Rotated score of one query at position 0 with one key at each offset.

    Parameters
    ----------
    q, k : array_like, shape (d,)
        One query and one key (d even).
    offsets : array_like of int, shape (m,)
        Key positions relative to the query.
    base : float
        As in :func:`rope`.
    scale : bool, default True
        Divide by ``sqrt(d)``.

    Returns
    -------
    scores : ndarray of float64, shape (m,)

    Notes
    -----
    .. math:: s(o) = \\frac{(R_0\\, q) \\cdot (R_o\\, k)}{\\sqrt{d}}

    Since RoPE scores depend only on the offset, this is the score of the pair
    wherever in the sequence it sits.

    Examples
    --------
    >>> rope_offset_scores([1.0, 0.0], [1.0, 0.0], [0, 1], scale=False).round(4)
    array([1.    , 0.5403])
    """
    query = as_float_array(q, "q").reshape(1, -1)  # (1, d)
    key = as_float_array(k, "k").reshape(1, -1)  # (1, d)
    same_width("q", query, "k", key)
    where = as_offsets(offsets, "offsets").reshape(-1)  # (m,)
    keys = rope(np.repeat(key, len(where), axis=0), where, base)  # (m, d)
    return content_scores(rope(query, [0.0], base), keys, scale=scale)[0]  # (m,)
