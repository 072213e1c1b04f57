"""Long context: the lesson's numbers, from the page state to arrays (pure NumPy, no Streamlit).

RoPE's pairs i = 0 .. d/2 − 1 (fastest first) turn by ``m θ_i`` at position m; a context
extension replaces ``θ_i`` by ``θ'_i`` (:func:`relpos.rope_frequencies`). Scores against
distance use the query and key ``q = k = (1, …, 1)``, whose rotated score depends on
the distance Δ = n − m alone:

.. math:: e(\\Delta) = a^2 \\, \\frac{2}{d} \\sum_{i} \\cos(\\Delta\\, \\theta'_i)

(``a`` the attention factor; ``e(0) = a²``), the curve Su et al. 2021 (Section 3.4.3)
show decaying with distance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from relpos.core.rope_scaling import RopeFrequencies, rope_frequencies
from relpos.core.training_tasks import scored_positions

__all__ = [
    "BANDS",
    "METHODS",
    "PRESETS",
    "PiBound",
    "Preset",
    "Setting",
    "bands",
    "distance_grid",
    "frequencies",
    "hand_pairs",
    "pi_bound",
    "relative_check",
    "rotations",
    "score_curve",
    "score_pattern",
    "setting",
    "target_share",
]

#: The methods of section 2, in the order they are drawn side by side.
METHODS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
#: What a pair's frequency became: kept (θ' = θ), divided by s (θ' = θ/s), or in between.
BANDS = {"kept": "kept (θ′ = θ)", "between": "smoothed (between θ/s and θ)", "divided": "divided by s (θ′ = θ/s)"}
#: Most panels a pattern heatmap draws per side (positions sampled evenly).
PATTERN_SIZE = 48


@dataclass(frozen=True)
class Setting:
    """The page state as numbers (see :data:`relpos.topics.long_context.schema.LONG_CONTEXT`)."""

    d: int
    base: float
    m: int
    method: str
    factor: float
    original_length: int
    seq_len: int
    low: float
    high: float
    beta_fast: float
    beta_slow: float

    @property
    def top(self) -> int:
        """The longest context drawn, s · L₀."""
        return round(self.factor * self.original_length)


def setting(state: dict) -> Setting:
    """The state's strings as numbers; ℓ = (ℓ / L₀) · L₀ rounded to an integer."""
    length = int(state["L0"])
    return Setting(
        d=int(state["d"]),
        base=float(state["b"]),
        m=int(state["m"]),
        method=state["method"],
        factor=float(state["s"]),
        original_length=length,
        seq_len=round(float(state["ell"]) * length),
        low=float(state["low"]),
        high=float(state["high"]),
        beta_fast=float(state["bfast"]),
        beta_slow=float(state["bslow"]),
    )


def frequencies(chosen: Setting, method: str | None = None) -> RopeFrequencies:
    """:func:`relpos.rope_frequencies` for the setting (its own method unless `method` is given)."""
    return rope_frequencies(
        chosen.d,
        chosen.base,
        scaling=chosen.method if method is None else method,
        factor=chosen.factor,
        original_length=chosen.original_length,
        seq_len=chosen.seq_len,
        low_freq_factor=chosen.low,
        high_freq_factor=chosen.high,
        beta_fast=chosen.beta_fast,
        beta_slow=chosen.beta_slow,
    )


def bands(freq: RopeFrequencies) -> np.ndarray:
    """Each pair's band, a key of :data:`BANDS` (shape (d/2,)); at s = 1 every pair is "kept".

    >>> bands(rope_frequencies(8, scaling="linear", factor=2)).tolist()
    ['divided', 'divided', 'divided', 'divided']
    >>> bands(rope_frequencies(8, scaling="ntk", factor=2)).tolist()  # NTK divides the slowest pair by s exactly
    ['kept', 'between', 'between', 'divided']
    """
    ratio = freq.inv_freq / freq.original_inv_freq  # (d/2,), in [1/s, 1]
    kept = np.isclose(ratio, 1.0, rtol=1e-9, atol=0)
    divided = np.isclose(ratio, 1.0 / freq.factor, rtol=1e-9, atol=0) & ~kept
    return np.where(kept, "kept", np.where(divided, "divided", "between"))


def rotations(freq: RopeFrequencies, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Full turns each pair makes over `length` positions, before and after: ``L θ / 2π``, (d/2,) each."""
    # turns_i = L / λ_i = L θ_i / 2π
    return length * freq.original_inv_freq / (2 * math.pi), length * freq.inv_freq / (2 * math.pi)


def hand_pairs(d: int, count: int = 6) -> np.ndarray:
    """Up to `count` pairs spread evenly from the fastest (0) to the slowest (d/2 − 1).

    >>> hand_pairs(64).tolist()
    [0, 6, 12, 19, 25, 31]
    >>> hand_pairs(8).tolist()
    [0, 1, 2, 3]
    """
    return np.unique(np.round(np.linspace(0, d // 2 - 1, count)).astype(np.int64))


def score_curve(freq: RopeFrequencies, distances) -> np.ndarray:
    """``e(Δ) = a² (2/d) Σ_i cos(Δ θ'_i)`` for q = k = (1, …, 1), one per distance.

    >>> score_curve(rope_frequencies(4), [0]).tolist()
    [1.0]
    """
    delta = np.asarray(distances, dtype=np.float64)  # (n,)
    # e(Δ) = a² (2/d) Σ_i cos(Δ θ'_i)
    mean_cos = np.cos(np.multiply.outer(delta, freq.inv_freq)).mean(axis=-1)  # (n,)
    return freq.attention_factor**2 * mean_cos


def distance_grid(top: int, count: int = 700) -> np.ndarray:
    """Integer distances 0 .. top: every one up to 64, then about `count` spread evenly on a log scale.

    >>> distance_grid(10).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> grid = distance_grid(10**6)
    >>> int(grid[0]), int(grid[-1]), len(grid) < 800
    (0, 1000000, True)
    """
    dense = np.arange(min(top, 64) + 1)
    spread = np.round(np.geomspace(1, top, count)).astype(np.int64) if top > 64 else dense
    return np.union1d(dense, spread)


def score_pattern(freq: RopeFrequencies, n: int, size: int = PATTERN_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """Scores ``e(j − i)`` of a causal head at up to `size` evenly spread positions of an n-token context.

    Returns the positions (0-based, shape (p,)) and the (p, p) scores, NaN for keys after
    the query (j > i).

    >>> positions, scores = score_pattern(rope_frequencies(4), 3)
    >>> positions.tolist(), bool(np.isnan(scores[0, 1])), float(scores[2, 2])
    ([0, 1, 2], True, 1.0)
    """
    positions = np.unique(np.round(np.linspace(0, n - 1, min(size, n))).astype(np.int64))  # (p,)
    offsets = positions[None, :] - positions[:, None]  # (p, p): j − i
    scores = score_curve(freq, np.abs(offsets).ravel()).reshape(offsets.shape)  # e depends on |j − i|
    return positions, np.where(offsets <= 0, scores, np.nan)


def relative_check(d: int, base: float, *, offset: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(R_m q) · (R_n k)`` for random q, k at several (m, n) with the same n − m = `offset`.

    Returns the (m, n) pairs (shape (4, 2)) and their scores (shape (4,)): equal up to
    rounding, since ``R_mᵀ R_n = R_{n − m}``.
    """
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)  # (d,) each
    theta = rope_frequencies(d, base).inv_freq  # (d/2,)
    starts = np.array([0, 10, 1000, 50000])
    pairs = np.stack([starts, starts + offset], axis=1)  # (4, 2)

    def rotated(x: np.ndarray, position: int) -> np.ndarray:
        # (x'_2i, x'_2i+1) = (x_2i cos − x_2i+1 sin, x_2i sin + x_2i+1 cos), angle position · θ_i
        cos, sin = np.cos(position * theta), np.sin(position * theta)
        out = np.empty_like(x)
        out[0::2] = x[0::2] * cos - x[1::2] * sin
        out[1::2] = x[0::2] * sin + x[1::2] * cos
        return out

    scores = np.array([rotated(q, int(m)) @ rotated(k, int(n)) for m, n in pairs])
    return pairs, scores


def target_share(weights: np.ndarray, task: str) -> float:
    """Mean attention weight on the position to copy, over the positions the task scores.

    The source of query i is i − 1 ("previous"), i − 2 ("two_back") or 0 ("first").

    >>> target_share(np.array([[1.0, 0.0], [0.75, 0.25]]), "previous")
    0.75
    """
    n = weights.shape[0]
    scored = np.flatnonzero(scored_positions(task, n))  # (m,)
    source = {"previous": scored - 1, "two_back": scored - 2, "first": np.zeros_like(scored)}[task]
    return float(weights[scored, source].mean())


# ----------------------------------------------------------------------------- presets


@dataclass(frozen=True)
class Preset:
    """Published settings (numbers only) and where they come from."""

    label: str
    values: dict
    source: str


#: Published configurations, as page states (the rest of the state is kept).
PRESETS = {
    "llama2": Preset(
        "Llama 2: b = 10⁴, L₀ = 4096, d = 128, no scaling",
        {"d": "128", "b": "10000", "L0": "4096", "method": "none", "s": "4"},
        "Touvron et al. 2023, Section 2.2 and Table 1 (RoPE, context length 4k); Hugging Face transformers' "
        "LlamaConfig (rope_theta 10000, head_dim 4096/32 = 128)",
    ),
    "llama31": Preset(
        "Llama 3.1: b = 500,000, s = 8, L₀ = 8192, low 1, high 4",
        {"d": "128", "b": "500000", "L0": "8192", "method": "llama3", "s": "8", "low": "1", "high": "4"},
        "Dubey et al. 2024, Section 3.2 (base frequency 500,000); transformers' _compute_llama3_parameters "
        "(factor 8, low_freq_factor 1, high_freq_factor 4, original 8192 'in the original implementation')",
    ),
    "yarn4": Preset(
        "YaRN, s = 4 on Llama 2 (α = 1, β = 32)",
        {"d": "128", "b": "10000", "L0": "4096", "method": "yarn", "s": "4", "bfast": "32", "bslow": "1"},
        "Peng et al. 2023, Section 3.2 (α = 1, β = 32 for Llama) and Section 3.4 (0.1 ln s + 1)",
    ),
    "yarn16": Preset(
        "YaRN, s = 16 on Llama 2 (64k context)",
        {"d": "128", "b": "10000", "L0": "4096", "method": "yarn", "s": "16", "bfast": "32", "bslow": "1"},
        "Peng et al. 2023, Section 4 (Llama 2 7B and 13B extended with s = 16 and s = 32)",
    ),
    "yarn32": Preset(
        "YaRN, s = 32 on Llama 2 (128k context)",
        {"d": "128", "b": "10000", "L0": "4096", "method": "yarn", "s": "32", "bfast": "32", "bslow": "1"},
        "Peng et al. 2023, Section 4 (Llama 2 7B and 13B extended with s = 16 and s = 32)",
    ),
}


# ----------------------------------------------------------------------------- Position Interpolation's bound


@dataclass(frozen=True)
class PiBound:
    """Chen et al. 2023's Figure 2, recomputed: a least-squares fit of ``a(s) = Re Σ_j h_j e^{i s θ_j}``.

    Attributes
    ----------
    d, length : int
        Head width (d/2 complex coefficients) and the fitted range [0, L].
    points, targets : ndarray, shape (N,)
        Random positions in [0, L] and random targets in [−1, 1].
    grid : ndarray, shape (g,)
        Positions 0 .. 2L where the fit is drawn.
    values : ndarray, shape (g,)
        ``a(s)`` at `grid`.
    window, window_values : ndarray, shape (w,)
        A 20-position stretch inside [0, L] at steps of 1/20: the values interpolation reads.
    """

    d: int
    length: int
    points: np.ndarray
    targets: np.ndarray
    grid: np.ndarray
    values: np.ndarray
    window: np.ndarray
    window_values: np.ndarray

    @property
    def inside(self) -> float:
        """Largest |a(s)| on [0, L]."""
        return float(np.abs(self.values[self.grid <= self.length]).max())

    @property
    def outside(self) -> float:
        """Largest |a(s)| on (L, 2L]."""
        return float(np.abs(self.values[self.grid > self.length]).max())


def _fourier_basis(positions: np.ndarray, theta: np.ndarray) -> np.ndarray:
    # Re(h e^{i s θ}) = u cos(s θ) − v sin(s θ), h = u + i v
    angles = np.multiply.outer(positions, theta)  # (n, d/2)
    return np.concatenate([np.cos(angles), -np.sin(angles)], axis=1)  # (n, d)


def pi_bound(*, d: int = 128, length: int = 2048, points: int = 500, seed: int = 0, rcond: float = 1e-6) -> PiBound:
    """Fit ``a(s)`` to `points` random targets on [0, L] and evaluate it on [0, 2L].

    The setting of Chen et al. 2023, Figure 2 (d = 128, L = 2048, θ_j = 10000^(−2j/d)).
    ``np.linalg.lstsq`` with singular values below ``rcond`` times the largest cut off:
    the fit is ill-conditioned and how far it explodes past L depends on this cut (1e−6
    here; the paper does not give one).

    >>> bound = pi_bound(d=16, length=64, points=40)
    >>> bound.inside < bound.outside
    True
    """
    rng = np.random.default_rng(seed)
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,)
    where = rng.uniform(0, length, points)  # (N,)
    targets = rng.uniform(-1, 1, points)  # (N,)
    # h = argmin ‖B h − y‖², B the real Fourier basis at the points
    coefficients, *_ = np.linalg.lstsq(_fourier_basis(where, theta), targets, rcond=rcond)  # (d,)
    grid = np.linspace(0, 2 * length, 4001)  # (g,)
    start = length // 2
    window = np.linspace(start, start + 20, 401)  # (w,)
    return PiBound(
        d,
        length,
        where,
        targets,
        grid,
        _fourier_basis(grid, theta) @ coefficients,
        window,
        _fourier_basis(window, theta) @ coefficients,
    )
