"""The house: layers are folders, and imports point one way.

``pages/`` → ``relpos.ui`` → ``relpos.server`` → ``relpos.plots`` → ``relpos.tables`` →
``relpos.state`` → ``relpos.classroom`` → ``relpos.lessons`` → ``relpos.text`` → ``relpos.core``
(the live-class store grades with the lessons and is driven by the pages). A module may
import its own layer and any layer below it, never one above; only ``relpos.ui`` and the
server harness import Streamlit, only plots import Plotly, and the math imports nothing
but NumPy. Every private Streamlit name lives in ``relpos.server.internals``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: top to bottom
LAYERS = ("ui", "server", "plots", "tables", "state", "classroom", "lessons", "text", "core")
#: third-party packages each layer may import (besides the standard library and numpy)
THIRD_PARTY = {
    "ui": {"streamlit", "pandas", "plotly"},
    "server": {"streamlit"},
    "plots": {"plotly"},
    "tables": {"pandas"},
    "state": set(),
    "classroom": set(),  # redis and segno, but none of the watched UI libraries
    "lessons": set(),
    "text": set(),
    "core": set(),
}
WATCHED = {"streamlit", "pandas", "plotly"}


def _modules():
    return sorted(path for layer in LAYERS for path in (ROOT / "relpos" / layer).rglob("*.py"))


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


@pytest.mark.parametrize(
    "package", ["relpos", "relpos.core", "relpos.lessons", "relpos.text", "relpos.state", "relpos.classroom"]
)
def test_lower_layers_load_no_ui_libraries(package):
    """Importing relpos (its public face) or any module of a lower layer loads none of them."""
    code = f"import importlib, pkgutil, sys\nimport {package} as p\n"
    if package != "relpos":  # walking relpos itself would import the ui and server packages
        code += "for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.'):\n    importlib.import_module(m.name)\n"
    code += "print(sorted(name for name in ('streamlit', 'pandas', 'plotly') if name in sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --- Private Streamlit names: in relpos.server.internals only ---------------------------
INTERNALS = ROOT / "relpos" / "server" / "internals.py"
APP_FILES = sorted([*(ROOT / "relpos").rglob("*.py"), ROOT / "app.py", *(ROOT / "pages").glob("*.py")])


def private_uses(path: Path) -> list[str]:
    """Private names a module reaches for: ``streamlit.<submodule>`` imports, and
    ``obj._name`` or ``getattr(obj, "_name")`` on anything but ``self`` and ``cls``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("streamlit.") or (node.module == "streamlit" and node.names):
                found.append(f"line {node.lineno}: from {node.module} import …")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.startswith("streamlit.")]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _ATTR_CALLS:
            name = node.args[1] if len(node.args) > 1 else None
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and _private(name.value):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


_ATTR_CALLS = {"getattr", "hasattr", "setattr"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@pytest.mark.parametrize("path", [p for p in APP_FILES if p != INTERNALS], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_streamlit_name_outside_internals(path):
    assert private_uses(path) == [], f"{path.relative_to(ROOT)} uses private names (move them to internals)"


def test_the_private_name_check_sees_them():
    """The check finds what relpos.server.internals holds (else it would pass on anything)."""
    found = "\n".join(private_uses(INTERNALS))
    for name in ("from streamlit.runtime", "_send_queue", "_session_mgr", "_browser_queue", "_websocket"):
        assert name in found, name
