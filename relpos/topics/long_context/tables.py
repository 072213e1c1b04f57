"""pandas frames of the long-context lesson (no Streamlit, no Plotly): every pair's
frequencies, the published presets with their sources, the experiment's accuracy table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from relpos.core.rope_scaling import RopeFrequencies
from relpos.text import numbers as num
from relpos.topics.long_context.model import BANDS
from relpos.topics.long_context.text import SHORT

__all__ = ["accuracy_frame", "frequency_frame", "relative_frame"]


def frequency_frame(freq: RopeFrequencies, bands, length: int) -> pd.DataFrame:
    """One row per pair i: old and new θ, wavelength, turns in L₀ before and after, band.

    >>> from relpos import rope_frequencies
    >>> f = rope_frequencies(4, scaling="linear", factor=2)
    >>> frame = frequency_frame(f, ["divided", "divided"], 8)
    >>> frame.index.name, frame.columns.tolist()[:2], frame["θ′ᵢ"].tolist()
    ('pair i', ['θᵢ', 'θ′ᵢ'], ['5.000e−1', '5.000e−3'])
    """

    def text(values, digits: int = 4) -> list[str]:
        # frequencies span many decades: E notation keeps their digits (0.000001 would not)
        return [num.scientific(value, digits) for value in values]

    return pd.DataFrame(
        {
            "θᵢ": text(freq.original_inv_freq),
            "θ′ᵢ": text(freq.inv_freq),
            "θ′ᵢ / θᵢ": freq.inv_freq / freq.original_inv_freq,
            "λ′ᵢ = 2π/θ′ᵢ": text(2 * math.pi / freq.inv_freq),
            "turns in L₀ before": text(length * freq.original_inv_freq / (2 * math.pi)),
            "turns in L₀ after": text(length * freq.inv_freq / (2 * math.pi)),
            "band": [BANDS[band] for band in bands],
        },
        index=pd.Index(np.arange(len(freq.inv_freq)), name="pair i"),
    )


def accuracy_frame(methods, lengths, accuracy, trained: int) -> pd.DataFrame:
    """Accuracy in percent, one row per method, one column per test length.

    >>> accuracy_frame(["none"], [4, 8], np.array([[1.0, 0.5]]), 4).round(1).to_dict("records")
    [{'method': 'no scaling', 'L = 4': 100.0, '2L = 8': 50.0}]
    """
    frame = pd.DataFrame({"method": [SHORT[m] for m in methods]})
    for column, n in enumerate(lengths):
        label = f"L = {n}" if n == trained else f"{n // trained}L = {n}"
        frame[label] = 100 * np.asarray(accuracy, dtype=float)[:, column]
    return frame


def relative_frame(pairs, scores) -> pd.DataFrame:
    """The live check of section 1: one row per (m, n), its offset and its rotated score.

    >>> relative_frame(np.array([[0, 5]]), np.array([1.5])).columns.tolist()
    ['m (query index)', 'n (key index)', 'n − m', '(R_m q)·(R_n k)']
    """
    return pd.DataFrame(
        {
            "m (query index)": pairs[:, 0],
            "n (key index)": pairs[:, 1],
            "n − m": pairs[:, 1] - pairs[:, 0],
            "(R_m q)·(R_n k)": scores,
        }
    )
