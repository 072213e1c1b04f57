"""The custom components are registered in one place (relpos.ui.components), beside their
declaration in pyproject.toml, and no component's module leans on another's."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from relpos.ui import components

ROOT = Path(__file__).resolve().parents[1]
DECLARED = {
    entry["name"]: ROOT / entry["asset_dir"]
    for entry in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["streamlit"]["component"][
        "components"
    ]
}


def _source(module: str) -> str:
    return (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")


def _imported(module: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(_source(module))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_every_declared_component_is_registered_with_files_that_exist():
    assert set(components.COMPONENTS) == set(DECLARED)
    for name, files in components.COMPONENTS.items():
        for file in (files.js, files.css):
            assert file is None or (DECLARED[name] / file).is_file(), (name, file)


def test_only_the_registry_makes_components():
    makers = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "relpos").rglob("*.py")
        if "components.v2.component(" in path.read_text(encoding="utf-8")
    ]
    assert makers == ["relpos/ui/components.py"]


def test_each_component_module_mounts_its_own_through_the_registry_and_imports_no_other():
    modules = {files.module for files in components.COMPONENTS.values()}
    for name, files in components.COMPONENTS.items():
        assert f'components.mount("{name}")' in _source(files.module), name
        assert not _imported(files.module) & (modules - {files.module}), files.module


def test_names_are_the_projects():
    assert components.name("theme") == "relpos.theme"
    assert {components.name(name) for name in components.COMPONENTS} == {f"relpos.{name}" for name in DECLARED}
