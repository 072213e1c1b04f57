"""Long context: sentences computed from the numbers on screen (pure; no Streamlit).

Every sentence states what the current numbers show: which pairs are kept, in between
or divided, the temperature's value, what training did not show, and which method
scored best in the experiment, with ties and limits (s = 1, an empty band) said as such.
Pairs are numbered i = 0 .. d/2 − 1 as in θ_i = b^(−2i/d); positions count from 1.
"""

from __future__ import annotations

import math

import numpy as np

from relpos.core.rope_scaling import ROPE_SCALINGS, RopeFrequencies
from relpos.text import numbers as num
from relpos.topics.long_context.model import BANDS, PiBound, Setting

__all__ = [
    "band_sentence",
    "base_text",
    "count",
    "dynamic_sentence",
    "extension_sentences",
    "pair_list",
    "pi_sentence",
    "relative_sentence",
    "share_sentence",
    "temperature_sentence",
    "unseen_sentence",
]

#: Short names of the methods in sentences.
SHORT = {
    "none": "no scaling",
    "linear": "PI",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
}


def count(value: float) -> str:
    """A whole number with thousands separators; from 1,000 up rounded to one; else up to 4 decimals.

    >>> count(4096), count(1.5), count(32.0), count(1619.45), count(0.0011)
    ('4,096', '1.5', '32', '1,619', '0.0011')
    """
    if float(value) == int(value):
        return f"{int(value):,}"
    return f"{value:,.0f}" if abs(value) >= 1000 else num.readable(value, 4, trim=0)


def base_text(value: float) -> str:
    """A base b, rounded to a whole number with separators (E notation from 10¹²).

    >>> base_text(52664.2), base_text(3.2e13)
    ('52,664', '3.20e13')
    """
    return f"{round(value):,}" if value < 1e12 else num.scientific(value, 3)


def pair_list(indices) -> str:
    """Pair numbers as runs: ``0–3, 7 and 9``.

    >>> pair_list([0, 1, 2, 3, 7, 9]), pair_list([5]), pair_list([])
    ('0–3, 7 and 9', '5', '')
    """
    values = [int(i) for i in indices]
    runs: list[list[int]] = []
    for value in values:
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    parts = [str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs]
    return parts[0] if len(parts) == 1 else (", ".join(parts[:-1]) + " and " + parts[-1] if parts else "")


def _pairs_phrase(indices, total: int) -> str:
    size = len(indices)
    if size == total:
        return f"all {total} pairs"
    return f"pair {pair_list(indices)}" if size == 1 else f"{size} pairs ({pair_list(indices)})"


def band_sentence(freq: RopeFrequencies, bands: np.ndarray) -> str:
    """Which pairs the method keeps, changes part way, or divides by s.

    >>> from relpos import rope_frequencies
    >>> from relpos.topics.long_context.model import bands
    >>> f = rope_frequencies(8, scaling="linear", factor=2)
    >>> band_sentence(f, bands(f))
    'Position Interpolation (linear) at s = 2: all 4 pairs divided by s (θ′ = θ/s).'
    >>> f = rope_frequencies(8, scaling="yarn", factor=1, original_length=64)
    >>> band_sentence(f, bands(f))
    'At s = 1 every method leaves every frequency as trained: all 4 pairs keep θ.'
    """
    total = len(bands)
    if freq.factor == 1 and freq.scaling != "dynamic":
        return f"At s = 1 every method leaves every frequency as trained: all {total} pairs keep θ."
    name = ROPE_SCALINGS[freq.scaling]
    parts = [
        f"{_pairs_phrase(np.flatnonzero(bands == band), total)} {BANDS[band]}"
        for band in BANDS
        if np.any(bands == band)
    ]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{name} at s = {count(freq.factor)}: {listed}."


def temperature_sentence(freq: RopeFrequencies) -> str:
    """The attention factor on cos and sin, and what it does to every score.

    >>> from relpos import rope_frequencies
    >>> temperature_sentence(rope_frequencies(8, scaling="yarn", factor=4, original_length=64))
    'YaRN multiplies cos and sin by 0.1 · ln 4 + 1 = 1.1386, so every score q·k is multiplied by 1.2965.'
    >>> temperature_sentence(rope_frequencies(8, scaling="linear", factor=4))
    'Position Interpolation (linear) leaves cos and sin at size 1 (attention factor 1).'
    """
    if freq.scaling != "yarn":
        return f"{ROPE_SCALINGS[freq.scaling]} leaves cos and sin at size 1 (attention factor 1)."
    if freq.factor == 1:
        return "YaRN's attention factor 0.1 · ln s + 1 is 1 at s = 1: the scores are unchanged."
    a = freq.attention_factor
    return (
        f"YaRN multiplies cos and sin by 0.1 · ln {count(freq.factor)} + 1 = {num.number(a, 4)}, "
        f"so every score q·k is multiplied by {num.number(a * a, 4)}."
    )


def dynamic_sentence(chosen: Setting, dynamic: RopeFrequencies, static: RopeFrequencies) -> str:
    """Dynamic NTK's base at ℓ next to the static rule's, and where the two meet.

    >>> from relpos import rope_frequencies
    >>> from relpos.topics.long_context.model import Setting, frequencies
    >>> s = Setting(64, 1e4, 0, "dynamic", 4.0, 4096, 8192, 1.0, 4.0, 32.0, 1.0)
    >>> dynamic_sentence(s, frequencies(s), frequencies(s, "ntk"))  # doctest: +NORMALIZE_WHITESPACE
    'At ℓ = 8,192 (2 L₀) dynamic NTK raises the base to b′ = 52,664 (b · (s ℓ / L₀ − (s − 1))^(d/(d−2)) =
    b · 5^(32/31)); the static rule b · s^(d/(d−2)) gives 41,829. The two agree only at ℓ = L₀ (2 − 1/s) = 7,168.'
    """
    length, s = chosen.original_length, chosen.factor
    meet = length * (2 - 1 / s)
    meeting = f"The two agree only at ℓ = L₀ (2 − 1/s) = {count(round(meet, 2))}."
    if s == 1:
        meeting = "At s = 1 the static rule keeps b, and dynamic NTK keeps it only up to ℓ = L₀."
    ratio = chosen.seq_len / length
    if chosen.seq_len <= length:
        head = f"At ℓ = {count(chosen.seq_len)} (ℓ ≤ L₀) dynamic NTK leaves the base at b = {count(chosen.base)}"
    else:
        stretch = s * ratio - (s - 1)
        head = (
            f"At ℓ = {count(chosen.seq_len)} ({count(ratio)} L₀) dynamic NTK raises the base to "
            f"b′ = {base_text(dynamic.effective_base)} (b · (s ℓ / L₀ − (s − 1))^(d/(d−2)) = "
            f"b · {count(round(stretch, 2))}^({chosen.d // 2}/{chosen.d // 2 - 1}))"
        )
    return f"{head}; the static rule b · s^(d/(d−2)) gives {base_text(static.effective_base)}. {meeting}"


def unseen_sentence(freq: RopeFrequencies, length: int) -> str:
    """How many pairs turn less than once in L₀, and how many meet angles training never showed at s·L₀.

    A pair that turns at least once in L₀ has shown every angle in training. A slower one
    has shown only ``0 .. L₀ θ_i``; at position s·L₀ it reaches ``s L₀ θ'_i``, new when
    larger than ``L₀ θ_i`` (up to rounding).
    """
    total = len(freq.inv_freq)
    top = freq.factor * length
    slow = freq.original_inv_freq * length < 2 * math.pi  # (d/2,)
    unseen = slow & (top * freq.inv_freq > length * freq.original_inv_freq * (1 + 1e-9))
    first = (
        f"{int(slow.sum())} of {total} pairs turn less than once in L₀ = {count(length)} positions"
        if slow.any()
        else f"Every pair turns at least once in L₀ = {count(length)} positions"
    )
    if not unseen.any():
        name = ROPE_SCALINGS[freq.scaling]
        rest = f"with {name}, no pair meets an angle at s·L₀ = {count(top)} that training did not show."
    else:
        rest = (
            f"with {ROPE_SCALINGS[freq.scaling]}, {_pairs_phrase(np.flatnonzero(unseen), total)} "
            f"reach angles at s·L₀ = {count(top)} that training never showed."
        )
    return f"{first}; {rest}"


def relative_sentence(pairs: np.ndarray, scores: np.ndarray) -> str:
    """The live check that q_m·k_n depends on n − m only.

    >>> relative_sentence(np.array([[0, 5], [10, 15]]), np.array([1.0, 1.5]))
    'The 2 scores differ by at most 0.50: the same for every (m, n) with n − m = 5.'
    """
    spread = float(scores.max() - scores.min())
    offset = int(pairs[0, 1] - pairs[0, 0])
    amount = "nothing" if spread == 0 else f"at most {num.readable(spread, 4)}"
    return f"The {len(scores)} scores differ by {amount}: the same for every (m, n) with n − m = {offset}."


def extension_sentences(methods, lengths, accuracy: np.ndarray, trained: int) -> list[str]:
    """What the "train short, test long" table shows, length by length, ties included.

    >>> for line in extension_sentences(("none", "linear"), [4, 8], np.array([[1.0, 0.5], [1.0, 0.25]]), 4):
    ...     print(line)
    At L = 4 every method scores 100% (s = 1 changes nothing).
    At 2L = 8: best is no scaling with 50%; PI (25%) does worse than no scaling (50%).
    """
    sentences = []
    methods = list(methods)
    base = methods.index("none") if "none" in methods else None
    for column, length in enumerate(lengths):
        values = accuracy[:, column]
        label = "L" if length == trained else f"{count(length / trained)}L"
        if length == trained:
            spread = "every method scores " + num.percent(values[0])
            if np.ptp(values) == 0:
                sentences.append(f"At L = {count(length)} {spread} (s = 1 changes nothing).")
                continue
        best = np.flatnonzero(values == values.max())
        names = " and ".join(SHORT[methods[i]] for i in best)
        tie = " (tied)" if len(best) > 1 else ""
        sentence = f"At {label} = {count(length)}: best is {names}{tie} with {num.percent(values.max())}"
        if base is not None:
            worse = [i for i in range(len(methods)) if values[i] < values[base]]
            if worse:
                listed = ", ".join(f"{SHORT[methods[i]]} ({num.percent(values[i])})" for i in worse)
                verb = "does" if len(worse) == 1 else "do"
                sentence += f"; {listed} {verb} worse than no scaling ({num.percent(values[base])})"
        sentences.append(sentence + ".")
    return sentences


def share_sentence(shares: dict, length: int) -> str:
    """The attention maps in one sentence: the mean weight on the token to copy, per method, largest first.

    >>> print(share_sentence({"none": 0.61, "linear": 0.2, "yarn": 0.9}, 64))
    On this sequence of 64 tokens the mean weight on the token to copy is 0.90 with YaRN, 0.61 with no
    scaling and 0.20 with PI.
    """
    ranked = sorted(shares.items(), key=lambda item: -item[1])
    parts = [f"{num.number(value, 2)} with {SHORT[method]}" for method, value in ranked]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"On this sequence of {count(length)} tokens the mean weight on the token to copy is {listed}."


def pi_sentence(bound: PiBound) -> str:
    """What the recomputed Figure 2 shows, with its numbers.

    >>> from relpos.topics.long_context.model import pi_bound
    >>> pi_sentence(pi_bound(d=16, length=64, points=40)).startswith("Fitted to 40 random targets in [−1, 1]")
    True
    """
    window = bound.window
    return (
        f"Fitted to {len(bound.points)} random targets in [−1, 1] at positions in [0, {count(bound.length)}], "
        f"a(s) stays within ±{num.number(bound.inside, 2)} on [0, L]; on (L, 2L] it reaches "
        f"±{count(bound.outside) if bound.outside < 1e6 else num.readable(bound.outside)}, "
        f"{count(round(bound.outside / bound.inside))} times as far. Read between the integers of "
        f"{count(window[0])}–{count(window[-1])} (where interpolation puts the new positions) it stays within "
        f"±{num.number(float(np.abs(bound.window_values).max()), 2)}."
    )
