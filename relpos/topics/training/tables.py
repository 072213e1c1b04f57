"""pandas frames of a training run: loss history, learned position parameters over
training, and the "train short, test long" accuracy table (no Streamlit, no Plotly).

Offsets are ``j − i`` written with a sign (``-1``, ``0``), positions and features from 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from relpos.core.training import TrainedHead
from relpos.core.training_eval import trained_rows
from relpos.core.training_model import TRAINING_SCHEMES
from relpos.text.numbers import offset as format_offset
from relpos.text.numbers import tex_offset
from relpos.topics.training.text import length_label

__all__ = ["accuracy_frame", "loss_frame", "offset_bias_frame", "position_frame"]


def loss_frame(heads: dict[str, TrainedHead]) -> pd.DataFrame:
    """One row per training step, one loss column per scheme (full precision).

    >>> from relpos.core.training import train_head
    >>> loss_frame({"none": train_head("previous", "none", length=4, steps=2)}).columns.tolist()
    ['step', 'loss (no positions)']
    """
    if not heads:
        return pd.DataFrame({"step": pd.Series(dtype=np.int64)})
    steps = max(head.losses.size for head in heads.values())
    frame = pd.DataFrame({"step": np.arange(1, steps + 1)})
    for scheme, head in heads.items():
        column = np.full(steps, np.nan)
        column[: head.losses.size] = head.losses
        frame[f"loss ({TRAINING_SCHEMES[scheme]})"] = column
    return frame


def _rows_label(head: TrainedHead) -> tuple[str, list[str]]:
    """Name and labels of the rows of the head's learned position parameter."""
    scheme, settings = head.settings.scheme, head.settings
    if scheme == "shaw":
        # a CSV for other programs: ASCII signs (-2, 0, +1), which every spreadsheet reads as numbers
        return "offset j − i", [tex_offset(r - settings.k) for r in range(2 * settings.k + 1)]
    if scheme == "t5":
        return "bucket", [str(b) for b in range(head.params["t5_bias"].shape[0])]
    return "position", [str(p + 1) for p in range(settings.length)]


def position_frame(head: TrainedHead) -> pd.DataFrame:
    """The learned position parameter at every snapshot, long format (None-free).

    Columns: ``step`` (updates done), the row label (``offset j − i`` for Shaw's a^K,
    ``bucket`` for T5, ``position`` for absolute) and one column per feature
    (``feature 1..d``; T5 has a single ``bias``), then ``trained``: False for a row no
    training cell reaches (Shaw's rows after the query or beyond the training length,
    T5's buckets no training offset falls in), which keeps its initial value at every
    step. Empty for a scheme that learns none.

    >>> from relpos.core.training import train_head
    >>> head = train_head("previous", "shaw", length=4, steps=2, k=1, d=2, snapshots=2)
    >>> position_frame(head).columns.tolist(), len(position_frame(head))
    (['step', 'offset j − i', 'feature 1', 'feature 2', 'trained'], 6)
    """
    snapshots = head.position_snapshots
    if snapshots is None:
        return pd.DataFrame({"step": pd.Series(dtype=np.int64)})
    name, labels = _rows_label(head)
    values = snapshots.reshape(snapshots.shape[0], snapshots.shape[1], -1)  # (m, rows, features)
    m, rows, features = values.shape
    frame = pd.DataFrame(
        {"step": np.repeat(head.snapshot_steps, rows), name: np.tile(labels, m)},
    )
    columns = ["bias"] if head.settings.scheme == "t5" else [f"feature {f + 1}" for f in range(features)]
    for f, column in enumerate(columns):
        frame[column] = values[:, :, f].ravel()
    frame["trained"] = np.tile(trained_rows(head), m)
    return frame


def accuracy_frame(schemes, lengths, accuracy) -> pd.DataFrame:
    """The "train short, test long" table: one row per scheme, one column per test length (percent).

    >>> accuracy_frame(["shaw"], [16, 64], [[1.0, 0.98]])
                            L = 16  4L = 64
    scheme
    Shaw relative (clip k)   100.0     98.0
    """
    lengths = [int(n) for n in lengths]
    table = np.asarray(accuracy, dtype=float).reshape(len(schemes), len(lengths))
    frame = pd.DataFrame(
        100 * table,
        index=pd.Index([TRAINING_SCHEMES[s] for s in schemes], name="scheme"),
        columns=[length_label(n, lengths[0]) for n in lengths],
    )
    return frame.round(1)


def offset_bias_frame(offsets, biases) -> pd.DataFrame:
    """The bias per offset as a two-column table (offsets with their sign).

    >>> offset_bias_frame([-1, 0], [0.5, -0.25])["offset j − i"].tolist()
    ['−1', '0']
    """
    return pd.DataFrame(
        {"offset j − i": [format_offset(int(o)) for o in offsets], "bias": np.asarray(biases, dtype=float)}
    )
