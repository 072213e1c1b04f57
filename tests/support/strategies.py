"""Hypothesis strategies shared by every property test of the core."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# Moderate magnitudes keep exp() and sums well inside float64 while still covering
# negative, zero and large-ish values.
finite_values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_subnormal=False)

sizes = st.integers(min_value=1, max_value=9)
widths = st.integers(min_value=1, max_value=4)
clip_distances = st.integers(min_value=0, max_value=6)


def matrices(n: int, d: int):
    return hnp.arrays(np.float64, (n, d), elements=finite_values)


@st.composite
def attention_inputs(draw, *, same_length: bool = True):
    """(Q, K, A_K) with shared d, n_q (and n_k) in 1..9 and k in 0..6."""
    n_q = draw(sizes)
    n_k = n_q if same_length else draw(sizes)
    d = draw(widths)
    k = draw(clip_distances)
    return draw(matrices(n_q, d)), draw(matrices(n_k, d)), draw(matrices(2 * k + 1, d))


logit_rows = hnp.arrays(
    np.float64,
    st.tuples(st.integers(1, 6), st.integers(1, 8)),
    elements=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
)


@st.composite
def causal_inputs(draw, *, unclipped: bool = False):
    """(Q, A_K) for causal self-attention: L in 1..9, d in 1..4; k = L - 1 when
    `unclipped`, else any k in 0..L+1 (clipped, exact or wider than needed)."""
    n = draw(sizes)
    d = draw(widths)
    k = n - 1 if unclipped else draw(st.integers(0, n + 1))
    return draw(matrices(n, d)), draw(matrices(2 * k + 1, d))


square_logits = sizes.flatmap(lambda n: matrices(n, n))
# --------------------------------------------------------------------------- position schemes

#: Offsets j − i well beyond T5's max_distance in both directions.
t5_offsets = hnp.arrays(np.int64, st.integers(1, 40), elements=st.integers(-3000, 3000))


@st.composite
def t5_settings(draw):
    """(num_buckets, max_distance, bidirectional) that T5's bucketing accepts."""
    bidirectional = draw(st.booleans())
    num_buckets = draw(st.integers(4 if bidirectional else 2, 64))
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    max_distance = draw(st.integers(max_exact + 1, 400))
    return num_buckets, max_distance, bidirectional


@st.composite
def rotary_inputs(draw):
    """(x of shape (n, d) with d even, positions of shape (n,)) for RoPE."""
    n = draw(sizes)
    d = 2 * draw(st.integers(1, 4))
    x = draw(matrices(n, d))
    positions = draw(hnp.arrays(np.int64, n, elements=st.integers(-500, 500)))
    return x, positions


shifts = st.integers(min_value=1, max_value=40)


@st.composite
def walkthrough_scenarios(draw):
    """A d = 1 relpos.Scenario as the walkthrough edits it: n in 1..6, k in 0..3, values in [-10, 10]."""
    from relpos import Scenario

    n = draw(st.integers(min_value=1, max_value=6))
    k = draw(st.integers(min_value=0, max_value=3))
    values = st.lists(finite_values, min_size=1, max_size=1).map(lambda v: v[0])
    return Scenario(
        queries=tuple(draw(values) for _ in range(n)),
        keys=tuple(draw(values) for _ in range(n)),
        table=tuple(draw(values) for _ in range(2 * k + 1)),
    )


# --- URL/JSON state codec -------------------------------------------------------------
# Hostile or malformed query-parameter values: non-numbers, NaN, infinities, huge and
# negative numbers, markup, control characters and very long strings.
hostile_texts = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "nan",
            "NaN",
            "inf",
            "-inf",
            "1e308",
            "1e999",
            "-0",
            "10**9",
            "1000000000",
            "-5",
            "4.5",
            "0x10",
            "1_000",
            "<script>alert(1)</script>",
            "[x](http://e)",
            "$x$",
            ":red[x]",
            "a,b",
            ",,",
            "1,,2",
            "\x00",
            "😀",
            "٣",
        ]
    ),
    st.text(max_size=40),
    st.text(min_size=1000, max_size=3000),
)


# --- sentences built from numbers ---------------------------------------------
#: Slider-grid values (multiples of 0.05 in [-2, 2]): ties and zeros come up often.
grid_values = st.integers(-40, 40).map(lambda t: t / 20)

#: Degenerate settings every sentence must stay true in, drawn as often as the general case.
DEGENERATE = ("none", "zero_table", "k0", "k_wide", "equal_queries", "n2", "tied_keys")


@st.composite
def caption_settings(draw):
    """(Q, K, A_K, case) for the Explorer's sentences: n in 2..6, d in 1..2, k in 0..6,
    with one degenerate case forced (zero table, k = 0, k ≥ n − 1, equal queries, n = 2, tied keys)."""
    case = draw(st.sampled_from(DEGENERATE))
    n = 2 if case == "n2" else draw(st.integers(2, 6))
    d = draw(st.integers(1, 2))
    k = 0 if case == "k0" else draw(st.integers(n - 1, 6)) if case == "k_wide" else draw(st.integers(0, 6))
    values = hnp.arrays(np.float64, st.just(1), elements=grid_values).map(lambda a: float(a[0]))

    def matrix(rows: int) -> np.ndarray:
        return np.array([[draw(values) for _ in range(d)] for _ in range(rows)])

    Q, K, A = matrix(n), matrix(n), matrix(2 * k + 1)
    if case == "zero_table":
        A = np.zeros_like(A)
    if case == "equal_queries":
        Q = np.repeat(Q[:1], n, axis=0)
    if case == "tied_keys":
        K = np.repeat(K[:1], n, axis=0)
    return Q, K, A, case


# --- hard cases on purpose, for the sentences ------------------------------------------
#: What each drawn setting is built to contain: ties (exact, or only at the precision printed),
#: a key whose content dominates (a saturated softmax), values at the slider limits, queries
#: along one direction, k = 0 and k ≥ n, d > 1 (where 1/√d matters), zero, constant and tiny tables.
HARD_CASES = (
    "exact_tie",
    "content_tie",
    "display_tie",
    "dominant",
    "limits",
    "aligned",
    "k0",
    "k_wide",
    "wide_d",
    "zero_table",
    "constant_table",
    "tiny_table",
    "random",
)


def _tie_combined(Q, K, A, k: int, i: int, j1: int, j2: int) -> None:
    """Make keys j1 and j2 of query i score exactly alike with the position term, for every query of that row's offsets:
    k_j2 = k_j1 + aᴷ(clip(j1 − i)) − aᴷ(clip(j2 − i)), so q_i·(k_j + aᴷ) is one vector product."""
    r1, r2 = (int(np.clip(j - i, -k, k)) + k for j in (j1, j2))
    K[j2] = K[j1] + A[r1] - A[r2]


@st.composite
def hard_settings(draw, *, limit: float = 2.0, d_max: int = 2, n_max: int = 6, n_min: int = 2):
    """(Q, K, A_K, case): one of :data:`HARD_CASES` built on purpose, on the 0.05 slider grid in [−limit, limit].

    The Explorer's sliders run over [−2, 2] (d ≤ 2); the walkthrough's fields over [−10, 10] (d = 1).
    """
    case = draw(st.sampled_from(HARD_CASES))
    n = draw(st.integers(n_min, n_max))
    d = draw(st.integers(2, max(d_max, 2))) if case == "wide_d" and d_max > 1 else draw(st.integers(1, d_max))
    k = 0 if case == "k0" else draw(st.integers(n - 1, n + 2)) if case == "k_wide" else draw(st.integers(0, 3))
    steps = round(limit * 20)
    grid = st.integers(-steps, steps).map(lambda t: t / 20)
    if case == "limits":
        grid = st.sampled_from([-limit, 0.0, limit])

    def matrix(rows: int) -> np.ndarray:
        return np.array([[draw(grid) for _ in range(d)] for _ in range(rows)], dtype=float)

    Q, K, A = matrix(n), matrix(n), matrix(2 * k + 1)
    i, j1, j2 = draw(st.integers(0, n - 1)), *draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    if case == "exact_tie":
        _tie_combined(Q, K, A, k, i, j1, j2)
    elif case == "content_tie":
        K[j2] = K[j1]
    elif case == "display_tie":
        K[j2] = K[j1] + draw(st.sampled_from([1e-4, -1e-4, 3e-5, 2e-3]))
    elif case == "dominant":
        K[:] = -limit
        K[j1] = limit
        Q = np.abs(Q) + limit / 2 if draw(st.booleans()) else np.full_like(Q, limit)
    elif case == "aligned":
        direction = matrix(1)[0]
        direction = direction / np.abs(direction).max() if np.any(direction) else np.ones(d)
        Q = np.array([[draw(st.integers(1, steps)) / 20] for _ in range(n)]) * direction  # one side of one line
    elif case == "zero_table":
        A = np.zeros_like(A)
    elif case == "constant_table":
        A = np.repeat(A[:1], 2 * k + 1, axis=0)
    elif case == "tiny_table":  # biases that span less than 0.002: too little to move a weight visibly
        A = A / (2000 * limit**2)
    return Q, K, A, case


@st.composite
def hard_scenarios(draw):
    """A d = 1 walkthrough Scenario and its case: n in 1..6, k in 0..3 (0..n+2 for k ≥ n), values in [−10, 10]."""
    from relpos import Scenario

    Q, K, A, case = draw(hard_settings(limit=10.0, d_max=1, n_max=6, n_min=2))
    return Scenario(tuple(Q[:, 0]), tuple(K[:, 0]), tuple(A[:, 0])), case


#: Values near the rounding edges of 3 decimals: ties that exist only at the precision printed,
#: and values just either side of a half (0.3265 ± 1e-12), where rounding is half-to-even on the binary value.
edge_values = st.builds(
    lambda whole, nudge: whole / 1000 + nudge,
    st.integers(-2000, 2000),
    st.sampled_from([0.0, 1e-12, -1e-12, 1e-4, -1e-4, 4.9e-4, -4.9e-4, 5e-4, -5e-4, 5.1e-4, 2e-3]),
)
edge_rows = st.lists(edge_values, min_size=1, max_size=8)


@st.composite
def weight_rows(draw, n: int | None = None):
    """(content weights, biases) of one row of `n` keys (1..6 if not given): softmax of drawn scores,
    some keys saturated or tied."""
    n = draw(st.integers(1, 6)) if n is None else n
    scores = np.array(
        draw(st.lists(st.sampled_from([-40.0, -8.0, -1.0, 0.0, 0.0, 0.5, 1.0, 8.0, 40.0]), min_size=n, max_size=n))
    )
    scores = scores + np.array(draw(st.lists(edge_values, min_size=n, max_size=n)))
    weights = np.exp(scores - scores.max())
    scale = draw(st.sampled_from([0.0, 1e-4, 0.01, 1.0, 5.0]))
    bias = scale * np.array(draw(st.lists(st.sampled_from([-2.0, -1.0, 0.0, 0.0, 1.0, 2.0]), min_size=n, max_size=n)))
    return weights / weights.sum(), bias
