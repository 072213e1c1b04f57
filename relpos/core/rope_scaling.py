"""RoPE's rotation frequencies and the ways to stretch them to a longer context (NumPy only).

RoPE (Su et al. 2021) turns feature pair ``i`` of a query or key at position ``m`` by
the angle ``m θ_i`` with ``θ_i = b^(−2i/d)``, ``i = 0 .. d/2 − 1`` (fastest first). A
model trained on sequences of ``L₀`` tokens has seen only the angles ``0 .. (L₀ − 1) θ_i``.
Context extension changes the frequencies (and, for YaRN, the size of ``cos`` and
``sin``) so that a longer sequence lands on angles the model knows:

* ``None``: RoPE as trained;
* ``"linear"``: Position Interpolation (Chen et al. 2023), every ``θ_i / s``;
* ``"ntk"``: NTK-aware scaling (bloc97, 2023), base ``b · s^(d/(d−2))``;
* ``"dynamic"``: dynamic NTK as Hugging Face transformers computes it for sequence
  length ``ℓ``: base ``b · (s ℓ / L₀ − (s − 1))^(d/(d−2))``, ``ℓ`` raised to ``L₀`` first;
* ``"yarn"``: YaRN (Peng et al. 2023): a ramp over the pairs between ``β_fast`` and
  ``β_slow`` rotations in ``L₀`` blends ``θ_i`` (kept) and ``θ_i / s`` (divided), and
  ``cos`` and ``sin`` are multiplied by ``0.1 ln s + 1``;
* ``"llama3"``: Llama 3.1 (Meta 2024): pairs whose wavelength is shorter than
  ``L₀ / high_freq_factor`` are kept, longer than ``L₀ / low_freq_factor`` divided by
  ``s``, and smoothed in between.

The numbers follow ``ROPE_INIT_FUNCTIONS`` in Hugging Face transformers'
``src/transformers/modeling_rope_utils.py`` (5.x) line by line, in float64 where the
library works in float32; ``tests/test_rope_scaling.py`` compares them with a table
computed by that library.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from relpos.core.checks import as_count, as_positive

__all__ = ["ROPE_SCALINGS", "RopeFrequencies", "rope_frequencies", "rope_rotation"]

#: The context-extension methods of :func:`rope_frequencies`: key -> on-screen name.
ROPE_SCALINGS = {
    "none": "none (RoPE as trained)",
    "linear": "Position Interpolation (linear)",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
}

#: Methods that need the training length L₀ (``original_length``).
_NEED_LENGTH = ("dynamic", "yarn", "llama3")


@dataclass(frozen=True)
class RopeFrequencies:
    """RoPE's frequencies after a context-extension method.

    Attributes
    ----------
    scaling : str
        One of :data:`ROPE_SCALINGS` (``"none"`` for ``scaling=None``).
    d : int
        Rotated width (even); there are ``d/2`` pairs.
    base : float
        The base b asked for.
    factor : float
        The scale factor s.
    effective_base : float
        The base the frequencies are computed from: b, or the raised base of
        ``"ntk"`` and ``"dynamic"``.
    original_inv_freq : ndarray of float64, shape (d/2,)
        ``θ_i = b^(−2i/d)``, fastest first: RoPE as trained.
    inv_freq : ndarray of float64, shape (d/2,)
        The frequencies after the method.
    attention_factor : float
        What ``cos`` and ``sin`` are multiplied by (YaRN's ``0.1 ln s + 1``; 1 otherwise),
        so every query–key score is multiplied by its square.
    """

    scaling: str
    d: int
    base: float
    factor: float
    effective_base: float
    original_inv_freq: np.ndarray
    inv_freq: np.ndarray
    attention_factor: float

    def __post_init__(self):
        self.original_inv_freq.setflags(write=False)
        self.inv_freq.setflags(write=False)

    @property
    def wavelengths(self) -> np.ndarray:
        """``λ_i = 2π / θ_i`` of the scaled frequencies, shape (d/2,): positions per full turn."""
        return 2 * math.pi / self.inv_freq


# ----------------------------------------------------------------------------- checks


def _check_width(d, scaling: str) -> int:
    d = as_count(d, "d", minimum=2)
    if d % 2:
        raise ValueError(f"d must be even (features rotate in pairs); got d = {d}")
    if scaling in ("ntk", "dynamic") and d < 4:
        raise ValueError(f"d must be at least 4 for {scaling!r} (its exponent is d/(d − 2)); got d = {d}")
    return d


def _check_scaling(scaling) -> str:
    if scaling is None:
        return "none"
    if not isinstance(scaling, str) or scaling not in ROPE_SCALINGS:
        raise ValueError(f"scaling must be None or one of {', '.join(map(repr, ROPE_SCALINGS))}; got {scaling!r}")
    return scaling


def _check_factor(factor) -> float:
    if isinstance(factor, (bool, np.bool_)) or not isinstance(factor, numbers.Real) or not math.isfinite(factor):
        raise ValueError(f"factor must be a finite number >= 1; got {factor!r}")
    if factor < 1:
        raise ValueError(f"factor must be a finite number >= 1 (s = 1 changes nothing); got {factor!r}")
    return float(factor)


def _check_ordered(small_name: str, small, large_name: str, large) -> tuple[float, float]:
    """Two positive numbers, the second larger (the bands' or the ramp's two ends)."""
    small, large = as_positive(small, small_name), as_positive(large, large_name)
    if large <= small:
        raise ValueError(f"{large_name} must be larger than {small_name}; got {large:g} <= {small:g}")
    return small, large


# ----------------------------------------------------------------------------- the methods


def _inverse_frequencies(d: int, base: float) -> np.ndarray:
    # θ_i = b^(−2i/d), i = 0 .. d/2 − 1
    return 1.0 / base ** (np.arange(0, d, 2) / d)  # (d/2,)


def _yarn_correction_dim(rotations: float, d: int, base: float, original_length: int) -> float:
    # i(r) = d ln(L₀ / (2π r)) / (2 ln b): the pair that turns r times in L₀ positions
    return d * math.log(original_length / (rotations * 2 * math.pi)) / (2 * math.log(base))


def _yarn_kept_share(d: int, base: float, original_length: int, beta_fast: float, beta_slow: float) -> np.ndarray:
    """YaRN's extrapolation share per pair: 1 keeps θ_i, 0 divides it by s (shape (d/2,))."""
    # [low, high] = [⌊i(β_fast)⌋, ⌈i(β_slow)⌉], clipped to [0, d − 1]
    low = max(math.floor(_yarn_correction_dim(beta_fast, d, base, original_length)), 0)
    high = min(math.ceil(_yarn_correction_dim(beta_slow, d, base, original_length)), d - 1)
    if low == high:
        high += 0.001  # the library's guard against a zero-width ramp
    # ramp_i = clip((i − low) / (high − low), 0, 1); kept share = 1 − ramp_i
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)  # (d/2,)
    return 1.0 - ramp


def _llama3_frequencies(
    inv_freq: np.ndarray, factor: float, original_length: int, low_freq_factor: float, high_freq_factor: float
) -> np.ndarray:
    # λ_i = 2π / θ_i
    wavelength = 2 * math.pi / inv_freq  # (d/2,)
    # λ_i > L₀ / low: θ_i / s; λ_i < L₀ / high: θ_i
    divided = np.where(wavelength > original_length / low_freq_factor, inv_freq / factor, inv_freq)
    # between: (1 − γ_i) θ_i / s + γ_i θ_i with γ_i = (L₀ / λ_i − low) / (high − low)
    smooth = (original_length / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * divided / factor + smooth * divided
    medium = (wavelength >= original_length / high_freq_factor) & (wavelength <= original_length / low_freq_factor)
    return np.where(medium, smoothed, divided)


def rope_frequencies(
    d,
    base=10000.0,
    *,
    scaling=None,
    factor=1.0,
    original_length=None,
    seq_len=None,
    low_freq_factor=1.0,
    high_freq_factor=4.0,
    beta_fast=32.0,
    beta_slow=1.0,
) -> RopeFrequencies:
    """RoPE's inverse frequencies and attention factor after a context-extension method.

    Parameters
    ----------
    d : int
        Rotated width (the head dimension), even, at least 2 (4 for "ntk", "dynamic").
    base : float, default 10000.0
        RoPE's base b (``rope_theta``), > 1.
    scaling : {None, "linear", "ntk", "dynamic", "yarn", "llama3"}
        The method (``None`` or ``"none"``: plain RoPE).
    factor : float, default 1.0
        The scale factor s >= 1 (``rope_scaling["factor"]``).
    original_length : int, optional
        The training length L₀ (``original_max_position_embeddings``; for "dynamic"
        the library's ``max_position_embeddings``). Needed by "dynamic", "yarn", "llama3".
    seq_len : int, optional
        "dynamic" only: the current sequence length ℓ (default L₀; raised to L₀ if shorter).
    low_freq_factor, high_freq_factor : float, default 1.0 and 4.0
        "llama3" only: the wavelength bands' bounds ``L₀ / low`` and ``L₀ / high``.
    beta_fast, beta_slow : float, default 32.0 and 1.0
        "yarn" only: the ramp runs from the pair turning ``β_fast`` times in L₀ (kept)
        to the one turning ``β_slow`` times (divided by s).

    Returns
    -------
    frequencies : RopeFrequencies
        ``inv_freq`` (float64, shape (d/2,)) and ``attention_factor`` (float), with the
        plain frequencies and the effective base beside them.

    Notes
    -----
    With :math:`\\theta_i = b^{-2i/d}`, :math:`\\lambda_i = 2\\pi/\\theta_i`:

    .. math::
        \\text{linear: } \\theta_i / s, \\qquad
        \\text{ntk: } (b\\, s^{d/(d-2)})^{-2i/d}, \\qquad
        \\text{dynamic: } \\big(b\\,(s \\ell / L_0 - (s - 1))^{d/(d-2)}\\big)^{-2i/d}

        \\text{yarn: } (1 - \\gamma_i)\\,\\theta_i / s + \\gamma_i\\,\\theta_i, \\quad
        \\gamma_i = 1 - \\operatorname{clip}\\Big(\\frac{i - \\lfloor i(\\beta_f) \\rfloor}
        {\\lceil i(\\beta_s) \\rceil - \\lfloor i(\\beta_f) \\rfloor}, 0, 1\\Big), \\quad
        i(r) = \\frac{d \\ln(L_0 / 2\\pi r)}{2 \\ln b}, \\quad
        \\text{attention factor } 0.1 \\ln s + 1

        \\text{llama3: } \\theta_i \\ (\\lambda_i < L_0/h), \\quad
        \\theta_i / s \\ (\\lambda_i > L_0/l), \\quad
        (1 - \\gamma_i)\\,\\theta_i / s + \\gamma_i\\,\\theta_i, \\;
        \\gamma_i = \\frac{L_0/\\lambda_i - l}{h - l} \\ \\text{otherwise}

    Dynamic NTK equals static NTK only at :math:`\\ell = L_0 (2 - 1/s)`, and leaves b
    unchanged at :math:`\\ell = L_0`.

    Examples
    --------
    >>> rope_frequencies(4).inv_freq
    array([1.  , 0.01])
    >>> rope_frequencies(4, scaling="linear", factor=2).inv_freq
    array([0.5  , 0.005])
    >>> f = rope_frequencies(4, scaling="ntk", factor=4)
    >>> f.effective_base, f.inv_freq.round(6)
    (160000.0, array([1.    , 0.0025]))
    >>> rope_frequencies(8, scaling="dynamic", factor=4, original_length=16, seq_len=16).effective_base
    10000.0
    >>> round(rope_frequencies(64, scaling="yarn", factor=16, original_length=4096).attention_factor, 6)
    1.277259
    """
    scaling = _check_scaling(scaling)
    d = _check_width(d, scaling)
    base = as_positive(base, "base", minimum_exclusive=1.0)
    factor = _check_factor(factor)
    if scaling in _NEED_LENGTH:
        if original_length is None:
            raise ValueError(f"original_length (the training length L₀) is needed for {scaling!r}; got None")
        original_length = as_count(original_length, "original_length")
    original = _inverse_frequencies(d, base)  # (d/2,)
    inv_freq, effective_base, attention_factor = original, base, 1.0
    if scaling == "linear":
        # θ'_i = θ_i / s
        inv_freq = original / factor
    elif scaling == "ntk":
        # b' = b s^(d/(d−2))
        effective_base = base * factor ** (d / (d - 2))
        inv_freq = _inverse_frequencies(d, effective_base)
    elif scaling == "dynamic":
        length = original_length if seq_len is None else max(as_count(seq_len, "seq_len"), original_length)
        # b' = b (s ℓ / L₀ − (s − 1))^(d/(d−2))
        effective_base = base * (factor * length / original_length - (factor - 1)) ** (d / (d - 2))
        inv_freq = _inverse_frequencies(d, effective_base)
    elif scaling == "yarn":
        beta_slow, beta_fast = _check_ordered("beta_slow", beta_slow, "beta_fast", beta_fast)
        # mscale = 0.1 ln s + 1 (1 for s <= 1)
        attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
        kept = _yarn_kept_share(d, base, original_length, beta_fast, beta_slow)  # (d/2,)
        # θ'_i = (1 − γ_i) θ_i / s + γ_i θ_i
        inv_freq = original / factor * (1 - kept) + original * kept
    elif scaling == "llama3":
        low, high = _check_ordered("low_freq_factor", low_freq_factor, "high_freq_factor", high_freq_factor)
        inv_freq = _llama3_frequencies(original, factor, original_length, low, high)
    inv_freq = np.array(inv_freq, dtype=np.float64)  # (d/2,)
    return RopeFrequencies(scaling, d, base, factor, float(effective_base), original, inv_freq, attention_factor)


def rope_rotation(frequencies: RopeFrequencies, n) -> tuple[np.ndarray, np.ndarray]:
    """``sin`` and ``cos`` of the angles ``m θ'_i`` for positions ``m = 0 .. n − 1``, times the attention factor.

    Parameters
    ----------
    frequencies : RopeFrequencies
    n : int
        Number of positions, at least 1.

    Returns
    -------
    sin, cos : ndarray of float64, shape (n, d/2) each

    Notes
    -----
    .. math:: \\sin_{m,i} = a \\sin(m \\theta'_i), \\quad \\cos_{m,i} = a \\cos(m \\theta'_i)

    with a the attention factor, as Hugging Face transformers scales its cos and sin.

    Examples
    --------
    >>> sin, cos = rope_rotation(rope_frequencies(2), 2)
    >>> sin.round(4).tolist(), cos.round(4).tolist()
    ([[0.0], [0.8415]], [[1.0], [0.5403]])
    """
    if not isinstance(frequencies, RopeFrequencies):
        raise ValueError(f"frequencies must come from rope_frequencies; got {type(frequencies).__name__}")
    n = as_count(n, "n")
    # angle_{m,i} = m θ'_i
    angles = np.arange(n)[:, None] * frequencies.inv_freq[None, :]  # (n, d/2)
    return frequencies.attention_factor * np.sin(angles), frequencies.attention_factor * np.cos(angles)
