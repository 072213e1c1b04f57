"""The relpos core against the plain-loop references, plus its properties."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import relpos
from tests.support import reference
from tests.support.strategies import attention_inputs, clip_distances, finite_values, logit_rows, sizes


class TestRelativeOffsets:
    @given(sizes, sizes)
    def test_matches_reference(self, n_q, n_k):
        np.testing.assert_array_equal(relpos.relative_offsets(n_q, n_k), reference.offsets(n_q, n_k))

    @given(sizes)
    def test_antisymmetric(self, n):
        offsets = relpos.relative_offsets(n)
        np.testing.assert_array_equal(offsets, -offsets.T)

    def test_key_minus_query(self):
        offsets = relpos.relative_offsets(2, 3)
        assert offsets[0, 2] == 2  # key after the query: positive
        assert offsets[1, 0] == -1  # key before the query: negative
        assert offsets.dtype.kind == "i"


class TestClipOffsets:
    @given(sizes, sizes, clip_distances)
    def test_within_window(self, n_q, n_k, k):
        clipped = relpos.clip_offsets(relpos.relative_offsets(n_q, n_k), k)
        assert clipped.min() >= -k and clipped.max() <= k

    @given(sizes, sizes, clip_distances)
    def test_matches_reference(self, n_q, n_k, k):
        expected = [[reference.clip(j - i, k) for j in range(n_k)] for i in range(n_q)]
        clipped = relpos.clip_offsets(relpos.relative_offsets(n_q, n_k), k)
        np.testing.assert_array_equal(clipped, expected)

    @given(sizes)
    def test_k_zero_is_offset_zero_everywhere(self, n):
        assert not relpos.clip_offsets(relpos.relative_offsets(n), 0).any()

    def test_does_not_change_its_input(self):
        offsets = np.array([-5, 5])
        relpos.clip_offsets(offsets, 1)
        np.testing.assert_array_equal(offsets, [-5, 5])


class TestTableRows:
    @given(sizes, sizes, clip_distances)
    def test_same_row_along_each_diagonal(self, n_q, n_k, k):
        rows = relpos.table_rows(n_q, n_k, k)
        np.testing.assert_array_equal(rows[1:, 1:], rows[:-1, :-1])

    @given(sizes, sizes, clip_distances)
    def test_matches_reference(self, n_q, n_k, k):
        expected = [[reference.clip(j - i, k) + k for j in range(n_k)] for i in range(n_q)]
        np.testing.assert_array_equal(relpos.table_rows(n_q, n_k, k), expected)


class TestContentScores:
    @given(attention_inputs(same_length=False), st.booleans())
    def test_matches_reference(self, inputs, scale):
        Q, K, _ = inputs
        np.testing.assert_allclose(relpos.content_scores(Q, K, scale=scale), reference.content(Q, K, scale), atol=1e-9)

    def test_scale_divides_by_sqrt_d(self):
        Q = np.ones((2, 4))
        np.testing.assert_allclose(relpos.content_scores(Q, Q), np.full((2, 2), 2.0))
        np.testing.assert_allclose(relpos.content_scores(Q, Q, scale=False), np.full((2, 2), 4.0))

    def test_one_dimensional_input_means_d_one(self):
        np.testing.assert_allclose(relpos.content_scores([2.0], [3.0, -1.0]), [[6.0, -2.0]])


class TestPlaceRelative:
    @given(sizes, sizes, clip_distances, st.data())
    def test_matches_gather(self, n_q, n_k, k, data):
        from tests.support.strategies import matrices

        logits = data.draw(matrices(n_q, 2 * k + 1))
        rows = relpos.table_rows(n_q, n_k, k)
        np.testing.assert_array_equal(relpos.place_relative(logits, n_k), np.take_along_axis(logits, rows, axis=1))


class TestPositionBiases:
    @given(attention_inputs(same_length=False), st.booleans())
    def test_matches_reference(self, inputs, scale):
        Q, K, A_K = inputs
        np.testing.assert_allclose(
            relpos.position_biases(Q, A_K, n_k=len(K), scale=scale),
            reference.biases(Q, A_K, len(K), scale),
            atol=1e-9,
        )

    @given(attention_inputs(), st.integers(1, 5))
    def test_shift_invariant(self, inputs, shift):
        """Same tokens placed later in a longer context: same biases between them."""
        Q, _, A_K = inputs
        d = Q.shape[1]
        padded = np.vstack([np.zeros((shift, d)), Q])  # the same queries, `shift` places later
        shifted = relpos.position_biases(padded, A_K)[shift:, shift:]
        np.testing.assert_allclose(shifted, relpos.position_biases(Q, A_K), atol=1e-12)

    @given(attention_inputs())
    def test_bias_follows_query_along_a_diagonal(self, inputs):
        """Along a diagonal the embedding is shared, so bias_ij / q_i is constant (d = 1)."""
        Q, _, A_K = inputs
        q, table = Q[:, :1], A_K[:, :1]
        bias = relpos.position_biases(q, table)
        rows = relpos.table_rows(len(q), len(q), (len(table) - 1) // 2)
        np.testing.assert_allclose(bias, q * table[rows, 0], atol=1e-12)

    @given(sizes, st.data())
    def test_k_zero_uses_offset_zero_row(self, n, data):
        from tests.support.strategies import matrices

        Q = data.draw(matrices(n, 2))
        A_K = data.draw(matrices(1, 2))
        expected = np.repeat(Q @ A_K.T / np.sqrt(2), n, axis=1)
        np.testing.assert_allclose(relpos.position_biases(Q, A_K), expected, atol=1e-12)


class TestSoftmax:
    @given(logit_rows)
    def test_rows_are_distributions(self, x):
        weights = relpos.softmax(x)
        assert np.all(weights >= 0)
        np.testing.assert_allclose(weights.sum(axis=-1), 1.0)

    @given(logit_rows, finite_values)
    def test_unchanged_by_adding_a_constant(self, x, constant):
        np.testing.assert_allclose(relpos.softmax(x + constant), relpos.softmax(x), atol=1e-9)

    @given(logit_rows, st.data())
    def test_matches_reference_with_mask(self, x, data):
        mask = data.draw(st.lists(st.booleans(), min_size=x.size, max_size=x.size))
        mask = np.array(mask).reshape(x.shape)
        np.testing.assert_allclose(relpos.softmax(x, mask=mask), reference.softmax_rows(x, mask), atol=1e-12)

    def test_no_overflow_at_extremes(self):
        weights = relpos.softmax([[1e6, -1e6, 0.0], [-1e6, -1e6, -1e6]])
        assert np.all(np.isfinite(weights))
        np.testing.assert_allclose(weights, [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3]])

    def test_masked_entries_are_exactly_zero(self):
        weights = relpos.softmax([[5.0, 1.0, 9.0]], mask=[[True, True, False]])
        assert weights[0, 2] == 0.0
        np.testing.assert_allclose(weights.sum(), 1.0)

    def test_fully_masked_row_is_zeros_not_nan(self):
        weights = relpos.softmax([[1.0, 2.0], [3.0, 4.0]], mask=[[False, False], [True, True]])
        np.testing.assert_array_equal(weights[0], [0.0, 0.0])
        np.testing.assert_allclose(weights[1].sum(), 1.0)

    def test_other_axis(self):
        x = np.array([[0.0, 1.0], [0.0, 1.0]])
        np.testing.assert_allclose(relpos.softmax(x, axis=0), 0.5)


class TestRelativeAttention:
    @given(attention_inputs(same_length=False), st.booleans())
    def test_matches_reference(self, inputs, causal):
        Q, K, A_K = inputs
        result = relpos.relative_attention(Q, K, A_K=A_K, causal=causal)
        n_q, n_k = len(Q), len(K)
        scores = reference.content(Q, K) + reference.biases(Q, A_K, n_k)
        mask = reference.offsets(n_q, n_k) <= 0 if causal else np.ones((n_q, n_k), bool)
        np.testing.assert_allclose(result.scores, scores, atol=1e-9)
        np.testing.assert_allclose(result.weights, reference.softmax_rows(scores, mask), atol=1e-9)
        np.testing.assert_allclose(
            result.content_weights, reference.softmax_rows(reference.content(Q, K), mask), atol=1e-9
        )

    @given(attention_inputs(), st.data())
    def test_output_matches_reference(self, inputs, data):
        from tests.support.strategies import matrices

        Q, K, A_K = inputs
        V = data.draw(matrices(*K.shape))
        A_V = data.draw(matrices(*A_K.shape))
        result = relpos.relative_attention(Q, K, V, A_K=A_K, A_V=A_V)
        expected = reference.attention_output(result.weights.tolist(), V, A_V)
        np.testing.assert_allclose(result.output, expected, atol=1e-9)
        np.testing.assert_allclose(result.output_content + result.output_position, result.output)

    @given(attention_inputs())
    def test_weights_are_distributions(self, inputs):
        Q, K, A_K = inputs
        weights = relpos.relative_attention(Q, K, A_K=A_K).weights
        assert np.all(weights >= 0)
        np.testing.assert_allclose(weights.sum(axis=1), 1.0)

    @given(attention_inputs())
    def test_zero_table_gives_content_weights(self, inputs):
        Q, K, A_K = inputs
        result = relpos.relative_attention(Q, K, A_K=np.zeros_like(A_K))
        np.testing.assert_allclose(result.weights, result.content_weights, atol=1e-12)

    def test_causal_masks_later_keys(self):
        result = relpos.relative_attention([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], causal=True)
        assert np.all(result.weights[np.triu_indices(3, 1)] == 0.0)
        np.testing.assert_allclose(result.weights[1], [0.5, 0.5, 0.0])

    def test_without_tables(self):
        result = relpos.relative_attention([1.0, 2.0], [0.5, 0.5])
        assert not result.bias.any()
        assert result.output is None
        assert result.k == 1  # no table: offsets are left unclipped

    def test_value_without_value_table(self):
        result = relpos.relative_attention([1.0], [1.0, 1.0], [3.0, 5.0])
        np.testing.assert_allclose(result.output, [[4.0]])
        assert not result.output_position.any()

    def test_result_is_immutable(self):
        result = relpos.relative_attention([1.0, 2.0], [0.5, 0.5], A_K=[0.1, 0.2, 0.3])
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.scores = None
        with pytest.raises(ValueError, match="read-only"):
            result.scores[0, 0] = 1.0
