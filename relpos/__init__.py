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
from relpos.core.rope_scaling import ROPE_SCALINGS, RopeFrequencies, rope_frequencies, rope_rotation
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

__all__ = [  # noqa: RUF022 - grouped by topic, as the README lists them
    # scores, biases and weights of one head (Shaw et al. 2018, eq. 4-5)
    "AttentionResult",
    "content_scores",
    "position_biases",
    "relative_attention",
    "softmax",
    # offsets j - i, clipping at k, table rows r = offset + k
    "clip_offsets",
    "place_relative",
    "relative_offsets",
    "table_rows",
    # the textbook example and measures of where attention goes
    "Scenario",
    "attention_distance",
    "diagonal_spread",
    "mean_offset",
    "weight_on_offsets",
    "worked_example",
    # one number per offset instead of a vector (a scalar bias)
    "scalar_bias_attention",
    "scalar_position_biases",
    # efficient computation: the naive gather, Music Transformer's skewing, memory
    "memory_footprint",
    "naive_position_biases",
    "skew",
    "skewed_position_biases",
    # the value side: a^V and the output's content and position parts
    "QueryValueTerms",
    "ValueExample",
    "ValueParts",
    "query_value_terms",
    "value_example",
    "value_parts_by_k",
    "weight_per_offset",
    "window_table",
    # other position schemes on the same tokens
    "SCHEMES",
    "LengthReport",
    "SchemeScores",
    "SchemeSetup",
    "alibi_bias",
    "alibi_slopes",
    "length_generalization",
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
    # RoPE's frequencies and their context extensions (PI, NTK, dynamic NTK, YaRN, Llama 3.1)
    "ROPE_SCALINGS",
    "RopeFrequencies",
    "rope_frequencies",
    "rope_rotation",
    # a tiny attention head trained live
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
