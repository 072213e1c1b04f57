"""Long context: its URL schema. Pure.

Every setting is a slider over a fixed list or range, so any value a link can carry is
one the page draws; nothing depends on another field, so no reconciliation is needed
(``high_freq_factor`` choices all exceed ``low_freq_factor`` ones, ``beta_fast`` ones all
exceed ``beta_slow`` ones).
"""

from __future__ import annotations

from relpos.core.rope_scaling import ROPE_SCALINGS
from relpos.core.training_tasks import TRAINING_TASKS
from relpos.state.codec import Schema, bool_field, choice_field, int_field
from relpos.text.answers import MAX_SEED

#: Head widths d offered (pairs d/2 = 4 .. 128).
WIDTHS = ("8", "16", "32", "64", "128", "256")
#: Bases b offered: RoPE's 10⁴ (Su et al. 2021), Llama 3's 5·10⁵, and others around them.
BASES = ("100", "1000", "10000", "100000", "500000", "1000000")
#: Training lengths L₀ offered.
LENGTHS = ("256", "512", "1024", "2048", "4096", "8192", "16384", "32768")
#: Scale factors s offered.
FACTORS = ("1", "2", "4", "8", "16", "32")
#: Dynamic NTK's sequence length ℓ, as a multiple of L₀.
SEQ_MULTIPLES = ("1", "1.5", "2", "4", "8", "16", "32")
#: Llama 3.1's band factors and YaRN's ramp ends offered.
LOW_FACTORS = ("0.5", "1", "2")
HIGH_FACTORS = ("4", "8", "16")
BETA_FAST = ("8", "16", "32", "64")
BETA_SLOW = ("0.5", "1", "2", "4")
#: Train short, test long: training lengths of the tiny head.
TRAIN_LENGTHS = ("8", "16", "32")

LONG_CONTEXT = Schema(
    {
        "d": choice_field("64", WIDTHS, label="head width d", noun="head width d"),
        "b": choice_field("10000", BASES, label="base b", noun="base b"),
        "m": int_field(100, 0, 65536, label="position m", noun="position m"),
        "method": choice_field("yarn", tuple(ROPE_SCALINGS), label="context extension", noun="method"),
        "s": choice_field("4", FACTORS, label="scale factor s", noun="scale factor s"),
        "L0": choice_field("4096", LENGTHS, label="training length L₀", noun="training length L₀"),
        "ell": choice_field("2", SEQ_MULTIPLES, label="dynamic NTK: sequence length ℓ / L₀", noun="ℓ / L₀"),
        "low": choice_field("1", LOW_FACTORS, label="Llama 3.1: low_freq_factor", noun="low_freq_factor"),
        "high": choice_field("4", HIGH_FACTORS, label="Llama 3.1: high_freq_factor", noun="high_freq_factor"),
        "bfast": choice_field("32", BETA_FAST, label="YaRN: β_fast (rotations)", noun="β_fast"),
        "bslow": choice_field("1", BETA_SLOW, label="YaRN: β_slow (rotations)", noun="β_slow"),
        "task": choice_field("previous", tuple(TRAINING_TASKS), label="task", noun="task"),
        "L": choice_field("16", TRAIN_LENGTHS, label="training length L of the tiny head", noun="training length L"),
        "seed": int_field(0, 0, MAX_SEED, label="seed", noun="seed"),
        "presenter": bool_field(False),
    }
)
