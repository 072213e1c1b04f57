"""pandas views of the core's matrices, labelled for the screen (positions from 1).

No Streamlit here: these build DataFrames that pages display and tests inspect.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from relpos.core.attention import AttentionResult
from relpos.core.offsets import relative_offsets
from relpos.text import numbers as num

__all__ = [
    "SCHEME_FACTS",
    "constant_diagonals",
    "length_frame",
    "matrix_csv",
    "matrix_frame",
    "pairs_frame",
    "result_frames",
    "scheme_summary_frame",
    "speed_ratio",
    "table_frame",
    "text_grid_frame",
    "value_ablation_frame",
    "value_terms_frame",
]

#: Matrices of an AttentionResult worth showing, with their on-screen names.
RESULT_MATRICES = {
    "offsets": "clipped offset clip(j − i, k)",
    "content": "content q_i·k_j/√d",
    "bias": "position bias q_i·aᴷ/√d",
    "scores": "combined score",
    "content_weights": "content-only weight",
    "weights": "combined weight",
}


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
               aᴷ
    offset −1 -0.3
    offset 0   0.4
    offset +1  0.1
    """
    array = np.asarray(table, dtype=float)
    array = array.reshape(-1, 1) if array.ndim == 1 else array
    k = (array.shape[0] - 1) // 2
    columns = ["aᴷ"] if array.shape[1] == 1 else [f"aᴷ, dim {f + 1}" for f in range(array.shape[1])]
    frame = pd.DataFrame(array, index=[f"offset {num.offset(o)}" for o in range(-k, k + 1)], columns=columns)
    return frame.round(decimals) if decimals is not None else frame


# ---------------------------------------------------------------- efficient computation

__all__ += ["format_bytes", "memory_frame", "published_memory_frame", "timing_frame"]


def format_bytes(count: int, *, binary: bool = False) -> str:
    """Bytes in decimal (kB, MB, GB: powers of 1000) or binary (KiB, MiB, GiB) units.

    >>> format_bytes(8_589_934_592), format_bytes(8_589_934_592, binary=True), format_bytes(512)
    ('8.59 GB', '8.00 GiB', '512 B')
    """
    base, units = (1024, ("B", "KiB", "MiB", "GiB", "TiB")) if binary else (1000, ("B", "kB", "MB", "GB", "TB"))
    value, unit = float(count), units[0]
    for unit in units:
        if abs(value) < base or unit == units[-1]:
            break
        value /= base
    return f"{count:,} B" if unit == "B" else f"{value:.2f} {unit}"


def _speed_up(naive_seconds: float | None, timing) -> str:
    """``2.5× faster``, ``1.4× slower`` (never "0.7× faster") or ``about as fast`` (both print as 1.0×)."""
    if timing.seconds is None or naive_seconds is None:
        return "—"
    if "naive" in timing.method:
        return "baseline"
    return speed_ratio(naive_seconds / timing.seconds)


def speed_ratio(ratio: float) -> str:
    """A method's speed against the baseline (baseline time / its time) in words.

    >>> speed_ratio(2.46), speed_ratio(0.7), speed_ratio(1.04), speed_ratio(0.96)
    ('2.5× faster', '1.4× slower', 'about as fast', 'about as fast')
    """
    faster = ratio >= 1
    factor = ratio if faster else 1 / ratio
    if f"{factor:.1f}" == "1.0":
        return "about as fast"
    return f"{factor:,.1f}× {'faster' if faster else 'slower'}"


def timing_frame(timings) -> pd.DataFrame:
    """The live timing as a table: best time, speed-up over the naive gather, extra memory."""
    naive = timings[0].seconds
    rows = []
    for timing in timings:
        measured = timing.seconds is not None
        rows.append(
            {
                "method": timing.method,
                "best time (ms)": f"{timing.seconds * 1e3:,.2f}" if measured else "—",
                "vs naive": _speed_up(naive, timing),
                "extra memory (float64)": format_bytes(timing.extra_bytes, binary=True),
                "max |difference|": num.scientific(timing.max_error, 2) if timing.max_error is not None else "—",
                "note": timing.note,
            }
        )
    return pd.DataFrame(rows).set_index("method")


def memory_frame(footprint, *, n: int, d_model: int, k: int, heads: int, itemsize: int) -> pd.DataFrame:
    """Memory of each method's intermediate for one layer, with its formula."""
    rows = [
        ("naive gather", "one d_head vector per pair and head", f"({n}, {n}, {d_model})", "n²·D·b", footprint.gathered),
        (
            "Q A_Kᵀ + placement",
            "one logit per query, offset and head",
            f"{heads} × ({n}, {2 * k + 1})",
            "H·n·(2k+1)·b",
            footprint.relative_logits,
        ),
        (
            "skewing (Music Transformer)",
            "one d_head embedding per offset and head",
            f"({n}, {d_model})",
            "n·D·b",
            footprint.skew_embeddings,
        ),
        ("every method", "the attention logits themselves", f"{heads} × ({n}, {n})", "H·n²·b", footprint.scores),
    ]
    frame = pd.DataFrame(
        [
            {
                "method": method,
                "what is stored": what,
                "shape": shape,
                "formula": formula,
                "bytes": f"{size:,}",
                "size": format_bytes(size),
            }
            for method, what, shape, formula, size in rows
        ]
    )
    frame.attrs["itemsize"] = itemsize
    return frame.set_index("method")


def published_memory_frame(footprint, *, length: int = 2048, d_model: int = 512, itemsize: int = 4) -> pd.DataFrame:
    """Music Transformer's published figures (L = 2048, D = 512, float32) next to the formulas."""
    rows = [
        (
            "relative embeddings per pair (before)",
            f"{length}² · {d_model} · {itemsize} B",
            footprint.gathered,
            "8.5 GB",
        ),
        ("skewing's E (after)", f"{length} · {d_model} · {itemsize} B", footprint.skew_embeddings, "4.2 MB"),
    ]
    return pd.DataFrame(
        [
            {
                "intermediate": name,
                "formula": formula,
                "bytes": f"{size:,}",
                "decimal units": format_bytes(size),
                "binary units": format_bytes(size, binary=True),
                "paper (Huang et al., 2018)": paper,
            }
            for name, formula, size, paper in rows
        ]
    ).set_index("intermediate")


# ---------------------------------------------------------------- quiz

__all__ += ["offset_row_frame", "scenario_frame"]


def scenario_frame(scenario) -> pd.DataFrame:
    """A d = 1 scenario's queries and keys as two labelled rows, positions from 1.

    >>> from relpos.core.examples import worked_example
    >>> scenario_frame(worked_example()).loc["k_j"].tolist()
    [0.9, 0.7, 0.4, 1.2]
    """
    return pd.DataFrame(
        [list(scenario.queries), list(scenario.keys)],
        index=["q_i", "k_j"],
        columns=[f"position {p + 1}" for p in range(scenario.n)],
    )


def offset_row_frame(table) -> pd.DataFrame:
    """A d = 1 table a^K as one row, its columns labelled by offset ``−k..+k``.

    >>> offset_row_frame([-0.3, 0.4, 0.1]).columns.tolist()
    ['aᴷ₋₁', 'aᴷ₀', 'aᴷ₊₁']
    """
    values = np.asarray(table, dtype=float).ravel()
    k = (len(values) - 1) // 2
    return pd.DataFrame(
        [values], index=["aᴷ"], columns=[f"aᴷ{num.offset_subscript(offset)}" for offset in range(-k, k + 1)]
    )


# --------------------------------------------------------------------------- value side

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
            "offset j − i": [num.offset(int(o)) for o in terms.offsets],
            "a^V row used": [num.offset(int(c)) for c in terms.clipped],
            "α_ij": np.asarray(terms.weights, dtype=float),
            "v_j": np.asarray(terms.values, dtype=float)[:, 0],
            "a^V": np.asarray(terms.value_embeddings, dtype=float)[:, 0],
            "α_ij·v_j": np.asarray(terms.content_terms, dtype=float)[:, 0],
            "α_ij·a^V": np.asarray(terms.position_terms, dtype=float)[:, 0],
        },
        index=[f"key j = {j + 1}" for j in range(len(terms.weights))],
    ).round(decimals if decimals is not None else 15)


# --------------------------------------------------------------------------- position schemes

#: What each scheme adds to the score, and where its position numbers come from.
SCHEME_FACTS = {
    "none": ("nothing", "none"),
    "sinusoidal": ("sin/cos of the position, added to x_i before W^Q, W^K", "fixed functions"),
    "shaw": ("qᵢ·aᴷ_clip(j−i,k)/√d", "learned table aᴷ, (2k+1)·d"),
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
    from relpos.core.schemes import SCHEMES

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
            f"offsets beyond ±{k} reuse aᴷ{num.offset_subscript(-k)} and aᴷ{num.offset_subscript(k)}",
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
            f"head {head + 1}: penalty reaches {num.number(-slope * (length - 1))} at L, "
            f"{num.number(-slope * (long - 1))} at 2L",
        ),
        "RoPE (rotary)": (
            "larger rotation angles",
            f"slowest pair turns at most {num.number(report.rope_max_angle[0], 3)} rad at L, "
            f"{num.number(report.rope_max_angle[1], 3)} rad at 2L",
        ),
    }
    return pd.DataFrame(
        [(name, what, numbers) for name, (what, numbers) in rows.items()],
        columns=["scheme", f"at length {long}", "computed here"],
    ).set_index("scheme")


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


def text_grid_frame(cells, *, rows, columns, row_title: str, column_title: str) -> pd.DataFrame:
    """A grid of text cells (a labelled chart's table alternative), both axes named.

    >>> text_grid_frame([["a", "b"]], rows=["q1"], columns=["k1", "k2"], row_title="query i", column_title="key j")
    key j    k1 k2
    query i
    q1        a  b
    """
    return pd.DataFrame(
        [list(row) for row in cells],
        index=pd.Index(list(rows), name=row_title),
        columns=pd.Index(list(columns), name=column_title),
    )
