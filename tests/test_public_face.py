"""relpos's public face: one curated list, every name importable and documented."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import relpos
from tests.support.browser import ROOT


def test_star_import_works_and_brings_every_listed_name():
    code = (
        "import relpos\nfrom relpos import *\n"
        "missing = [name for name in relpos.__all__ if name not in globals()]\nprint(missing)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_list_has_no_duplicates():
    assert len(relpos.__all__) == len(set(relpos.__all__))


@pytest.mark.parametrize("name", relpos.__all__)
def test_every_public_name_is_documented(name):
    value = getattr(relpos, name)
    if inspect.isfunction(value) or inspect.isclass(value):
        doc = inspect.getdoc(value) or ""
        assert len(doc.split()) >= 3, f"relpos.{name} has no docstring"
    else:  # a constant: documented by a comment or docstring where it is defined
        module = next(
            m for m in (sys.modules[k] for k in list(sys.modules) if k.startswith("relpos.core")) if name in vars(m)
        )
        source = inspect.getsource(module)
        line = next(i for i, text in enumerate(source.splitlines()) if text.startswith(f"{name}") and "=" in text)
        before = source.splitlines()[max(0, line - 3) : line]
        assert any(text.strip().startswith("#") for text in before), f"relpos.{name} has no comment where it is defined"
