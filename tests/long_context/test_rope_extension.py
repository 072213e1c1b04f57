"""Train short, test long with RoPE: scaling applied at inference only to a head trained at L."""

from __future__ import annotations

import numpy as np
import pytest

import relpos
from relpos.core.rope_extension import (
    EXTENSION_METHODS,
    extension_accuracy,
    extension_frequencies,
    extension_pattern,
    rope_extension_table,
)
from relpos.core.training_model import forward


@pytest.fixture(scope="module")
def head():
    return relpos.train_head("previous", "rope", length=8, steps=60, seed=3)


def test_no_scaling_reads_the_trained_angles(head):
    for n in (8, 16, 32):
        assert extension_accuracy(head, n, "none", samples=16) == relpos.accuracy(head, n, samples=16)
    tokens = relpos.task_sequences("previous", 24, seed=1).tokens[0]
    np.testing.assert_array_equal(extension_pattern(head, tokens, "none"), relpos.attention_pattern(head, tokens))


def test_every_method_is_the_trained_head_at_the_trained_length(head):
    plain = relpos.accuracy(head, 8, samples=32)
    assert {extension_accuracy(head, 8, m, samples=32) for m in relpos.ROPE_SCALINGS} == {plain}


def test_the_factor_is_the_length_ratio(head):
    freq = extension_frequencies(head, "linear", 32)
    assert freq.factor == 4.0
    np.testing.assert_allclose(freq.inv_freq, relpos.rope_frequencies(16).inv_freq / 4)
    yarn = extension_frequencies(head, "yarn", 32)
    assert yarn.attention_factor == pytest.approx(0.1 * np.log(4) + 1)


def test_the_rotation_reaches_the_scores(head):
    """YaRN's attention factor multiplies every rotated q·k by its square."""
    tokens = np.array([[1, 5, 2, 7, 3, 3, 0, 9, 4, 4, 1, 2, 8, 6, 5, 0]])
    freq = extension_frequencies(head, "yarn", 16)
    sin, cos = relpos.rope_rotation(freq, 16)
    scaled = forward(head.params, tokens, "rope", rotation=(sin, cos))
    unit = forward(head.params, tokens, "rope", rotation=(sin / freq.attention_factor, cos / freq.attention_factor))
    left = np.einsum("bid,bjd->bij", scaled.q_rot, scaled.k_rot)
    right = np.einsum("bid,bjd->bij", unit.q_rot, unit.k_rot) * freq.attention_factor**2
    np.testing.assert_allclose(left, right, rtol=1e-12, atol=1e-12)


def test_patterns_are_causal_rows_of_weights(head):
    tokens = relpos.task_sequences("previous", 32, seed=2).tokens[0]
    for method in EXTENSION_METHODS:
        weights = extension_pattern(head, tokens, method)
        assert weights.shape == (32, 32)
        np.testing.assert_allclose(weights.sum(axis=1), 1.0)
        assert not np.triu(weights, 1).any()


def test_the_table_is_seeded_and_shaped():
    one = rope_extension_table("two_back", length=6, factors=(1, 3), steps=20, samples=8, seed=5)
    two = rope_extension_table("two_back", length=6, factors=(1, 3), steps=20, samples=8, seed=5)
    assert one.lengths.tolist() == [6, 18] and one.accuracy.shape == (4, 2)
    np.testing.assert_array_equal(one.accuracy, two.accuracy)
    assert len(set(one.accuracy[:, 0])) == 1  # at L every method is the trained head


def test_bad_input_is_explained(head):
    shaw = relpos.train_head("previous", "shaw", length=4, steps=1)
    with pytest.raises(ValueError, match="scheme 'rope'"):
        extension_accuracy(shaw, 8, "linear")
    with pytest.raises(ValueError, match="method must be"):
        extension_accuracy(head, 8, "cubic")
    with pytest.raises(ValueError, match="methods must be"):
        rope_extension_table("previous", methods=("none", "bogus"), steps=1)
