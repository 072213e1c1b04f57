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
