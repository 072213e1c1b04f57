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
