"""Issue 9: prose that states facts (content/*.md, labels, README) says what is true.

Each test checks the wording and, where the text states a fact about numbers, re-derives it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import relpos
from relpos.lessons import effects
from relpos.lessons import walkthrough as wt
from relpos.tables import frames as tables
from relpos.text import explain
from relpos.ui import navigation
from relpos.ui.schemes import SCHEME_SYMBOLS
from tests.apptest import open_app

ROOT = Path(__file__).resolve().parents[1]


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


class TestHandMadePresets:
    """Issue 9.3: hand-built tables were called trained or trained-like."""

    def test_no_training_claim_anywhere(self):
        sources = [
            read("README.md"),
            read("docs/pages.md"),
            read("content/position_effects.md"),
            read("relpos/lessons/effects.py"),
            read("relpos/text/explain.py"),
            read("pages/position_effects.py"),
            read("relpos/ui/position_effects.py"),
            " ".join(str(spec) for spec in navigation.PAGES),
        ]
        for text in sources:
            for claim in ("mimic trained", "shaped like trained", "trained-like", "trained model's", "trained tables"):
                assert claim not in text

    def test_called_illustrative_hand_made(self):
        assert "illustrative hand-made tables" in read("content/position_effects.md")
        assert "hand-made (not trained)" in " ".join(str(spec) for spec in navigation.PAGES)
        assert "illustrative hand-made table" in read("README.md") + read("docs/pages.md")
        assert "Table preset (illustrative hand-made tables, or trained live)" in read("relpos/ui/position_effects.py")

    def test_selector_says_which_presets_are_hand_made_and_which_trained(self):
        """Issue 13: trained presets sit next to the hand-made ones, and each option says which it is."""
        at = open_app("position_effects")
        options = at.selectbox(key="effects.preset").options
        assert options == [
            "hand-made: Attend 1–2 back",
            "hand-made: Attend 1–2 forward",
            "hand-made: Local window (±1)",
            "Random table",
            "trained: previous token",
            "trained: two back",
            "trained: first token",
        ]

    def test_the_tables_really_are_a_profile_times_the_mean_direction(self):
        inputs = effects.position_effects_inputs(6, 3, seed=1, pattern="back")
        direction = inputs.queries.mean(axis=0) / np.linalg.norm(inputs.queries.mean(axis=0))
        profile = effects.pattern_profile("back", 3)
        row = inputs.table[profile > 0][0]
        np.testing.assert_allclose(inputs.table, np.outer(profile, row))
        np.testing.assert_allclose(row / np.linalg.norm(row), direction)


class TestRopeSign:
    """Issue 9.6: "rotation by i followed by the inverse rotation by j is a rotation by j − i" had the sign reversed."""

    def test_text_states_the_right_composition(self):
        text = read("content/schemes_translation_after.md")
        assert r"q^\top R_i^\top R_j\, k = q^\top R_{j-i}\, k" in text
        assert "followed by the inverse rotation by j" not in text

    def test_the_composition_holds(self):
        def rotation(angle):
            return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])

        q, k, theta = np.array([0.3, -1.2]), np.array([0.7, 0.4]), 0.37
        for i, j in ((1, 4), (5, 2), (0, 0)):
            assert np.isclose((rotation(i * theta) @ q) @ (rotation(j * theta) @ k), q @ rotation((j - i) * theta) @ k)


class TestQueryIndependentWording:
    """Issue 9.7: "one learned number per offset, as in T5 or ALiBi"."""

    def test_toggle_and_background(self):
        label = explain.SCALAR_TOGGLE_LABEL
        assert "as in T5 or ALiBi" not in label and "per bucket" in label and "ALiBi learns none" in label
        assert "SCALAR_TOGGLE_LABEL" in read("relpos/plots/live.py")  # the live panel's toggle
        background = read("content/walkthrough_background.md")
        assert "T5's learned scalar\nper offset" not in background and "per *bucket*" in background
        assert "ALiBi (Attention with Linear Biases, Press et al. 2022) learns\nnothing" in background
        assert "(as in T5 or ALiBi)" not in read("content/explorer_offsets.md")


class TestSchemeCards:
    """Issue 9.8: T5 does not divide by √d; ALiBi's symmetric form is an extension."""

    def test_t5_card_says_the_page_scales_every_scheme(self):
        assert "T5 itself does not divide" in SCHEME_SYMBOLS["t5"] and "every scheme" in SCHEME_SYMBOLS["t5"]

    def test_alibi_card_says_causal_and_extension(self):
        card = SCHEME_SYMBOLS["alibi"]
        assert "causal" in card and "extension for bidirectional attention" in card


class TestMemoryFigures:
    """Issue 9.9: one 8.6 GB figure was presented as "the" Shaw tensor."""

    def test_both_figures_exact(self):
        text = read("content/efficiency_intro.md")
        shared = 2048 * 2048 * 64  # (L, L, d_head): a^K shared across heads
        per_head = 8 * shared  # (L, L, D): one table per head
        for count in (shared, shared * 4, per_head, per_head * 4):
            assert f"{count:,}" in text
        assert f"≈ {tables.format_bytes(shared * 4)} (exactly 1 GiB)" in text
        assert f"≈ {tables.format_bytes(per_head * 4)}" in text and "(exactly 8 GiB" in text
        assert "Shared across heads" in text and "Separate embeddings per head" in text
        assert "8.6 GB" not in text


class TestWalkthroughEditText:
    """Issue 9.11: "the scores do not change until you edit it" ignored remembered values."""

    def test_remembered_values_change_the_scores_and_copies_do_not(self):
        text = read("content/walkthrough_edit.md")
        assert "restores the old a^K₋₂ and a^K₊₂" in text and "which changes the scores" in text
        assert "leaves every score\nunchanged until you edit it" in text
        example = relpos.worked_example()
        lowered = wt.resize_table(example.table, 1)
        remembered = {-2: example.table[0], 2: example.table[-1]}
        scores = {
            "k1": relpos.Scenario(example.queries, example.keys, lowered).attention().scores,
            "back": relpos.Scenario(example.queries, example.keys, wt.resize_table(lowered, 2, remembered)),
            "copy": relpos.Scenario(example.queries, example.keys, wt.resize_table(lowered, 2)),
        }
        assert wt.resize_table(lowered, 2, remembered) == tuple(example.table)  # −0.3 and −0.5 come back
        assert not np.allclose(scores["back"].attention().scores, scores["k1"])
        np.testing.assert_allclose(scores["copy"].attention().scores, scores["k1"])


class TestSkewingText:
    """Issue 9.13: "every row starts one cell earlier … than the row above it" was ambiguous."""

    def test_states_what_moves_and_it_holds(self):
        text = read("content/efficiency_skewing.md")
        assert "reshaped row r starts at r·L, r cells earlier" in text
        assert "starts one cell\n   earlier in the padded data than the row above it" not in text
        length = 5
        padded = np.arange(length * (length + 1)).reshape(length, length + 1)
        reshaped = padded.ravel().reshape(length + 1, length)  # nothing moves in memory
        for r in range(length):
            assert reshaped[r, r] == padded[r, 0]  # padded row r lands r cells further right
