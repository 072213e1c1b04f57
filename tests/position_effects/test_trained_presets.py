"""The Position effects presets that a head really learned (relpos.core.trained_presets)."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import relpos
from relpos.core import trained_presets as trained
from relpos.text import explain
from relpos.topics.position_effects import model as position_effects_model
from relpos.topics.position_effects import text as position_effects_text
from relpos.topics.training import text

SIGNED_ZERO = re.compile(r"[−+-]0\.0+(?![0-9])")


@functools.cache
def head(pattern: str, k: int):
    """One training run per (preset, k) for the whole module (each takes about a second)."""
    return trained.train_preset_head(pattern, k)


def reference_profile(biases, k):
    """Naive loop: centred, divided by the largest, offsets after the query 0, farther ones reuse the last row."""
    biases = [float(b) for b in biases]
    mean, k_trained = sum(biases) / len(biases), len(biases) - 1
    top = max(biases) - mean
    profile = []
    for offset in range(-k, k + 1):
        if offset > 0 or top == 0:
            profile.append(0.0)
        else:
            profile.append((biases[max(offset, -k_trained) + k_trained] - mean) / top)
    return np.array(profile)


class TestTrainPresetHead:
    def test_settings_are_the_documented_ones(self):
        settings = head("trained_previous", 3).settings
        assert (settings.task, settings.scheme, settings.k) == ("previous", "shaw", 3)
        assert (settings.length, settings.steps, settings.seed, settings.d) == (16, 400, 0, 16)

    def test_is_the_training_pages_head_with_the_pages_k(self):
        """content/position_effects.md: "the head of the Train a tiny head page, with its default settings"."""
        from relpos.topics.training import view as training_page
        from relpos.topics.training.schema import TRAINING

        state = TRAINING.decode({"k": "3"}).state
        page_head = relpos.train_head(
            state["task"], state["scheme"], length=state["L"], k=state["k"], steps=state["steps"],
            seed=state["seed"], vocab=training_page.VOCAB,
        )  # fmt: skip
        np.testing.assert_array_equal(page_head.params["A_K"], head("trained_previous", 3).params["A_K"])

    def test_k_is_capped_at_the_farthest_trained_offset(self):
        assert trained.training_k(40) == trained.TRAINING_LENGTH - 1 == 15
        assert trained.training_k(0) == 0

    def test_deterministic(self):
        again = trained.train_preset_head("trained_two_back", 3)
        np.testing.assert_array_equal(again.params["A_K"], head("trained_two_back", 3).params["A_K"])
        np.testing.assert_array_equal(
            trained.learned_biases(again), trained.learned_biases(head("trained_two_back", 3))
        )

    @pytest.mark.parametrize("pattern", ["nope", "back", "random", ""])
    def test_rejects_other_names(self, pattern):
        with pytest.raises(ValueError, match="trained preset must be one of"):
            trained.train_preset_head(pattern, 3)


class TestLearnedBiases:
    def test_are_the_mean_bias_of_the_causal_offsets(self):
        trained_head = head("trained_previous", 3)
        biases = trained.learned_biases(trained_head)  # offsets −3..0
        A_K, params = trained_head.params["A_K"], trained_head.params
        mean_query = (params["embed"] @ params["W_q"]).mean(axis=0)
        # b̄_o = q̄ · a^K_o / sqrt(d), rows −3..0 of the 7-row table
        np.testing.assert_allclose(biases, A_K[:4] @ mean_query / 4.0)

    def test_rejects_another_scheme(self):
        with pytest.raises(ValueError, match="scheme 'shaw'"):
            trained.learned_biases(relpos.train_head("previous", "t5", steps=1))


class TestProfileFromBiases:
    @pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
    @pytest.mark.parametrize("biases", [[0.3], [1.0, -2.0], [-1.0, 5.0, -2.0], [2.0, 0.5, 0.5, -1.0], [4.0, 4.0, 1.0]])
    def test_matches_the_naive_loop(self, biases, k):
        np.testing.assert_allclose(trained.profile_from_biases(biases, k), reference_profile(biases, k), atol=1e-15)

    def test_shape_top_and_untrained_rows(self):
        profile = trained.profile_from_biases([-1.0, 5.0, -2.0, 0.5], 3)
        assert profile.shape == (7,)
        assert profile.max() == 1.0 and profile[4:].tolist() == [0.0, 0.0, 0.0]  # offsets +1..+3: never trained
        assert abs(profile[:4].mean()) < 1e-15  # centred on the trained rows

    def test_a_shift_of_every_bias_changes_nothing(self):
        biases = np.array([-1.0, 5.0, -2.0, 0.5])
        np.testing.assert_allclose(
            trained.profile_from_biases(biases, 3), trained.profile_from_biases(biases + 7.5, 3), atol=1e-15
        )

    def test_flat_profile_is_zero(self):
        assert not np.any(trained.profile_from_biases([0.03], 0))
        assert not np.any(trained.profile_from_biases([2.0, 2.0, 2.0], 4))

    def test_farther_rows_reuse_the_farthest_trained_one(self):
        profile = trained.profile_from_biases([3.0, 1.0, -1.0], 4)  # trained offsets −2..0
        np.testing.assert_array_equal(profile[:3], [1.0, 1.0, 1.0])  # offsets −4, −3 read offset −2
        assert trained.profile_favoured(profile) == (-4, -3, -2)

    @pytest.mark.parametrize("biases", [[], [[1.0]], [1.0, np.nan]])
    def test_rejects_bad_biases(self, biases):
        with pytest.raises(ValueError, match="biases must be"):
            trained.profile_from_biases(biases, 2)


class TestLearnedPresets:
    """The trained tables favour what their task needs (the head, not a test, decides the numbers)."""

    @pytest.mark.parametrize("k", [2, 3, 4])
    def test_previous_favours_minus_one(self, k):
        assert trained.profile_favoured(trained.preset_profile(head("trained_previous", k), k)) == (-1,)

    @pytest.mark.parametrize("k", [3, 4])
    def test_two_back_favours_minus_two(self, k):
        assert trained.profile_favoured(trained.preset_profile(head("trained_two_back", k), k)) == (-2,)

    def test_first_favours_the_farthest_row(self):
        k = 4
        assert trained.profile_favoured(trained.preset_profile(head("trained_first", k), k)) == (-k,)

    def test_k_zero_has_nothing_to_favour(self):
        profile = trained.preset_profile(head("trained_previous", 0), 0)
        assert profile.shape == (1,) and not np.any(profile)
        assert trained.profile_favoured(profile) == ()


class TestEffectsInputsWithAProfile:
    def test_the_table_is_the_profile_times_the_mean_direction(self):
        profile = trained.preset_profile(head("trained_previous", 3), 3)
        inputs = position_effects_model.position_effects_inputs(
            6, 3, seed=2, pattern="trained_previous", profile=profile
        )
        direction = inputs.queries.mean(axis=0) / np.linalg.norm(inputs.queries.mean(axis=0))
        np.testing.assert_allclose(inputs.direction, direction)
        np.testing.assert_allclose(inputs.table, np.outer(profile, inputs.table[profile == 1.0][0]))
        # the mean over queries of q_i · a^K_o / sqrt(d_k) is strength × profile
        np.testing.assert_allclose((inputs.queries @ inputs.table.T / np.sqrt(8)).mean(axis=0), 2.0 * profile)

    def test_a_trained_preset_needs_its_profile(self):
        with pytest.raises(ValueError, match="needs its learned profile"):
            position_effects_model.position_effects_inputs(6, 3, pattern="trained_first")
        with pytest.raises(ValueError, match="needs its learned profile"):
            position_effects_model.favoured_offsets("trained_first")

    def test_profile_must_fit_k(self):
        with pytest.raises(ValueError, match="2k \\+ 1 = 7 finite values"):
            position_effects_model.position_effects_inputs(6, 3, pattern="trained_first", profile=[1.0, 0.0, 0.0])

    def test_hand_made_presets_take_no_profile(self):
        with pytest.raises(ValueError, match="only a trained preset"):
            position_effects_model.position_effects_inputs(6, 3, pattern="back", profile=np.zeros(7))

    def test_unknown_pattern(self):
        with pytest.raises(ValueError, match="pattern must be one of"):
            position_effects_model.position_effects_inputs(6, 3, pattern="trained")


class TestSentencesHoldForTrainedTables:
    """Every summary sentence the page prints for a trained preset, checked against the numbers."""

    @pytest.mark.parametrize("pattern", list(trained.TRAINED_PRESETS))
    @pytest.mark.parametrize(("n", "k", "strength"), [(8, 0, 2.0), (8, 1, 2.0), (6, 3, 2.0), (6, 3, 0.0), (2, 1, 5.0)])
    def test_claims_hold(self, pattern, n, k, strength):
        profile = trained.preset_profile(head(pattern, k), k)
        inputs = position_effects_model.position_effects_inputs(
            n, k, seed=3, pattern=pattern, strength=strength, profile=profile
        )
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        favoured = position_effects_model.favoured_offsets(pattern, profile)
        sentences = position_effects_text.position_effects_summary(
            inputs.queries, result, favoured, inputs.direction, trained=True
        )
        joined = " ".join(sentences)
        unchanged = bool(np.abs(result.weights - result.content_weights).max() <= 1e-12)
        assert ("moved nothing" in joined) is unchanged
        assert not SIGNED_ZERO.search(joined), joined
        assert "Raise k" not in joined  # a new k trains a new head: no promise about its favourite
        assert "random table" not in joined.lower()
        if match := re.search(r"Weight on offsets ([^:]+): (\d+)% → (\d+)%", joined):
            assert match[1] == ", ".join(explain.offset_label(o) for o in favoured)
            after = relpos.weight_on_offsets(result.weights, favoured).mean()
            assert match[3] == f"{after * 100:.0f}"
        if "are pushed toward these offsets" in joined:
            # a query with a positive component along the direction gets its largest bias at a favoured offset
            bias_per_row = inputs.queries @ inputs.table.T  # (n, 2k+1)
            for row, query in zip(bias_per_row, inputs.queries, strict=True):
                if query @ inputs.direction > 0:
                    assert np.isclose(row.max(), row[[o + k for o in favoured]].max())


class TestTrainedPresetNote:
    def test_states_the_run_and_the_learned_numbers(self):
        trained_head = head("trained_previous", 3)
        biases = trained.learned_biases(trained_head)
        accuracy = relpos.accuracy(trained_head, 16)
        note = position_effects_text.trained_preset_note(
            '"previous token"', length=16, steps=400, seed=0, d=16, biases=biases, accuracy=accuracy, k=3,
            strength=2.0, flat=False,
        )  # fmt: skip
        joined = " ".join(note)
        assert "trained live on this server" in joined and "k = 3, d = 16" in joined
        assert "L = 16, 400 steps, seed 0" in joined
        assert f"is {text.percent(accuracy)}." in joined
        assert "(largest at offset −1)" in joined
        assert re.search(r"−1: \d", joined)  # the learned favourite is positive after all
        assert "never trained" in joined

    def test_flat_and_capped_cases(self):
        flat = position_effects_text.trained_preset_note(
            "x", length=16, steps=400, seed=0, d=16, biases=[0.03], accuracy=0.3, k=0, strength=2.0, flat=True
        )
        assert "With k = 0 the head has one row" in flat[-1] and "adds no position bias" in flat[-1]
        assert len(flat) == 2
        capped = position_effects_text.trained_preset_note(
            "x", length=16, steps=400, seed=0, d=16, biases=np.arange(16.0), accuracy=1.0, k=20, strength=2.0,
            flat=False,
        )  # fmt: skip
        assert capped[-1].endswith("with k = 20, the rows of offsets −20 to −16 reuse row −15.")

    def test_no_signed_zero(self):
        note = position_effects_text.trained_preset_note(
            "x", length=16, steps=400, seed=0, d=16, biases=[-0.001, 2.0, 0.0], accuracy=1.0, k=2, strength=0.0,
            flat=False,
        )  # fmt: skip
        assert not SIGNED_ZERO.search(" ".join(note))
