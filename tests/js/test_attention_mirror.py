"""The browser's mirror of Python (relpos/ui/explorer_panel_assets/attention.js), number for number, without a browser.

While a slider moves, the Explorer panel recomputes in the browser what Python computes
on release: the core's matrices, the cell and hover text, the offset map's cells and the
clipping window's outline. Here Python exports inputs and what the NumPy core (and the text
and plot code) makes of them to a JSON fixture; node's own test runner (Debian's ``nodejs``,
no npm package) runs ``tests/js/attention.test.mjs`` on it, which imports attention.js and
fails on any difference: strings to the character, numbers within 1e-12 (float32 hover
numbers within their own precision).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np

import relpos
from relpos.plots import heatmaps, offset_map, panels
from relpos.text import numbers
from relpos.text.hover import format_cells, sum_text
from relpos.topics.explorer import panel_spec as explorer_spec
from tests.support.required import node

HERE = Path(__file__).resolve().parent
TESTS = HERE / "attention.test.mjs"
MODULE = HERE.parents[1] / "relpos" / "ui" / "explorer_panel_assets" / "attention.js"
#: The fields of every panel's hover: the softmax behind a weight panel (explorer_panel.js LOGITS).
LOGITS = {"content_weights": "content", "weights": "scores"}


def _values(rng: np.random.Generator, count: int) -> np.ndarray:
    return np.concatenate([
        rng.uniform(-3, 3, count),  # ordinary
        np.round(rng.uniform(-3, 3, count), 3) + 0.0005 * rng.choice([-1, 1], count),  # near ties at 3 decimals
        np.round(rng.uniform(-1, 1, count), 2) / 2,  # exact binary ties such as 0.125
        rng.uniform(-1e-3, 1e-3, count),  # rounds to zero: never "−0.00"
    ])  # fmt: skip


def _numbers(rng: np.random.Generator, count: int = 3000) -> dict:
    """formatFixed, sumText and formatField against relpos.text."""
    values = _values(rng, count)
    places = rng.integers(0, 6, values.size)
    left, right = rng.choice(values, count), rng.choice(values, count)
    offsets = np.arange(-70, 71)
    formats = [".2f", ".3f", ".4f", "+d"]
    fields = [[float(v), fmt] for fmt in formats[:3] for v in values[::10]] + [[int(o), "+d"] for o in offsets]
    return {
        "fixed": [[float(v), int(p), numbers.number(float(v), int(p))] for v, p in zip(values, places, strict=True)],
        "sums": [
            [float(a), float(b), float(a + b), sum_text(float(a), float(b), float(a + b))]
            for a, b in zip(left, right, strict=True)
        ],
        "fields": [[value, fmt, str(format_cells([value], fmt)[0])] for value, fmt in fields],
    }


def _state(rng: np.random.Generator, n: int, scalar: bool, spread: float) -> dict:
    d = int(rng.integers(1, 5))
    k = int(rng.integers(0, n + 1))
    queries, keys = rng.uniform(-spread, spread, (n, d)), rng.uniform(-spread, spread, (n, d))
    table = rng.uniform(-spread, spread, (2 * k + 1, d))
    if scalar:
        result = relpos.scalar_bias_attention(queries, keys, table[:, 0])
    else:
        result = relpos.relative_attention(queries, keys, A_K=table)
    matrices = {name: m.tolist() for name, m in panels.panel_matrices(result).items() if name != "offsets"}
    hovers = explorer_spec.explorer_hovers(queries, keys, table, result, scalar=scalar, cells=True)
    return {
        "n": n,
        "k": k,
        "scalar": scalar,
        "queries": queries.tolist(),
        "keys": keys.tolist(),
        "table": table.tolist(),
        # each function of the core on its own, then every panel's matrix (attend)
        "clipped": relpos.clip_offsets(relpos.relative_offsets(n), k).tolist(),
        "content_scores": relpos.content_scores(queries, keys).tolist(),
        "position_biases": relpos.position_biases(queries, table, n_k=n).tolist(),
        "scalar_biases": relpos.scalar_position_biases(table[:, 0], n, n).tolist(),
        "matrices": matrices,
        "hovers": {
            name: {
                "fields": [list(field) for field in hover.fields],
                "text": hover.as_text,
                "logits": LOGITS.get(name),
                "customdata": hover.customdata.tolist(),
            }
            for name, hover in hovers.items()
        },
    }


def _states(rng: np.random.Generator) -> list[dict]:
    """Random states as the Explorer has them (n 1–16, every k, d 1–4, both biases), a few
    larger (hover numbers as float32), and some with scores above 50 (the stable softmax)."""
    sizes = [*rng.integers(1, 17, 40), 13, 20, 64]
    states = [_state(rng, int(n), scalar=index % 2 == 1, spread=2.0) for index, n in enumerate(sizes)]
    return states + [_state(rng, int(n), scalar=bool(n % 2), spread=12.0) for n in (3, 6, 9)]


def _softmax(rng: np.random.Generator) -> list[dict]:
    """Rows the naive exp would overflow, ties, one entry, very negative entries."""
    rows = [rng.uniform(-5, 5, (4, 7)), rng.uniform(700, 800, (3, 5)), np.zeros((2, 3)), [[1.0]], [[-1000.0, 0.0]]]
    return [{"logits": np.asarray(r).tolist(), "weights": relpos.softmax(np.asarray(r)).tolist()} for r in rows]


def _offset_maps() -> list[dict]:
    """The offset map as a panel at every size class: text, numbers as hover, the table row."""
    maps = []
    for n, k in [(1, 0), (4, 2), (5, 0), (12, 11), (13, 3), (16, 2), (64, 5), (70, 3)]:
        trace = explorer_spec.offset_map_panel(n, n, k, 300).data[0]
        cells = {"z": np.asarray(trace.z).tolist()}
        for name in ("text", "customdata"):
            if getattr(trace, name) is not None:
                cells[name] = np.asarray(getattr(trace, name)).tolist()
        recipe = offset_map.panel_cells(n, n, k, labelled=panels.cell_numbers(n))
        maps.append({"n": n, "k": k, "recipe": recipe, "cells": cells})
    return maps


def _outlines() -> list[dict]:
    origin = heatmaps.PANEL_ORIGIN
    return [
        {"n": n, "k": k, "origin": origin, "paths": [s["path"] for s in heatmaps.outline_shapes(n, n, k, origin)]}
        for n in (1, 2, 3, 5, 8, 16)
        for k in range(n + 1)
    ]


def fixture(seed: int = 0) -> dict:
    """Inputs and Python's answers for every function attention.js mirrors."""
    rng = np.random.default_rng(seed)
    return {
        **_numbers(rng),
        "states": _states(rng),
        "softmax": _softmax(rng),
        "offset_maps": _offset_maps(),
        "outlines": _outlines(),
    }


def run_node_tests(path: Path, module: Path = MODULE) -> subprocess.CompletedProcess:
    """``node --test`` (TAP report) on the mirror's tests, with the fixture at `path` and the module at `module`."""
    env = {**os.environ, "RELPOS_MIRROR_FIXTURE": str(path), "RELPOS_MIRROR_MODULE": module.as_uri()}
    command = [node(), "--test", "--test-reporter=tap", str(TESTS)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def exported(module: Path = MODULE) -> set[str]:
    """The functions a module exports (every one mirrors Python)."""
    return set(re.findall(r"^export function (\w+)", module.read_text(encoding="utf-8"), flags=re.MULTILINE))


def test_the_browser_computes_prints_and_draws_every_number_as_python_does(tmp_path):
    path = tmp_path / "mirror.json"
    path.write_text(json.dumps(fixture()), encoding="utf-8")
    done = run_node_tests(path)
    assert done.returncode == 0, f"node --test failed:\n{done.stdout}\n{done.stderr}"
    passed = re.findall(r"^ok \d+ - (\w+):", done.stdout, flags=re.MULTILINE)
    # every exported function has a test that ran and passed (a runner that found nothing also exits 0)
    assert sorted(passed) == sorted(exported()), done.stdout
