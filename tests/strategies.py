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
