"""How a following student's screen cuts a quiz's table to its width (relpos/ui/follow_assets/follow.js).

A quiz's numbers in the follow view never scroll sideways: a table wider than the screen is
drawn as a few narrower ones, each with the row labels. ``tests/js/follow.test.mjs`` checks
the arithmetic behind it (``columnsThatFit``, ``fitParts``) under node's own test runner, for
every count of columns up to 40 and widths up to 2,000 px; the phone browser test
(tests/classroom/test_class_lesson_browser.py) checks that Chromium draws it so.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.support.required import node

HERE = Path(__file__).resolve().parent
TESTS = HERE / "follow.test.mjs"
MODULE = HERE.parents[1] / "relpos" / "ui" / "follow_assets" / "follow.js"


def test_a_quiz_table_is_cut_into_as_few_even_parts_as_the_screen_holds():
    env = {**os.environ, "RELPOS_FOLLOW_MODULE": MODULE.as_uri()}
    done = subprocess.run(
        [node(), "--test", "--test-reporter=tap", str(TESTS)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"node --test failed:\n{done.stdout}\n{done.stderr}"
    passed = {name for name in re.findall(r"^ok \d+ - (\w+):", done.stdout, flags=re.MULTILINE)}
    exported = set(re.findall(r"^export function (\w+)", MODULE.read_text(encoding="utf-8"), flags=re.MULTILINE))
    assert passed >= exported == {"columnsThatFit", "fitParts"}, done.stdout  # a runner that found nothing exits 0
