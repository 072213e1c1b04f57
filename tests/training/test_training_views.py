"""Sentences, figures and tables of the training page, without Streamlit (degenerate cases too)."""

from __future__ import annotations

import numpy as np
import pytest

import relpos
from relpos.text.explain import offset_label
from relpos.topics.training import figures, tables, text


@pytest.fixture(scope="module")
def shaw():
    return relpos.train_head("previous", "shaw", length=8, steps=30, k=2, seed=1)


class TestLengthSummary:
    def test_the_textbook_contrast(self):
        sentences = text.length_summary(
            ["Shaw", "absolute", "none"], [16, 32, 64], [[1.0, 1.0, 1.0], [0.99, 0.51, 0.29], [0.32, 0.24, 0.18]]
        )
        assert sentences == [
            "At the training length L = 16 the highest accuracy is 100%: Shaw.",
            "None (32%) did not learn the task at L = 16 (below 50%), so its accuracy on longer sequences says "
            "nothing about generalising.",
            "From L = 16 to 4L = 64, Shaw stays within 5 percentage points.",
            "Absolute falls from 99% to 29%.",
            "At 4L = 64 the highest accuracy is 100%: Shaw.",
        ]

    def test_equal_numbers_everywhere(self):
        sentences = text.length_summary(["a", "b"], [4, 8], [[0.5, 0.5], [0.5, 0.5]])
        assert sentences == [
            "At the training length L = 4 every scheme scores 50%.",
            "From L = 4 to 2L = 8 every scheme stays within 5 percentage points.",
            "At 2L = 8 every scheme scores 50%.",
        ]

    def test_nobody_keeps_its_accuracy(self):
        sentences = text.length_summary(["a", "b"], [4, 16], [[1.0, 0.2], [0.9, 0.5]])
        assert sentences[1] == "From L = 4 to 4L = 16, a falls from 100% to 20% and b falls from 90% to 50%."

    def test_a_rise_is_called_a_rise(self):
        sentences = text.length_summary(["a", "b"], [4, 8], [[0.6, 0.9], [0.5, 0.5]])
        assert "A rises from 60% to 90%." in sentences
        assert all("falls" not in sentence for sentence in sentences)

    def test_rounded_numbers_decide(self):
        """0.996 and 0.995 both show as 100%: no scheme 'falls' between two equal-looking numbers."""
        sentences = text.length_summary(["a"], [4, 8], [[0.996, 0.946]])
        assert sentences[1] == "From L = 4 to 2L = 8, a stays within 5 percentage points."

    def test_one_length_and_one_scheme(self):
        assert text.length_summary(["a"], [4], [[0.0]]) == [
            "At the training length L = 4 the highest accuracy is 0%: a.",
            "A (0%) did not learn the task at L = 4 (below 50%), so its accuracy on longer sequences says nothing "
            "about generalising.",
        ]

    def test_no_schemes(self):
        assert text.length_summary([], [4, 8], np.zeros((0, 2))) == []

    def test_chance_level(self):
        assert text.length_summary(["a"], [4], [[1.0]], vocab=16)[-1] == (
            "Guessing a token at random would score 6% (1 in 16)."
        )

    def test_sentences_match_a_real_table(self):
        table = relpos.train_short_test_long("previous", schemes=["shaw", "absolute"], length=8, steps=30, samples=32)
        sentences = text.length_summary(["Shaw", "absolute"], table.lengths, table.accuracy)
        for sentence in sentences:
            for number in [part for part in sentence.split() if part.rstrip(".,:").endswith("%")]:
                value = int(number.rstrip(".,:%"))
                assert np.any(np.round(100 * table.accuracy) == value), (sentence, table.accuracy)


class TestBiasSummary:
    def test_a_clear_winner(self):
        assert text.bias_summary([-2, -1, 0], [0.0, 3.0, -1.0], step=5) == (
            "After 5 steps the largest bias is at offset −1 (3.00), 3.00 above the next largest (0.00, at offset −2)."
        )

    def test_zero_table(self):
        assert "every offset has the same bias, 0.00" in text.bias_summary([-3, -2, -1, 0], np.zeros(4), step=0)

    def test_one_offset(self):
        assert "every offset has the same bias" in text.bias_summary([0], [1.5], step=1)

    def test_clipped_offsets_tie(self, shaw):
        offsets, biases = relpos.offset_biases(shaw)
        sentence = text.bias_summary(offsets, biases, step=30)
        top = offsets[biases >= biases.max() - 1e-12]
        if top.size > 1:  # the clipped edge row: a run of offsets from −7
            assert f"at offsets {offset_label(top.min())} to {offset_label(top.max())}" in sentence
        else:
            assert f"at offset {offset_label(top[0])} (" in sentence

    def test_non_adjacent_ties_are_listed(self):
        sentence = text.bias_summary([-3, -2, -1, 0], [1.0, 0.0, 1.0, 0.0], step=2)
        assert "offsets −3, −1 (1.00)" in sentence


class TestAttentionSummary:
    def test_perfect_previous_token_head(self):
        weights = np.eye(5, k=-1)
        weights[0, 0] = 1.0
        assert text.target_hits(weights, "previous") == (4, 4, 1.0)

    def test_uniform_weights_count_as_ties(self):
        weights = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
        assert text.target_hits(weights, "first") == (3, 3, pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3))

    def test_two_back_with_three_tokens(self):
        weights = np.array([[1.0, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]])
        hits, rows, mass = text.target_hits(weights, "two_back")
        assert (hits, rows, mass) == (0, 1, 0.2)
        assert "0 of 1 at L = 3" in text.attention_summary({"L = 3": weights}, "two_back")


class TestLossSummary:
    def test_no_steps(self):
        assert text.loss_summary([]) == "No training steps yet."

    def test_a_lowest_value_that_looks_like_the_last_is_not_mentioned(self):
        assert "lowest" not in text.loss_summary([2.0, 0.00041, 0.00044])
        assert "its lowest was 0.50 at step 2" in text.loss_summary([2.0, 0.5, 0.9])

    def test_a_rising_loss_is_reported_as_it_is(self):
        assert (
            text.loss_summary([1.0, 2.0])
            == "The loss went from 1.00 at step 1 to 2.00 at step 2; its lowest was 1.00 at step 1."
        )

    def test_minus_signs_never_appear(self):
        assert "-" not in text.loss_summary([0.0, 0.0], vocab=2)


class TestFigures:
    def test_loss_figure_has_a_line_per_scheme_and_the_uniform_guess(self, shaw):
        fig = figures.loss_figure({"shaw": shaw.losses, "none": shaw.losses * 2}, vocab=16)
        assert [trace.name for trace in fig.data] == ["Shaw relative (clip k)", "no positions"]
        assert fig.layout.shapes[0].y0 == pytest.approx(np.log(16))

    def test_bias_bars_mark_the_largest_and_the_clipped(self, shaw):
        offsets, biases = relpos.offset_biases(shaw)
        fig = figures.offset_bias_figure(offsets, biases, title="t", y_title="y", k=2, y_range=(-1, 1))
        bar = fig.data[0]
        assert list(bar.x) == [offset_label(o) for o in offsets]
        colours = np.array(bar.marker.color)
        assert np.all((colours == figures.WINNER) == (biases >= biases.max() - 1e-12))
        assert np.all((np.array(bar.marker.opacity) < 1) == (offsets < -2))
        assert tuple(fig.layout.yaxis.range) == (-1, 1)

    def test_equal_bars_have_no_winner(self):
        fig = figures.offset_bias_figure([-1, 0], [0.0, 0.0], title="t", y_title="y")
        assert figures.WINNER not in fig.data[0].marker.color

    def test_bias_range_includes_zero(self):
        assert figures.bias_range(np.array([[1.0, 2.0]]))[0] < 0
        assert figures.bias_range(np.zeros((2, 3))) == (-1.0, 1.0)

    def test_attention_figure_is_in_matrix_orientation(self):
        weights = np.tril(np.ones((8, 8))) / np.arange(1, 9)[:, None]
        fig = figures.attention_figure(weights, title="w", trained_length=4)
        assert fig.layout.yaxis.autorange == "reversed"
        assert (fig.data[0].zmin, fig.data[0].zmax) == (0.0, 1.0)
        assert fig.layout.shapes[-1].x1 == 3.5  # the L × L corner

    def test_attention_figure_at_the_trained_length_has_no_square(self):
        fig = figures.attention_figure(np.eye(4), title="w", trained_length=4)
        assert not fig.layout.shapes

    def test_accuracy_figure_in_percent(self):
        fig = figures.accuracy_figure(["shaw", "absolute"], [4, 8, 16], [[1, 1, 1], [1, 0.5, 0.25]], vocab=16)
        assert list(fig.data[1].x) == ["L = 4", "2L = 8", "4L = 16"]
        np.testing.assert_allclose(fig.data[1].y, [100, 50, 25])


class TestTables:
    def test_loss_frame_pads_shorter_runs(self, shaw):
        short = relpos.train_head("previous", "none", length=8, steps=10)
        frame = tables.loss_frame({"shaw": shaw, "none": short})
        assert len(frame) == 30 and frame["loss (no positions)"].isna().sum() == 20

    def test_position_frame_of_a_scheme_without_positions(self):
        assert tables.position_frame(relpos.train_head("previous", "alibi", length=4, steps=2)).empty

    def test_position_frame_rows_are_offsets(self, shaw):
        frame = tables.position_frame(shaw)
        assert list(frame["offset j − i"][:5]) == ["-2", "-1", "0", "+1", "+2"]
        final = frame[frame["step"] == 30].drop(columns=["step", "offset j − i", "trained"]).to_numpy()
        np.testing.assert_array_equal(final, shaw.params["A_K"])

    def test_accuracy_frame_labels(self):
        frame = tables.accuracy_frame(["none"], [5, 10], [[0.25, 0.125]])
        assert list(frame.columns) == ["L = 5", "2L = 10"]
        assert frame.loc["no positions"].tolist() == [25.0, 12.5]
