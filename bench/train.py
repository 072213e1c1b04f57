"""Benchmark of the tiny trained attention head.

Prints, measured in one run with the default settings (V = 16, d = 16, L = 16,
batch 32, Shaw with k = 4 unless told otherwise):
1. time of one training step split into forward (with the loss), backward and Adam,
   against the forward pass alone: full step / forward (target <= 4.0);
2. wall time of one default training run (400 steps; target: about 1–2 s);
3. wall time of the whole "train short, test long" table: every scheme trained at L
   and tested at L, 2L and 4L on one task.

Run: python bench/train.py [--scheme shaw] [--task previous] [--repeats 200]   (from the repository root)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relpos import TRAINING_SCHEMES, train_head, train_short_test_long
from relpos.core.training import Adam
from relpos.core.training_model import backward, cross_entropy, forward, init_params
from relpos.core.training_tasks import random_batch
from relpos.topics.efficiency.model import best_time, interleaved_best

STEP_TARGET = 4.0


def step_parts(task: str, scheme: str, repeats: int) -> dict[str, float]:
    """Best time of the forward pass, backward pass, Adam update and a whole step, in seconds."""
    rng = np.random.default_rng(0)
    params = init_params(scheme, vocab=16, d=16, k=4, length=16, rng=rng)
    data = random_batch(task, 32, 16, 16, rng)
    optimizer = Adam(params, 0.01)

    def forward_pass():
        run = forward(params, data.tokens, scheme)
        return run, cross_entropy(run.logits, data.targets, data.scored)[1]

    run, d_logits = forward_pass()
    grads = backward(params, run, d_logits)

    def whole_step():
        run, d_logits = forward_pass()
        optimizer.step(params, backward(params, run, d_logits))

    measured = interleaved_best(
        {
            "forward": forward_pass,
            "backward": lambda: backward(params, run, d_logits),
            "adam": lambda: optimizer.step(params, grads),
            "step": whole_step,
        },
        repeats,
    )
    return {name: seconds for name, (seconds, _) in measured.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="previous")
    parser.add_argument("--scheme", default="shaw", choices=list(TRAINING_SCHEMES))
    parser.add_argument("--repeats", type=int, default=200, help="rounds for the per-step timings")
    args = parser.parse_args(argv)

    parts = step_parts(args.task, args.scheme, args.repeats)
    ratio = parts["step"] / parts["forward"]
    print(
        f"[1] {args.scheme}, batch 32 x L 16, d 16: forward + loss {parts['forward'] * 1e3:.3f} ms, "
        f"backward {parts['backward'] * 1e3:.3f} ms, Adam {parts['adam'] * 1e3:.3f} ms; "
        f"full step {parts['step'] * 1e3:.3f} ms = {ratio:.2f} x forward "
        f"(target <= {STEP_TARGET:.1f}) {'PASS' if ratio <= STEP_TARGET else 'FAIL'}"
    )
    for scheme in TRAINING_SCHEMES:
        others = step_parts(args.task, scheme, max(1, args.repeats // 4))
        print(
            f"    {scheme:<10} forward {others['forward'] * 1e3:.3f} ms, backward {others['backward'] * 1e3:.3f} ms, "
            f"Adam {others['adam'] * 1e3:.3f} ms, step {others['step'] / others['forward']:.2f} x forward"
        )

    run_seconds, head = best_time(lambda: train_head(args.task, args.scheme), 3)
    print(
        f"[2] train_head({args.task!r}, {args.scheme!r}) with defaults (400 steps): {run_seconds:.2f} s "
        f"(best of 3), final loss {head.losses[-20:].mean():.4f}"
    )

    start = time.perf_counter()
    table = train_short_test_long(args.task)
    table_seconds = time.perf_counter() - start
    print(
        f"[3] train short, test long on {args.task!r}: {len(table.schemes)} schemes x lengths "
        f"{', '.join(map(str, table.lengths))} (256 test sequences each): {table_seconds:.2f} s"
    )
    for scheme, row in zip(table.schemes, table.accuracy, strict=True):
        print(f"    {scheme:<10} " + "  ".join(f"{value:.2f}" for value in row))
    return 0 if ratio <= STEP_TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
