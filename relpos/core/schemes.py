"""Other ways to give attention a sense of position, next to Shaw et al.'s (NumPy only).

Each scheme below is written to match its paper and the reference code its authors
published, so the app can put them side by side on the same queries and keys:

* absolute sinusoidal encodings (Vaswani et al., 2017), added to the token embeddings;
* T5's bucketed scalar bias (Raffel et al., 2020), one learned number per bucket of j − i;
* ALiBi (Press et al., 2022), a fixed linear penalty ``−m·|j − i|`` with one slope per head;
* RoPE (Su et al., 2021), which rotates queries and keys by an angle proportional to
  their position, so that ``q·k`` depends only on the offset j − i.

Offsets are ``j − i`` (key minus query) everywhere, as in the rest of relpos.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from relpos.core.attention import content_scores, position_biases, relative_offsets, softmax
from relpos.core.checks import as_count, as_float_array, as_matrix, as_table, same_width

__all__ = [
    "SCHEMES",
    "LengthReport",
    "SchemeScores",
    "SchemeSetup",
    "alibi_bias",
    "alibi_slopes",
    "length_generalization",
    "random_scheme_setup",
    "rope",
    "rope_offset_scores",
    "scheme_scores",
    "shaw_offset_biases",
    "sinusoidal_positions",
    "t5_bias",
    "t5_bucket",
    "t5_buckets_seen",
    "translation_changes",
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


# ----------------------------------------------------------------------------- checks


def _as_offsets(value, name: str) -> np.ndarray:
    """Integer offsets as an int64 array (any shape, not empty)."""
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        if array.dtype.kind == "f" and array.size and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
            array = array.astype(np.int64)
        else:
            raise ValueError(f"{name} must be an integer array (offsets j − i); got dtype {array.dtype}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}")
    return array.astype(np.int64, copy=False)


def _as_positive(value, name: str, *, minimum_exclusive: float = 0.0) -> float:
    """A finite real number > minimum_exclusive, as a Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number > {minimum_exclusive:g}; got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number <= minimum_exclusive:
        raise ValueError(f"{name} must be a finite number > {minimum_exclusive:g}; got {value!r}")
    return number


def _as_flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")
    return bool(value)


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
    offsets = _as_offsets(relative_position, "relative_position")
    bidirectional = _as_flag(bidirectional, "bidirectional")
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
    offsets = _as_offsets(offsets, "offsets")
    slope = _as_positive(slope, "slope")
    # b_ij = −m |j − i|  (0.0 − … keeps offset 0 at +0.0, not −0.0)
    return 0.0 - slope * np.abs(offsets).astype(np.float64)


# ----------------------------------------------------------------------------- sinusoids and RoPE


def _frequencies(d: int, base: float) -> np.ndarray:
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
    base = _as_positive(base, "base", minimum_exclusive=1.0)
    # angle_{p,t} = p / base^(2t/d)
    angles = np.arange(n)[:, None] * _frequencies(d, base)[None, :]  # (n, ceil(d/2))
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
    base = _as_positive(base, "base", minimum_exclusive=1.0)
    # angle_{p,t} = p θ_t
    angles = where[:, None] * _frequencies(d, base)[None, :]  # (n, d/2)
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
    where = _as_offsets(offsets, "offsets").reshape(-1)  # (m,)
    keys = rope(np.repeat(key, len(where), axis=0), where, base)  # (m, d)
    return content_scores(rope(query, [0.0], base), keys, scale=scale)[0]  # (m,)


# ----------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class SchemeSetup:
    """One set of tokens, projections and position parameters shared by every scheme.

    Attributes
    ----------
    X : ndarray, shape (n, d_model)
        Token embeddings (before any position information).
    W_q, W_k : ndarray, shape (d_model, d)
        Query and key projections.
    A_K : ndarray, shape (2k+1, d)
        Shaw et al.'s key-side table, offsets ``−k .. +k``.
    t5_values : ndarray, shape (num_buckets,)
        T5's scalar per bucket.
    max_distance : int
        T5's ``max_distance``.
    alibi_slope : float
        The ALiBi head's slope ``m``.
    base : float
        Wavelength scale of the sinusoids and of RoPE.
    """

    X: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    A_K: np.ndarray
    t5_values: np.ndarray
    max_distance: int
    alibi_slope: float
    base: float = 10000.0

    def __post_init__(self):
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.W_q.shape[1]

    @property
    def k(self) -> int:
        return (self.A_K.shape[0] - 1) // 2

    @property
    def num_buckets(self) -> int:
        return len(self.t5_values)

    def queries(self) -> np.ndarray:
        """Position-free queries ``X W_q``."""
        return self.X @ self.W_q  # (n, d)

    def keys(self) -> np.ndarray:
        """Position-free keys ``X W_k``."""
        return self.X @ self.W_k  # (n, d)


def random_scheme_setup(
    n, *, d_model=8, d=4, k=2, num_buckets=16, max_distance=32, alibi_slope=0.5, base=10000.0, seed=0
) -> SchemeSetup:
    """Seeded random tokens, projections, Shaw table and T5 bucket values.

    Parameters
    ----------
    n : int
        Sequence length.
    d_model : int, default 8
        Width of the token embeddings (and of the sinusoidal encodings).
    d : int, default 4
        Width of queries and keys; even, for RoPE.
    k : int, default 2
        Shaw clipping distance.
    num_buckets, max_distance : int
        T5 bucketing (smaller than T5's 32 / 128 so short sequences reach the
        logarithmic buckets).
    alibi_slope : float
        ALiBi slope ``m``.
    base : float
        Sinusoid and RoPE wavelength scale.
    seed : int
        Seed of ``np.random.default_rng``.

    Returns
    -------
    setup : SchemeSetup

    Notes
    -----
    Entries are standard normal, with :math:`W` scaled by :math:`1/\\sqrt{d_{model}}`
    so that queries and keys have unit-size entries like the embeddings.

    .. math:: q_i = x_i W^Q, \\quad k_j = x_j W^K

    Examples
    --------
    >>> setup = random_scheme_setup(5, seed=1)
    >>> setup.X.shape, setup.A_K.shape, setup.t5_values.shape
    ((5, 8), (5, 4), (16,))
    """
    n = as_count(n, "n")
    d_model = as_count(d_model, "d_model")
    d = as_count(d, "d", minimum=2)
    if d % 2:
        raise ValueError(f"d must be even (RoPE rotates feature pairs); got d = {d}")
    k = as_count(k, "k", minimum=0)
    num_buckets = as_count(num_buckets, "num_buckets", minimum=4)
    seed = as_count(seed, "seed", minimum=0)
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d_model))  # (n, d_model)
    W_q = rng.standard_normal((d_model, d)) / np.sqrt(d_model)  # (d_model, d)
    W_k = rng.standard_normal((d_model, d)) / np.sqrt(d_model)  # (d_model, d)
    A_K = rng.standard_normal((2 * k + 1, d))  # (2k+1, d)
    t5_values = rng.standard_normal(num_buckets)  # (num_buckets,)
    # validate the remaining settings once, here, so the setup is always usable
    t5_bucket(0, num_buckets, max_distance)
    return SchemeSetup(
        X=X,
        W_q=W_q,
        W_k=W_k,
        A_K=A_K,
        t5_values=t5_values,
        max_distance=int(max_distance),
        alibi_slope=_as_positive(alibi_slope, "alibi_slope"),
        base=_as_positive(base, "base", minimum_exclusive=1.0),
    )


@dataclass(frozen=True)
class SchemeScores:
    """One scheme's scores for the same tokens.

    Attributes
    ----------
    content : ndarray, shape (n, n)
        Scores of the same tokens without any position information.
    position : ndarray, shape (n, n)
        The position-only contribution, ``scores − content``.
    scores : ndarray, shape (n, n)
        Combined scores.
    weights : ndarray, shape (n, n)
        Softmax of `scores` over keys.
    n_params : int
        Learned position parameters of this scheme in this (one-head) setup.
    """

    content: np.ndarray
    position: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    n_params: int

    def __post_init__(self):
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)


def _additive(content: np.ndarray, position: np.ndarray, n_params: int) -> SchemeScores:
    """A scheme that adds a position term to the content scores."""
    scores = content + position
    return SchemeScores(content, position, scores, softmax(scores), n_params)


def _replacing(content: np.ndarray, scores: np.ndarray, n_params: int) -> SchemeScores:
    """A scheme that changes q and k themselves; its position part is the difference."""
    return SchemeScores(content, scores - content, scores, softmax(scores), n_params)


def scheme_scores(setup: SchemeSetup, *, shift=0) -> dict[str, SchemeScores]:
    """Scores of the same tokens under every scheme of :data:`SCHEMES`.

    Parameters
    ----------
    setup : SchemeSetup
    shift : int, default 0
        The tokens sit at positions ``shift .. shift + n − 1`` (as if `shift` other
        tokens came before them); at least 0.

    Returns
    -------
    results : dict of str to SchemeScores
        Keyed like :data:`SCHEMES`.

    Notes
    -----
    With :math:`P` the sinusoidal encodings of the tokens' positions:

    .. math::
        \\text{none: } \\frac{x_i W^Q (x_j W^K)^T}{\\sqrt d} \\qquad
        \\text{sinusoidal: } \\frac{(x_i + p_i) W^Q ((x_j + p_j) W^K)^T}{\\sqrt d}

    .. math::
        \\text{Shaw: } + \\frac{q_i \\cdot a^K_{\\mathrm{clip}(j-i,k)}}{\\sqrt d} \\quad
        \\text{T5: } + \\beta_{\\mathrm{bucket}(j-i)} \\quad
        \\text{ALiBi: } - m|j - i| \\quad
        \\text{RoPE: } \\frac{(R_i q_i) \\cdot (R_j k_j)}{\\sqrt d}

    Examples
    --------
    >>> results = scheme_scores(random_scheme_setup(4))
    >>> sorted(results) == sorted(SCHEMES)
    True
    >>> float(abs(results["none"].position).max())
    0.0
    """
    shift = as_count(shift, "shift", minimum=0)
    n = setup.n
    positions = shift + np.arange(n)  # (n,)
    Q, K = setup.queries(), setup.keys()  # (n, d) each
    content = content_scores(Q, K)  # (n, n)
    offsets = relative_offsets(n)  # (n, n), j − i: the same for every shift

    # absolute: x_i + p_i before the projections
    P = sinusoidal_positions(shift + n, setup.X.shape[1], setup.base)[shift:]  # (n, d_model)
    X_abs = setup.X + P
    sinusoidal = content_scores(X_abs @ setup.W_q, X_abs @ setup.W_k)  # (n, n)
    # RoPE: rotate q_i by position i and k_j by position j
    rotary = content_scores(rope(Q, positions, setup.base), rope(K, positions, setup.base))  # (n, n)

    return {
        "none": _additive(content, np.zeros_like(content), 0),
        "sinusoidal": _replacing(content, sinusoidal, 0),
        "shaw": _additive(content, position_biases(Q, setup.A_K), setup.A_K.size),
        "t5": _additive(
            content,
            t5_bias(offsets, setup.t5_values, max_distance=setup.max_distance),
            setup.num_buckets,
        ),
        "alibi": _additive(content, alibi_bias(offsets, setup.alibi_slope), 0),
        "rope": _replacing(content, rotary, 0),
    }


def translation_changes(setup: SchemeSetup, shift) -> dict[str, np.ndarray]:
    """How each scheme's scores between the same tokens change when they move by `shift`.

    Returns
    -------
    changes : dict of str to ndarray, shape (n, n)
        ``scores(shift) − scores(0)`` for each scheme; exactly zero, up to rounding
        (about 1e−15), for schemes that see only ``j − i``.

    Notes
    -----
    .. math:: \\Delta_{ij} = e_{ij}(\\text{positions} + s) - e_{ij}(\\text{positions})

    Examples
    --------
    >>> changes = translation_changes(random_scheme_setup(4), 3)
    >>> float(abs(changes["alibi"]).max()), bool(abs(changes["sinusoidal"]).max() > 0.01)
    (0.0, True)
    """
    before = scheme_scores(setup)
    after = scheme_scores(setup, shift=shift)
    return {name: after[name].scores - before[name].scores for name in SCHEMES}


def shaw_offset_biases(q, A_K, offsets, *, scale=True) -> np.ndarray:
    """Shaw bias ``q · a^K_clip(o, k) / √d`` of one query at each offset ``o``.

    Parameters
    ----------
    q : array_like, shape (d,)
    A_K : array_like, shape (2k+1, d)
    offsets : array_like of int, shape (m,)

    Returns
    -------
    biases : ndarray of float64, shape (m,)

    Notes
    -----
    .. math:: b(o) = \\frac{q \\cdot a^K_{\\mathrm{clip}(o, k)}}{\\sqrt d}

    Examples
    --------
    >>> shaw_offset_biases([1.0], [-0.3, 0.4, 0.1, -0.2, -0.5], [-5, 0, 1, 9])
    array([-0.3,  0.1, -0.2, -0.5])
    """
    query = as_float_array(q, "q").reshape(1, -1)  # (1, d)
    table, k = as_table(A_K, "A_K")  # (2k+1, d)
    same_width("q", query, "A_K", table)
    where = _as_offsets(offsets, "offsets").reshape(-1)  # (m,)
    rows = np.clip(where, -k, k) + k  # (m,) table row of clip(o, k)
    # b(o) = q · a^K_clip(o,k) / sqrt(d)
    return (table[rows] @ query[0]) / (np.sqrt(query.shape[1]) if scale else 1.0)


# ----------------------------------------------------------------------------- length generalization


@dataclass(frozen=True)
class LengthReport:
    """What each scheme does at length 2L after "training" at length L.

    Offsets run over every ``j − i`` of a 2L-token sequence; a value was *trained*
    when its offset (or position) already occurred at length L.

    Attributes
    ----------
    trained_length : int
        L.
    offsets : ndarray of int64, shape (4L − 1,)
        ``−(2L−1) .. 2L−1``.
    trained : ndarray of bool, shape (4L − 1,)
        ``|offset| <= L − 1``.
    shaw : ndarray, shape (4L − 1,)
        Shaw bias ``q_1 · a^K_clip(o,k)/√d`` of the first query.
    shaw_clipped : ndarray of bool, shape (4L − 1,)
        ``|offset| > k``: the offset reuses row ±k.
    shaw_row_untrained : ndarray of bool, shape (4L − 1,)
        The row used, ``clip(o, k)``, never occurred at length L (only when k ≥ L).
    t5 : ndarray, shape (4L − 1,)
        T5 bias ``β[bucket(o)]``.
    t5_buckets : ndarray of int64, shape (4L − 1,)
    t5_untrained : ndarray of bool, shape (4L − 1,)
        The bucket never occurred at length L: its value was never trained.
    alibi : ndarray, shape (H, 4L − 1)
        ``−m_h |o|`` for each head.
    rope : ndarray, shape (4L − 1,)
        RoPE score of query 1 with key 2 placed at each offset.
    rope_max_angle : tuple of float
        Largest angle of the slowest rotating pair at length L and at 2L, in radians.
    sinusoids : ndarray, shape (2L, d_model)
        Sinusoidal encodings of positions ``0 .. 2L − 1``.
    pairs_clipped : tuple of float
        Fraction of query/key pairs whose offset Shaw clips, at L and at 2L.
    pairs_untrained_t5 : float
        Fraction of pairs at 2L whose T5 bucket was never trained.
    """

    trained_length: int
    offsets: np.ndarray
    trained: np.ndarray
    shaw: np.ndarray
    shaw_clipped: np.ndarray
    shaw_row_untrained: np.ndarray
    t5: np.ndarray
    t5_buckets: np.ndarray
    t5_untrained: np.ndarray
    alibi: np.ndarray
    rope: np.ndarray
    rope_max_angle: tuple[float, float]
    sinusoids: np.ndarray
    pairs_clipped: tuple[float, float]
    pairs_untrained_t5: float


def _fraction_clipped(length: int, k: int) -> float:
    """Share of the length² pairs with |j − i| > k."""
    return float(np.mean(np.abs(relative_offsets(length)) > k))


def length_generalization(setup: SchemeSetup, trained_length, slopes=None) -> LengthReport:
    """Each scheme's position signal over the offsets of length 2L, trained at L.

    Parameters
    ----------
    setup : SchemeSetup
        Needs at least 2 tokens (query 1 and key 2 are used for the RoPE curve).
    trained_length : int
        L, at least 2.
    slopes : array_like, shape (H,), optional
        ALiBi slopes to draw; defaults to the setup's single slope.

    Returns
    -------
    report : LengthReport

    Notes
    -----
    .. math:: o \\in \\{-(2L-1), \\dots, 2L-1\\}, \\qquad \\text{trained} \\iff |o| \\le L - 1

    Examples
    --------
    >>> report = length_generalization(random_scheme_setup(4, k=2), 4)
    >>> report.offsets[[0, -1]], int(report.trained.sum())
    (array([-7,  7]), 7)
    >>> report.pairs_clipped
    (0.125, 0.46875)
    """
    length = as_count(trained_length, "trained_length", minimum=2)
    if setup.n < 2:
        raise ValueError(f"setup must have at least 2 tokens for the RoPE curve; got n = {setup.n}")
    slopes = np.array([setup.alibi_slope]) if slopes is None else as_float_array(slopes, "slopes").reshape(-1)
    long = 2 * length
    offsets = np.arange(-(long - 1), long)  # (4L − 1,)
    trained = np.abs(offsets) <= length - 1
    Q, K = setup.queries(), setup.keys()
    k = setup.k
    clipped = np.clip(offsets, -k, k)
    buckets = t5_bucket(offsets, setup.num_buckets, setup.max_distance)
    seen = t5_buckets_seen(length, setup.num_buckets, setup.max_distance)
    untrained_bucket = ~np.isin(buckets, seen)
    long_buckets = t5_bucket(relative_offsets(long), setup.num_buckets, setup.max_distance)  # (2L, 2L)
    slowest = float(_frequencies(setup.d, setup.base)[-1])  # θ of the slowest pair
    return LengthReport(
        trained_length=length,
        offsets=offsets,
        trained=trained,
        shaw=shaw_offset_biases(Q[0], setup.A_K, offsets),
        shaw_clipped=np.abs(offsets) > k,
        shaw_row_untrained=np.abs(clipped) > length - 1,
        t5=setup.t5_values[buckets],
        t5_buckets=buckets,
        t5_untrained=untrained_bucket,
        alibi=np.stack([alibi_bias(offsets, m) for m in slopes]),  # (H, 4L − 1)
        rope=rope_offset_scores(Q[0], K[1], offsets, setup.base),
        rope_max_angle=((length - 1) * slowest, (long - 1) * slowest),
        sinusoids=sinusoidal_positions(long, setup.X.shape[1], setup.base),
        pairs_clipped=(_fraction_clipped(length, k), _fraction_clipped(long, k)),
        pairs_untrained_t5=float(np.mean(~np.isin(long_buckets, seen))),
    )
