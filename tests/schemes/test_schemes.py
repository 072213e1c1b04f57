"""relpos.core.schemes: T5 buckets, ALiBi slopes, RoPE, sinusoids and the translation test.

Each function is checked against a transliteration of its authors' reference code in
tests/support/reference.py, against values worked out by hand from the papers, and on the
properties that make it what it is.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from tests.support import reference
from tests.support.strategies import matrices, rotary_inputs, shifts, sizes, t5_offsets, t5_settings

RELATIVE = ("none", "shaw", "t5", "alibi", "rope")
ABSOLUTE = ("sinusoidal",)


class TestT5Bucket:
    @pytest.mark.parametrize(
        ("offset", "bucket"),
        [
            *[(0, 0), (-1, 1), (-7, 7), (-8, 8), (-16, 10), (-32, 12)],
            *[(1, 17), (8, 24), (16, 26), (127, 31), (128, 31), (10**6, 31), (-(10**6), 15)],
        ],
    )
    def test_listed_values_with_the_defaults(self, offset, bucket):
        assert relpos.t5_bucket(offset) == bucket

    @given(t5_offsets, t5_settings())
    def test_matches_the_reference_code(self, offsets, setting):
        expected = [reference.t5_bucket(int(o), *setting) for o in offsets]
        np.testing.assert_array_equal(relpos.t5_bucket(offsets, *setting), expected)

    @given(t5_settings())
    def test_monotone_in_distance_within_each_direction(self, setting):
        num_buckets, max_distance, bidirectional = setting
        distances = np.arange(0, 3 * max_distance)
        before = relpos.t5_bucket(-distances, num_buckets, max_distance, bidirectional)  # keys earlier
        assert np.all(np.diff(before) >= 0)
        after = relpos.t5_bucket(distances[1:], num_buckets, max_distance, bidirectional)  # keys later
        assert np.all(np.diff(after) >= 0)

    @given(t5_settings().filter(lambda s: s[2]))
    def test_bidirectional_mirrors_into_the_upper_half(self, setting):
        num_buckets, max_distance, _ = setting
        n = np.arange(1, 3 * max_distance)
        np.testing.assert_array_equal(
            relpos.t5_bucket(n, num_buckets, max_distance),
            relpos.t5_bucket(-n, num_buckets, max_distance) + num_buckets // 2,
        )

    @given(t5_offsets, t5_settings())
    def test_in_range(self, offsets, setting):
        buckets = relpos.t5_bucket(offsets, *setting)
        assert buckets.min() >= 0 and buckets.max() < setting[0]

    def test_exact_buckets_then_shared_ones(self):
        buckets = relpos.t5_bucket(-np.arange(129))
        np.testing.assert_array_equal(buckets[:8], np.arange(8))  # one bucket per distance below 8
        assert len(np.unique(buckets[8:])) == 8  # the other 8 buckets cover 8..128, log-spaced
        widths = np.bincount(buckets[8:])[8:]
        assert np.all(np.diff(widths) >= 0)  # later buckets are wider

    def test_unidirectional_lumps_later_keys_into_bucket_zero(self):
        np.testing.assert_array_equal(relpos.t5_bucket([1, 5, 500], bidirectional=False), [0, 0, 0])
        np.testing.assert_array_equal(relpos.t5_bucket([-1, -15, -16], bidirectional=False), [1, 15, 16])

    def test_keeps_the_shape(self):
        offsets = relpos.relative_offsets(3, 5)
        assert relpos.t5_bucket(offsets).shape == (3, 5)


class TestT5Bias:
    @given(sizes, st.integers(0, 1000))
    def test_constant_along_diagonals_and_same_for_every_query(self, n, seed):
        values = np.random.default_rng(seed).standard_normal(8)
        bias = relpos.t5_bias(relpos.relative_offsets(n), values, max_distance=8)
        np.testing.assert_array_equal(bias[1:, 1:], bias[:-1, :-1])

    def test_looks_up_the_bucket_value(self):
        values = np.arange(32.0) * 10
        np.testing.assert_array_equal(relpos.t5_bias([-16, 16], values), [100.0, 260.0])

    def test_buckets_seen(self):
        # length 9: distances up to 8 reach bucket 8 (and 24) but no further; bucket 16
        # (offset 0 in the upper half) never occurs, since offset 0 goes to bucket 0
        seen = relpos.t5_buckets_seen(9)
        np.testing.assert_array_equal(seen, [*range(9), *range(17, 25)])


class TestAlibiSlopes:
    def test_eight_heads(self):
        np.testing.assert_array_equal(relpos.alibi_slopes(8), 1 / 2.0 ** np.arange(1, 9))

    def test_six_heads_follow_the_papers_recipe(self):
        # closest power of two below 6 is 4: 2^(−8h/4) = 1/4, 1/16, 1/64, 1/256;
        # then every other slope of 8 heads (1/2, 1/8, 1/32, 1/128), the first 6 − 4 of them
        np.testing.assert_array_equal(relpos.alibi_slopes(6), [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8])

    @pytest.mark.parametrize("n_heads", [*range(1, 33), 48, 64, 96, 100])
    def test_matches_the_reference_code(self, n_heads):
        np.testing.assert_allclose(relpos.alibi_slopes(n_heads), reference.alibi_get_slopes(n_heads), rtol=1e-12)

    @pytest.mark.parametrize("n_heads", [3, 5, 6, 7, 12, 20])
    def test_non_power_of_two_slopes_are_distinct_and_in_range(self, n_heads):
        slopes = relpos.alibi_slopes(n_heads)
        assert len(np.unique(slopes)) == n_heads
        assert np.all((slopes > 0) & (slopes < 1))

    def test_one_head(self):
        np.testing.assert_array_equal(relpos.alibi_slopes(1), [2.0**-8])


class TestAlibiBias:
    @given(sizes, st.floats(0.01, 4.0))
    def test_minus_slope_times_distance(self, n, slope):
        offsets = relpos.relative_offsets(n)
        bias = relpos.alibi_bias(offsets, slope)
        np.testing.assert_allclose(bias, -slope * np.abs(offsets))
        np.testing.assert_array_equal(bias, bias.T)  # symmetric in j − i
        assert np.all(np.diag(bias) == 0.0)


class TestSinusoidalPositions:
    @pytest.mark.parametrize(("n", "d"), [(1, 1), (5, 4), (7, 5), (12, 16)])
    def test_matches_the_papers_formula(self, n, d):
        np.testing.assert_allclose(relpos.sinusoidal_positions(n, d), reference.sinusoidal(n, d), atol=1e-12)

    def test_sine_in_even_columns(self):
        encodings = relpos.sinusoidal_positions(3, 6)
        np.testing.assert_array_equal(encodings[0], [0, 1, 0, 1, 0, 1])
        np.testing.assert_allclose(encodings[2, 0], np.sin(2.0))
        np.testing.assert_allclose(encodings[2, 3], np.cos(2.0 / 10000 ** (2 / 6)))

    @given(st.integers(2, 30), st.integers(1, 8).map(lambda t: 2 * t), st.integers(1, 10))
    def test_dot_products_depend_only_on_the_offset(self, n, d, shift):
        """p_i·p_j = Σ cos((j − i)θ_t): the encodings themselves are translation invariant."""
        encodings = relpos.sinusoidal_positions(n + shift, d)
        gram = encodings @ encodings.T
        np.testing.assert_allclose(gram[shift:, shift:], gram[:n, :n], atol=1e-9)


class TestRope:
    @given(rotary_inputs())
    def test_matches_the_reference(self, inputs):
        x, positions = inputs
        np.testing.assert_allclose(relpos.rope(x, positions), reference.rope(x, positions), atol=1e-9)

    @given(rotary_inputs())
    def test_preserves_norms(self, inputs):
        x, positions = inputs
        np.testing.assert_allclose(
            np.linalg.norm(relpos.rope(x, positions), axis=1), np.linalg.norm(x, axis=1), rtol=1e-9, atol=1e-9
        )

    @given(st.integers(1, 4), st.integers(-50, 50), st.integers(-50, 50), st.integers(-200, 200), st.data())
    def test_rotated_dot_product_depends_only_on_the_offset(self, half_d, p_q, p_k, shift, data):
        q, k = data.draw(matrices(2, 2 * half_d))
        before = relpos.rope(q[None], [p_q]) @ relpos.rope(k[None], [p_k]).T
        after = relpos.rope(q[None], [p_q + shift]) @ relpos.rope(k[None], [p_k + shift]).T
        np.testing.assert_allclose(after, before, atol=1e-7 * (1 + np.abs(q).sum() * np.abs(k).sum()))

    def test_position_zero_is_the_identity(self):
        x = np.arange(8.0).reshape(2, 4)
        np.testing.assert_array_equal(relpos.rope(x, [0, 0]), x)

    def test_pairs_are_adjacent_features(self):
        """Features (0, 1) turn at θ_0 = 1, features (2, 3) at θ_1 = base^(−2/4) = 0.01."""
        rotated = relpos.rope(np.eye(4), [1, 1, 1, 1])
        np.testing.assert_allclose(rotated[0], [np.cos(1), np.sin(1), 0, 0])
        np.testing.assert_allclose(rotated[1], [-np.sin(1), np.cos(1), 0, 0])
        np.testing.assert_allclose(rotated[2], [0, 0, np.cos(0.01), np.sin(0.01)])

    def test_offset_scores_agree_with_rotating_both(self):
        rng = np.random.default_rng(3)
        q, k = rng.standard_normal((2, 6))
        offsets = np.arange(-5, 6)
        rotated_q = relpos.rope(q[None], [10])[0]
        direct = [float(rotated_q @ relpos.rope(k[None], [10 + o])[0]) / np.sqrt(6) for o in offsets]
        np.testing.assert_allclose(relpos.rope_offset_scores(q, k, offsets), direct, atol=1e-12)


@pytest.fixture(scope="module")
def setup():
    return relpos.random_scheme_setup(7, k=2, seed=11)


class TestSchemeScores:
    def test_every_scheme_is_present(self, setup):
        assert list(relpos.scheme_scores(setup)) == list(relpos.SCHEMES)

    def test_position_part_is_combined_minus_content(self, setup):
        for result in relpos.scheme_scores(setup).values():
            np.testing.assert_allclose(result.scores - result.content, result.position, atol=1e-12)
            np.testing.assert_allclose(result.weights.sum(axis=1), 1.0)

    def test_each_scheme_adds_what_its_paper_says(self, setup):
        results = relpos.scheme_scores(setup)
        Q, K = setup.queries(), setup.keys()
        offsets = relpos.relative_offsets(setup.n)
        content = reference.content(Q, K)
        np.testing.assert_allclose(results["none"].scores, content, atol=1e-12)
        np.testing.assert_allclose(results["shaw"].position, reference.biases(Q, setup.A_K, setup.n), atol=1e-12)
        t5 = [[setup.t5_values[reference.t5_bucket(int(o), 16, 32)] for o in row] for row in offsets]
        np.testing.assert_allclose(results["t5"].position, t5)
        np.testing.assert_allclose(results["alibi"].position, -0.5 * np.abs(offsets))
        X = setup.X + reference.sinusoidal(setup.n, setup.X.shape[1])
        np.testing.assert_allclose(
            results["sinusoidal"].scores, reference.content(X @ setup.W_q, X @ setup.W_k), atol=1e-12
        )
        positions = np.arange(setup.n)
        rotary = reference.content(reference.rope(Q, positions), reference.rope(K, positions))
        np.testing.assert_allclose(results["rope"].scores, rotary, atol=1e-9)

    def test_parameter_counts(self, setup):
        counts = {name: result.n_params for name, result in relpos.scheme_scores(setup).items()}
        assert counts == {"none": 0, "sinusoidal": 0, "shaw": 5 * 4, "t5": 16, "alibi": 0, "rope": 0}

    def test_query_independent_biases_are_constant_on_diagonals(self, setup):
        results = relpos.scheme_scores(setup)
        for name in ("t5", "alibi"):
            position = results[name].position
            np.testing.assert_array_equal(position[1:, 1:], position[:-1, :-1])
        shaw = results["shaw"].position  # same embedding along a diagonal, but q_i changes the bias
        assert not np.allclose(shaw[1:, 1:], shaw[:-1, :-1])


class TestTranslation:
    @settings(max_examples=25)
    @given(st.integers(1, 10), st.integers(0, 3), st.integers(0, 10_000), shifts)
    def test_relative_schemes_do_not_change(self, n, k, seed, shift):
        setup = relpos.random_scheme_setup(n, k=k, seed=seed)
        changes = relpos.translation_changes(setup, shift)
        for name in RELATIVE:
            np.testing.assert_allclose(changes[name], 0.0, atol=1e-9, err_msg=name)

    @settings(max_examples=25)
    @given(st.integers(2, 10), st.integers(0, 10_000), shifts)
    def test_absolute_encodings_do_change(self, n, seed, shift):
        setup = relpos.random_scheme_setup(n, seed=seed)
        changes = relpos.translation_changes(setup, shift)
        for name in ABSOLUTE:
            assert np.abs(changes[name]).max() > 1e-6, name

    def test_no_shift_no_change(self):
        changes = relpos.translation_changes(relpos.random_scheme_setup(5), 0)
        assert all(not np.any(change) for change in changes.values())


class TestShawOffsetBiases:
    def test_worked_example_row(self):
        example = relpos.worked_example()
        offsets = np.arange(4)  # query 1 against keys 1..4
        np.testing.assert_allclose(
            relpos.shaw_offset_biases([1.0], example.table, offsets), example.attention().bias[0], atol=1e-12
        )

    def test_flat_beyond_the_clipping_distance(self):
        table = np.random.default_rng(0).standard_normal((5, 3))
        biases = relpos.shaw_offset_biases(np.ones(3), table, np.arange(-9, 10))
        assert len(set(biases[:8])) == 1 and len(set(biases[-8:])) == 1


BAD_INPUT = {
    "float offsets": (lambda: relpos.t5_bucket([0.5]), "relative_position must be an integer array"),
    "few buckets": (lambda: relpos.t5_bucket(0, num_buckets=3), "num_buckets must be an integer >= 4"),
    "short max_distance": (lambda: relpos.t5_bucket(0, max_distance=8), "max_distance must be an integer >= 9"),
    "bidirectional": (lambda: relpos.t5_bucket(0, bidirectional="yes"), "bidirectional must be True or False"),
    "2-D bucket values": (lambda: relpos.t5_bias([0], np.ones((2, 2))), "bucket_values must be 1-D"),
    "zero heads": (lambda: relpos.alibi_slopes(0), "n_heads must be an integer >= 1"),
    "float heads": (lambda: relpos.alibi_slopes(2.5), "n_heads must be an integer"),
    "negative slope": (lambda: relpos.alibi_bias([0], -1.0), "slope must be a finite number > 0"),
    "odd rope d": (lambda: relpos.rope(np.ones((2, 3)), [0, 1]), "x must have an even feature size"),
    "rope positions": (lambda: relpos.rope(np.ones((2, 2)), [0, 1, 2]), "positions must be 1-D with one entry"),
    "NaN positions": (lambda: relpos.rope(np.ones((1, 2)), [np.nan]), "positions must contain only finite"),
    "rope base": (lambda: relpos.rope(np.ones((1, 2)), [0], base=1.0), "base must be a finite number > 1"),
    "sinusoid n": (lambda: relpos.sinusoidal_positions(0, 4), "n must be an integer >= 1"),
    "sinusoid base": (lambda: relpos.sinusoidal_positions(3, 4, base="big"), "base must be a real number"),
    "odd setup d": (lambda: relpos.random_scheme_setup(4, d=3), "d must be even"),
    "negative shift": (lambda: relpos.scheme_scores(relpos.random_scheme_setup(2), shift=-1), "shift must be"),
    "rope q k width": (lambda: relpos.rope_offset_scores([1.0, 0.0], [1.0, 0, 0, 0], [0]), "k must have the same"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_names_the_argument(case):
    call, message = BAD_INPUT[case]
    with pytest.raises(ValueError, match=message):
        call()
