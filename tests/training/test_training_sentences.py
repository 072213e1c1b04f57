"""The training page's sentences at the settings where they used to go wrong.

Each claim is re-derived from the numbers it speaks about, over hard settings: k = 0
(one table row, so position can never change a weight), k at or beyond the training
length (rows no training sequence reaches), the rows after the query (a causal head
never reads them), fixed schemes (nothing learned, whatever the step), and accuracy
tables where a scheme never learned the task.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.core import training_eval
from relpos.text.numbers import offset as offset_text
from relpos.topics.training import tables, text

ROOT = Path(__file__).resolve().parents[2]

#: Offsets of the page's bias chart for a training length L: −(L − 1) .. 0.
lengths = st.integers(4, 32)
clip_distances = st.integers(0, 16)
steps = st.sampled_from([0, 1, 50, 400, 2000])


def chart_offsets(length: int) -> np.ndarray:
    return np.arange(-(length - 1), 1)


class TestFlatBiasAtKZero:
    """With k = 0 every offset reads the one row aᴷ₀: position can never change a weight."""

    def test_no_yet_at_k_zero(self):
        sentence = text.bias_summary([-2, -1, 0], [0.3, 0.3, 0.3], step=400, k=0)
        assert "yet" not in sentence
        assert "k = 0" in sentence and "never" in sentence

    @given(length=lengths, step=steps, value=st.floats(-5, 5))
    def test_k_zero_is_never_temporary(self, length, step, value):
        offsets = chart_offsets(length)
        caption = text.offset_bars_caption(
            "shaw", offsets, np.full(offsets.size, value), step=step, k=0, length=length, vocab=16
        )
        assert "yet" not in caption
        assert "never" in caption
        assert "Pale bars" not in caption  # nothing is drawn paler: every bar is the one row

    def test_a_scalar_scheme_before_training_is_only_flat_for_now(self):
        sentence = text.bias_summary([-1, 0], [0.0, 0.0], step=0)
        assert "at this step" in sentence and "never" not in sentence

    def test_a_flat_shaw_mean_does_not_claim_flat_weights(self):
        """The bars are the mean query's biases; single queries can still tell offsets apart."""
        sentence = text.bias_summary([-1, 0], [0.2, 0.2], step=10, k=3)
        assert "changes no attention weight" not in sentence and "mean" in sentence

    def test_a_real_head_at_k_zero(self):
        head = relpos.train_head("previous", "shaw", length=6, k=0, steps=3, seed=1)
        offsets, biases = relpos.offset_biases(head)
        caption = text.offset_bars_caption("shaw", offsets, biases, step=3, k=0, length=6, vocab=16)
        assert "yet" not in caption and "k = 0" in caption


class TestFixedPenalty:
    """ALiBi's penalty is fixed: no sentence or title may present it as the result of training."""

    @given(step=steps, length=lengths)
    def test_never_after_steps(self, step, length):
        offsets = chart_offsets(length)
        caption = text.offset_bars_caption(
            "alibi", offsets, -0.5 * np.abs(offsets), step=step, k=4, length=length, vocab=16
        )
        assert not re.search(r"\bafter \d+ steps?\b", caption, re.IGNORECASE), caption
        assert "fixed" in caption and "not learned" in caption

    def test_title_has_no_step(self):
        assert "step" not in text.bias_chart_title("alibi", 400)
        assert text.bias_chart_title("shaw", 400).endswith("step 400")
        assert text.bias_chart_title("t5", 0).endswith("step 0")


class TestPaleBarsAndUntrainedRows:
    """Pale bars only when the chart has offsets beyond −k; untrained rows said to be untrained."""

    @given(length=lengths, k=clip_distances, step=steps)
    def test_pale_bars_only_when_drawn(self, length, k, step):
        offsets = chart_offsets(length)
        biases = np.linspace(-1.0, 1.0, offsets.size)
        caption = text.offset_bars_caption("shaw", offsets, biases, step=step, k=k, length=length, vocab=16)
        has_pale = bool(np.any(offsets < -k)) and k > 0
        assert ("Pale bars" in caption) is has_pale, (length, k, caption)
        if has_pale:
            assert f"offsets below {offset_text(-k)}" in caption

    @given(length=lengths, k=clip_distances)
    def test_untrained_rows_named(self, length, k):
        offsets = chart_offsets(length)
        caption = text.offset_bars_caption(
            "shaw", offsets, np.linspace(0.0, 1.0, offsets.size), step=400, k=k, length=length, vocab=16
        )
        if k > 0:  # rows +1 .. +k: keys after the query, masked in a causal head
            assert f"{offset_text(1)}" in caption and "never trained" in caption.lower()
        if k >= length:  # rows −k .. −L: farther back than any training sequence reaches
            assert f"{offset_text(-k)}" in caption and f"{offset_text(-length)}" in caption
        if k == 0:
            assert "never trained" not in caption.lower()

    @pytest.mark.parametrize(("length", "k"), [(4, 6), (5, 2), (6, 5), (4, 0)])
    def test_the_rows_called_untrained_never_move(self, length, k):
        head = relpos.train_head("previous", "shaw", length=length, k=k, steps=20, seed=2)
        trained = training_eval.trained_rows(head)
        moved = np.any(head.params["A_K"] != head.snapshots[0]["A_K"], axis=1)  # (2k+1,)
        np.testing.assert_array_equal(moved, trained)
        rows_offsets = np.arange(-k, k + 1)
        assert not np.any(trained[rows_offsets > 0])  # the causal head never reads a key after its query
        assert not np.any(trained[rows_offsets < -(length - 1)])

    def test_t5_buckets_called_untrained_never_move(self):
        head = relpos.train_head("previous", "t5", length=5, steps=20, seed=2)
        trained = training_eval.trained_rows(head)
        moved = head.params["t5_bias"] != head.snapshots[0]["t5_bias"]
        np.testing.assert_array_equal(moved, trained)
        caption = text.offset_bars_caption("t5", *relpos.offset_biases(head), step=20, k=4, length=5, vocab=16)
        assert f"{int((~trained).sum())} of {trained.size} buckets" in caption

    def test_the_downloaded_table_marks_untrained_rows(self):
        head = relpos.train_head("previous", "shaw", length=4, k=5, steps=5, seed=0)
        frame = tables.position_frame(head)
        last = frame[frame["step"] == frame["step"].max()]
        expected = training_eval.trained_rows(head)
        assert last["trained"].tolist() == expected.tolist()


#: Accuracy fractions with the hard cases drawn on purpose: chance (1/16), the learned
#: threshold and its neighbours, 0 and 1.
accuracies = st.one_of(
    st.sampled_from([0.0, 1 / 16, 0.14, 0.49, 0.495, 0.5, 0.505, 0.99, 1.0]),
    st.floats(0.0, 1.0),
)


def _names_in(sentence: str, names: list[str]) -> set[str]:
    return {name for name in names if re.search(rf"(^|[\s,(]){re.escape(name)}\b", sentence, re.IGNORECASE)}


class TestLengthSummaryNeedsLearning:
    """Keeping an accuracy on longer sequences is generalising only for a scheme that learned the task."""

    TWO_BACK = (
        ("Shaw", "ALiBi", "no positions"),
        (16, 32, 64),
        ((1.0, 1.0, 1.0), (0.14, 0.14, 0.15), (0.27, 0.21, 0.17)),
    )

    def test_alibi_that_never_learned_is_not_grouped_with_shaw(self):
        sentences = text.length_summary(*self.TWO_BACK, vocab=16)
        joined = " ".join(sentences)
        assert "Shaw and ALiBi" not in joined
        kept = [s for s in sentences if "within" in s]
        assert kept and all("ALiBi" not in s for s in kept)
        assert any("ALiBi" in s and "did not learn" in s for s in sentences)

    @settings(max_examples=200, deadline=None)
    @given(
        table=st.integers(1, 7).flatmap(
            lambda n: st.lists(st.lists(accuracies, min_size=3, max_size=3), min_size=n, max_size=n)
        )
    )
    def test_only_learners_keep_fall_or_rise(self, table):
        names = [f"s{index}" for index in range(len(table))]
        sentences = text.length_summary(names, [16, 32, 64], table, vocab=16)
        shown = [float(f"{100 * row[0]:.1f}") for row in table]  # as the accuracy table prints it
        learned = {name for name, points in zip(names, shown, strict=True) if points >= text.LEARNED_POINTS}
        for sentence in sentences:
            named = _names_in(sentence, names)
            if re.search(r"\b(stays?|falls|rises)\b", sentence):
                assert named <= learned, (sentence, table)
                if "every scheme" in sentence:
                    assert learned == set(names)
            if "did not learn" in sentence:
                assert named and not named & learned, (sentence, table)
        mentioned = set().union(*(_names_in(s, names) for s in sentences if "did not learn" in s))
        assert mentioned == set(names) - learned


#: A word of each training scheme's description that the intro must contain.
SCHEME_WORDS = {
    "none": "no position",
    "absolute": "learned absolute",
    "sinusoidal": "sinusoid",
    "shaw": "Shaw",
    "t5": "T5",
    "alibi": "ALiBi",
    "rope": "RoPE",
}


class TestTrainingIntro:
    """The intro names every scheme the page trains."""

    def test_every_trained_scheme_is_named(self):
        intro = (ROOT / "content" / "training.md").read_text(encoding="utf-8")
        assert set(SCHEME_WORDS) == set(relpos.TRAINING_SCHEMES)
        for scheme, word in SCHEME_WORDS.items():
            assert word in intro, scheme
        counts = re.findall(r"\b(two|three|four|five|six|seven|eight)\s+(?:ways|schemes)\b", intro)
        assert counts == ["seven"] and len(relpos.TRAINING_SCHEMES) == 7
