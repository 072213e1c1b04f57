"""pandas views of the core's matrices, labelled for the screen (positions from 1).

No Streamlit here: these build DataFrames that pages display and tests inspect.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from relpos.core import AttentionResult

__all__ = [
    "SCHEME_FACTS",
    "constant_diagonals",
    "format_offset",
    "length_frame",
    "matrix_frame",
    "result_frames",
    "scheme_summary_frame",
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
    """One query's output key by key (d = 1): the weight, the value, the a^V row and both products.

    The column sums of the two products are the content part and the position part.
    """
    return pd.DataFrame(
        {
            "offset j − i": [format_offset(int(o)) for o in terms.offsets],
            "a^V row used": [format_offset(int(c)) for c in terms.clipped],
            "α_ij": np.asarray(terms.weights, dtype=float),
            "v_j": np.asarray(terms.values, dtype=float)[:, 0],
            "a^V": np.asarray(terms.value_embeddings, dtype=float)[:, 0],
            "α_ij·v_j": np.asarray(terms.content_terms, dtype=float)[:, 0],
            "α_ij·a^V": np.asarray(terms.position_terms, dtype=float)[:, 0],
        },
        index=[f"key j = {j + 1}" for j in range(len(terms.weights))],
    ).round(decimals if decimals is not None else 15)


# --------------------------------------------------------------------------- position schemes (issue 5)

#: What each scheme adds to the score, and where its position numbers come from.
SCHEME_FACTS = {
    "none": ("nothing", "none"),
    "sinusoidal": ("sin/cos of the position, added to x_i before W^Q, W^K", "fixed functions"),
    "shaw": ("q_i·a^K_clip(j−i,k)/√d", "learned table a^K, (2k+1)·d"),
    "t5": ("β[bucket(j − i)]", "one learned number per bucket"),
    "alibi": ("−m·|j − i|", "fixed slope m per head"),
    "rope": ("rotates q_i by i and k_j by j", "fixed rotation angles"),
}


def constant_diagonals(matrix, *, tolerance: float = 1e-9) -> bool:
    """Whether every diagonal (one offset j − i) of `matrix` holds a single value.

    >>> constant_diagonals([[1.0, 2.0], [3.0, 1.0]]), constant_diagonals([[1.0, 2.0], [3.0, 4.0]])
    (True, False)
    """
    array = np.asarray(matrix, dtype=float)
    return bool(np.all(np.abs(array[1:, 1:] - array[:-1, :-1]) <= tolerance))


def scheme_summary_frame(results, changes, *, rounding: float = 1e-9) -> pd.DataFrame:
    """One row per scheme: its parameters and the computed checks.

    Parameters
    ----------
    results : dict of str to relpos.SchemeScores
    changes : dict of str to ndarray
        From :func:`relpos.translation_changes`.
    """
    from relpos.schemes import SCHEMES

    rows = []
    for name, result in results.items():
        _, source = SCHEME_FACTS[name]  # the position term itself is shown as a formula on the page
        largest = float(np.max(np.abs(changes[name])))
        rows.append(
            {
                "scheme": SCHEMES[name],
                "position parameters": f"{result.n_params} ({source})",
                "constant along diagonals": "yes" if constant_diagonals(result.position) else "no",
                "max |change| after shift": largest if largest >= rounding else 0.0,
                "unchanged by the shift": "yes" if largest < rounding else "no",
            }
        )
    return pd.DataFrame(rows).set_index("scheme")


def length_frame(report, *, k: int, slope: float, head: int) -> pd.DataFrame:
    """What each scheme meets at length 2L after training at L, with the computed numbers."""
    length = report.trained_length
    long = 2 * length
    untrained = sorted({int(b) for b in report.t5_buckets[report.t5_untrained]})
    shaw_rows = sorted({int(o) for o in np.clip(report.offsets[report.shaw_row_untrained], -k, k)})
    before, after = report.pairs_clipped
    rows = {
        "absolute sinusoidal": (
            f"positions {length + 1}..{long} were never seen",
            f"{length} new position vectors; W^Q and W^K never saw them added to a token",
        ),
        "Shaw relative (clip k)": (
            f"offsets beyond ±{k} reuse a^K[±{k}]",
            f"pairs clipped: {before:.0%} at length {length}, {after:.0%} at {long}"
            + (f"; rows {shaw_rows} never trained (k ≥ L)" if shaw_rows else "; every row used was trained"),
        ),
        "T5 bucketed bias": (
            "far offsets share log-spaced buckets",
            (
                f"buckets never trained: {untrained} ({report.pairs_untrained_t5:.0%} of pairs at {long})"
                if untrained
                else f"every bucket used at {long} was already used at {length}"
            ),
        ),
        "ALiBi": (
            "the same formula, further out",
            f"head {head + 1}: penalty reaches −{slope * (length - 1):.2f} at L, −{slope * (long - 1):.2f} at 2L",
        ),
        "RoPE (rotary)": (
            "larger rotation angles",
            f"slowest pair turns at most {report.rope_max_angle[0]:.3f} rad at L, "
            f"{report.rope_max_angle[1]:.3f} rad at 2L",
        ),
    }
    return pd.DataFrame(
        [(name, what, numbers) for name, (what, numbers) in rows.items()],
        columns=["scheme", f"at length {long}", "computed here"],
    ).set_index("scheme")
