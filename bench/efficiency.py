"""Benchmark of the three ways to compute position biases (efficiency page).

Prints, measured side by side in one run (methods take turns, best of several rounds):
1. time of the naive (n, n, d) gather, of Q A_Kᵀ + placement (relpos.position_biases)
   and of Music Transformer skewing, at a few n, d = 64, with k = 16 and k = n − 1;
   the ratios naive / placement and naive / skewing;
2. peak extra memory of each method at n = 1024, d = 64 (tracemalloc), next to the
   formulas n²·d·8 B, n·(2k+1)·8 B and n·d·8 B + n·(n+1)·8 B.
Targets: with k = 16 the naive gather is slower than both others at every n, and its
peak memory is at least d/2 times the placement's. (With k = n − 1 placement writes
2n − 1 diagonals one by one, so at n = 256 it can come close to the naive gather: that
row is printed, not judged.)

Run: python bench/efficiency.py   (from the repository root)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.core import peak_extra_bytes
from relpos import position_biases
from relpos.core.skewing import naive_position_biases, skewed_position_biases
from relpos.topics.efficiency.model import interleaved_best


def main() -> int:
    rng = np.random.default_rng(0)
    d = 64
    ok = True
    print(f"[1] best of 5 rounds, d = {d}, float64 (ms)")
    print(f"{'n':>6} {'k':>6} {'naive':>10} {'placement':>10} {'skewing':>10} {'naive/place':>12} {'naive/skew':>11}")
    for n in (256, 512, 1024):
        Q = rng.standard_normal((n, d))
        for k in (16, n - 1):
            A_K = rng.standard_normal((2 * k + 1, d))
            best = interleaved_best(
                {
                    "naive": lambda Q=Q, A_K=A_K: naive_position_biases(Q, A_K),
                    "placement": lambda Q=Q, A_K=A_K: position_biases(Q, A_K),
                    "skewing": lambda Q=Q, A_K=A_K: skewed_position_biases(Q, A_K),
                },
                repeats=5,
            )
            naive, place, skew = (best[name][0] * 1e3 for name in ("naive", "placement", "skewing"))
            if k == 16:
                ok &= naive > place and naive > skew
            print(
                f"{n:>6} {k:>6} {naive:>10.2f} {place:>10.2f} {skew:>10.2f} "
                f"{naive / place:>11.1f}x {naive / skew:>10.1f}x"
            )

    n, k = 1024, 16
    Q = rng.standard_normal((n, d))
    A_K = rng.standard_normal((2 * k + 1, d))
    peaks = {
        "naive": (peak_extra_bytes(lambda: naive_position_biases(Q, A_K)), n * n * d * 8),
        "placement": (peak_extra_bytes(lambda: position_biases(Q, A_K)), n * (2 * k + 1) * 8),
        "skewing": (peak_extra_bytes(lambda: skewed_position_biases(Q, A_K)), n * d * 8 + n * (n + 1) * 8),
    }
    output = n * n * 8
    print(
        f"[2] n = {n}, d = {d}, k = {k}: peak memory during one call (MiB) vs formula for the intermediate "
        f"+ the n x n output ({output / 2**20:.1f} MiB)"
    )
    for name, (peak, formula) in peaks.items():
        print(
            f"    {name:>9}: measured {peak / 2**20:8.2f}   intermediate {formula / 2**20:8.2f}"
            f" + output = {(formula + output) / 2**20:8.2f}"
        )
    memory_ratio = peaks["naive"][0] / peaks["placement"][0]
    ok &= memory_ratio >= d / 2
    print(
        f"    naive / placement peak: {memory_ratio:.1f}x (target >= d/2 = {d // 2}) "
        f"{'PASS' if memory_ratio >= d / 2 else 'FAIL'}"
    )
    print("overall:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
