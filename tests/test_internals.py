"""Every private Streamlit name relpos relies on exists on the installed Streamlit.

``relpos.server.internals`` lists them; an upgrade that renames one fails here, by name,
instead of as a silent loss of back-pressure, routing or the live panel.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

from relpos.server import internals


@pytest.mark.parametrize(("module", "name"), internals.CHECKED, ids=lambda value: str(value))
def test_module_level_name_exists(module, name):
    found = importlib.import_module(module)
    for part in name.split("."):
        assert hasattr(found, part), f"{module}.{name}: no {part!r} on the installed version"
        found = getattr(found, part)


@pytest.mark.parametrize(("module", "cls", "attribute"), internals.CHECKED_ATTRIBUTES, ids=lambda value: str(value))
def test_instance_attribute_is_still_set(module, cls, attribute):
    source = inspect.getsource(getattr(importlib.import_module(module), cls))
    set_here = f"self.{attribute} =" in source or f"self.{attribute}:" in source
    assert set_here or f'(self, "{attribute}",' in source, f"{cls}.{attribute} is gone"


@pytest.mark.parametrize(("module", "cls", "name"), internals.CHECKED_FIELDS, ids=lambda value: str(value))
def test_dataclass_field_exists(module, cls, name):
    found = getattr(importlib.import_module(module), cls)
    assert name in {field.name for field in dataclasses.fields(found)}, f"{cls}.{name} is gone"


def test_streamlit_is_pinned_to_the_checked_minor_release():
    """requirements.txt admits one minor release: the one these names were checked on."""
    import streamlit

    lines = Path("requirements.txt").read_text(encoding="utf-8").splitlines()
    pin = next(line for line in lines if line.startswith("streamlit"))
    major, minor = streamlit.__version__.split(".")[:2]
    assert f">={major}.{minor}" in pin and f"<{major}.{int(minor) + 1}" in pin, pin


@pytest.mark.parametrize(("pattern", "text"), internals.CHECKED_FILES, ids=lambda value: str(value))
def test_frontend_file_is_still_built_so(pattern, text):
    """Streamlit's build has exactly one such file, and it still contains what relpos relies on."""
    found = sorted(internals.static_dir().glob(pattern))
    assert len(found) == 1, f"{pattern}: {len(found)} files in {internals.static_dir()}"
    assert text.encode() in found[0].read_bytes(), f"{found[0].name} no longer contains {text!r}"
