"""Wall-clock timing of the three ways to compute position biases (no Streamlit).

Used by the efficiency page's live timing and by ``bench/efficiency.py``. Times are
the best of a few runs (the run least disturbed by other load); every method's output
is checked against :func:`relpos.position_biases` so a fast wrong answer cannot win.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from relpos.core.attention import position_biases
from relpos.core.checks import as_count
from relpos.core.skewing import naive_position_biases, skewed_position_biases

__all__ = ["MethodTiming", "best_time", "interleaved_best", "time_bias_methods"]

#: Largest (n, n, d) float64 tensor the naive gather may build during a timing.
NAIVE_BUDGET_BYTES = 512 * 2**20


@dataclass(frozen=True)
class MethodTiming:
    """One method's measurement.

    Attributes
    ----------
    method : str
        On-screen name.
    seconds : float or None
        Best wall time; None when the method was skipped.
    extra_bytes : int
        Bytes of the intermediate the method builds besides the ``(n, n)`` output.
    max_error : float or None
        Largest absolute difference from :func:`relpos.position_biases` (causal
        cells only for skewing); None when skipped.
    note : str
        Why it was skipped, or what it covers.
    """

    method: str
    seconds: float | None
    extra_bytes: int
    max_error: float | None
    note: str = ""


def best_time(function: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Best wall time of `repeats` calls and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def interleaved_best(functions: dict[str, Callable[[], object]], repeats: int) -> dict[str, tuple[float, object]]:
    """Best time of each function, calling them in turn `repeats` times.

    Taking turns means a burst of load elsewhere (a browser drawing charts, another
    session) slows every method alike instead of one of them.
    """
    best = {name: (float("inf"), None) for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            seconds, result = best_time(function, 1)
            best[name] = (min(best[name][0], seconds), result)
    return best


def _naive_timing(measured, expected: np.ndarray, gathered_bytes: int, budget_bytes: int) -> MethodTiming:
    """The naive gather's row: its time and error, or why it was skipped (`measured` None)."""
    if measured is None:
        return MethodTiming(
            "naive gather (n, n, d)",
            None,
            gathered_bytes,
            None,
            f"skipped: the (n, n, d) tensor would need {gathered_bytes / 2**20:,.0f} MiB "
            f"(this page allows {budget_bytes / 2**20:,.0f} MiB)",
        )
    seconds, naive = measured
    error = float(np.max(np.abs(naive - expected)))
    return MethodTiming("naive gather (n, n, d)", seconds, gathered_bytes, error, "builds every pair's embedding")


def time_bias_methods(
    n, d, k, *, seed: int = 0, repeats: int = 3, naive_budget_bytes: int = NAIVE_BUDGET_BYTES
) -> tuple[MethodTiming, ...]:
    """Time naive gather, ``Q A_Kᵀ`` + placement and skewing on random data.

    Parameters
    ----------
    n : int
        Sequence length (queries = keys), at least 1.
    d : int
        Feature size, at least 1.
    k : int
        Clipping distance, at least 0.
    seed : int
        Seed of the ``np.random.default_rng`` that draws Q and A_K.
    repeats : int
        Rounds; in each round every method runs once, and each keeps its best time.
    naive_budget_bytes : int
        The naive gather is skipped (``seconds`` None) when its ``(n, n, d)`` float64
        tensor would exceed this many bytes.

    Returns
    -------
    timings : tuple of MethodTiming
        Naive gather, then ``Q A_Kᵀ`` + placement, then skewing.
    """
    n, d = as_count(n, "n"), as_count(d, "d")
    k = as_count(k, "k", minimum=0)
    repeats = as_count(repeats, "repeats")
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((n, d))  # (n, d)
    A_K = rng.standard_normal((2 * k + 1, d))  # (2k+1, d)
    gathered_bytes = n * n * d * 8
    run_naive = gathered_bytes <= naive_budget_bytes

    methods = {"placement": lambda: position_biases(Q, A_K), "skewing": lambda: skewed_position_biases(Q, A_K)}
    if run_naive:
        methods["naive"] = lambda: naive_position_biases(Q, A_K)
    measured = interleaved_best(methods, repeats)
    placement_seconds, expected = measured["placement"]
    skew_seconds, skewed = measured["skewing"]
    causal = np.tril(np.ones((n, n), dtype=bool))

    naive_timing = _naive_timing(measured.get("naive"), expected, gathered_bytes, naive_budget_bytes)
    return (
        naive_timing,
        MethodTiming(
            "Q A_Kᵀ + placement",
            placement_seconds,
            n * (2 * k + 1) * 8,
            0.0,
            "relpos.position_biases: the reference",
        ),
        MethodTiming(
            "skewing (causal)",
            skew_seconds,
            n * d * 8 + n * (n + 1) * 8,
            float(np.max(np.abs(np.where(causal, skewed - expected, 0.0)))),
            "E is (n, d); the padded logits (n, n+1); compared on j ≤ i",
        ),
    )
