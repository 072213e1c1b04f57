"""Benchmark of relpos.position_biases against its two yardsticks (issue: foundation).

Prints, measured side by side in one run:
1. n = 2048, d = 64, k = 16: time of position_biases / time of the content term
   Q @ K.T / sqrt(d) of the same shape (target <= 1.0);
2. n = 256: speed-up over a plain per-pair Python loop (target >= 100x);
3. n = 2048: peak extra memory of position_biases / bytes of the n x n output
   (target <= 3.0).

Run: python bench/core.py   (from the repository root)
"""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relpos import position_biases
from relpos.topics.efficiency.model import best_time, interleaved_best


def loop_position_biases(Q: np.ndarray, A_K: np.ndarray) -> np.ndarray:
    """The per-pair reference: one Python iteration for every (i, j)."""
    n, d = Q.shape
    k = (A_K.shape[0] - 1) // 2
    bias = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            row = min(max(j - i, -k), k) + k
            bias[i, j] = Q[i] @ A_K[row] / np.sqrt(d)
    return bias


def peak_extra_bytes(function) -> int:
    """Peak bytes NumPy allocates during one call (tracemalloc sees NumPy buffers)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    baseline = tracemalloc.get_traced_memory()[0]
    result = function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return peak - baseline


def main() -> int:
    rng = np.random.default_rng(0)
    n, d, k = 2048, 64, 16
    Q = rng.standard_normal((n, d))
    K = rng.standard_normal((n, d))
    A_K = rng.standard_normal((2 * k + 1, d))

    best = interleaved_best({"bias": lambda: position_biases(Q, A_K), "content": lambda: Q @ K.T / np.sqrt(d)}, 15)
    bias_time, content_time = best["bias"][0], best["content"][0]
    ratio = bias_time / content_time
    print(
        f"[1] n={n} d={d} k={k}: position_biases {bias_time * 1e3:.2f} ms, "
        f"content Q@K.T/sqrt(d) {content_time * 1e3:.2f} ms, ratio {ratio:.2f} "
        f"(target <= 1.0) {'PASS' if ratio <= 1.0 else 'FAIL'}"
    )

    small = 256
    Q_small, A_small = Q[:small], A_K
    assert np.allclose(position_biases(Q_small, A_small), loop_position_biases(Q_small, A_small))
    fast_time, _ = best_time(lambda: position_biases(Q_small, A_small), repeats=20)
    loop_time, _ = best_time(lambda: loop_position_biases(Q_small, A_small), repeats=2)
    speedup = loop_time / fast_time
    print(
        f"[2] n={small} d={d} k={k}: per-pair loop {loop_time * 1e3:.1f} ms, "
        f"position_biases {fast_time * 1e3:.3f} ms, speed-up {speedup:.0f}x "
        f"(target >= 100x) {'PASS' if speedup >= 100 else 'FAIL'}"
    )

    output_bytes = n * n * 8
    extra = peak_extra_bytes(lambda: position_biases(Q, A_K))
    memory_ratio = extra / output_bytes
    print(
        f"[3] n={n} d={d} k={k}: peak extra memory {extra / 2**20:.1f} MiB, "
        f"n x n output {output_bytes / 2**20:.1f} MiB, ratio {memory_ratio:.2f} "
        f"(target <= 3.0) {'PASS' if memory_ratio <= 3.0 else 'FAIL'}"
    )
    return 0 if ratio <= 1.0 and speedup >= 100 and memory_ratio <= 3.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
