"""Every private Streamlit name relpos relies on exists on the installed Streamlit.

``relpos.server.internals`` lists them; an upgrade that renames one fails here, by name,
instead of as a silent loss of back-pressure, routing or the Explorer panel.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import re
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


# --- Streamlit's DOM: data-testid values and st-key classes ---------------------------
ROOT = Path(__file__).resolve().parents[1]
#: A data-testid in a selector or an attribute, quoted or not (``[data-testid=stMain]``,
#: ``data-testid="stMain"``, a JS template's ``[data-testid=${area}]`` is skipped).
TESTID_USE = re.compile(r"""data-testid\s*[\^*$]?=\s*\\?["'`]?([A-Za-z][\w-]*)""")
#: A class Streamlit gives a keyed container, written out (not a mention such as ``st-key-…``).
KEY_CLASS_USE = re.compile(r"st-key-[A-Za-z0-9_]")


@functools.cache
def frontend() -> Frontend:
    """The strings and template heads of the installed Streamlit's frontend JavaScript."""
    chunks = sorted((internals.static_dir() / "static" / "js").glob("*.js"))
    assert len(chunks) > 10, f"no frontend build in {internals.static_dir()}"
    return Frontend("\n".join(chunk.read_text(encoding="utf-8", errors="replace") for chunk in chunks))


class Frontend:
    """What a frontend build writes: its short strings (``"data-testid":`stMain```) and the
    heads of its template strings (```stBaseButton-${kind}```)."""

    def __init__(self, source: str):
        self.source = source
        self.strings = set(re.findall(r"[`\"']([\w-]{1,80})[`\"']", source))
        self.lower = {string.lower() for string in self.strings}
        self.heads = set(re.findall(r"[`\"']([\w-]{1,80})\$\{", source))

    def sets(self, testid: str) -> bool:
        """Whether the build writes `testid`: as a string of its own, or as a template's head
        and a string (``stBaseButton-${kind}`` with ``primary``, ``stAlertContent${kind}``
        with ``warning``); a `testid` ending in ``-`` is a prefix."""
        if testid in self.strings:
            return True
        for cut in range(4, len(testid) + 1):
            head, rest = testid[:cut], testid[cut:]
            if head in self.heads and (not rest or rest.endswith("-") or rest.lower() in self.lower):
                return True
        return False


def test_the_frontend_check_tells_a_testid_from_a_made_up_one():
    bundle = Frontend('c(X,{"data-testid":`stMain`}) e.PRIMARY=`primary`; "data-testid":`stBaseButton-${k}`')
    assert bundle.sets("stMain") and bundle.sets("stBaseButton-primary")
    assert not bundle.sets("stMai") and not bundle.sets("stBaseButton-tertiary")
    assert not frontend().sets("stLatex")  # st.latex sets no such handle


@pytest.mark.parametrize("name", sorted(internals.TESTIDS))
def test_declared_testid_is_still_in_streamlits_frontend(name):
    assert frontend().sets(name), f"Streamlit's frontend no longer sets data-testid {name!r}"


def test_streamlit_still_names_a_keyed_container_as_css_class_does():
    """``st-key-`` and the key with every character but [a-zA-Z0-9_-] made a ``-``."""
    assert "st-key-" in frontend().strings
    assert "replaceAll(/[^a-zA-Z0-9_-]/g," in frontend().source
    assert internals.css_class("walkthrough.a.+2") == "st-key-walkthrough-a--2"


def _app_files(*suffixes: str) -> list[Path]:
    return sorted(path for suffix in suffixes for path in (ROOT / "relpos").rglob(f"*{suffix}"))


def _uses(paths: list[Path], pattern: re.Pattern) -> dict[str, list[str]]:
    found = {}
    for path in paths:
        names = pattern.findall(path.read_text(encoding="utf-8"))
        if names:
            found[str(path.relative_to(ROOT))] = names
    return found


def test_every_data_testid_in_relpos_is_declared_in_internals():
    """Python style sheets may write declared selectors; scripts and style sheets get theirs from Python."""
    python = _uses(_app_files(".py"), TESTID_USE)
    undeclared = {path: sorted(set(names) - set(internals.TESTIDS)) for path, names in python.items()}
    assert {path: names for path, names in undeclared.items() if names} == {}
    assert _uses(_app_files(".js", ".css"), TESTID_USE) == {}, "a browser script names a data-testid itself"


def test_every_declared_testid_is_used():
    sources = "\n".join(path.read_text(encoding="utf-8") for path in _app_files(".py") if path.name != "internals.py")
    unused = [name for name in internals.TESTIDS if f'"{name}"' not in sources]
    assert unused == [], f"declared in internals.TESTIDS but used nowhere: {unused}"


def test_no_st_key_class_is_written_out_of_internals():
    """Keyed containers' classes come from internals.css_class (in Python) or internals.selectors (for scripts)."""
    found = _uses([p for p in _app_files(".py", ".js", ".css") if p.name != "internals.py"], KEY_CLASS_USE)
    assert found == {}


def test_the_dom_checks_see_a_hand_written_selector():
    assert TESTID_USE.findall("""q('[data-testid=stMain] x'); '[data-testid="stHeader"]' [data-testid=${a}]""") == [
        "stMain",
        "stHeader",
    ]
    assert KEY_CLASS_USE.findall("'.st-key-clicker button' and ``st-key-…``") == ["st-key-c"]


def test_every_data_testid_the_tests_and_benches_use_is_in_streamlits_frontend():
    """A test that waits for, or asserts the absence of, an element Streamlit no longer marks
    so would time out, or pass whatever happens: every testid tests/ and bench/ name exists."""
    paths = sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")])
    used = {name for names in _uses(paths, TESTID_USE).values() for name in names}
    assert len(used) > 20
    assert sorted(name for name in used if not frontend().sets(name)) == []
