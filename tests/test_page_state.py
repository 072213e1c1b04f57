"""One page-state API: every lesson keeps its state and sets its widgets through ``ui.PageState``.

A lesson's view (any module of ``relpos/topics/``) never reads or writes ``st.query_params``,
never calls the lesson-link plumbing underneath PageState (:mod:`relpos.ui.url_state`,
:mod:`relpos.server.seeds`), and writes ``st.session_state`` only under a session value's
key (``page:name``, :func:`relpos.state.keys.state_key`), never under a widget's
(``page.name``): a widget gets its value from ``PageState.bind`` or ``PageState.set_widget``.
So a new lesson copied from any page copies the one pattern; there is no exception.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from relpos.state.codec import Schema

ROOT = Path(__file__).resolve().parents[1]
TOPICS = ROOT / "relpos" / "topics"
MODULES = sorted(path for path in TOPICS.rglob("*.py") if path.name != "__init__.py")

#: The plumbing under PageState: a view uses PageState's methods instead.
PLUMBING = {"page_state", "seed_widget", "set_widget", "write_url", "show_url_problems", "set_page_state"}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _module(path: Path):
    return importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))


def _is_session_state(node: ast.AST, aliases: set[str]) -> bool:
    """``st.session_state``, or a local name bound to it (``state = st.session_state``)."""
    if isinstance(node, ast.Attribute) and node.attr == "session_state":
        return True
    return isinstance(node, ast.Name) and node.id in aliases


def _session_writes(tree: ast.AST):
    """The key expressions of every ``st.session_state[key] = …`` (also through a local alias)."""
    aliases = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and node.value.attr == "session_state"
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Subscript) and _is_session_state(target.value, aliases):
                yield target.slice


def _key_of(module, key: ast.AST):
    """The key a write names, when it is a constant of the module (None when computed)."""
    if isinstance(key, ast.Name):
        return getattr(module, key.id, None)
    if isinstance(key, ast.Constant):
        return key.value
    return None


@pytest.mark.parametrize("path", MODULES, ids=_relative)
def test_views_read_the_url_only_through_page_state(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reads = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "query_params"]
    assert not reads, f"{_relative(path)}:{reads} reads st.query_params; use ui.PageState"


@pytest.mark.parametrize("path", MODULES, ids=_relative)
def test_views_use_no_plumbing_under_page_state(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    used = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ui"
    } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not used & PLUMBING, f"{_relative(path)} uses {sorted(used & PLUMBING)}; use ui.PageState's methods"
    assert not imported & {"relpos.ui.url_state", "relpos.ui.fields", "relpos.server.seeds"}, _relative(path)


@pytest.mark.parametrize("path", MODULES, ids=_relative)
def test_views_write_no_widget_value_into_session_state(path):
    """A session value's key has a colon (page:name); a widget's key has none (page.name)."""
    module = _module(path)
    for key in _session_writes(ast.parse(path.read_text(encoding="utf-8"))):
        value = _key_of(module, key)
        source = ast.unparse(key)
        if value is None:  # computed: it must be built by state_key
            assert isinstance(key, ast.Call) and _calls_state_key(module, key), f"{_relative(path)}: [{source}]"
        else:
            assert isinstance(value, str) and ":" in value, f"{_relative(path)} writes widget {value!r} ([{source}])"


def _calls_state_key(module, call: ast.Call) -> bool:
    """Whether a computed key is a function of the module that returns a ``page:name`` key."""
    function = getattr(module, getattr(call.func, "id", ""), None)
    if function is None:
        return False
    sample = function(*([0] * len(call.args)))
    return isinstance(sample, str) and ":" in sample and "." not in sample.split(":")[0]


def _schemas(path: Path) -> list[str]:
    """Names of the Schema instances a topic's schema module defines."""
    module = _module(path)
    return [name for name, value in vars(module).items() if isinstance(value, Schema) and not name.startswith("_")]


#: Topics whose schema module defines a lesson link's Schema.
LINKED = {path.parent.name: _schemas(path) for path in sorted(TOPICS.glob("*/schema.py")) if _schemas(path)}


def test_the_linked_lessons_are_found():
    assert {"explorer", "position_effects", "training", "long_context", "schemes", "value_side", "quiz"} <= set(LINKED)


@pytest.mark.parametrize("topic", sorted(LINKED))
def test_every_lesson_link_schema_is_kept_in_a_page_state(topic):
    """The schema of a lesson link is handed to ``ui.PageState`` by one of the topic's view modules."""
    text = "".join(path.read_text(encoding="utf-8") for path in (TOPICS / topic).glob("*.py"))
    built = re.findall(r"ui\.PageState\(\s*[^,()]+,\s*(\w+)", text)
    assert set(built) & set(LINKED[topic]), f"{topic}: no ui.PageState(…, {' or '.join(LINKED[topic])})"
