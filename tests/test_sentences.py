"""Issue 9: every sentence built from numbers states only what holds in its setting.

Each property draws random settings, degenerate ones included (zero table, k = 0,
k ≥ n − 1, equal queries, n = 2, tied keys), re-derives the claim from the core with a
naive reference and checks the sentence says exactly that.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings

import relpos
from relpos.core.examples import Scenario
from relpos.core.measures import attention_distance
from relpos.lessons import effects
from relpos.lessons import walkthrough as wt
from relpos.lessons import walkthrough_text as wt_text
from relpos.text import effects as effects_text
from relpos.text import explain
from relpos.text.numbers import number
from tests.strategies import caption_settings

#: A signed or unsigned number printed as zero with a sign ("−0.00", "+0.000") is never right.
SIGNED_ZERO = re.compile(r"[−+-]0\.0+(?![0-9])")
CELL = re.compile(
    r"Largest (gain|loss): query (\d+) → key (\d+) \(offset [^)]*\), ([+−]\d\.\d{3}) \((\d\.\d{3}) → (\d\.\d{3})\): "
    r"its bias (\S+) is (above|below) the row's content-weighted log-mean-exp T = log Σₗ wₗ·e\^\(bₗ\) = (\S+), "
    r"so its weight is multiplied by e\^\(bⱼ − T\) = (\S+)\."
)


def _float(text: str) -> float:
    return float(text.replace("−", "-").rstrip(".,"))


def _threshold(w_row, b_row) -> float:
    """Naive T = log Σₗ wₗ e^(bₗ)."""
    return math.log(sum(w * math.exp(b) for w, b in zip(w_row, b_row, strict=True)))


def _result(Q, K, A):
    return relpos.relative_attention(Q, K, A_K=A)


def _row_constant(bias) -> bool:
    return all(max(row) - min(row) <= 1e-12 for row in bias.tolist())


class TestDifferenceCaption:
    @settings(max_examples=300, deadline=None)
    @given(caption_settings())
    def test_largest_gain_and_loss_and_their_cause(self, setting):
        Q, K, A, _ = setting
        result = _result(Q, K, A)
        caption = explain.explorer_captions(result)["difference"]
        change = result.weights - result.content_weights
        claims = CELL.findall(caption)
        if "Nothing moved" in caption:
            assert np.abs(change).max() <= 1e-12 and _row_constant(result.bias) and not claims
            return
        if "No weight moved by 0.0005 or more" in caption:
            assert np.abs(change).max() < 5e-4 and not claims
            return
        assert claims, caption
        for name, i, j, moved, before, after, bias, side, threshold, factor in claims:
            i, j = int(i) - 1, int(j) - 1
            extreme = change.max() if name == "gain" else change.min()
            assert change[i, j] == extreme
            assert moved == explain._change(change[i, j])  # the true difference, rounded
            assert (before, after) == (f"{result.content_weights[i, j]:.3f}", f"{result.weights[i, j]:.3f}")
            T = _threshold(result.content_weights[i].tolist(), result.bias[i].tolist())
            assert bool(result.bias[i, j] > T) is (side == "above") is (name == "gain")
            assert _float(bias) == pytest.approx(result.bias[i, j], abs=5e-5)
            assert _float(threshold) == pytest.approx(T, abs=5e-5)
            assert _float(factor) == pytest.approx(result.weights[i, j] / result.content_weights[i, j], abs=5e-5)

    def test_zero_bias_says_nothing_moved(self):
        """Issue 9.1: with a^K = 0 it reported a "Largest loss … +0.000 … because its bias is 0.00"."""
        caption = explain.explorer_captions(_result([[1.0], [0.5], [-0.3]], [[0.2], [0.1], [0.4]], np.zeros((5, 1))))
        assert "Largest" not in caption["difference"] and "Nothing moved" in caption["difference"]

    def test_the_loser_need_not_have_a_negative_bias(self):
        """Issue 9.2: the cause is the bias relative to T, so a loser can have bias 0 (here, T > 0)."""
        result = _result([[1.0], [1.0]], [[0.0], [0.0]], [[0.0], [0.0], [1.0]])  # key 2 of row 1: +1
        caption = explain.explorer_captions(result)["difference"]
        assert "Largest loss: query 1 → key 1" in caption and "its bias 0.00 is below" in caption


class TestBiasAndScoresCaptions:
    @settings(max_examples=300, deadline=None)
    @given(caption_settings())
    def test_each_claim_holds(self, setting):
        Q, K, A, _ = setting
        result = _result(Q, K, A)
        captions = explain.explorer_captions(result)
        bias = result.bias
        zero = bool(np.abs(bias).max() <= 1e-12)
        assert ("The bias is 0 in every cell" in captions["bias"]) is zero
        assert ("Every key of a row gets the same bias" in captions["bias"]) is (not zero and _row_constant(bias))
        assert ("changes down the diagonal" in captions["bias"]) is (explain.bias_kind(result) == "varying")
        if match := re.search(r"along offset (\S+) it runs from (\S+) to (\S+)\.", captions["bias"]):
            values = np.diagonal(bias, int(match[1].replace("−", "-")))
            assert _float(match[2]) == pytest.approx(values.min(), abs=5e-5)
            assert _float(match[3]) == pytest.approx(values.max(), abs=5e-5)
        moved = re.search(r"In row (\d+) the top score moves from keys? ([\d, ]+) .* to key (\d+)", captions["scores"])
        if match := moved:
            i = int(match[1]) - 1
            before = {int(j) - 1 for j in match[2].split(", ")}
            assert before == set(np.flatnonzero(result.content[i] >= result.content[i].max() - 1e-12))
            assert int(match[3]) - 1 == int(np.argmax(result.scores[i])) and int(match[3]) - 1 not in before
        assert ("shift by one number" in captions["scores"]) is (not zero and _row_constant(bias))
        assert ("position term of 0" in captions["scores"]) is zero

    @settings(max_examples=200, deadline=None)
    @given(caption_settings())
    def test_no_signed_zero_no_repeated_row(self, setting):
        Q, K, A, _ = setting
        result = _result(Q, K, A)
        text = " ".join(explain.explorer_captions(result).values()) + explain.diagonal_note(Q, A, result)
        assert not SIGNED_ZERO.search(text), text
        assert "aᴷ₀ or aᴷ₀" not in text  # issue 9.13
        assert "-" not in re.sub(r"[A-Za-z]-[A-Za-z0-9]|\d-based", "", text)  # true minus signs only

    def test_zero_table_bias_caption(self):
        """Issue 9.1: "changes down the diagonal … runs from 0.00 to 0.00" for a^K = 0."""
        result = _result([[1.0], [0.5], [-0.3]], [[0.2], [0.1], [0.4]], np.zeros((3, 1)))
        captions = explain.explorer_captions(result)
        assert "runs from" not in captions["bias"] and "0 in every cell" in captions["bias"]
        assert "shifts the scores" not in captions["scores"] and "equal the content scores" in captions["scores"]

    def test_k_zero_offsets_caption_names_one_row(self):
        """Issue 9.13: "reuse aᴷ₀ or aᴷ₀" at k = 0."""
        caption = explain.explorer_captions(_result([[1.0], [0.5], [-0.3]], [[0.2], [0.1], [0.4]], [[0.7]]))["offsets"]
        assert "reuse aᴷ₀, the only row" in caption


class TestDiagonalNote:
    @settings(max_examples=200, deadline=None)
    @given(caption_settings())
    def test_the_stated_cause_holds(self, setting):
        Q, K, A, _ = setting
        result = _result(Q, K, A)
        note = explain.diagonal_note(Q, A, result)
        row = A[result.k]
        diagonal = np.diagonal(result.bias)
        assert ("that row is zero" in note) is bool(np.all(row == 0))
        assert ("The whole table is zero" in note) is bool(np.all(A == 0))
        if "only because the queries give equal products" in note:
            assert np.any(row != 0) and np.ptp(diagonal) <= 1e-12
        if "yet its biases are" in note:
            assert np.ptp(diagonal) > 1e-12

    def test_zero_table_is_not_blamed_on_the_queries(self):
        """Issue 9.1: a^K = 0 was explained as "the queries give equal products"."""
        Q, A = np.array([[1.0], [0.5]]), np.zeros((3, 1))
        note = explain.diagonal_note(Q, A, _result(Q, [[0.2], [0.1]], A))
        assert "equal products" not in note and "that row is zero" in note


class TestEffectsSummary:
    @pytest.mark.parametrize("pattern", ["back", "forward", "local", "random"])
    @pytest.mark.parametrize(("n", "k", "strength"), [(8, 0, 2.0), (8, 2, 0.0), (2, 1, 2.0), (8, 7, 2.0), (6, 2, 2.0)])
    def test_claims_hold(self, pattern, n, k, strength):
        inputs = effects.position_effects_inputs(n, k, seed=3, pattern=pattern, strength=strength)
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        favoured = effects.favoured_offsets(pattern)
        text = " ".join(effects_text.effects_summary(inputs.queries, result, favoured, inputs.direction))
        unchanged = bool(np.abs(result.weights - result.content_weights).max() <= 1e-12)
        assert ("moved nothing" in text) is unchanged
        assert not SIGNED_ZERO.search(text), text
        assert "trained" not in text
        if unchanged:
            assert "pushed toward" not in text and "reshuffles" not in text and "bonus" not in text
        if match := re.search(r"moved it by ([+−]\d\.\d\d) \((more local|more spread out)\)", text):
            shift = attention_distance(result.weights).mean() - attention_distance(result.content_weights).mean()
            assert match[1] == number(shift, sign=True)
            assert bool(shift < 0) == (match[2] == "more local")

    def test_k_zero_says_nothing_moved(self):
        """Issue 9.10: "moved it by +0.00 (more spread out)" when nothing changed."""
        inputs = effects.position_effects_inputs(8, 0, seed=0, pattern="back")
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        text = " ".join(effects_text.effects_summary(inputs.queries, result, (-2, -1), inputs.direction))
        assert "+0.00" not in text and "moved nothing" in text and "with k = 0 every pair reads" in text


class TestTakeawayProperty:
    @settings(max_examples=200, deadline=None)
    @given(caption_settings())
    def test_takeaway_claims_hold(self, setting):
        Q, K, A, _ = setting
        scenario = Scenario(tuple(Q[:, 0]), tuple(K[:, 0]), tuple(A[:, 0]))
        result = scenario.attention()
        steps = wt.pair_steps(scenario, result)
        n = len(scenario.queries)
        for row in range(n):
            shift = wt.row_shift(result, row)
            text = " ".join(wt_text.takeaway(shift, steps[row * n : (row + 1) * n]))
            assert not SIGNED_ZERO.search(text), text
            claims = re.findall(r"Key (\d+) .*?\(([+−]\d\.\d{3})\): its position term \S+ is (\w+)", text)
            for key, moved, side in claims:
                j = int(key) - 1
                assert moved == wt_text.signed(shift.changes[j], 3, fixed=True)
                T = _threshold(shift.content_weights, result.bias[row].tolist())
                assert bool(result.bias[row, j] > T) is (side == "above")
            if "No weight changed" in text:
                assert max(result.bias[row]) - min(result.bias[row]) <= 1e-12
