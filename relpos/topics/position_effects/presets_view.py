"""The Position effects page's trained presets: one cached training run per (preset, k).

:mod:`relpos.core.trained_presets` trains the head and turns its learned a^K into a
profile; this module only caches the run. ``st.cache_data`` keeps plain data (the mean
biases per offset and the accuracy), so a class choosing the same preset shares one run
of about a second, and a session that asks while another trains waits for it.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import relpos
from relpos.core import trained_presets as trained
from relpos.topics.position_effects import text

#: What the spinner says while a preset's head trains (once per server and setting).
TRAINING = "Training the preset's head (about a second, once per setting)…"


@st.cache_data(show_spinner=TRAINING, max_entries=64)
def learned_run(pattern: str, k_trained: int) -> tuple[np.ndarray, float]:
    """The mean bias per offset ``−k_t .. 0`` of the preset's trained head, and its accuracy at L (cached)."""
    head = trained.train_preset_head(pattern, k_trained)
    accuracy = relpos.accuracy(head, trained.TRAINING_LENGTH, seed=trained.TRAINING_SEED)
    return trained.learned_biases(head), float(accuracy)


def preset_profile(state: dict) -> tuple[np.ndarray | None, list[str]]:
    """A state's learned profile (None for a hand-made or random preset) and the sentences that explain it."""
    pattern = state["preset"]
    if pattern not in trained.TRAINED_PRESETS:
        return None, []
    biases, accuracy = learned_run(pattern, trained.training_k(state["k"]))
    profile = trained.profile_from_biases(biases, state["k"])  # (2k+1,)
    label = trained.TRAINED_PRESETS[pattern][0].removeprefix("trained: ")
    note = text.trained_preset_note(
        f'"{label}"',
        length=trained.TRAINING_LENGTH,
        steps=trained.TRAINING_STEPS,
        seed=trained.TRAINING_SEED,
        d=trained.TRAINING_WIDTH,
        biases=biases,
        accuracy=accuracy,
        k=state["k"],
        strength=state["strength"],
        flat=not np.any(profile),
    )
    return profile, note
