"""relpos.rope_frequencies against Hugging Face transformers' own numbers and a plain-loop reference.

``hf_rope_table.json`` was computed once with the library itself (transformers 5.25.0,
torch 2.14.1, CPU) by ``tests/long_context/make_hf_rope_table.py``, whose docstring holds the
commands; the suite reads the stored numbers and never imports torch.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.core.rope_scaling import ROPE_SCALINGS, rope_rotation
from tests.long_context import make_hf_rope_table as grid
from tests.support import reference

TABLE = json.loads(Path(__file__).with_name("hf_rope_table.json").read_text())
ROWS = TABLE["rows"]
#: The library computes in float32, relpos in float64.
RELATIVE = 1e-6


def _settings(row: dict) -> dict:
    keys = ("factor", "original_length", "seq_len")
    return {"scaling": row["scaling"], **{key: row[key] for key in keys if key in row}}


def _label(row: dict) -> str:
    return "-".join(f"{value:g}" if isinstance(value, float) else str(value) for value in _settings(row).values()) + (
        f"-d{row['d']}-b{row['base']:g}"
    )


def test_the_table_names_the_library_and_its_command():
    assert TABLE["library"].startswith("transformers 5.")
    assert "make_hf_rope_table.py" in TABLE["command"]


def test_the_table_covers_the_whole_grid():
    seen = {(row["scaling"], row["d"], row["base"], row["factor"], row.get("original_length")) for row in ROWS}
    for d, base, factor in itertools.product(grid.WIDTHS, grid.BASES, grid.FACTORS):
        assert ("linear", d, base, factor, None) in seen
        for length, scaling in itertools.product(grid.LENGTHS, ("yarn", "llama3", "dynamic")):
            assert (scaling, d, base, factor, length) in seen
    dynamic = [row for row in ROWS if row["scaling"] == "dynamic"]
    assert {row["seq_len"] > row["original_length"] for row in dynamic} == {True, False}
    assert any(row["seq_len"] == row["original_length"] for row in dynamic)
    assert any(row["seq_len"] < row["original_length"] for row in dynamic)


@pytest.mark.parametrize("row", ROWS, ids=_label)
def test_matches_the_library(row):
    result = relpos.rope_frequencies(row["d"], row["base"], **_settings(row))
    assert result.inv_freq.dtype == np.float64 and result.inv_freq.shape == (row["d"] // 2,)
    np.testing.assert_allclose(result.inv_freq, row["inv_freq"], rtol=RELATIVE, atol=0)
    assert result.attention_factor == pytest.approx(row["attention_factor"], rel=RELATIVE)


def test_the_table_is_not_trivial():
    """Every method changes some frequency somewhere on the grid, and YaRN's factor is not 1."""
    for scaling in ("linear", "yarn", "llama3", "dynamic"):
        rows = [row for row in ROWS if row["scaling"] == scaling]
        plain = [relpos.rope_frequencies(row["d"], row["base"]).inv_freq for row in rows]
        assert any(not np.allclose(p, row["inv_freq"]) for p, row in zip(plain, rows, strict=True))
    assert {round(row["attention_factor"], 6) for row in ROWS if row["scaling"] == "yarn"} == {
        round(0.1 * math.log(s) + 1, 6) for s in grid.FACTORS
    }


@st.composite
def scaling_settings(draw):
    scaling = draw(st.sampled_from([None, *ROPE_SCALINGS]))
    d = 2 * draw(st.integers(2, 80))
    length = draw(st.integers(1, 20000))
    low = draw(st.floats(0.25, 4.0))
    fast = draw(st.floats(1.5, 64.0))
    return {
        "d": d,
        "base": draw(st.floats(1.5, 1e7)),
        "scaling": scaling,
        "factor": draw(st.floats(1.0, 64.0)),
        "original_length": length,
        "seq_len": draw(st.integers(1, 80000)),
        "low_freq_factor": low,
        "high_freq_factor": low + draw(st.floats(0.1, 8.0)),
        "beta_fast": fast,
        "beta_slow": draw(st.floats(0.1, fast - 1.0)),
    }


@settings(max_examples=300, deadline=None)
@given(scaling_settings())
def test_matches_the_plain_loop_reference(case):
    d, base = case.pop("d"), case.pop("base")
    result = relpos.rope_frequencies(d, base, **case)
    expected, attention = reference.rope_frequencies(d, base, **case)
    np.testing.assert_allclose(result.inv_freq, expected, rtol=1e-12, atol=0)
    assert result.attention_factor == pytest.approx(attention, rel=1e-12)
    assert np.all(result.inv_freq > 0) and np.all(result.inv_freq <= result.original_inv_freq * (1 + 1e-12))


@pytest.mark.parametrize("factor", [1.5, 2.0, 8.0, 32.0])
def test_dynamic_ntk_keeps_the_base_at_the_training_length_and_meets_static_ntk_once(factor):
    d, length = 64, 4096
    at_training = relpos.rope_frequencies(d, scaling="dynamic", factor=factor, original_length=length, seq_len=length)
    assert at_training.effective_base == 10000.0
    static = relpos.rope_frequencies(d, scaling="ntk", factor=factor)
    meeting = length * (2 - 1 / factor)  # s ℓ / L₀ − (s − 1) = s
    if meeting == int(meeting):
        dynamic = relpos.rope_frequencies(
            d, scaling="dynamic", factor=factor, original_length=length, seq_len=int(meeting)
        )
        np.testing.assert_allclose(dynamic.inv_freq, static.inv_freq, rtol=1e-12)
    at_top = relpos.rope_frequencies(
        d, scaling="dynamic", factor=factor, original_length=length, seq_len=int(factor * length)
    )
    assert at_top.effective_base > static.effective_base


def test_factor_one_changes_nothing_but_dynamic_ntk_past_the_training_length():
    plain = relpos.rope_frequencies(32, 5e5)
    for scaling in ROPE_SCALINGS:
        same = relpos.rope_frequencies(32, 5e5, scaling=scaling, factor=1.0, original_length=64)
        np.testing.assert_allclose(same.inv_freq, plain.inv_freq, rtol=1e-15)
        assert same.attention_factor == 1.0
    # the library's rule at s = 1 still raises the base with ℓ: b (ℓ / L₀)^(d/(d−2))
    longer = relpos.rope_frequencies(32, 5e5, scaling="dynamic", factor=1.0, original_length=64, seq_len=640)
    assert longer.effective_base == pytest.approx(5e5 * 10 ** (32 / 30))


def test_rotation_holds_the_attention_factor_on_cos_and_sin():
    freq = relpos.rope_frequencies(8, scaling="yarn", factor=4, original_length=16)
    sin, cos = rope_rotation(freq, 5)
    assert sin.shape == cos.shape == (5, 4)
    np.testing.assert_allclose(sin**2 + cos**2, freq.attention_factor**2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"d": 7}, "d must be even"),
        ({"d": 2, "scaling": "ntk"}, "at least 4"),
        ({"d": 8, "base": 1.0}, "base must be"),
        ({"d": 8, "scaling": "cubic"}, "scaling must be"),
        ({"d": 8, "scaling": "linear", "factor": 0.5}, "factor must be"),
        ({"d": 8, "scaling": "linear", "factor": math.nan}, "factor must be"),
        ({"d": 8, "scaling": "yarn", "factor": 2.0}, "original_length"),
        ({"d": 8, "scaling": "yarn", "factor": 2.0, "original_length": 16, "beta_fast": 1.0}, "beta_fast"),
        ({"d": 8, "scaling": "llama3", "factor": 2.0, "original_length": 16, "high_freq_factor": 1.0}, "high_freq"),
        ({"d": 8, "scaling": "dynamic", "factor": 2.0, "original_length": 16, "seq_len": 0}, "seq_len"),
    ],
)
def test_bad_settings_are_explained(kwargs, message):
    with pytest.raises(ValueError, match=message):
        relpos.rope_frequencies(**kwargs)
