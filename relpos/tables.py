"""pandas views of the core's matrices, labelled for the screen (positions from 1).

No Streamlit here: these build DataFrames that pages display and tests inspect.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from relpos.core import AttentionResult

__all__ = [
    "format_offset",
    "matrix_frame",
    "result_frames",
    "table_frame",
    "value_ablation_frame",
    "value_terms_frame",
]

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


# --------------------------------------------------------------------------- value side (issue 5)

#: Shaw et al. (2018), Table 3: which relative tables the model had, and its BLEU
#: (English–German); "neither" has no position information at all.
SHAW_VALUE_ABLATION = (
    ("a^K and a^V", True, True, 25.8),
    ("a^K only", True, False, 25.8),
    ("a^V only", False, True, 25.3),
    ("neither", False, False, 12.5),
)


def value_ablation_frame() -> pd.DataFrame:
    """Shaw et al.'s Table 3 (a^K / a^V ablation), as published.

    >>> value_ablation_frame()["BLEU"].tolist()
    [25.8, 25.8, 25.3, 12.5]
    """
    return pd.DataFrame(
        [(name, "✓" if key else "–", "✓" if value else "–", bleu) for name, key, value, bleu in SHAW_VALUE_ABLATION],
        columns=["variant", "a^K (scores)", "a^V (values)", "BLEU"],
    ).set_index("variant")


def value_terms_frame(terms, *, decimals: int | None = 4) -> pd.DataFrame:
    """One query's output, key by key (d = 1), with a final row of sums.

    Columns: offset j − i, the clipped offset whose a^V row is used, α_ij, v_j,
    a^V, α_ij·v_j and α_ij·a^V.
    """
    rows = [
        {
            "offset j − i": format_offset(int(terms.offsets[j])),
            "a^V row used": format_offset(int(terms.clipped[j])),
            "α_ij": float(terms.weights[j]),
            "v_j": float(terms.values[j, 0]),
            "a^V": float(terms.value_embeddings[j, 0]),
            "α_ij·v_j": float(terms.content_terms[j, 0]),
            "α_ij·a^V": float(terms.position_terms[j, 0]),
        }
        for j in range(len(terms.weights))
    ]
    rows.append(
        {
            "offset j − i": "",
            "a^V row used": "",
            "α_ij": float(np.sum(terms.weights)),
            "v_j": np.nan,
            "a^V": np.nan,
            "α_ij·v_j": float(terms.content_part[0]),
            "α_ij·a^V": float(terms.position_part[0]),
        }
    )
    frame = pd.DataFrame(rows, index=[*(f"key j = {j + 1}" for j in range(len(terms.weights))), "sum"])
    return frame.round(decimals) if decimals is not None else frame
