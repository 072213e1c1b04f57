"""Writes hf_rope_table.json: Hugging Face transformers' RoPE frequencies on the test grid.

Run once, outside the repository's environment (the suite itself never needs torch):

    python3 -m venv /tmp/hfenv
    /tmp/hfenv/bin/pip install "transformers>=5,<6" torch
    /tmp/hfenv/bin/python tests/long_context/make_hf_rope_table.py

It calls ``ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len)`` from
``transformers/modeling_rope_utils.py`` with a ``LlamaConfig`` holding the settings, and
stores each result (float32, written with 9 significant digits, which round-trips
float32) with the library's and torch's versions.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

OUT = Path(__file__).with_name("hf_rope_table.json")

WIDTHS = (64, 128)
BASES = (1e4, 5e5)
FACTORS = (2.0, 4.0, 8.0, 16.0)
LENGTHS = (2048, 4096, 8192)


def dynamic_lengths(length: int, factor: float) -> tuple[int, ...]:
    """ℓ below L₀ (raised to L₀), at L₀, at 2 L₀ and at s L₀."""
    return (length // 2, length, 2 * length, int(factor * length))


def main() -> None:
    import torch
    import transformers
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    def run(rope_type: str, d: int, max_positions: int, parameters: dict, seq_len=None) -> dict:
        config = LlamaConfig(
            hidden_size=4 * d,
            num_attention_heads=4,
            head_dim=d,
            max_position_embeddings=max_positions,
            rope_parameters={"rope_type": rope_type, **parameters},
        )
        inv_freq, attention_factor = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len)
        assert inv_freq.dtype == torch.float32 and inv_freq.shape == (d // 2,)
        return {"inv_freq": [float(f"{x:.9g}") for x in inv_freq.tolist()], "attention_factor": float(attention_factor)}

    rows = []
    for d, base, factor in itertools.product(WIDTHS, BASES, FACTORS):
        settings = {"d": d, "base": base, "factor": factor}
        rows.append({"scaling": "linear", **settings, **run("linear", d, 4096, {"rope_theta": base, "factor": factor})})
        for length in LENGTHS:
            here = {**settings, "original_length": length}
            common = {"rope_theta": base, "factor": factor, "original_max_position_embeddings": length}
            top = int(factor * length)
            rows.append({"scaling": "yarn", **here, **run("yarn", d, top, common)})
            llama = {**common, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
            rows.append({"scaling": "llama3", **here, **run("llama3", d, top, llama)})
            for seq_len in dynamic_lengths(length, factor):
                dynamic = {"rope_theta": base, "factor": factor}
                result = run("dynamic", d, length, dynamic, seq_len)
                rows.append({"scaling": "dynamic", **here, "seq_len": seq_len, **result})
    table = {
        "library": f"transformers {transformers.__version__}, torch {torch.__version__}",
        "command": "/tmp/hfenv/bin/python tests/long_context/make_hf_rope_table.py",
        "rows": rows,
    }
    OUT.write_text(json.dumps(table, separators=(",", ":")) + "\n")
    print(f"{len(rows)} rows written to {OUT.name} ({table['library']})")


if __name__ == "__main__":
    main()
