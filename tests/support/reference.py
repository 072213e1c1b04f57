"""Plain-loop reference implementations: slow, obvious, and the yardstick for relpos.

Each function spells out the formula one pair at a time, with Python scalars, so a
reader can check it against the paper by eye. The real code is tested against these.
"""

from __future__ import annotations

import math

import numpy as np


def rows_of(x) -> list[list[float]]:
    """A 1-D array means d = 1: turn it into one-element rows."""
    array = np.asarray(x, dtype=float)
    return [[float(v)] for v in array] if array.ndim == 1 else array.tolist()


def dot(u: list[float], v: list[float]) -> float:
    return sum(a * b for a, b in zip(u, v, strict=True))


def clip(offset: int, k: int) -> int:
    return max(-k, min(k, offset))


def offsets(n_q: int, n_k: int) -> np.ndarray:
    return np.array([[j - i for j in range(n_k)] for i in range(n_q)])


def content(Q, K, scale: bool = True) -> np.ndarray:
    Q, K = rows_of(Q), rows_of(K)
    divisor = math.sqrt(len(Q[0])) if scale else 1.0
    return np.array([[dot(q, k) / divisor for k in K] for q in Q])


def biases(Q, A_K, n_k: int, scale: bool = True) -> np.ndarray:
    Q, A_K = rows_of(Q), rows_of(A_K)
    k = (len(A_K) - 1) // 2
    divisor = math.sqrt(len(Q[0])) if scale else 1.0
    return np.array([[dot(q, A_K[clip(j - i, k) + k]) / divisor for j in range(n_k)] for i, q in enumerate(Q)])


def softmax_row(logits: list[float], keep: list[bool]) -> list[float]:
    kept = [x for x, use in zip(logits, keep, strict=True) if use]
    if not kept:
        return [0.0] * len(logits)
    top = max(kept)
    exps = [math.exp(x - top) if use else 0.0 for x, use in zip(logits, keep, strict=True)]
    total = sum(exps)
    return [e / total for e in exps]


def softmax_rows(x, mask=None) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    keep = np.ones(x.shape, dtype=bool) if mask is None else np.asarray(mask)
    return np.array([softmax_row(list(row), list(m)) for row, m in zip(x, keep, strict=True)])


def attention_output(weights, V, A_V=None) -> np.ndarray:
    """z_i = sum_j w_ij (v_j + a^V_clip(j-i)), one pair at a time."""
    V = rows_of(V)
    n_q, n_k, d = len(weights), len(V), len(V[0])
    table = rows_of(A_V) if A_V is not None else None
    k = (len(table) - 1) // 2 if table is not None else 0
    out = []
    for i in range(n_q):
        z = [0.0] * d
        for j in range(n_k):
            position = table[clip(j - i, k) + k] if table is not None else [0.0] * d
            for f in range(d):
                z[f] += weights[i][j] * (V[j][f] + position[f])
        out.append(z)
    return np.array(out)


def music_relative_logits(Q, E) -> np.ndarray:
    """Music Transformer's S_rel by its definition, one pair at a time (causal).

    E holds one embedding per offset -(L-1)..0 (row m is offset m - (L-1));
    S_rel[i][j] = q_i · E[j - i + L - 1] for j <= i, and 0 above the diagonal.
    """
    Q, E = rows_of(Q), rows_of(E)
    n = len(Q)
    return np.array([[dot(Q[i], E[j - i + n - 1]) if j <= i else 0.0 for j in range(n)] for i in range(n)])


def skew_by_definition(relative_logits) -> np.ndarray:
    """Where skewing must put each logit: cell (i, j <= i) gets column j - i + L - 1."""
    logits = np.asarray(relative_logits, dtype=float)
    n = len(logits)
    return np.array([[logits[i, j - i + n - 1] if j <= i else 0.0 for j in range(n)] for i in range(n)])


# --------------------------------------------------------------------------- other position schemes
# Each function below transliterates the authors' published code (or the paper's
# formula) one value at a time, so it can be read side by side with the source.


def t5_bucket(relative_position: int, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True):
    """T5's ``_relative_position_bucket`` (Mesh TensorFlow / Hugging Face), for one offset.

    ``relative_position`` is memory (key) position minus query position. The reference
    computes the logarithm in float32; np.float32 scalars reproduce that here.
    """
    bucket = 0
    n = relative_position
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if n > 0 else 0
        n = abs(n)
    else:
        n = max(-n, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n
    large = max_exact + int(
        np.float32(np.log(np.float32(n) / np.float32(max_exact)))
        / np.float32(math.log(max_distance / max_exact))
        * np.float32(num_buckets - max_exact)
    )
    return bucket + min(large, num_buckets - 1)


def alibi_get_slopes(n: int) -> list[float]:
    """``get_slopes`` from the ALiBi authors' code (Press et al.), unchanged in logic."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + alibi_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def sinusoidal(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """PE(p, 2t) = sin(p / base^(2t/d)), PE(p, 2t+1) = cos(p / base^(2t/d)) (Vaswani et al.)."""
    out = np.zeros((n, d))
    for p in range(n):
        for column in range(d):
            t = column // 2
            angle = p / base ** (2 * t / d)
            out[p, column] = math.sin(angle) if column % 2 == 0 else math.cos(angle)
    return out


def rope(x, positions, base: float = 10000.0) -> np.ndarray:
    """RoFormer's rotation, pair by pair: features (2t, 2t+1) turn by p·base^(−2t/d)."""
    rows = rows_of(x)
    d = len(rows[0])
    out = []
    for row, p in zip(rows, positions, strict=True):
        rotated = [0.0] * d
        for t in range(d // 2):
            angle = float(p) * base ** (-2 * t / d)
            a, b = row[2 * t], row[2 * t + 1]
            rotated[2 * t] = a * math.cos(angle) - b * math.sin(angle)
            rotated[2 * t + 1] = a * math.sin(angle) + b * math.cos(angle)
        out.append(rotated)
    return np.array(out)


def scalar_biases(per_offset, n_q: int, n_k: int) -> np.ndarray:
    """b_ij = w[clip(j - i, k) + k], one pair at a time (no query, no scaling)."""
    table = [float(v) for v in np.asarray(per_offset, dtype=float)]
    k = (len(table) - 1) // 2
    return np.array([[table[clip(j - i, k) + k] for j in range(n_k)] for i in range(n_q)])


def attention_distance(weights) -> np.ndarray:
    """sum_j w_ij |j - i| for each row, one pair at a time."""
    return np.array([sum(w * abs(j - i) for j, w in enumerate(row)) for i, row in enumerate(np.asarray(weights))])


def mean_offset(weights) -> np.ndarray:
    """sum_j w_ij (j - i) for each row, one pair at a time."""
    return np.array([sum(w * (j - i) for j, w in enumerate(row)) for i, row in enumerate(np.asarray(weights))])


def rope_frequencies(
    d: int,
    base: float,
    scaling: str | None,
    factor: float = 1.0,
    original_length: int | None = None,
    seq_len: int | None = None,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> tuple[list[float], float]:
    """RoPE's inverse frequencies after a context extension, one pair at a time.

    From the papers' and the library's formulas: θ_i = b^(−2i/d); linear θ_i/s (Chen et al.
    2023); NTK b·s^(d/(d−2)) (bloc97 2023); dynamic b·(s·ℓ/L₀ − (s−1))^(d/(d−2)), ℓ ≥ L₀;
    YaRN's ramp between ⌊i(β_fast)⌋ and ⌈i(β_slow)⌉ with i(r) = d ln(L₀/2πr)/(2 ln b) and
    attention factor 0.1 ln s + 1 (Peng et al. 2023); Llama 3.1's three wavelength bands.
    """
    if scaling == "ntk":
        base = base * factor ** (d / (d - 2))
    elif scaling == "dynamic":
        length = max(seq_len or original_length, original_length)
        base = base * (factor * length / original_length - (factor - 1)) ** (d / (d - 2))
    if scaling == "yarn":
        low = max(math.floor(d * math.log(original_length / (beta_fast * 2 * math.pi)) / (2 * math.log(base))), 0)
        high = min(math.ceil(d * math.log(original_length / (beta_slow * 2 * math.pi)) / (2 * math.log(base))), d - 1)
        if low == high:
            high += 0.001
    out = []
    for i in range(d // 2):
        theta = 1.0 / base ** (2 * i / d)
        if scaling == "linear":
            theta = theta / factor
        elif scaling == "yarn":
            ramp = min(max((i - low) / (high - low), 0.0), 1.0)
            theta = ramp * theta / factor + (1 - ramp) * theta
        elif scaling == "llama3":
            wavelength = 2 * math.pi / theta
            if wavelength > original_length / low_freq_factor:
                theta = theta / factor
            elif wavelength >= original_length / high_freq_factor:
                gamma = (original_length / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
                theta = (1 - gamma) * theta / factor + gamma * theta
        out.append(theta)
    attention = 0.1 * math.log(factor) + 1.0 if scaling == "yarn" and factor > 1 else 1.0
    return out, attention
