"""Every public function rejects bad input with a ValueError that names the argument."""

from __future__ import annotations

import numpy as np
import pytest

import relpos

Q = np.ones((3, 2))
TABLE = np.ones((5, 2))

CASES = {
    # mismatched d
    "K d": (lambda: relpos.content_scores(Q, np.ones((3, 3))), "K must have the same feature size d"),
    "A_K d": (lambda: relpos.position_biases(Q, np.ones((5, 3))), "A_K must have the same feature size"),
    "A_K d attention": (
        lambda: relpos.relative_attention(Q, Q, A_K=np.ones((5, 1))),
        "A_K must have the same feature size",
    ),
    "A_V d": (
        lambda: relpos.relative_attention(Q, Q, Q, A_V=np.ones((5, 3))),
        "A_V must have the same feature size",
    ),
    "V d": (lambda: relpos.relative_attention(Q, Q, np.ones((3, 4))), "V must have the same feature size"),
    # table shape
    "even rows": (lambda: relpos.position_biases(Q, np.ones((4, 2))), "A_K must have an odd number of rows"),
    "even A_V rows": (
        lambda: relpos.relative_attention(Q, Q, Q, A_V=np.ones((4, 2))),
        "A_V must have an odd number of rows",
    ),
    "A_K vs A_V k": (
        lambda: relpos.relative_attention(Q, Q, Q, A_K=TABLE, A_V=np.ones((3, 2))),
        "same number of rows",
    ),
    "even logits": (lambda: relpos.place_relative(np.ones((2, 4)), 3), "relative_logits must have an odd"),
    "1-D logits": (lambda: relpos.place_relative(np.ones(3), 3), "relative_logits must be 2-D"),
    # non-finite
    "NaN Q": (lambda: relpos.content_scores([np.nan, 1.0], [1.0]), "Q must contain only finite"),
    "inf K": (lambda: relpos.content_scores([1.0], [np.inf]), "K must contain only finite"),
    "inf A_K": (lambda: relpos.position_biases([1.0], [0.0, np.inf, 0.0]), "A_K must contain only finite"),
    "NaN softmax": (lambda: relpos.softmax([np.nan, 0.0]), "x must contain only finite"),
    "inf V": (lambda: relpos.relative_attention([1.0], [1.0], [np.inf]), "V must contain only finite"),
    # negative or non-integer k and sizes
    "negative k": (lambda: relpos.clip_offsets([0, 1], -1), "k must be an integer >= 0"),
    "float k": (lambda: relpos.clip_offsets([0, 1], 1.5), "k must be an integer >= 0"),
    "negative k rows": (lambda: relpos.table_rows(2, 2, -3), "k must be an integer >= 0"),
    "zero n_q": (lambda: relpos.relative_offsets(0), "n_q must be an integer >= 1"),
    "negative n_k": (lambda: relpos.relative_offsets(2, -1), "n_k must be an integer >= 1"),
    "bool n_q": (lambda: relpos.relative_offsets(True), "n_q must be an integer"),
    "string n_k": (lambda: relpos.position_biases(Q, TABLE, n_k="3"), "n_k must be an integer"),
    "float offsets": (lambda: relpos.clip_offsets([0.5], 1), "offsets must be an integer array"),
    # empty
    "empty Q": (lambda: relpos.content_scores([], [1.0]), "Q must not be empty"),
    "empty K": (lambda: relpos.relative_attention([1.0], np.ones((0, 1))), "K must not be empty"),
    "empty A_K": (lambda: relpos.position_biases([1.0], []), "A_K must not be empty"),
    "empty offsets": (lambda: relpos.clip_offsets([], 1), "offsets must not be empty"),
    "empty softmax": (lambda: relpos.softmax([]), "x must not be empty"),
    # non-numeric
    "string Q": (lambda: relpos.content_scores(["a", "b"], [1.0]), "Q must contain only real numbers"),
    "None in K": (lambda: relpos.content_scores([1.0], [1.0, None]), "K must contain only numbers"),
    "complex A_K": (lambda: relpos.position_biases([1.0], [1j, 0, 0]), "A_K must contain only real"),
    "ragged Q": (lambda: relpos.content_scores([[1.0], [1.0, 2.0]], [1.0]), "Q must be a numeric array"),
    "3-D Q": (lambda: relpos.content_scores(np.ones((2, 2, 2)), [1.0]), "Q must be 1-D"),
    "object V": (lambda: relpos.relative_attention([1.0], [1.0], [object()]), "V must contain only numbers"),
    # V shape
    "V length": (lambda: relpos.relative_attention(Q, Q, np.ones((2, 2))), "V must have one row per key"),
    "A_V without V": (lambda: relpos.relative_attention(Q, Q, A_V=TABLE), "A_V needs values V"),
    # softmax arguments
    "mask dtype": (lambda: relpos.softmax([1.0, 2.0], mask=[1, 0]), "mask must be a boolean array"),
    "mask shape": (lambda: relpos.softmax([1.0, 2.0], mask=[True, False, True]), "mask must be broadcastable"),
    "axis": (lambda: relpos.softmax([1.0, 2.0], axis=3), "axis must be an integer"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_value_error_names_the_argument(case):
    call, message = CASES[case]
    with pytest.raises(ValueError, match=message):
        call()
