"""Six position schemes on one scenario: the scores, the translation test, length generalization.

Every scheme of :mod:`relpos.core.schemes` (and Shaw et al.'s) gets the same tokens,
projections and position parameters (:class:`SchemeSetup`), so the differences the app
shows come from the schemes alone. NumPy only; offsets are ``j − i``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relpos.core.attention import content_scores, position_biases, softmax
from relpos.core.checks import as_count, as_float_array, as_table, same_width
from relpos.core.offsets import relative_offsets
from relpos.core.schemes import (
    SCHEMES,
    alibi_bias,
    as_offsets,
    as_positive,
    rope,
    rope_offset_scores,
    rotation_frequencies,
    sinusoidal_positions,
    t5_bias,
    t5_bucket,
    t5_buckets_seen,
)

__all__ = [
    "LengthReport",
    "SchemeScores",
    "SchemeSetup",
    "length_generalization",
    "random_scheme_setup",
    "scheme_scores",
    "shaw_offset_biases",
    "translation_changes",
]


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
        alibi_slope=as_positive(alibi_slope, "alibi_slope"),
        base=as_positive(base, "base", minimum_exclusive=1.0),
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
    where = as_offsets(offsets, "offsets").reshape(-1)  # (m,)
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
    slowest = float(rotation_frequencies(setup.d, setup.base)[-1])  # θ of the slowest pair
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
