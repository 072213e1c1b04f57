"""relpos: relative position encoding in self-attention, computed exactly with NumPy.

The core (``relpos.core``, NumPy only; the names below come from it) follows Shaw, Uszkoreit & Vaswani (2018):
content scores ``q_i·k_j/√d``, position biases ``q_i·a^K_clip(j−i,k)/√d``, their sum
and the softmax weights. Offsets are ``j − i`` (key minus query); positions are 0-based
in code and shown 1-based on screen.
"""

from relpos.core.attention import AttentionResult, content_scores, position_biases, relative_attention, softmax
from relpos.core.examples import Scenario, worked_example
from relpos.core.measures import attention_distance, diagonal_spread, mean_offset, weight_on_offsets
from relpos.core.offsets import clip_offsets, place_relative, relative_offsets, table_rows
from relpos.core.scalar_bias import scalar_bias_attention, scalar_position_biases
from relpos.core.scheme_comparison import (
    LengthReport,
    SchemeScores,
    SchemeSetup,
    length_generalization,
    random_scheme_setup,
    scheme_scores,
    shaw_offset_biases,
    translation_changes,
)
from relpos.core.schemes import (
    SCHEMES,
    alibi_bias,
    alibi_slopes,
    rope,
    rope_offset_scores,
    sinusoidal_positions,
    t5_bias,
    t5_bucket,
    t5_buckets_seen,
)
from relpos.core.skewing import memory_footprint, naive_position_biases, skew, skewed_position_biases
from relpos.core.training import TrainedHead, TrainSettings, train_head
from relpos.core.training_eval import (
    LengthTable,
    accuracy,
    attention_pattern,
    offset_biases,
    predict,
    train_short_test_long,
    trained_rows,
)
from relpos.core.training_model import TRAINING_SCHEMES
from relpos.core.training_tasks import TRAINING_TASKS, TaskBatch, task_sequences
from relpos.core.value_side import (
    QueryValueTerms,
    ValueExample,
    ValueParts,
    query_value_terms,
    value_example,
    value_parts_by_k,
    weight_per_offset,
    window_table,
)

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
    "walkthrough",
    "weight_on_offsets",
    "worked_example",
]

# Efficient computation (issue 5): the naive gather, Music Transformer's skewing, memory formulas.
__all__ += ["memory_footprint", "naive_position_biases", "skew", "skewed_position_biases"]
# value side and other position schemes (issue 5)
__all__ += [
    "SCHEMES",
    "LengthReport",
    "QueryValueTerms",
    "SchemeScores",
    "SchemeSetup",
    "ValueExample",
    "ValueParts",
    "alibi_bias",
    "alibi_slopes",
    "length_generalization",
    "query_value_terms",
    "random_scheme_setup",
    "rope",
    "rope_offset_scores",
    "scheme_scores",
    "shaw_offset_biases",
    "sinusoidal_positions",
    "t5_bias",
    "t5_bucket",
    "t5_buckets_seen",
    "translation_changes",
    "value_example",
    "value_parts_by_k",
    "weight_per_offset",
    "window_table",
]
# trained, not hand-made: a tiny attention head trained live (issue 13)
__all__ += [
    "TRAINING_SCHEMES",
    "TRAINING_TASKS",
    "LengthTable",
    "TaskBatch",
    "TrainSettings",
    "TrainedHead",
    "accuracy",
    "attention_pattern",
    "offset_biases",
    "predict",
    "task_sequences",
    "train_head",
    "train_short_test_long",
    "trained_rows",
]
