"""relpos.text.facts against plain-loop references written here (one loop, no NumPy tricks).

The facts decide every "largest", "top", "tied", "moved" and "why nothing moved" a sentence
says; a fact that differs from its reference would make a sentence false.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relpos.text import facts
from tests.support.strategies import edge_rows, edge_values, weight_rows

decimals = st.integers(0, 4)


def shown(value: float, places: int) -> float:
    """What the formatter prints, read back: f-string rounding of the binary value."""
    return float(f"{value:.{places}f}") + 0.0


def naive_top(values, places: int) -> tuple[int, ...]:
    best = None
    for value in values:
        if best is None or shown(value, places) > best:
            best = shown(value, places)
    return tuple(j for j, value in enumerate(values) if shown(value, places) == best)


def naive_softmax(scores) -> list[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    return [e / sum(exps) for e in exps]


def naive_shifted(weights, bias) -> list[float]:
    """w′ⱼ = wⱼ e^(bⱼ) / Σₗ wₗ e^(bₗ), shifted by the largest bias."""
    top = max(bias)
    raw = [w * math.exp(b - top) for w, b in zip(weights, bias, strict=True)]
    return [r / sum(raw) for r in raw]


class TestTies:
    @settings(max_examples=400)
    @given(edge_rows, decimals)
    def test_top_and_bottom(self, values, places):
        assert facts.top(values, places) == naive_top(values, places)
        assert facts.bottom(values, places) == naive_top([-v for v in values], places)

    @settings(max_examples=200)
    @given(edge_rows, decimals, st.data())
    def test_top_with_a_mask(self, values, places, data):
        mask = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
        kept = [j for j, keep in enumerate(mask) if keep]
        expected = tuple(kept[t] for t in naive_top([values[j] for j in kept], places)) if kept else ()
        assert facts.top(values, places, mask) == expected

    @settings(max_examples=200)
    @given(st.integers(1, 5), st.integers(1, 5), decimals, st.data())
    def test_top_cells_and_row_tops(self, rows, columns, places, data):
        matrix = [[data.draw(edge_values) for _ in range(columns)] for _ in range(rows)]
        flat = [value for row in matrix for value in row]
        expected = [(c // columns, c % columns) for c in naive_top(flat, places)]
        assert facts.top_cells(matrix, places).tolist() == [list(cell) for cell in expected]
        assert facts.row_tops(matrix, places) == [naive_top(row, places) for row in matrix]

    def test_values_that_print_alike_tie(self):
        assert facts.top([0.32715, 0.1985, 0.147, 0.32724], 3) == (0, 3)  # both print 0.327
        assert facts.top([0.3264, 0.3274], 3) == (1,)  # 0.326 vs 0.327
        assert facts.top([0.3265, 0.3274], 3) == (0, 1)  # 0.3265 is a little above the half in binary: 0.327
        assert facts.top([-0.0004, 0.0004], 3) == (0, 1)  # "−0.000" is 0.000


class TestVisibility:
    @given(edge_values)
    def test_visible(self, change):
        assert bool(facts.visible(change)) is (f"{abs(change):.3f}" != "0.000")

    @settings(max_examples=300)
    @given(edge_rows, st.data(), st.integers(0, 3))
    def test_decimals_showing(self, before, data, minimum):
        after = [b + data.draw(st.sampled_from([0.0, 1e-6, -3e-5, 4e-4, 0.02])) for b in before]
        places = minimum
        while places < facts.MAX_DECIMALS and any(
            abs(a - b) > 1e-12 and shown(a, places) == shown(b, places) for a, b in zip(after, before, strict=True)
        ):
            places += 1
        assert facts.decimals_showing(before, after, minimum) == places

    @given(st.integers(-100_000, 100_000), st.integers(-100_000, 100_000), st.sampled_from([100, 1000, 10_000]))
    def test_distance(self, typed, expected, scale):
        assert facts.distance(typed / scale, expected / scale) == round(abs(typed / scale - expected / scale), 9)

    def test_distance_is_exact_at_a_hundredth(self):
        assert facts.distance(0.64, 0.65) == 0.01 and facts.distance(-0.2691, -0.28) == 0.0109


class TestSpreadAndReach:
    @given(edge_rows)
    def test_spread(self, values):
        assert facts.spread(values) == max(values) - min(values)

    @settings(max_examples=300)
    @given(weight_rows())
    def test_no_weight_moves_more_than_the_reach(self, row):
        weights, bias = row
        after = naive_shifted(weights.tolist(), bias.tolist())
        moved = max(abs(a - w) for a, w in zip(after, weights.tolist(), strict=True))
        assert moved <= facts.reach(max(bias) - min(bias)) + 1e-12

    @pytest.mark.parametrize("spread", [0.001, 0.5, 2.0, 6.0])
    def test_two_keys_at_the_extremes_come_close_to_the_reach(self, spread):
        # w = σ(−s/2) on the high bias: the move is σ(s/2) − σ(−s/2) = tanh(s/4)
        low = 1 / (1 + math.exp(spread / 2))
        after = naive_shifted([low, 1 - low], [spread, 0.0])
        assert after[0] - low == pytest.approx(facts.reach(spread), rel=1e-9)


class TestWhyNothingMoved:
    @settings(max_examples=400)
    @given(weight_rows())
    def test_causes_match_the_reference(self, row):
        weights, bias = row
        spread = max(bias) - min(bias)
        if spread <= 1e-12:
            expected = "constant"
        elif math.tanh(spread / 4) < 5e-4:
            expected = "small"
        elif all(shown(w, 3) in (0.0, 1.0) for w in weights.tolist()):
            expected = "saturated"
        else:
            expected = "modest"
        assert facts.still_causes(weights[None, :], bias[None, :]).tolist() == [expected]
        assert bool(facts.pinned(weights[None, :])[0]) is all(shown(w, 3) in (0.0, 1.0) for w in weights.tolist())

    def test_the_walkthrough_example_is_saturated(self):
        content = naive_softmax([100.0, 0.0, 0.0, 0.0])
        assert facts.still_causes([content], [[1.0, -2.0, -5.0, -5.0]]).tolist() == ["saturated"]


class TestRowFacts:
    @settings(max_examples=400)
    @given(weight_rows())
    def test_against_the_reference(self, row):
        weights, bias = row
        after = naive_shifted(weights.tolist(), bias.tolist())
        got = facts.row_facts(weights, after, bias)
        assert got.content_top == naive_top(weights.tolist(), 3) and got.top == naive_top(after, 3)
        changes = [a - w for a, w in zip(after, weights.tolist(), strict=True)]
        if all(f"{abs(c):.3f}" == "0.000" for c in changes):
            assert got.still and not got.gainers and not got.losers
            return
        assert not got.still
        gain_visible = f"{max(changes):.3f}" not in ("0.000", "-0.000")
        loss_visible = f"{min(changes):.3f}" not in ("0.000", "-0.000")
        assert got.gainers == (naive_top(changes, got.decimals) if gain_visible else ())
        assert got.losers == (naive_top([-c for c in changes], got.decimals) if loss_visible else ())
        named = got.gainers + got.losers
        for j in named:  # every named change shows at the decimals chosen
            assert shown(weights[j], got.decimals) != shown(after[j], got.decimals)
        for fewer in range(3, got.decimals):  # no fewer decimals would show the ties named at them
            ties = naive_top(changes, fewer) if gain_visible else ()
            ties += naive_top([-c for c in changes], fewer) if loss_visible else ()
            assert any(shown(weights[j], fewer) == shown(after[j], fewer) for j in ties)

    @settings(max_examples=200)
    @given(st.integers(1, 4), st.integers(2, 5), st.data())
    def test_largest_changes_of_a_matrix(self, rows, columns, data):
        matrix = [data.draw(weight_rows(columns)) for _ in range(rows)]
        before = np.array([w for w, _ in matrix])
        after = np.array([naive_shifted(w.tolist(), b.tolist()) for w, b in matrix])
        gains, losses, places = facts.largest_changes(before, after)
        flat = (after - before).ravel().tolist()
        if f"{max(flat):.3f}" not in ("0.000", "-0.000"):
            assert gains.tolist() == [[c // columns, c % columns] for c in naive_top(flat, places)]
        else:
            assert not len(gains)
        if f"{min(flat):.3f}" not in ("0.000", "-0.000"):
            assert losses.tolist() == [[c // columns, c % columns] for c in naive_top([-v for v in flat], places)]
        else:
            assert not len(losses)


class TestDegenerateBiases:
    @settings(max_examples=200)
    @given(st.integers(1, 4), st.integers(1, 4), st.data())
    def test_bias_kind(self, rows, columns, data):
        value = st.sampled_from([0.0, 0.0, 1e-13, 0.5, -0.5, 1.0])
        bias = [[data.draw(value) for _ in range(columns)] for _ in range(rows)]
        cells = [v for row in bias for v in row]
        diagonals: dict[int, list[float]] = {}
        for i, row in enumerate(bias):
            for j, v in enumerate(row):
                diagonals.setdefault(j - i, []).append(v)
        if all(abs(v) <= 1e-12 for v in cells):
            expected = "zero"
        elif all(max(row) - min(row) <= 1e-12 for row in bias):
            expected = "row_constant"
        elif all(max(d) - min(d) <= 1e-12 for d in diagonals.values()):
            expected = "diagonal_constant"
        else:
            expected = "varying"
        assert facts.bias_kind(bias)[0] == expected
        assert facts.zero(cells) is all(abs(v) <= 1e-12 for v in cells)
        assert facts.constant(cells) is (max(cells) - min(cells) <= 1e-12)
