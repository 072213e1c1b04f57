"""The browser's arithmetic against Python's, number for number, without a browser.

The Explorer's live panel prints numbers and sums in the browser (relpos/ui/live_assets/
attention.js: ``formatFixed``, ``sumText``) that Python prints elsewhere
(:func:`relpos.text.numbers.number`, :func:`relpos.text.hover.sum_text`). Node's own
runtime (Debian's ``nodejs``; no npm package) imports the module and prints its answers
for thousands of values, ties and signs included; they must equal Python's to the
character.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np

from relpos.text import numbers
from relpos.text.hover import sum_text
from relpos.ui.live import ASSETS
from tests.support.required import unavailable

SCRIPT = """
import { formatFixed, sumText } from %s;
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const { fixed, sums } = JSON.parse(input);
  const out = {
    fixed: fixed.map(([value, places]) => formatFixed(value, places)),
    sums: sums.map(([left, right, total]) => sumText(left, right, total)),
  };
  process.stdout.write(JSON.stringify(out));
});
"""


def _node() -> str:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        unavailable("node is not installed (apt-get install nodejs)", "RELPOS_REQUIRE_NODE")
    return node


def _cases(seed: int = 0, count: int = 3000):
    rng = np.random.default_rng(seed)
    values = np.concatenate([
        rng.uniform(-3, 3, count),  # ordinary
        np.round(rng.uniform(-3, 3, count), 3) + 0.0005 * rng.choice([-1, 1], count),  # near ties at 3 decimals
        np.round(rng.uniform(-1, 1, count), 2) / 2,  # exact binary ties such as 0.125
        rng.uniform(-1e-3, 1e-3, count),  # rounds to zero: never "−0.00"
    ])  # fmt: skip
    fixed = [[float(v), int(p)] for v, p in zip(values, rng.integers(0, 6, values.size), strict=True)]
    left, right = rng.choice(values, count), rng.choice(values, count)
    sums = [[float(a), float(b), float(a + b)] for a, b in zip(left, right, strict=True)]
    return fixed, sums


def test_the_browser_prints_every_number_and_sum_as_python_does():
    fixed, sums = _cases()
    module = json.dumps((ASSETS / "attention.js").as_uri())
    done = subprocess.run(
        [_node(), "--input-type=module", "-e", SCRIPT % module],
        input=json.dumps({"fixed": fixed, "sums": sums}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    browser = json.loads(done.stdout)
    python_fixed = [numbers.number(value, places) for value, places in fixed]
    python_sums = [sum_text(*terms) for terms in sums]
    wrong = [(case, js, py) for case, js, py in zip(fixed, browser["fixed"], python_fixed, strict=True) if js != py]
    assert not wrong, f"{len(wrong)} of {len(fixed)} numbers differ, e.g. {wrong[:3]}"
    wrong = [(case, js, py) for case, js, py in zip(sums, browser["sums"], python_sums, strict=True) if js != py]
    assert not wrong, f"{len(wrong)} of {len(sums)} sums differ, e.g. {wrong[:3]}"
    assert len(fixed) == 12_000 and len(sums) == 3000
