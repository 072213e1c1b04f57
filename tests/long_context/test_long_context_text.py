"""The long-context sentences say what the numbers show, ties and limits included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.topics.long_context import model, text
from relpos.topics.long_context.schema import LONG_CONTEXT


@pytest.mark.parametrize("method", ["linear", "ntk", "yarn", "llama3"])
@pytest.mark.parametrize("factor", [2, 8, 32])
def test_the_bands_sentence_names_each_band_with_its_pairs(method, factor):
    freq = relpos.rope_frequencies(64, scaling=method, factor=factor, original_length=4096)
    bands = model.bands(freq)
    sentence = text.band_sentence(freq, bands)
    for band, label in model.BANDS.items():
        pairs = np.flatnonzero(bands == band)
        if not len(pairs):
            assert label not in sentence
        elif len(pairs) == len(bands):
            assert f"all {len(bands)} pairs {label}" in sentence
        elif len(pairs) == 1:
            assert f"pair {pairs[0]} {label}" in sentence
        else:
            assert f"{len(pairs)} pairs ({text.pair_list(pairs)}) {label}" in sentence


def test_at_s_1_nothing_changes_and_the_sentences_say_so():
    chosen = model.setting(LONG_CONTEXT.defaults() | {"s": "1", "method": "yarn"})
    freq = model.frequencies(chosen)
    assert text.band_sentence(freq, model.bands(freq)).startswith("At s = 1 every method")
    assert "is 1 at s = 1" in text.temperature_sentence(freq)
    assert "no pair meets an angle" in text.unseen_sentence(freq, chosen.original_length)


def test_no_scaling_reaches_angles_training_never_showed():
    chosen = model.setting(LONG_CONTEXT.defaults() | {"method": "none"})
    sentence = text.unseen_sentence(model.frequencies(chosen), chosen.original_length)
    assert "reach angles at s·L₀ = 16,384 that training never showed" in sentence


def test_dynamic_ntk_at_or_below_the_training_length_keeps_the_base():
    chosen = model.setting(LONG_CONTEXT.defaults() | {"method": "dynamic", "ell": "1"})
    sentence = text.dynamic_sentence(chosen, model.frequencies(chosen), model.frequencies(chosen, "ntk"))
    assert "(ℓ ≤ L₀) dynamic NTK leaves the base at b = 10,000" in sentence
    assert "ℓ = L₀ (2 − 1/s) = 7,168" in sentence


def test_ties_are_named_as_ties_and_worse_methods_listed():
    accuracy = np.array([[1.0, 0.5, 0.2], [1.0, 0.25, 0.2], [1.0, 0.5, 0.1]])
    lines = text.extension_sentences(("none", "linear", "yarn"), [4, 8, 16], accuracy, 4)
    assert lines[0] == "At L = 4 every method scores 100% (s = 1 changes nothing)."
    assert (
        lines[1] == "At 2L = 8: best is no scaling and YaRN (tied) with 50%; PI (25%) does worse than no scaling (50%)."
    )
    assert (
        lines[2]
        == "At 4L = 16: best is no scaling and PI (tied) with 20%; YaRN (10%) does worse than no scaling (20%)."
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=12, unique=True))
def test_pair_lists_name_every_pair(pairs):
    listed = text.pair_list(sorted(pairs))
    named = set()
    for part in listed.replace(" and ", ", ").split(", "):
        low, _, high = part.partition("–")
        named |= set(range(int(low), int(high or low) + 1))
    assert named == set(pairs)
