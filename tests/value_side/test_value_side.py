"""relpos.core.value_side: the a^V half of Shaw et al.'s attention, and its example."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import relpos
from tests.support import reference
from tests.support.strategies import attention_inputs


class TestWindowTable:
    def test_middle_rows(self):
        full = np.arange(-3.0, 4.0)
        np.testing.assert_array_equal(relpos.window_table(full, 0).ravel(), [0.0])
        np.testing.assert_array_equal(relpos.window_table(full, 3).ravel(), full)

    def test_k_beyond_the_table(self):
        with pytest.raises(ValueError, match="k must be at most 3"):
            relpos.window_table(np.zeros(7), 4)


class TestWeightPerOffset:
    @given(attention_inputs(same_length=False), st.integers(0, 5))
    def test_matches_a_loop_and_keeps_row_sums(self, inputs, k):
        Q, K, _ = inputs
        weights = relpos.softmax(relpos.content_scores(Q, K))
        mass = relpos.weight_per_offset(weights, k)
        expected = np.zeros((len(Q), 2 * k + 1))
        for i in range(len(Q)):
            for j in range(len(K)):
                expected[i, reference.clip(j - i, k) + k] += weights[i, j]
        np.testing.assert_allclose(mass, expected, atol=1e-12)
        np.testing.assert_allclose(mass.sum(axis=1), 1.0)

    @given(attention_inputs(same_length=False), st.data())
    def test_position_part_is_the_weighted_table(self, inputs, data):
        from tests.support.strategies import matrices

        Q, K, A_K = inputs
        V = data.draw(matrices(*K.shape))
        A_V = data.draw(matrices(*A_K.shape))
        result = relpos.relative_attention(Q, K, V, A_K=A_K, A_V=A_V)
        mass = relpos.weight_per_offset(result.weights, result.k)
        np.testing.assert_allclose(mass @ A_V, result.output_position, atol=1e-9)


class TestValueExample:
    def test_keeps_the_textbook_key_side(self):
        example = relpos.value_example()
        result = example.attention(2)
        np.testing.assert_allclose(result.scores, relpos.worked_example().attention().scores)
        np.testing.assert_allclose(result.weights[0], [0.3731, 0.2263, 0.1242, 0.2764], atol=5e-5)

    def test_output_matches_the_loop_reference(self):
        example = relpos.value_example()
        for k in range(example.n):
            result = example.attention(k)
            A_V = relpos.window_table(example.value_table, k)
            expected = reference.attention_output(result.weights.tolist(), example.values, A_V)
            np.testing.assert_allclose(result.output, expected, atol=1e-12)

    def test_wrong_lengths(self):
        with pytest.raises(ValueError, match="value_table must have 2n − 1 = 3 entries"):
            relpos.ValueExample((1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (0.0, 0.0, 0.0), (0.0,))
        with pytest.raises(ValueError, match="values must have 2 entries"):
            relpos.ValueExample((1.0, 1.0), (1.0, 1.0), (1.0,), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))


class TestValuePartsByK:
    def test_parts_add_up_for_every_k(self):
        parts = relpos.value_parts_by_k(relpos.value_example())
        np.testing.assert_array_equal(parts.ks, [0, 1, 2, 3])
        np.testing.assert_allclose(parts.content + parts.position, parts.output)
        assert parts.output.shape == (4, 4, 1)

    def test_k_zero_gives_every_query_the_offset_zero_embedding(self):
        """With k = 0 all keys share a^V_0 and the weights sum to 1: no position information."""
        example = relpos.value_example()
        parts = relpos.value_parts_by_k(example)
        np.testing.assert_allclose(parts.position[0].ravel(), example.value_table[3])

    def test_content_part_moves_with_k_through_the_weights(self):
        parts = relpos.value_parts_by_k(relpos.value_example())
        assert not np.allclose(parts.content[0], parts.content[2])
