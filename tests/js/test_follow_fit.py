"""How a following student's screen cuts a quiz's table to its width (relpos/ui/follow_assets/follow.js).

A quiz's numbers in the follow view never scroll sideways: a table wider than the screen is
drawn as a few narrower ones, each with the row labels. ``tests/js/follow.test.mjs`` checks
the arithmetic behind it (``columnsThatFit``, ``evenParts``, ``fitParts``) under node's own
test runner, for every count of columns up to 40 and widths up to 2,000 px, and that
``evenParts`` cuts as Python's :func:`relpos.ui.tables.even_parts` does (the pages' quiz
tables); the phone browser test (tests/classroom/test_class_lesson_browser.py) checks that
Chromium draws it so.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from relpos.ui.tables import even_parts
from tests.support.required import node

HERE = Path(__file__).resolve().parent
TESTS = HERE / "follow.test.mjs"
MODULE = HERE.parents[1] / "relpos" / "ui" / "follow_assets" / "follow.js"


def test_a_quiz_table_is_cut_into_as_few_even_parts_as_the_screen_holds(tmp_path):
    fixture = tmp_path / "even_parts.json"
    cases = [
        {"count": count, "most": most, "parts": [list(part) for part in even_parts(count, most)]}
        for count in range(41)
        for most in range(1, 21)
    ]
    fixture.write_text(json.dumps(cases), encoding="utf-8")
    env = {**os.environ, "RELPOS_FOLLOW_MODULE": MODULE.as_uri(), "RELPOS_FOLLOW_FIXTURE": str(fixture)}
    done = subprocess.run(
        [node(), "--test", "--test-reporter=tap", str(TESTS)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"node --test failed:\n{done.stdout}\n{done.stderr}"
    passed = {name for name in re.findall(r"^ok \d+ - (\w+):", done.stdout, flags=re.MULTILINE)}
    exported = set(re.findall(r"^export function (\w+)", MODULE.read_text(encoding="utf-8"), flags=re.MULTILINE))
    # every export has a test that ran and passed (a runner that found nothing also exits 0)
    assert passed >= exported == {"columnsThatFit", "evenParts", "fitParts"}, done.stdout
