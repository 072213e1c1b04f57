"""pandas views of the core's matrices, labelled for the screen (positions from 1).

No Streamlit here: these build DataFrames that pages display and tests inspect.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from relpos.core import AttentionResult
from relpos.walkthrough import PairStep

__all__ = ["STEP_COLUMNS", "format_offset", "matrix_frame", "result_frames", "step_frame", "table_frame"]

#: Matrices of an AttentionResult worth showing, with their on-screen names.
RESULT_MATRICES = {
    "offsets": "clipped offset clip(j − i, k)",
    "content": "content q_i·k_j/√d",
    "bias": "position bias q_i·a^K/√d",
    "scores": "combined score",
    "content_weights": "content-only weight",
    "weights": "combined weight",
}


def format_offset(offset: int) -> str:
    """Offset with its sign, ``0`` unsigned: ``-2``, ``0``, ``+3``.

    >>> [format_offset(o) for o in (-2, 0, 3)]
    ['-2', '0', '+3']
    """
    return f"{offset:+d}" if offset else "0"


def matrix_frame(matrix, *, decimals: int | None = None) -> pd.DataFrame:
    """Label an (n_q, n_k) matrix with query rows ``i = 1..`` and key columns ``j = 1..``.

    >>> matrix_frame([[1.0, 0.5]])
         j = 1  j = 2
    i = 1    1.0    0.5
    """
    array = np.asarray(matrix)
    if array.ndim != 2:
        raise ValueError(f"matrix must be 2-D (n_q, n_k); got shape {array.shape}")
    frame = pd.DataFrame(
        array,
        index=pd.Index([f"i = {i + 1}" for i in range(array.shape[0])], name=None),
        columns=[f"j = {j + 1}" for j in range(array.shape[1])],
    )
    return frame.round(decimals) if decimals is not None else frame


def result_frames(result: AttentionResult, *, decimals: int | None = 4) -> dict[str, pd.DataFrame]:
    """Every displayable matrix of `result`, keyed by its on-screen name."""
    return {label: matrix_frame(getattr(result, field), decimals=decimals) for field, label in RESULT_MATRICES.items()}


def table_frame(table, *, decimals: int | None = None) -> pd.DataFrame:
    """A (2k+1, d) relative-embedding table labelled by offset ``-k..+k``.

    >>> table_frame([-0.3, 0.4, 0.1])
                a^K
    offset -1  -0.3
    offset 0    0.4
    offset +1   0.1
    """
    array = np.asarray(table, dtype=float)
    array = array.reshape(-1, 1) if array.ndim == 1 else array
    k = (array.shape[0] - 1) // 2
    columns = ["a^K"] if array.shape[1] == 1 else [f"a^K[{f + 1}]" for f in range(array.shape[1])]
    frame = pd.DataFrame(array, index=[f"offset {format_offset(o)}" for o in range(-k, k + 1)], columns=columns)
    return frame.round(decimals) if decimals is not None else frame


#: Columns of the walkthrough's step table: on-screen name -> PairStep attribute.
STEP_COLUMNS = {
    "i": "i",
    "j": "j",
    "offset j−i": "offset",
    "clipped offset": "clipped",
    "q_i": "query",
    "k_j": "key",
    "a^K used": "embedding",
    "q_i·k_j": "content",
    "q_i·a^K": "position",
    "score": "score",
    "content-only weight": "content_weight",
    "combined weight": "weight",
}


def step_frame(steps: tuple[PairStep, ...] | list[PairStep]) -> pd.DataFrame:
    """One row per (query, key) pair with its whole arithmetic; positions from 1.

    Parameters
    ----------
    steps : sequence of PairStep
        From :func:`relpos.walkthrough.pair_steps` (d = 1, so ``q_i·k_j`` needs no scale).

    Returns
    -------
    frame : DataFrame, shape (len(steps), 12)
        Columns :data:`STEP_COLUMNS`; full precision (round for display only).

    Examples
    --------
    >>> from relpos import worked_example
    >>> from relpos.walkthrough import pair_steps
    >>> frame = step_frame(pair_steps(worked_example()))
    >>> frame[["i", "j", "offset j−i", "clipped offset"]].iloc[3].tolist(), float(frame["score"].iloc[3])
    ([1, 4, 3, 2], 0.7)
    """
    if not steps:
        raise ValueError("steps must hold at least one PairStep; got none")
    records = [
        {column: getattr(step, field) + (1 if field in ("i", "j") else 0) for column, field in STEP_COLUMNS.items()}
        for step in steps
    ]
    return pd.DataFrame.from_records(records, columns=list(STEP_COLUMNS))
