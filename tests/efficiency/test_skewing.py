"""Skewing, the naive gather and the memory formulas (relpos.core.skewing) and the timing helper."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.core.skewing import (
    memory_footprint,
    naive_position_biases,
    skew,
    skew_embeddings,
    skew_labels,
    skewed_position_biases,
)
from relpos.text.numbers import offset
from relpos.topics.efficiency.model import time_bias_methods
from tests.support import reference
from tests.support.strategies import attention_inputs, causal_inputs, square_logits


class TestSkew:
    @given(causal_inputs(unclipped=True))
    def test_equals_direct_placement_unclipped(self, inputs):
        """The issue's property: skew(Q Eᵀ) = position_biases with k = L − 1 on j ≤ i."""
        Q, A_K = inputs
        n = len(Q)
        E = A_K[:n]  # rows of offsets -(L-1)..0: the first L rows of a k = L-1 table
        steps = skew(Q @ E.T)
        placed = relpos.place_relative(Q @ A_K.T, n)  # (L, L), every offset
        causal = np.tril(np.ones((n, n), dtype=bool))
        np.testing.assert_allclose(steps.result[causal], placed[causal], atol=1e-12)
        np.testing.assert_allclose(steps.result[causal], relpos.position_biases(Q, A_K, scale=False)[causal], atol=1e-9)
        assert not steps.result[~causal].any()

    @given(square_logits)
    def test_matches_definition(self, logits):
        np.testing.assert_array_equal(skew(logits).result, reference.skew_by_definition(logits))

    @given(square_logits)
    def test_intermediate_shapes_and_memory_order(self, logits):
        n = len(logits)
        steps = skew(logits)
        assert steps.padded.shape == (n, n + 1)
        assert steps.reshaped.shape == (n + 1, n)
        assert steps.sliced.shape == (n, n)
        assert not steps.padded[:, 0].any()  # the dummy column
        np.testing.assert_array_equal(steps.padded[:, 1:], logits)
        # a reshape, not a rearrangement: the same numbers in the same order
        np.testing.assert_array_equal(steps.reshaped.ravel(), steps.padded.ravel())
        np.testing.assert_array_equal(steps.sliced, steps.reshaped[1:])

    @given(square_logits)
    def test_leftovers_above_the_diagonal(self, logits):
        """Above the diagonal sit the pad (first superdiagonal) and the next query's logits."""
        n = len(logits)
        steps = skew(logits)
        for i in range(n):
            for j in range(i + 1, n):
                assert steps.sliced[i, j] == steps.padded[i + 1, j - i - 1]
        np.testing.assert_array_equal(steps.causal, np.tril(np.ones((n, n), dtype=bool)))

    def test_worked_example_four_tokens(self):
        example = relpos.worked_example()
        q = np.array(example.queries)
        E = skew_embeddings(example.table, 4)  # k = 2: offsets -3, -2 share a^K_-2
        result = skew(np.outer(q, E[:, 0])).result
        expected = example.attention().bias
        np.testing.assert_allclose(result[np.tril_indices(4)], expected[np.tril_indices(4)])

    def test_results_are_read_only(self):
        steps = skew([[1.0]])
        with pytest.raises(ValueError, match="read-only"):
            steps.result[0, 0] = 2.0

    @pytest.mark.parametrize(
        ("logits", "message"),
        [
            (np.ones((2, 3)), "must be square"),
            (np.ones(3), "must be 2-D"),
            ([[np.nan]], "finite"),
            ([["a"]], "real numbers"),
        ],
    )
    def test_rejects_bad_input(self, logits, message):
        with pytest.raises(ValueError, match=message):
            skew(logits)


class TestSkewLabels:
    def test_causal_cells_name_query_and_offset(self):
        steps = skew_labels(4, offset_name=offset)
        for i in range(4):
            for j in range(i + 1):
                assert steps.result[i, j] == f"q{i + 1}·e({j - i})".replace("-", "−")

    @given(st.integers(1, 8))
    def test_same_moves_as_the_numbers(self, n):
        """Labels and numbers go through one pad/reshape/slice: cell by cell the same source."""
        codes = np.arange(1.0, n * n + 1).reshape(n, n)  # a unique number per input cell
        numbers, labels = skew(codes), skew_labels(n, offset_name=offset)
        source = dict(zip(codes.ravel().tolist(), labels.relative_logits.ravel(), strict=True))
        source[0.0] = "0"
        for step in ("padded", "reshaped", "sliced", "result"):
            mapped = [source[value] for value in getattr(numbers, step).ravel()]
            assert mapped == list(getattr(labels, step).ravel()), step

    def test_pad_label(self):
        assert skew_labels(2, pad="pad").padded[0, 0] == "pad"

    def test_rejects_bad_length(self):
        with pytest.raises(ValueError, match="length must be an integer >= 1"):
            skew_labels(0)


class TestSkewEmbeddings:
    @given(causal_inputs())
    def test_rows_are_clipped_offsets(self, inputs):
        Q, A_K = inputs
        n, k = len(Q), (len(A_K) - 1) // 2
        E = skew_embeddings(A_K, n)
        assert E.shape == (n, A_K.shape[1])
        for m in range(n):
            np.testing.assert_array_equal(E[m], A_K[reference.clip(m - (n - 1), k) + k])

    def test_wide_table_gives_plain_rows(self):
        table = np.arange(7.0)  # k = 3, offsets -3..3
        np.testing.assert_array_equal(skew_embeddings(table, 3).ravel(), [1.0, 2.0, 3.0])  # offsets -2, -1, 0


class TestSkewedPositionBiases:
    @given(causal_inputs(), st.booleans())
    def test_equals_position_biases_on_causal_cells(self, inputs, scale):
        Q, A_K = inputs
        n = len(Q)
        causal = np.tril(np.ones((n, n), dtype=bool))
        skewed = skewed_position_biases(Q, A_K, scale=scale)
        np.testing.assert_allclose(skewed[causal], reference.biases(Q, A_K, n, scale)[causal], atol=1e-9)
        assert not skewed[~causal].any()

    @given(causal_inputs(unclipped=True))
    def test_matches_music_transformer_definition(self, inputs):
        Q, A_K = inputs
        n = len(Q)
        E = A_K[:n]
        np.testing.assert_allclose(
            skewed_position_biases(Q, A_K, scale=False), reference.music_relative_logits(Q, E), atol=1e-9
        )

    def test_rejects_mismatched_width(self):
        with pytest.raises(ValueError, match="A_K must have the same feature size"):
            skewed_position_biases(np.ones((3, 2)), np.ones((3, 1)))


class TestNaivePositionBiases:
    @given(attention_inputs(same_length=False), st.booleans())
    def test_matches_reference(self, inputs, scale):
        Q, K, A_K = inputs
        np.testing.assert_allclose(
            naive_position_biases(Q, A_K, n_k=len(K), scale=scale), reference.biases(Q, A_K, len(K), scale), atol=1e-9
        )

    @given(attention_inputs(same_length=False))
    def test_agrees_with_placement(self, inputs):
        Q, K, A_K = inputs
        np.testing.assert_allclose(
            naive_position_biases(Q, A_K, n_k=len(K)), relpos.position_biases(Q, A_K, n_k=len(K)), atol=1e-9
        )

    def test_worked_example(self):
        example = relpos.worked_example()
        np.testing.assert_allclose(naive_position_biases(example.queries, example.table), example.attention().bias)

    def test_rejects_even_table(self):
        with pytest.raises(ValueError, match="odd number of rows"):
            naive_position_biases([1.0], [1.0, 2.0])


class TestMemoryFootprint:
    def test_reproduces_music_transformer_figures(self):
        """Huang et al.: L = 2048, D = 512 (8 heads of 64): 8.5 GB -> 4.2 MB per layer."""
        memory = memory_footprint(2048, 512, heads=8, itemsize=4)
        assert memory.gathered == 2048**2 * 512 * 4 == 8_589_934_592 == 8 * 2**30
        assert memory.skew_embeddings == 2048 * 512 * 4 == 4_194_304 == 4 * 2**20
        assert f"{memory.gathered / 1e9:.2f}" == "8.59"  # printed as 8.5 GB in the paper (truncated)
        assert f"{memory.skew_embeddings / 1e6:.1f}" == "4.2"

    @given(st.integers(1, 4096), st.integers(0, 64), st.sampled_from([1, 2, 4, 8]), st.sampled_from([2, 4, 8]))
    @settings(max_examples=30)
    def test_formulas(self, n, k, heads, itemsize):
        d_model = 64 * heads
        memory = memory_footprint(n, d_model, k=k, heads=heads, itemsize=itemsize)
        assert memory.gathered == n * n * d_model * itemsize
        assert memory.relative_logits == heads * n * (2 * k + 1) * itemsize
        assert memory.skew_embeddings == n * d_model * itemsize
        assert memory.scores == heads * n * n * itemsize
        assert memory.gathered == memory.scores * (d_model // heads)  # one d_head vector per logit

    def test_default_k_is_unclipped(self):
        assert memory_footprint(10, 4).relative_logits == 10 * 19 * 4

    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [
            ({"n": 0, "d_model": 4}, "n must be an integer >= 1"),
            ({"n": 4, "d_model": 6, "heads": 4}, "d_model must be a multiple of heads"),
            ({"n": 4, "d_model": 4, "k": -1}, "k must be an integer >= 0"),
            ({"n": 4, "d_model": 4, "itemsize": 0}, "itemsize must be an integer >= 1"),
        ],
    )
    def test_rejects_bad_input(self, kwargs, message):
        with pytest.raises(ValueError, match=message):
            memory_footprint(**kwargs)


class TestTimeBiasMethods:
    def test_all_methods_agree_and_take_time(self):
        timings = time_bias_methods(64, 8, 4, repeats=1)
        assert [t.method for t in timings] == ["naive gather (n, n, d)", "Q A_Kᵀ + placement", "skewing (causal)"]
        for timing in timings:
            assert timing.seconds is not None and timing.seconds > 0
            assert timing.max_error is not None and timing.max_error < 1e-9
        assert timings[0].extra_bytes == 64 * 64 * 8 * 8

    def test_naive_skipped_over_budget(self):
        naive = time_bias_methods(32, 4, 2, repeats=1, naive_budget_bytes=1000)[0]
        assert naive.seconds is None and naive.max_error is None
        assert "skipped" in naive.note

    def test_same_seed_same_data(self):
        first, second = time_bias_methods(16, 2, 1, seed=3, repeats=1), time_bias_methods(16, 2, 1, seed=3, repeats=1)
        assert [t.max_error for t in first] == [t.max_error for t in second]

    def test_rejects_bad_sizes(self):
        with pytest.raises(ValueError, match="n must be an integer >= 1"):
            time_bias_methods(0, 4, 1)
