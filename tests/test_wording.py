"""Prose that states facts (content/*.md, labels, README) says what is true.

Each test checks the wording and, where the text states a fact about numbers, re-derives it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import relpos
from relpos.core.measures import shift_threshold
from relpos.core.training_model import init_params, loss_and_gradient
from relpos.core.training_tasks import random_batch
from relpos.tables import frames as tables
from relpos.text import explain
from relpos.topics.position_effects import model as position_effects_model
from relpos.topics.schemes.view import SCHEME_SYMBOLS
from relpos.topics.walkthrough import model as wt
from relpos.ui import navigation
from tests.support.apptest import open_app

ROOT = Path(__file__).resolve().parents[1]


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


class TestHandMadePresets:
    """Hand-built tables were called trained or trained-like."""

    def test_no_training_claim_anywhere(self):
        sources = [
            read("README.md"),
            read("docs/pages.md"),
            read("content/position_effects.md"),
            read("relpos/topics/position_effects/model.py"),
            *(read(f"relpos/text/{name}.py") for name in ("explain", "phrases", "weight_change")),
            read("pages/position_effects.py"),
            read("relpos/topics/position_effects/view.py"),
            " ".join(str(spec) for spec in navigation.PAGES),
        ]
        for text in sources:
            for claim in ("mimic trained", "shaped like trained", "trained-like", "trained model's", "trained tables"):
                assert claim not in text

    def test_called_illustrative_hand_made(self):
        assert "illustrative hand-made tables" in read("content/position_effects.md")
        assert "hand-made (not trained)" in " ".join(str(spec) for spec in navigation.PAGES)
        assert "illustrative hand-made table" in read("README.md") + read("docs/pages.md")
        assert "Table preset (illustrative hand-made tables, or trained live)" in read(
            "relpos/topics/position_effects/view.py"
        )

    def test_selector_says_which_presets_are_hand_made_and_which_trained(self):
        """Trained presets sit next to the hand-made ones, and each option says which it is."""
        at = open_app("position_effects")
        options = at.selectbox(key="position_effects.preset").options
        assert options == [
            "hand-made: Attend 1–2 back",
            "hand-made: Attend 1–2 forward",
            "hand-made: Local window (±1)",
            "Random table",
            "trained: previous token",
            "trained: two back",
            "trained: first token",
        ]

    def test_the_tables_really_are_a_profile_times_the_mean_direction(self):
        inputs = position_effects_model.position_effects_inputs(6, 3, seed=1, pattern="back")
        direction = inputs.queries.mean(axis=0) / np.linalg.norm(inputs.queries.mean(axis=0))
        profile = position_effects_model.pattern_profile("back", 3)
        row = inputs.table[profile > 0][0]
        np.testing.assert_allclose(inputs.table, np.outer(profile, row))
        np.testing.assert_allclose(row / np.linalg.norm(row), direction)


class TestRopeSign:
    """Once wrong: "rotation by i then the inverse rotation by j is a rotation by j − i" had the sign reversed."""

    def test_text_states_the_right_composition(self):
        text = read("content/schemes_translation_after.md")
        assert r"q^\top R_i^\top R_j\, k = q^\top R_{j-i}\, k" in text
        assert "followed by the inverse rotation by j" not in text

    def test_the_composition_holds(self):
        def rotation(angle):
            return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])

        q, k, theta = np.array([0.3, -1.2]), np.array([0.7, 0.4]), 0.37
        for i, j in ((1, 4), (5, 2), (0, 0)):
            assert np.isclose((rotation(i * theta) @ q) @ (rotation(j * theta) @ k), q @ rotation((j - i) * theta) @ k)


class TestQueryIndependentWording:
    """Once wrong: "one learned number per offset, as in T5 or ALiBi"."""

    def test_toggle_and_background(self):
        label = explain.SCALAR_TOGGLE_LABEL
        assert "as in T5 or ALiBi" not in label and "per bucket" in label and "ALiBi learns none" in label
        assert "SCALAR_TOGGLE_LABEL" in read("relpos/topics/explorer/panel_spec.py")  # the Explorer panel's toggle
        background = read("content/walkthrough_background.md")
        assert "T5's learned scalar\nper offset" not in background and "per *bucket*" in background
        assert "ALiBi (Attention with Linear Biases, Press et al. 2022) learns\nnothing" in background
        assert "(as in T5 or ALiBi)" not in read("content/explorer_offsets.md")


class TestSchemeCards:
    """T5 does not divide by √d; ALiBi's symmetric form is an extension."""

    def test_t5_card_says_the_page_scales_every_scheme(self):
        assert "T5 itself does not divide" in SCHEME_SYMBOLS["t5"] and "every scheme" in SCHEME_SYMBOLS["t5"]

    def test_alibi_card_says_causal_and_extension(self):
        card = SCHEME_SYMBOLS["alibi"]
        assert "causal" in card and "extension for bidirectional attention" in card


class TestMemoryFigures:
    """One 8.6 GB figure was presented as "the" Shaw tensor."""

    def test_both_figures_exact(self):
        text = read("content/efficiency_intro.md")
        shared = 2048 * 2048 * 64  # (L, L, d_head): a^K shared across heads
        per_head = 8 * shared  # (L, L, D): one table per head
        for count in (shared, shared * 4, per_head, per_head * 4):
            assert f"{count:,}" in text
        assert f"≈ {tables.format_bytes(shared * 4)} (exactly 1 GiB)" in text
        assert f"≈ {tables.format_bytes(per_head * 4)}" in text and "(exactly 8 GiB" in text
        assert "Shared across heads" in text and "Separate embeddings per head" in text
        assert "8.6 GB" not in text


class TestWalkthroughEditText:
    """Once wrong: "the scores do not change until you edit it" ignored remembered values."""

    def test_remembered_values_change_the_scores_and_copies_do_not(self):
        text = read("content/walkthrough_edit.md")
        assert "restores the old a^K₋₂ and a^K₊₂" in text and "which changes the scores" in text
        assert "leaves every score\nunchanged until you edit it" in text
        example = relpos.worked_example()
        lowered = wt.resize_table(example.table, 1)
        remembered = {-2: example.table[0], 2: example.table[-1]}
        scores = {
            "k1": relpos.Scenario(example.queries, example.keys, lowered).attention().scores,
            "back": relpos.Scenario(example.queries, example.keys, wt.resize_table(lowered, 2, remembered)),
            "copy": relpos.Scenario(example.queries, example.keys, wt.resize_table(lowered, 2)),
        }
        assert wt.resize_table(lowered, 2, remembered) == tuple(example.table)  # −0.3 and −0.5 come back
        assert not np.allclose(scores["back"].attention().scores, scores["k1"])
        np.testing.assert_allclose(scores["copy"].attention().scores, scores["k1"])


class TestSkewingText:
    """Once wrong: "every row starts one cell earlier … than the row above it" was ambiguous."""

    def test_states_what_moves_and_it_holds(self):
        text = read("content/efficiency_skewing.md")
        assert "reshaped row r starts at r·L, r cells earlier" in text
        assert "starts one cell\n   earlier in the padded data than the row above it" not in text
        length = 5
        padded = np.arange(length * (length + 1)).reshape(length, length + 1)
        reshaped = padded.ravel().reshape(length + 1, length)  # nothing moves in memory
        for r in range(length):
            assert reshaped[r, r] == padded[r, 0]  # padded row r lands r cells further right
            spilled = np.setdiff1d(padded[r], reshaped[r]).size  # issue 37: the text said "the last r"
            assert spilled == r + 1
        assert "(the last r + 1 of\n   them spill into the next row)" in text


class TestReferenceCodeBuildsTheSharedTensor:
    """The claim "real implementations never build either": reference code builds the shared (L, L, d) one."""

    def test_says_who_builds_it_and_what_is_avoided(self):
        text = read("content/efficiency_intro.md")
        assert "never build" not in text
        assert "`_relative_attention_inner`" in text and "tensor2tensor" in text.lower()
        assert "Wav2Vec2-BERT" in text and "`relative_key`" in text
        # issue 37: tensor2tensor's first relative attention gathered a per-head tensor: the claim is for now
        assert "In their current code neither builds the per-head (L, L, D) version" in text
        assert "common_attention.py as it is now, not its first 2018 relative attention" in text

    def test_no_page_repeats_the_old_claim(self):
        texts = [read("pages/efficiency.py"), " ".join(str(spec) for spec in navigation.PAGES)]
        assert all("never build" not in text for text in texts)


class TestSinusoidalTranslation:
    """The position–position term p_i W^Q (p_j W^K)ᵀ is not a function of j − i either."""

    def test_text_names_all_three_position_terms(self):
        text = read("content/schemes_translation_after.md")
        assert "position–position term $p_i W^Q (p_j W^K)^\\top$" in text
        assert "two cross terms" in text and "not a function\nof j − i either" in text

    def test_the_terms_behave_as_stated(self):
        rng = np.random.default_rng(3)
        d, shift = 8, 5
        p = relpos.sinusoidal_positions(20, d)  # (20, d)
        w_q, w_k = rng.standard_normal((d, d)), rng.standard_normal((d, d))
        pairs = [(i, i + 3) for i in range(10)]  # one offset, many places
        plain = [p[i] @ p[j] for i, j in pairs]
        projected = [(p[i] @ w_q) @ (p[j] @ w_k) for i, j in pairs]
        np.testing.assert_allclose(plain, plain[0])  # p_i · p_j: the offset alone
        assert np.ptp(projected) > 1e-3  # p_i W^Q (p_j W^K)ᵀ: the place too
        assert not np.isclose((p[0] @ w_q) @ (p[3] @ w_k), (p[shift] @ w_q) @ (p[shift + 3] @ w_k))


class TestCausalEdgeRows:
    """The claim "the two edge rows collect every diagonal beyond ±k": in a causal head the +k row gets no gradient."""

    def test_text(self):
        text = read("content/training_gradient_after.md")
        assert "The two edge rows collect every diagonal beyond" not in text
        assert "get no gradient at all" in text and "(the row of $+k$ included)" in text

    @pytest.mark.parametrize(("length", "k"), [(6, 2), (5, 5), (4, 7)])
    def test_rows_after_the_query_and_beyond_the_length_get_no_gradient(self, length, k):
        rng = np.random.default_rng(0)
        params = init_params("shaw", vocab=8, d=4, k=k, length=length, rng=rng)
        batch = random_batch("previous", 16, length, 8, rng)
        _, grads = loss_and_gradient(params, batch.tokens, batch.targets, batch.scored, "shaw")
        offsets = np.arange(-k, k + 1)
        silent = np.all(grads["A_K"] == 0.0, axis=1)  # (2k+1,)
        np.testing.assert_array_equal(silent, (offsets > 0) | (offsets < -(length - 1)))


class TestClippingCoversTestDistancesOnlyBelowL:
    """The claim "every distance … maps to an entry it was trained on" holds only for k below the training length."""

    def test_text_states_the_condition(self):
        text = read("content/walkthrough_background.md")
        assert "As long as k is below the training length L" in text
        assert "with k ≥ L the entries beyond ±(L − 1) were never trained" in text

    @pytest.mark.parametrize(("length", "k"), [(8, 3), (8, 7), (8, 8), (4, 10)])
    def test_which_entries_a_training_length_reaches(self, length, k):
        offsets = relpos.relative_offsets(length)  # every j − i of a training sequence
        reached = np.unique(relpos.clip_offsets(offsets, k))
        assert (reached.size == 2 * k + 1) is (k < length)


class TestT5ExactBuckets:
    """The claim "exact only for offsets below 8 with 32 buckets" is the bidirectional case; a decoder keeps 16."""

    def test_text(self):
        text = read("content/walkthrough_background.md")
        assert "(below 8 with 32\nbuckets)" not in text
        assert "keeps offsets below 8 exact" in text and "keeps 16 exact distances, 0 to 15" in text

    @staticmethod
    def exact_distances(bidirectional: bool) -> int:
        distances = np.arange(0, 200)
        buckets = relpos.t5_bucket(-distances, 32, 128, bidirectional=bidirectional)  # keys before the query
        alone = [np.count_nonzero(buckets == b) == 1 for b in buckets]
        return int(np.argmin(alone))  # the first distance that shares its bucket

    def test_the_bucketing(self):
        assert self.exact_distances(bidirectional=True) == 8
        assert self.exact_distances(bidirectional=False) == 16


class TestLogMeanExp:
    """T = log Σ wₗ e^(bₗ) is a log-mean-exp, not an average; the change wⱼ(e^(bⱼ − T) − 1) scales with wⱼ."""

    def test_no_text_calls_t_an_average(self):
        sources = [read("content/walkthrough_background.md"), read("relpos/text/explain.py")]
        sources += [read("relpos/text/weight_change.py")]
        sources += [read(f"relpos/{path}") for path in ("core/measures.py", "topics/walkthrough/text.py")]
        for text in sources:
            assert "content-weighted average" not in text
        assert "log-mean-exp" in read("content/walkthrough_background.md")
        assert "content-weighted log-mean-exp" in explain.weight_shift_reason([0.5, 0.5], [0.1, -0.1], 1)

    def test_t_is_not_the_weighted_average(self):
        w, b = np.array([0.7, 0.3]), np.array([0.0, 2.0])
        threshold = float(shift_threshold(w[None, :], b[None, :])[0])
        assert np.isclose(threshold, np.log(w @ np.exp(b))) and threshold > w @ b + 0.1

    def test_text_says_always_proportional(self):
        text = read("content/walkthrough_background.md")
        assert "usually moves more" not in text
        assert "$w_j (e^{b_j - T} - 1)$" in text and "always moves more, in exact proportion" in text

    def test_the_change_is_proportional_to_the_weight(self):
        rng = np.random.default_rng(4)
        for _ in range(50):
            content = rng.normal(size=6) * 3
            bias = rng.normal(size=6)
            bias[3] = bias[1]  # two keys with the same position term
            w = np.exp(content - content.max()) / np.exp(content - content.max()).sum()
            new = w * np.exp(bias) / (w @ np.exp(bias))
            threshold = np.log(w @ np.exp(bias))
            np.testing.assert_allclose(new - w, w * (np.exp(bias - threshold) - 1), atol=1e-15)
            np.testing.assert_allclose((new - w)[1] * w[3], (new - w)[3] * w[1], atol=1e-15)
