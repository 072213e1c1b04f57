"""Core of the Explore pages: scalar bias, measures, Explorer presets, position_effects inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.core.measures import attention_distance, diagonal_spread, mean_offset, weight_on_offsets
from relpos.core.scalar_bias import scalar_bias_attention, scalar_position_biases
from relpos.topics.explorer import presets
from relpos.topics.position_effects import model as position_effects_model
from tests.support import reference
from tests.support.strategies import attention_inputs, clip_distances, finite_values, sizes


class TestScalarPositionBiases:
    @given(sizes, sizes, clip_distances, st.data())
    def test_matches_reference(self, n_q, n_k, k, data):
        table = data.draw(st.lists(finite_values, min_size=2 * k + 1, max_size=2 * k + 1))
        np.testing.assert_array_equal(scalar_position_biases(table, n_q, n_k), reference.scalar_biases(table, n_q, n_k))

    @given(sizes, clip_distances, st.data())
    def test_every_diagonal_is_constant(self, n, k, data):
        table = data.draw(st.lists(finite_values, min_size=2 * k + 1, max_size=2 * k + 1))
        _, spread = diagonal_spread(scalar_position_biases(table, n))
        assert not spread.any()

    def test_worked_example_first_row(self):
        bias = scalar_position_biases(relpos.worked_example().table, 4)
        np.testing.assert_allclose(bias[0], [0.1, -0.2, -0.5, -0.5])
        np.testing.assert_allclose(bias[3], [-0.3, -0.3, 0.4, 0.1])

    @pytest.mark.parametrize(
        ("table", "message"),
        [([[1.0, 2.0, 3.0]], "must be 1-D"), ([1.0, 2.0], "odd length"), ([np.nan], "finite"), ([], "empty")],
    )
    def test_rejects_bad_tables(self, table, message):
        with pytest.raises(ValueError, match=message):
            scalar_position_biases(table, 3)


class TestScalarBiasAttention:
    @given(attention_inputs())
    def test_scores_are_content_plus_scalar_bias(self, inputs):
        Q, K, A_K = inputs
        result = scalar_bias_attention(Q, K, A_K[:, 0])
        expected = reference.content(Q, K) + reference.scalar_biases(A_K[:, 0], len(Q), len(K))
        np.testing.assert_allclose(result.scores, expected, atol=1e-9)
        np.testing.assert_allclose(result.weights, reference.softmax_rows(expected), atol=1e-9)

    def test_d1_differs_from_shaw_only_by_the_query_factor(self):
        example = relpos.worked_example()
        shaw = example.attention()
        scalar = scalar_bias_attention(example.queries, example.keys, example.table)
        q = np.asarray(example.queries)[:, None]
        np.testing.assert_allclose(shaw.bias, q * scalar.bias)
        np.testing.assert_array_equal(shaw.content, scalar.content)

    def test_causal_mask(self):
        result = scalar_bias_attention([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], causal=True)
        assert np.all(result.weights[np.triu_indices(3, 1)] == 0.0)


class TestMeasures:
    @given(sizes, st.data())
    @settings(max_examples=30)
    def test_distances_match_reference(self, n, data):
        logits = data.draw(st.lists(finite_values, min_size=n * n, max_size=n * n))
        weights = relpos.softmax(np.reshape(logits, (n, n)))
        np.testing.assert_allclose(attention_distance(weights), reference.attention_distance(weights), atol=1e-12)
        np.testing.assert_allclose(mean_offset(weights), reference.mean_offset(weights), atol=1e-12)

    def test_diagonal_spread_of_shaw_bias(self):
        """The offset-0 diagonal of the textbook bias is 0.10, 0.05, 0.08, 0.03: spread 0.07."""
        offsets, spread = diagonal_spread(relpos.worked_example().attention().bias)
        np.testing.assert_array_equal(offsets, np.arange(-3, 4))
        assert spread[3] == pytest.approx(0.07)

    def test_weight_on_offsets(self):
        weights = np.eye(3)[[1, 2, 0]]  # query 1 looks at key 2, query 2 at key 3, query 3 at key 1
        np.testing.assert_array_equal(weight_on_offsets(weights, (1,)), [1.0, 1.0, 0.0])
        np.testing.assert_array_equal(weight_on_offsets(weights, (-2,)), [0.0, 0.0, 1.0])

    def test_rejects_vectors(self):
        with pytest.raises(ValueError, match="2-D"):
            attention_distance([0.5, 0.5])


class TestPresetValues:
    @pytest.mark.parametrize("preset", list(presets.PRESETS))
    def test_values_are_on_the_slider_grid(self, preset):
        for values in presets.preset_values(preset, 16, 15, seed=3):
            assert np.all(np.abs(values) <= 2.0)
            np.testing.assert_allclose(values / 0.05, np.round(values / 0.05), atol=1e-9)

    def test_textbook_values(self):
        q, keys, table = presets.preset_values("textbook", 4, 2, seed=0)
        example = relpos.worked_example()
        np.testing.assert_array_equal(q, example.queries)
        np.testing.assert_array_equal(keys, example.keys)
        np.testing.assert_array_equal(table, example.table)

    def test_larger_textbook_table_repeats_its_edges(self):
        """k = 3 gives the textbook's own clipped numbers for the four tokens."""
        q, keys, table = presets.preset_values("textbook", 4, 3, seed=0)
        wide = relpos.relative_attention(q, keys, A_K=table)
        np.testing.assert_allclose(wide.scores, relpos.worked_example().attention().scores)

    @pytest.mark.parametrize("preset", list(presets.PRESETS))
    def test_growing_n_and_k_keeps_existing_values(self, preset):
        small = presets.preset_values(preset, 5, 2, seed=9)
        large = presets.preset_values(preset, 12, 4, seed=9)
        np.testing.assert_array_equal(large[0][:5], small[0])
        np.testing.assert_array_equal(large[1][:5], small[1])
        np.testing.assert_array_equal(large[2][2:7], small[2])

    def test_seed_changes_random_values_only_through_the_seed(self):
        first = presets.preset_values("random", 8, 3, seed=1)
        again = presets.preset_values("random", 8, 3, seed=1)
        other = presets.preset_values("random", 8, 3, seed=2)
        np.testing.assert_array_equal(first[0], again[0])
        assert not np.array_equal(first[0], other[0])

    def test_patterns(self):
        _, _, previous = presets.preset_values("previous", 6, 2, seed=0)
        _, _, ahead = presets.preset_values("ahead", 6, 2, seed=0)
        _, _, locality = presets.preset_values("locality", 6, 2, seed=0)
        _, _, none = presets.preset_values("none", 6, 2, seed=0)
        assert np.argmax(previous) == 1 and np.argmax(ahead) == 3  # offsets -1 and +1
        assert np.argmax(locality) == 2 and locality[0] < locality[1] < locality[2]
        assert not none.any()

    def test_structured_presets_have_positive_queries(self):
        for preset in ("locality", "previous", "ahead"):
            assert np.all(presets.preset_values(preset, 16, 2, seed=4)[0] > 0)

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (("nope", 4, 2, 0), "preset must be one of"),
            (("random", 513, 2, 0), "at most 512"),
            (("random", 4, -1, 0), "k must be"),
            (("random", 4, 2, -3), "seed must be"),
        ],
    )
    def test_rejects_bad_arguments(self, args, message):
        with pytest.raises(ValueError, match=message):
            presets.preset_values(*args)


class TestExplorerInputs:
    def test_d2_keeps_the_slider_values_as_first_coordinates(self):
        inputs = presets.explorer_inputs([1.0, 0.5, 0.8], [0.9, 0.7, 0.4], [0.4, 0.1, -0.2], d=2, preset="random")
        assert inputs.queries.shape == (3, 2) and inputs.table.shape == (3, 2)
        np.testing.assert_array_equal(inputs.queries[:, 0], [1.0, 0.5, 0.8])
        assert (inputs.n, inputs.d, inputs.k) == (3, 2, 1)

    def test_rejects_mismatched_lengths(self):
        with pytest.raises(ValueError, match="same length"):
            presets.explorer_inputs([1.0, 2.0], [1.0], [0.0])
        with pytest.raises(ValueError, match="odd length"):
            presets.explorer_inputs([1.0], [1.0], [0.0, 1.0])
        with pytest.raises(ValueError, match="d must be 1 or 2"):
            presets.explorer_inputs([1.0], [1.0], [0.0], d=3)


class TestPositionEffectsInputs:
    @pytest.mark.parametrize("pattern", ["back", "forward", "local"])
    @pytest.mark.parametrize("d_k", [2, 8, 32])
    def test_mean_bias_of_favoured_offsets_is_the_strength(self, pattern, d_k):
        inputs = position_effects_model.position_effects_inputs(6, 3, d_k=d_k, seed=5, pattern=pattern, strength=1.5)
        bias = inputs.queries @ inputs.table.T / np.sqrt(d_k)  # (n, 2k+1) per-offset biases
        for offset in position_effects_model.favoured_offsets(pattern):
            assert bias[:, offset + 3].mean() == pytest.approx(1.5)

    @pytest.mark.parametrize(("pattern", "favoured"), [("back", (-2, -1)), ("forward", (1, 2)), ("local", (-1, 0, 1))])
    def test_presets_move_weight_to_their_offsets(self, pattern, favoured):
        inputs = position_effects_model.position_effects_inputs(6, 3, seed=0, pattern=pattern)
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        before = weight_on_offsets(result.content_weights, favoured).mean()
        after = weight_on_offsets(result.weights, favoured).mean()
        assert after > before + 0.15

    def test_growing_n_keeps_the_first_tokens(self):
        small = position_effects_model.position_effects_inputs(4, 2, seed=1, pattern="random")
        large = position_effects_model.position_effects_inputs(9, 2, seed=1, pattern="random")
        np.testing.assert_array_equal(large.X[:4], small.X)
        np.testing.assert_array_equal(large.table, small.table)

    def test_changing_d_k_keeps_the_embeddings(self):
        a = position_effects_model.position_effects_inputs(5, 1, d_k=4, seed=2)
        b = position_effects_model.position_effects_inputs(5, 1, d_k=16, seed=2)
        np.testing.assert_array_equal(a.X, b.X)

    def test_profile_clips_to_the_edge_row(self):
        np.testing.assert_array_equal(position_effects_model.pattern_profile("back", 1), [1.0, 0.0, 0.0])
        np.testing.assert_array_equal(position_effects_model.pattern_profile("forward", 0), [1.0])

    def test_without_a_shared_direction_some_queries_disagree(self):
        """One table cannot favour an offset for queries pointing every which way."""
        inputs = position_effects_model.position_effects_inputs(64, 3, seed=3, shared=0.0)
        aligned = inputs.queries @ inputs.direction > 0
        assert 0 < aligned.sum() < 64

    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [
            ({"n": 65, "k": 2}, "at most 64"),
            ({"n": 4, "k": 2, "pattern": "up"}, "pattern must be one of"),
            ({"n": 4, "k": 2, "strength": float("nan")}, "strength must be a finite"),
            ({"n": 0, "k": 0}, "n must be"),
        ],
    )
    def test_rejects_bad_arguments(self, kwargs, message):
        with pytest.raises(ValueError, match=message):
            position_effects_model.position_effects_inputs(**kwargs)
