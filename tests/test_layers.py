"""The house: layers are folders, and imports point one way (issue 10).

``pages/`` → ``relpos.ui`` → ``relpos.plots`` → ``relpos.tables`` → ``relpos.state`` →
``relpos.lessons`` → ``relpos.text`` → ``relpos.core``. A module may import its own
layer and any layer below it, never one above; only ``relpos.ui`` imports Streamlit,
only plots import Plotly, and the math imports nothing but NumPy.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: top to bottom
LAYERS = ("ui", "plots", "tables", "state", "lessons", "text", "core")
#: third-party packages each layer may import (besides the standard library and numpy)
THIRD_PARTY = {
    "ui": {"streamlit", "pandas", "plotly"},
    "plots": {"plotly"},
    "tables": {"pandas"},
    "state": set(),
    "lessons": set(),
    "text": set(),
    "core": set(),
}
WATCHED = {"streamlit", "pandas", "plotly"}


def _modules():
    return sorted(path for layer in LAYERS for path in (ROOT / "relpos" / layer).glob("*.py"))


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module == "relpos":  # from relpos import X: X is a public name of the core
                names |= {f"relpos.core.{alias.name}" for alias in node.names}
    return names


def _layer(path: Path) -> str:
    return path.relative_to(ROOT / "relpos").parts[0]


def test_every_module_lives_in_a_layer():
    loose = sorted(p.name for p in (ROOT / "relpos").glob("*.py") if p.name != "__init__.py")
    assert loose == [], "modules belong in a layer package: " + ", ".join(loose)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path):
    own = LAYERS.index(_layer(path))
    for name in _imports(path):
        parts = name.split(".")
        if parts[0] == "relpos" and len(parts) > 1 and parts[1] in LAYERS:
            assert LAYERS.index(parts[1]) >= own, f"{path.name} ({_layer(path)}) imports {name}, a layer above it"
        elif parts[0] in WATCHED:
            assert parts[0] in THIRD_PARTY[_layer(path)], f"{path.name} ({_layer(path)}) imports {parts[0]}"


@pytest.mark.parametrize("package", ["relpos", "relpos.core", "relpos.lessons", "relpos.text", "relpos.state"])
def test_lower_layers_load_no_ui_libraries(package):
    code = (
        f"import importlib, pkgutil, sys\nimport {package} as p\n"
        "for m in pkgutil.walk_packages(getattr(p, '__path__', []), p.__name__ + '.'):\n"
        "    if m.name.split('.')[1] in ('core', 'lessons', 'text', 'state') or p.__name__ == 'relpos':\n"
        "        if p.__name__ != 'relpos': importlib.import_module(m.name)\n"
        "print(sorted(name for name in ('streamlit', 'pandas', 'plotly') if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
