"""pandas views of the core's matrices, labelled for the screen (positions from 1).

No Streamlit here: these build DataFrames that pages display and tests inspect.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from relpos.core import AttentionResult, relative_offsets

__all__ = ["format_offset", "matrix_csv", "matrix_frame", "pairs_frame", "result_frames", "table_frame"]

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


def matrix_csv(matrix, *, decimals: int = 6) -> str:
    """CSV text of a labelled matrix: header ``j = 1, ...``, one row per query.

    >>> print(matrix_csv([[1.0, 0.5], [0.25, -1.0]]), end="")
    ,j = 1,j = 2
    i = 1,1.0,0.5
    i = 2,0.25,-1.0
    """
    return matrix_frame(np.asarray(matrix, dtype=float), decimals=decimals).to_csv()


def pairs_frame(result: AttentionResult, *, decimals: int | None = 6) -> pd.DataFrame:
    """One row per (query, key) pair with every quantity: the long form of all matrices.

    Columns: ``i``, ``j`` (from 1), ``offset`` (``j − i``), ``clipped offset``,
    ``content``, ``bias``, ``score``, ``content-only weight``, ``weight``,
    ``weight change``.

    >>> import relpos
    >>> frame = pairs_frame(relpos.worked_example().attention(), decimals=4)
    >>> frame.iloc[3][["i", "j", "offset", "clipped offset", "score", "weight"]].tolist()
    [1.0, 4.0, 3.0, 2.0, 0.7, 0.2764]
    """
    n_q, n_k = result.scores.shape
    i, j = np.indices((n_q, n_k))
    frame = pd.DataFrame(
        {
            "i": i.ravel() + 1,
            "j": j.ravel() + 1,
            "offset": relative_offsets(n_q, n_k).ravel(),
            "clipped offset": result.offsets.ravel(),
            "content": result.content.ravel(),
            "bias": result.bias.ravel(),
            "score": result.scores.ravel(),
            "content-only weight": result.content_weights.ravel(),
            "weight": result.weights.ravel(),
            "weight change": (result.weights - result.content_weights).ravel(),
        }
    )
    return frame.round(decimals) if decimals is not None else frame
