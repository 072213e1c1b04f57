"""Every sentence built from numbers states only what holds in its setting.

Each property draws settings built to be hard on purpose (tests/support/strategies.py: exact ties
and ties only at the precision printed, a dominant key that saturates the softmax, values
at the slider limits, aligned queries, k = 0 and k ≥ n, d > 1, zero and constant tables,
besides the degenerate cases of the first round), re-derives the claim from the numbers
with a plain-loop reference written here, and checks the sentence says exactly that.

``RELPOS_SENTENCE_COUNTS=path`` writes how many sentences each property checked (JSON).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.core.examples import Scenario
from relpos.core.measures import attention_distance
from relpos.quizbank import checking as quiz
from relpos.text import explain, facts
from relpos.text.numbers import number, readable, scientific
from relpos.topics.position_effects import model as position_effects_model
from relpos.topics.position_effects import text as position_effects_text
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import text as wt_text
from tests.support.strategies import caption_settings, hard_scenarios, hard_settings

#: A signed or unsigned number printed as zero with a sign ("−0.00", "+0.000") is never right.
SIGNED_ZERO = re.compile(r"[−+-]0\.0+(?![0-9])")
SENTENCES: Counter = Counter()
explorer_settings = st.one_of(hard_settings(), caption_settings())


@pytest.fixture(scope="module", autouse=True)
def _sentence_counts():
    yield
    if path := os.environ.get("RELPOS_SENTENCE_COUNTS"):
        with open(path, "w", encoding="utf-8") as file:
            json.dump(dict(SENTENCES, total=sum(SENTENCES.values())), file, indent=1, sort_keys=True)


# ------------------------------------------------------------------ plain-loop references


def _float(text: str) -> float:
    return float(text.replace("−", "-").rstrip(".,"))


def shown(value: float, decimals: int) -> float:
    """What a value prints as, read back."""
    return float(f"{value:.{decimals}f}") + 0.0


def naive_top(values, decimals: int) -> list[int]:
    best = max(shown(v, decimals) for v in values)
    return [j for j, v in enumerate(values) if shown(v, decimals) == best]


def naive_top_cells(matrix, decimals: int) -> list[tuple[int, int]]:
    rows = matrix.tolist()
    best = max(shown(v, decimals) for row in rows for v in row)
    return [(i, j) for i, row in enumerate(rows) for j, v in enumerate(row) if shown(v, decimals) == best]


def naive_threshold(w_row, b_row) -> float:
    """T = log Σₗ wₗ e^(bₗ), shifted by the largest bias for overflow."""
    top = max(b for w, b in zip(w_row, b_row, strict=True) if w > 0)
    return top + math.log(sum(w * math.exp(b - top) for w, b in zip(w_row, b_row, strict=True) if w > 0))


def naive_cause(w_row, b_row) -> str:
    """Why a row that moved by less than 0.0005 did not move, from the numbers alone."""
    spread = max(b_row) - min(b_row)
    if spread <= 1e-12:
        return "constant"
    if math.tanh(spread / 4) < 5e-4:
        return "small"
    if all(shown(w, 3) in (0.0, 1.0) for w in w_row):
        return "saturated"
    return "modest"


def naive_shifted(weights, bias) -> list[float]:
    """w′ⱼ = wⱼ e^(bⱼ) / Σₗ wₗ e^(bₗ), shifted by the largest bias."""
    top = max(bias)
    raw = [w * math.exp(b - top) for w, b in zip(weights, bias, strict=True)]
    return [r / sum(raw) for r in raw]


def named_keys(text: str, n: int) -> list[int]:
    """0-based keys named as ``key 2``, ``keys 1 and 4``, ``keys 1, 2 and 4`` or ``every key``."""
    if "every key" in text.lower():
        return list(range(n))
    match = re.search(r"[Kk]eys? ((?:\d+(?:, | and )?)+)", text)
    return [int(j) - 1 for j in re.findall(r"\d+", match[1])]


def named_rows(text: str, n: int) -> list[int]:
    if text in ("every row", "both rows"):
        return list(range(n))
    if "more" in text:
        return []  # not all are named; the caller checks the named ones
    return [int(i) - 1 for i in re.findall(r"\d+", text)]


def _result(Q, K, A):
    return relpos.relative_attention(Q, K, A_K=A)


def _row_constant(bias) -> bool:
    return all(max(row) - min(row) <= 1e-12 for row in bias.tolist())


# ------------------------------------------------------------------ the walkthrough's takeaway

SHIFT = re.compile(
    r"Key (\d+) \([^)]*\) (gained|lost) the most weight(?:, tied with ([^:]+))?: (\S+) → (\S+) \(([+−]\S+)\), "
    r"because its position term (\S+) is (above|below) the row's log-mean-exp\."
)
#: The arithmetic behind a "because" (the takeaway's derivation, shown on request).
DERIVED = re.compile(
    r"Key (\d+) \([^)]*\): its position term (\S+) is (above|below) the row's content-weighted log-mean-exp "
    r"T = log Σₗ wₗ·e\^\(bₗ\) = (\S+), so its weight is multiplied by e\^\(bⱼ − T\) = (\S+)\."
)
STILL_DERIVED = re.compile(
    r"Here T = log Σₗ wₗ·e\^\(bₗ\) = (\S+), and each weight wⱼ changes by wⱼ·\(e\^\(bⱼ − T\) − 1\)\."
)
SAME_TOP = re.compile(
    r"(Every key gets the same weight|Key \d+ gets the most weight|Keys [\d, and]+ tie for the most weight) "
    r"with and without the position term \((\S+?)(?: each)?(?:, then| →) (\S+?)(?: each)?\)\."
)
OTHER_TOP = re.compile(
    r"Content alone (gives every key the same weight|would attend most to key \d+|ties keys [\d, and]+ for the most "
    r"weight) \((\d+\.\d+)(?: each)?\); with the position term,? (every key gets the same weight|key \d+ gets the most "
    r"weight|keys [\d, and]+ tie for the most weight) \((\d+\.\d+)(?: each)?\)\."
)


def check_favourites(sentence: str, content_weights, weights) -> None:
    """The favourite sentence names exactly the keys tied for the most weight (3 decimals), with their weight."""
    n = len(weights)
    if match := SAME_TOP.fullmatch(sentence):
        before = after = named_keys(match[1], n)
        then, now = match[2], match[3]
    else:
        match = OTHER_TOP.fullmatch(sentence)
        assert match, sentence
        before, after, then, now = named_keys(match[1], n), named_keys(match[3], n), match[2], match[4]
        assert before != after
    assert before == naive_top(content_weights, 3) and after == naive_top(weights, 3), sentence
    assert then == f"{max(content_weights):.3f}" and now == f"{max(weights):.3f}", sentence


def check_printed_change(before: str, after: str, moved: str, old: float, new: float, decimals: int) -> None:
    """``before → after (moved)``: the weights printed alike, the change their printed difference (a reader
    subtracts what is shown) and, below the 2 extra decimals allowed, the true change rounded."""
    places = len(moved.split(".")[1])
    assert decimals <= places <= decimals + 2, (moved, decimals)
    assert (before, after) == (f"{old:.{places}f}", f"{new:.{places}f}")
    assert moved == number(_float(after) - _float(before), places, sign=True), (before, after, moved)
    if places < decimals + 2:
        assert moved == number(new - old, places, sign=True), (before, after, moved, new - old)


def check_shift(match, content_weights, weights, bias, decimals: int) -> None:
    """A "gained / lost the most weight" sentence: the named keys (tied at `decimals`), their printed
    numbers and the cause."""
    j, verb = int(match[1]) - 1, match[2]
    before, after, moved = match[4], match[5], match[6]
    changes = [a - b for a, b in zip(weights, content_weights, strict=True)]
    if verb == "gained":
        tied = naive_top(changes, decimals)
    else:
        tied = naive_top([-c for c in changes], decimals)
    assert j in tied and {int(t) - 1 for t in re.findall(r"\d+", match[3] or "")} == set(tied) - {j}, match[0]
    assert shown(abs(changes[j]), 3) > 0  # visible
    check_printed_change(before, after, moved, content_weights[j], weights[j], decimals)
    assert before != after and (_float(after) > _float(before)) is (verb == "gained")  # the verdict shows
    T = naive_threshold(content_weights, bias)
    assert bool(bias[j] > T) is (match[8] == "above") is (verb == "gained")
    assert _float(match[7]) == pytest.approx(bias[j], abs=5e-5)


def check_derivation(line: str, claim, content_weights, bias) -> None:
    """The arithmetic behind a claim: the same key and side, the row's T and the factor e^(bⱼ − T)."""
    match = DERIVED.fullmatch(line)
    assert match, line
    j = int(match[1]) - 1
    assert match[1] == claim[1] and match[2] == claim[7] and match[3] == claim[8], (line, claim[0])
    T = naive_threshold(content_weights, bias)
    assert bool(bias[j] > T) is (match[3] == "above")
    assert _float(match[4]) == pytest.approx(T, abs=5e-5)
    check_factor(match[5], math.exp(bias[j] - T))


def _read(text: str) -> float:
    """A printed number, E notation (``7.23e86``, ``2.00e−5``) included."""
    return float(text.replace("−", "-"))


def check_factor(text: str, factor: float) -> None:
    """e^(bⱼ − T) printed readably: no run of 8 digits, and equal to the factor at the digits shown."""
    assert not re.search(r"\d{8}", text), text
    assert _read(text) == pytest.approx(factor, rel=5e-3, abs=5e-5), (text, factor)


def check_still(sentence: str, content_weights, bias) -> None:
    """A "no weight changed" sentence states the cause the numbers give, with the numbers."""
    cause = naive_cause(content_weights, bias)
    spread = max(bias) - min(bias)
    if cause == "constant":
        assert sentence.startswith("No weight changed: every key of this row got the same position term"), sentence
        return
    assert sentence.startswith("No weight changed visibly")
    if cause == "small":
        assert f"span only {readable(spread)}," in sentence and "saturates" not in sentence, sentence
        assert f"tanh(spread/4) = {scientific(math.tanh(spread / 4), 3)})" in sentence
    elif cause == "saturated":
        assert f"span {readable(spread)}: content saturates" in sentence, sentence
        assert f"already holds {max(content_weights):.3f}" in sentence
        assert named_keys(sentence.split("With content alone ")[1], len(bias)) == naive_top(content_weights, 3)
    else:
        largest = max(abs(a - b) for a, b in zip(naive_shifted(content_weights, bias), content_weights, strict=True))
        printed = re.search(r"no change reaches 0\.0005 \(at most (\S+)\)\.$", sentence)
        assert printed and _read(printed[1]) == pytest.approx(largest, rel=1e-2, abs=1e-12), sentence
        assert "saturates" not in sentence and "span only" not in sentence


def check_still_derivation(derivation: list[str], content_weights, bias) -> None:
    """Nothing moved visibly: the row's T where the terms differ, nothing where they are all alike."""
    if naive_cause(content_weights, bias) == "constant":
        assert derivation == [], derivation
        return
    (line,) = derivation
    match = STILL_DERIVED.fullmatch(line)
    assert match, line
    assert _float(match[1]) == pytest.approx(naive_threshold(content_weights, bias), abs=5e-5)


def walkthrough_rows(scenario: Scenario):
    """(result, row steps, row shift) of every row of a walkthrough scenario."""
    result = scenario.attention()
    steps = wt.pair_steps(scenario, result)
    n = scenario.n
    for row in range(n):
        yield result, steps[row * n : (row + 1) * n], wt.row_shift(result, row)


class TestTakeaway:
    @settings(max_examples=400, deadline=None)
    @given(hard_scenarios())
    def test_every_claim_holds(self, drawn):
        for result, row_steps, shift in walkthrough_rows(drawn[0]):
            row = shift.row
            sentences = wt_text.takeaway(shift, row_steps)
            derivation = wt_text.takeaway_derivation(shift, row_steps)
            cw, w, b = list(shift.content_weights), list(shift.weights), result.bias[row].tolist()
            text = " ".join(sentences + derivation)
            assert not SIGNED_ZERO.search(text), text
            assert "T = " not in " ".join(sentences) and "e^(" not in " ".join(sentences), sentences
            if all(shown(abs(x - y), 3) == 0 for x, y in zip(w, cw, strict=True)):
                (sentence,) = sentences
                check_still(sentence, cw, b)
                check_still_derivation(derivation, cw, b)
                SENTENCES["walkthrough takeaway"] += 1 + len(derivation)
                continue
            claims = [SHIFT.fullmatch(s) for s in sentences[:-1]]
            assert all(claims), sentences
            assert len(derivation) == len(claims), (sentences, derivation)
            for match, line in zip(claims, derivation, strict=True):
                check_shift(match, cw, w, b, shift.facts.decimals)
                check_derivation(line, match, cw, b)
            check_favourites(sentences[-1], cw, w)
            SENTENCES["walkthrough takeaway"] += len(sentences) + len(derivation)

    @settings(max_examples=200, deadline=None)
    @given(hard_scenarios())
    def test_pair_sentences_and_offset_map_note(self, drawn):
        scenario = drawn[0]
        steps = wt.pair_steps(scenario)
        for step in steps:
            sentence = wt_text.pair_sentence(step)
            offset, k = step.j - step.i, scenario.k
            if offset == 0:
                assert "at offset 0" in sentence
            else:
                side = "after" if offset > 0 else "before"
                assert (
                    f"is {abs(offset)} position{'s' if abs(offset) > 1 else ''} {side} query {step.i + 1}" in sentence
                )
            assert ("farther than k" in sentence) is (abs(offset) > k), sentence
            clipped = max(-k, min(k, offset))
            assert sentence.endswith(f"entry of offset {number(clipped, 0, sign=True)}.")
        note = wt_text.offset_map_note(steps)
        clipped_cells = sum(abs(s.j - s.i) > scenario.k for s in steps)
        if clipped_cells:
            assert f"The {clipped_cells} cells marked ✕ are more than k = {scenario.k} apart" in note
        else:
            assert "nothing is clipped" in note
        SENTENCES["walkthrough pair sentences and offset map"] += len(steps) + 1

    def test_no_offset_wording_the_reference_forbids(self):
        example = relpos.worked_example()
        steps, result = wt.pair_steps(example), example.attention()
        for row in range(4):
            text = " ".join(wt_text.takeaway(wt.row_shift(result, row), steps[row * 4 : row * 4 + 4]))
            assert "same position" not in text and "anti-diagonal" not in text


# ------------------------------------------------------------------ the Explorer's captions

CELL = re.compile(
    r"Largest (gain|loss)(?: \(one of (\d+) tied\))?: query (\d+) → key (\d+) \(offset [^)]*\), ([+−]\S+) "
    r"\((\S+) → (\S+)\), because its bias (\S+) is (above|below) the row's log-mean-exp\."
)
#: The arithmetic behind each named cell (explain.difference_derivation, shown on request).
CELL_DERIVED = re.compile(
    r"Query (\d+) → key (\d+) \(largest (gain|loss)\): its bias (\S+) is (above|below) the row's content-weighted "
    r"log-mean-exp T = log Σₗ wₗ·e\^\(bₗ\) = (\S+), so its weight is multiplied by e\^\(bⱼ − T\) = (\S+)\."
)


def check_difference(caption: str, result) -> None:
    change = result.weights - result.content_weights
    claims = list(CELL.finditer(caption))
    derivation = explain.difference_derivation(result)
    assert "T = " not in caption and "e^(" not in caption, caption
    if "Nothing moved" in caption:
        assert np.abs(change).max() <= 1e-12 and _row_constant(result.bias) and not claims and not derivation
        return
    if "No weight moved by 0.0005 or more." in caption:
        assert all(shown(abs(c), 3) == 0 for c in change.ravel().tolist()) and not claims
        causes = [naive_cause(w, b) for w, b in zip(result.content_weights.tolist(), result.bias.tolist(), strict=True)]
        rows = r"((?:every|both) rows?|rows? [\d, and]+(?: more)?)"
        for text, cause in (
            (rf"Content saturates {rows}: with content alone", "saturated"),
            (rf"In {rows} the biases span at most", "small"),
            (rf"In {rows} the biases span up to .*? no change reaches 0.0005", "modest"),
            (rf"In {rows} every key gets the same bias", "constant"),
        ):
            match = re.search(text, caption)
            assert (match is not None) is (cause in causes), (caption, causes)
            if match:
                for i in named_rows(match[1], len(causes)):
                    assert causes[i] == cause, (caption, causes)
        assert not derivation, derivation
        return
    assert claims, caption
    assert len(derivation) == len(claims), (caption, derivation)
    for match, line in zip(claims, derivation, strict=True):
        derived = CELL_DERIVED.fullmatch(line)
        assert derived, line
        assert (derived[1], derived[2], derived[3]) == (match[3], match[4], match[1]), (line, match[0])
        assert (derived[4], derived[5]) == (match[8], match[9]), (line, match[0])
        name, count, i, j = match[1], int(match[2] or 1), int(match[3]) - 1, int(match[4]) - 1
        decimals = facts.largest_changes(result.content_weights, result.weights, result.mask, shown=3)[2]
        sign = 1 if name == "gain" else -1
        tied = naive_top_cells(sign * change, decimals)
        assert (i, j) in tied[:3] and count == len(tied), (caption, tied)
        assert shown(abs(change[i, j]), 3) > 0
        before, after = match[6], match[7]
        check_printed_change(before, after, match[5], result.content_weights[i, j], result.weights[i, j], decimals)
        assert before != after and (_float(after) > _float(before)) is (name == "gain")
        T = naive_threshold(result.content_weights[i].tolist(), result.bias[i].tolist())
        assert bool(result.bias[i, j] > T) is (match[9] == "above") is (name == "gain")
        assert _float(match[8]) == pytest.approx(result.bias[i, j], abs=5e-5)
        assert _float(derived[6]) == pytest.approx(T, abs=5e-5)
        check_factor(derived[7], math.exp(result.bias[i, j] - T))


def check_scores(caption: str, result) -> None:
    before = [naive_top(row, 2) for row in result.content.tolist()]
    after = [naive_top(row, 2) for row in result.scores.tolist()]
    if "shift by one number" in caption:
        assert _row_constant(result.bias)
        return
    if "position term of 0" in caption:
        assert np.abs(result.bias).max() <= 1e-12
        return
    changed = [i for i in range(len(before)) if before[i] != after[i]]
    if "no row changes its top key" in caption:
        assert not changed, (caption, before, after)
        return
    match = re.search(
        r"In row (\d+) the top score (moves|goes) from (keys? [\d, and]+) \(content (\S+?)(?: each)?\) "
        r"to (keys? [\d, and]+) \((\S+?)(?: each)?\)\.",
        caption,
    )
    assert match, caption
    i, n = int(match[1]) - 1, result.scores.shape[1]
    assert named_keys(match[3], n) == before[i] and named_keys(match[5], n) == after[i]
    disjoint = [r for r in changed if not set(before[r]) & set(after[r])]
    assert i == (disjoint or changed)[0] and (match[2] == "moves") is bool(disjoint)
    assert match[4] == number(result.content[i, before[i][0]]) and match[6] == number(result.scores[i, after[i][0]])
    assert (f"{len(changed)} of {len(before)} rows change" in caption) is (len(changed) > 1)


def check_content(caption: str, result) -> None:
    tied = naive_top_cells(result.content, 2)
    value = number(result.content[tied[0]])
    if len(tied) == 1:
        assert caption.endswith(f"Largest: query {tied[0][0] + 1} → key {tied[0][1] + 1}, {value}."), caption
    else:
        assert f"Largest, {value}, in {len(tied)} tied cells: " in caption, caption
        for i, j in tied[:3]:
            assert f"query {i + 1} → key {j + 1}" in caption


def check_weights(captions: dict, result) -> None:
    row = int(re.search(r"Query (\d+)'s largest weight", captions["content_weights"])[1]) - 1
    n = result.weights.shape[1]
    for name, weights in (("content_weights", result.content_weights), ("weights", result.weights)):
        match = re.search(r"largest weight(?: is (?:still|now) on|:) (.+?), (\d+\.\d+)(?: each)?\.", captions[name])
        assert named_keys(match[1], n) == naive_top(weights[row].tolist(), 3), captions[name]
        assert match[2] == f"{weights[row].max():.3f}"
    same = naive_top(result.content_weights[row].tolist(), 3) == naive_top(result.weights[row].tolist(), 3)
    assert ("is still on" in captions["weights"]) is same


def check_labels(captions: dict, note: str, result, d: int) -> None:
    """Family 4: a product shown divided by √d is named so."""
    if "the bias is qᵢ·aᴷ" in captions["bias"]:
        assert ("the bias is qᵢ·aᴷ/√2" in captions["bias"]) is (d == 2), captions["bias"]
    if "each is qᵢ·aᴷ₀" in note:
        assert ("each is qᵢ·aᴷ₀/√2" in note) is (d == 2), note


def check_offsets(caption: str, result) -> None:
    """The offset map's caption counts the pairs further apart than k (plain loop)."""
    n_q, n_k = result.scores.shape
    beyond = sum(abs(j - i) > result.k for i in range(n_q) for j in range(n_k))
    if beyond:
        assert f"the {beyond} cells beyond the dashed lines" in caption, caption
    else:
        assert "nothing is clipped" in caption, caption


class TestExplorerCaptions:
    @settings(max_examples=400, deadline=None)
    @given(explorer_settings)
    def test_every_claim_holds(self, setting):
        Q, K, A, _ = setting
        d = Q.shape[1]
        result = _result(Q, K, A)
        captions = explain.explorer_captions(result, d=d)
        note = explain.diagonal_note(Q, A, result)
        check_content(captions["content"], result)
        check_scores(captions["scores"], result)
        check_difference(captions["difference"], result)
        check_weights(captions, result)
        check_labels(captions, note, result, d)
        check_offsets(captions["offsets"], result)
        text = " ".join(captions.values()) + note
        assert not SIGNED_ZERO.search(text), text
        assert "aᴷ₀ or aᴷ₀" not in text
        assert "-" not in re.sub(r"[A-Za-z]-[A-Za-z0-9]|\d-based", "", text)  # true minus signs only
        assert not re.search(r"\d{8}", text), text
        SENTENCES["explorer captions"] += len(captions) + 1

    @settings(max_examples=200, deadline=None)
    @given(explorer_settings)
    def test_bias_caption_and_diagonal_note(self, setting):
        Q, K, A, _ = setting
        result = _result(Q, K, A)
        captions = explain.explorer_captions(result, d=Q.shape[1])
        bias = result.bias
        zero = bool(np.abs(bias).max() <= 1e-12)
        assert ("The bias is 0 in every cell" in captions["bias"]) is zero
        assert ("Every key of a row gets the same bias" in captions["bias"]) is (not zero and _row_constant(bias))
        assert ("changes down the diagonal" in captions["bias"]) is (explain.bias_kind(result) == "varying")
        if match := re.search(r"along offset (\S+) it runs from (\S+) to (\S+)\.", captions["bias"]):
            values = np.diagonal(bias, int(match[1].replace("−", "-")))
            assert _float(match[2]) == pytest.approx(values.min(), abs=5e-5)
            assert _float(match[3]) == pytest.approx(values.max(), abs=5e-5)
        note = explain.diagonal_note(Q, A, result)
        row, diagonal = A[result.k], np.diagonal(result.bias)
        assert ("that row is zero" in note) is bool(np.all(row == 0))
        assert ("The whole table is zero" in note) is bool(np.all(A == 0))
        if "only because the queries give equal products" in note:
            assert np.any(row != 0) and np.ptp(diagonal) <= 1e-12
        if "yet its biases are" in note:
            assert np.ptp(diagonal) > 1e-12
        SENTENCES["explorer bias caption and diagonal note"] += 2

    def test_zero_bias_says_nothing_moved(self):
        """A zero table reported a "Largest loss … +0.000 … because its bias is 0.00"."""
        caption = explain.explorer_captions(_result([[1.0], [0.5], [-0.3]], [[0.2], [0.1], [0.4]], np.zeros((5, 1))))
        assert "Largest" not in caption["difference"] and "Nothing moved" in caption["difference"]

    def test_the_loser_need_not_have_a_negative_bias(self):
        """The cause is the bias relative to T, so a loser can have bias 0 (here, T > 0)."""
        result = _result([[1.0], [1.0]], [[0.0], [0.0]], [[0.0], [0.0], [1.0]])  # key 2 of row 1: +1
        caption = explain.explorer_captions(result)["difference"]
        assert "Largest loss: query 1 → key 1" in caption and "its bias 0.00 is below" in caption

    def test_zero_table_bias_caption(self):
        """A zero table: "changes down the diagonal … runs from 0.00 to 0.00"."""
        result = _result([[1.0], [0.5], [-0.3]], [[0.2], [0.1], [0.4]], np.zeros((3, 1)))
        captions = explain.explorer_captions(result)
        assert "runs from" not in captions["bias"] and "0 in every cell" in captions["bias"]
        assert "shifts the scores" not in captions["scores"] and "equal the content scores" in captions["scores"]

    def test_k_zero_offsets_caption_names_one_row(self):
        """ "reuse aᴷ₀ or aᴷ₀" at k = 0."""
        caption = explain.explorer_captions(_result([[1.0], [0.5], [-0.3]], [[0.2], [0.1], [0.4]], [[0.7]]))["offsets"]
        assert "reuse aᴷ₀, the only row" in caption

    def test_zero_table_is_not_blamed_on_the_queries(self):
        Q, A = np.array([[1.0], [0.5]]), np.zeros((3, 1))
        note = explain.diagonal_note(Q, A, _result(Q, [[0.2], [0.1]], A))
        assert "equal products" not in note and "that row is zero" in note


# ------------------------------------------------------------------ Position effects


class TestEffects:
    @pytest.mark.parametrize("pattern", ["back", "forward", "local", "random"])
    @pytest.mark.parametrize(("n", "k", "strength"), [(8, 0, 2.0), (8, 2, 0.0), (2, 1, 2.0), (8, 7, 2.0), (6, 2, 2.0)])
    def test_summary_claims_hold(self, pattern, n, k, strength):
        inputs = position_effects_model.position_effects_inputs(n, k, seed=3, pattern=pattern, strength=strength)
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        favoured = position_effects_model.favoured_offsets(pattern)
        sentences = position_effects_text.position_effects_summary(inputs.queries, result, favoured, inputs.direction)
        text = " ".join(sentences)
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
        captions = position_effects_text.position_effects_captions(result, favoured, d=inputs.queries.shape[1])
        if "the bias is qᵢ·aᴷ" in captions["bias"]:
            assert f"the bias is qᵢ·aᴷ/√{inputs.queries.shape[1]}," in captions["bias"]
        SENTENCES["position effects"] += len(sentences) + len(captions)

    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(1, 12),
        st.integers(0, 13),
        st.integers(0, 20),
        st.sampled_from(["back", "forward", "local", "random"]),
        st.sampled_from([0.0, 0.001, 2.0, 6.0]),
    )
    def test_distance_sentences_and_captions(self, n, k, seed, pattern, strength):
        """k = 0 and k ≥ n, strengths from none to saturating: the distance sentence and the labels."""
        inputs = position_effects_model.position_effects_inputs(n, k, seed=seed, pattern=pattern, strength=strength)
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        favoured = position_effects_model.favoured_offsets(pattern)
        sentences = position_effects_text.position_effects_summary(inputs.queries, result, favoured, inputs.direction)
        before, after = attention_distance(result.content_weights).mean(), attention_distance(result.weights).mean()
        printed = re.match(r"Average attention distance Σⱼ αᵢⱼ \|j − i\|: (\S+) with content only, (\S+)", sentences[0])
        assert printed, sentences[0]
        if match := re.search(r"moved it by ([+−]\d\.\d+)", sentences[0]):
            check_printed_change(printed[1], printed[2], match[1], before, after, 2)
            assert shown(abs(after - before), 2) > 0
        else:
            assert printed.groups() == (number(before), number(after))
            assert "less than 0.005" not in sentences[0] or abs(after - before) < 0.005
        captions = position_effects_text.position_effects_captions(result, favoured, d=inputs.queries.shape[1])
        check_content(captions["content"], result)
        text = " ".join(sentences) + " ".join(captions.values())
        assert not SIGNED_ZERO.search(text), text
        assert "qᵢ·aᴷ," not in text and "qᵢ·aᴷ with" not in text  # d_k = 8: always /√8
        SENTENCES["position effects"] += len(sentences) + len(captions)

    def test_k_zero_says_nothing_moved(self):
        """ "moved it by +0.00 (more spread out)" when nothing changed."""
        inputs = position_effects_model.position_effects_inputs(8, 0, seed=0, pattern="back")
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        text = " ".join(
            position_effects_text.position_effects_summary(inputs.queries, result, (-2, -1), inputs.direction)
        )
        assert "+0.00" not in text and "moved nothing" in text and "with k = 0 every pair reads" in text


# ------------------------------------------------------------------ verdicts and the numbers beside them

RULE = re.compile(r"the answer is (\S+) \(you typed (\S+), (\S+) from it; an answer within (\S+) counts\)\.")


class TestVerdictsAgreeWithPrintedNumbers:
    """Quiz correct / incorrect, "gained / lost" (moved), "grows" and "top key" agree with the numbers printed."""

    @settings(max_examples=300, deadline=None)
    @given(st.integers(0, 400), st.integers(-300, 300), st.sampled_from([2, 3, 4]))
    def test_quiz_verdict(self, seed, offset, places):
        for question in quiz.make_quiz(seed):
            if question.answer_kind != "number":
                continue
            typed = f"{question.expected + offset / 10_000:.{places}f}"
            feedback = quiz.check_answer(question, typed)
            text = feedback.message.replace("Correct: ", "Correct: the answer is ")
            match = RULE.search(text)
            assert match, feedback.message
            answer, shown_typed, gap, tolerance = (_float(part) for part in match.groups())
            assert shown_typed == float(typed) and answer == round(question.expected, 6)
            assert gap == round(abs(float(typed) - question.expected), 9)
            assert (feedback.status == "correct") is (gap <= tolerance)
            SENTENCES["quiz verdict"] += 1

    @pytest.mark.parametrize("seed", range(0, 400, 7))
    def test_weight_grows_solution(self, seed):
        question = quiz.make_quiz(seed)[2]
        line = next(line for line in question.solution if r"\;\to\;" in line)
        before, after = ([float(v) for v in re.findall(r"-?\d+\.\d+", side)] for side in line.split(r"\;\to\;"))
        assert {j + 1 for j in range(len(before)) if after[j] > before[j]} == set(question.expected)
        assert all(a != b for a, b in zip(before, after, strict=True)), line
        SENTENCES["quiz weight grows"] += 1

    @settings(max_examples=200, deadline=None)
    @given(hard_scenarios())
    def test_walkthrough_top_key_and_moves_agree_with_the_softmax_line(self, drawn):
        for _, row_steps, shift in walkthrough_rows(drawn[0]):
            latex = wt_text.softmax_latex(row_steps)
            vectors = re.findall(r"&= \(([^)]*)\)", latex)
            content, combined = ([float(v) for v in vector.split(r",\ ")] for vector in vectors)
            sentences = wt_text.takeaway(shift, row_steps)
            last = sentences[-1]
            if not last.startswith("No weight changed"):
                check_favourites(last, content, combined)  # the printed weights give the same favourites
            assert content == [shown(w, 3) for w in shift.content_weights]
            assert combined == [shown(w, 3) for w in shift.weights]
            for match in filter(None, (SHIFT.fullmatch(s) for s in sentences)):
                # the takeaway prints more decimals where 3 would show no change: its own numbers show the move
                before, after = _float(match[4]), _float(match[5])
                assert (after > before) is (match[2] == "gained") and (after < before) is (match[2] == "lost")
            SENTENCES["walkthrough verdicts"] += len(sentences)


def test_takeaway_textbook_scenario_still_reads_well():
    example = relpos.worked_example()
    steps = wt.pair_steps(example)
    sentences = wt_text.takeaway(wt.row_shift(example.attention(), 0), steps[:4])
    assert sentences[-1] == (
        "Content alone would attend most to key 4 (0.358); with the position term, key 1 gets the most weight (0.373)."
    )
