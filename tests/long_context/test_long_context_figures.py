"""The long-context figures, built with Plotly's checks on (the page builds them unchecked)."""

from __future__ import annotations

import numpy as np
import pytest

from relpos.core.rope_extension import EXTENSION_METHODS, extension_pattern, rope_extension_table
from relpos.core.training_tasks import task_sequences
from relpos.topics.long_context import figures, model
from relpos.topics.long_context.schema import LONG_CONTEXT

SETTINGS = {
    "defaults": {},
    "smallest": {"d": "8", "b": "100", "s": "1", "L0": "256", "m": 0, "method": "none"},
    "largest": {"d": "256", "b": "1000000", "s": "32", "L0": "32768", "m": 65536, "method": "llama3"},
}


@pytest.fixture(autouse=True)
def checked(monkeypatch):
    monkeypatch.setattr(figures, "VALIDATE", True)


@pytest.mark.parametrize("name", SETTINGS)
def test_every_figure_of_sections_1_and_2_passes_plotlys_checks(name):
    chosen = model.setting(LONG_CONTEXT.defaults() | SETTINGS[name])
    plain, freq = model.frequencies(chosen, "none"), model.frequencies(chosen)
    bands = model.bands(freq)
    hands = figures.hands_figure(plain, chosen.m, model.hand_pairs(chosen.d), big=True)
    assert len(hands.data) == 2 * len(model.hand_pairs(chosen.d))
    figures.wavelength_figure(plain, chosen.original_length)
    figures.frequency_figure(freq, bands, chosen.original_length)
    distances = model.distance_grid(chosen.top)
    curves = {m: (distances, model.score_curve(model.frequencies(chosen, m), distances)) for m in model.METHODS}
    decay = figures.decay_figure(curves, chosen.original_length, chosen.top)
    assert [trace.xaxis for trace in decay.data] == ["x", "x2", "x3", "x4", "x5", "x6"]
    assert len(decay.layout.shapes) == 6  # the trained band in every panel
    patterns = {"a": model.score_pattern(plain, chosen.top), "b": model.score_pattern(freq, chosen.top)}
    pattern = figures.pattern_figure(patterns)
    assert pattern.data[0].zmin == -pattern.data[0].zmax  # diverging, centred on 0


def test_the_experiment_and_the_bound_pass_plotlys_checks():
    table = rope_extension_table("previous", length=4, factors=(1, 2), steps=5, samples=4)
    figures.accuracy_figure(table.methods, table.lengths.tolist(), table.accuracy, 4)
    tokens = task_sequences("previous", 16, seed=0).tokens[0]
    maps = {m: extension_pattern(table.head, tokens, m) for m in EXTENSION_METHODS}
    heads = figures.head_patterns_figure(maps, 4)
    assert len(heads.layout.shapes) == len(EXTENSION_METHODS)
    bound = model.pi_bound(d=16, length=64, points=40)
    pi = figures.pi_figure(bound)
    assert np.allclose(pi.data[2].y, bound.values)
