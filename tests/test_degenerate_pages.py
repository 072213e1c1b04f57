"""Degenerate settings are first-class page cases (AppTest).

Every page renders, and every sentence it generates stays true, with the no-position
preset, k = 0, k ≥ n − 1, all-equal queries and n = 2.
"""

from __future__ import annotations

import re

import pytest

from tests.support.apptest import open_app, texts

SIGNED_ZERO = re.compile(r"[−+-]0\.0+(?![0-9])")
#: Claims that were printed in degenerate settings before the facts module checked them.
FALSE_BEFORE = (
    "aᴷ₀ or aᴷ₀",
    "runs from 0.00 to 0.00",
    "because its bias is",
    "only because the queries give equal products; change a qᵢ to see them differ.\nEvery cell",
    "mimic trained",
    "shaped like trained",
    "trained tables",
)

CASES = [
    ("explorer", {"preset": "none"}, "Nothing moved: the bias is 0 everywhere"),
    ("explorer", {"k": "0"}, "reuse aᴷ₀, the only row"),
    ("explorer", {"preset": "previous", "k": "0"}, "Nothing moved"),
    ("explorer", {"k": "3"}, "nothing is clipped"),
    ("explorer", {"q": "0.5,0.5,0.5,0.5"}, "the queries give equal products"),
    ("explorer", {"n": "2", "k": "1"}, "nothing is clipped"),
    ("position_effects", {"k": "0"}, "moved nothing"),
    ("position_effects", {"strength": "0"}, "The bias is 0 in every cell"),
    ("position_effects", {"k": "5"}, "Weight on offsets"),
    ("position_effects", {"n": "2", "k": "1"}, "Average attention distance"),
    ("position_effects", {"preset": "random", "strength": "0"}, "moved nothing"),
    ("position_effects", {"preset": "trained_previous", "k": "0"}, "With k = 0 the head has one row"),
    ("position_effects", {"preset": "trained_first", "strength": "0"}, "The bias is 0 in every cell"),
    ("position_effects", {"preset": "trained_two_back", "n": "2", "k": "1"}, "never trained"),
    ("position_effects", {"preset": "trained_previous", "n": "20", "k": "19"}, "(largest at offset −1)"),
    ("walkthrough", {"k": "0", "i": "1", "j": "softmax"}, "No weight changed"),
    ("walkthrough", {"k": "3", "i": "1", "j": "softmax"}, "gained the most weight"),
    ("walkthrough", {"q": "0.5,0.5,0.5,0.5", "i": "2", "j": "softmax"}, "the most weight"),
    ("walkthrough", {"a": "0,0,0,0,0", "i": "1", "j": "softmax"}, "No weight changed"),
    ("schemes", {"k": "0", "n": "4"}, "ALiBi is defined for causal models"),
    ("schemes", {"k": "3", "n": "4"}, "T5 itself does not divide"),
    ("value_side", {"k": "0"}, ""),
    ("quiz", {"seed": "0"}, "Predict first"),
    ("efficiency", {}, "1,073,741,824 B ≈ 1.07 GB"),
]


@pytest.mark.parametrize(("page", "query", "expected"), CASES, ids=[f"{p}-{q}" for p, q, _ in CASES])
def test_degenerate_setting_renders_true_sentences(page, query, expected):
    at = open_app(page, query=query)
    assert not at.exception, at.exception
    assert not at.warning, [w.value for w in at.warning]  # the setting was accepted, not replaced
    page_text = texts(at) + "\n" + "\n".join(str(getattr(w, "label", "")) for w in at.selectbox)
    assert expected in page_text
    for claim in FALSE_BEFORE:
        assert claim not in page_text, claim
    assert not SIGNED_ZERO.search(page_text), SIGNED_ZERO.search(page_text)
