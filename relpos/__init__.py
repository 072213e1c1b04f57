"""relpos: relative position encoding in self-attention, computed exactly with NumPy.

The core (this package's numpy-only modules) follows Shaw, Uszkoreit & Vaswani (2018):
content scores ``q_i·k_j/√d``, position biases ``q_i·a^K_clip(j−i,k)/√d``, their sum
and the softmax weights. Offsets are ``j − i`` (key minus query); positions are 0-based
in code and shown 1-based on screen.
"""

from relpos.core import (
    AttentionResult,
    clip_offsets,
    content_scores,
    place_relative,
    position_biases,
    relative_attention,
    relative_offsets,
    softmax,
    table_rows,
)
from relpos.examples import Scenario, worked_example
from relpos.measures import attention_distance, diagonal_spread, mean_offset, weight_on_offsets
from relpos.scalar_bias import scalar_bias_attention, scalar_position_biases

__all__ = [
    "AttentionResult",
    "Scenario",
    "attention_distance",
    "clip_offsets",
    "content_scores",
    "diagonal_spread",
    "mean_offset",
    "place_relative",
    "position_biases",
    "relative_attention",
    "relative_offsets",
    "scalar_bias_attention",
    "scalar_position_biases",
    "softmax",
    "table_rows",
    "weight_on_offsets",
    "worked_example",
]
