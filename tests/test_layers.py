"""The house: layers are folders, and imports point one way.

``pages/`` → the lessons (``relpos/topics/``: views, then pure lesson code) → the widget kit
``relpos.ui`` → the live class's routes ``relpos.class_routes`` → the server harness
``relpos.server`` → the page weight ``relpos.static`` → the live class ``relpos.classroom``
→ the quiz bank ``relpos.quizbank`` → ``relpos.plots`` → ``relpos.tables`` →
``relpos.state`` → ``relpos.text`` → ``relpos.core``. A lesson is one folder,
``relpos/topics/<topic>/``, and a module's name says its layer: ``view.py`` and every
``*_view.py`` form the top layer (the view: they may import Streamlit), every other module
of the folder the pure lesson layer (schema, model, text, figures, tables, snippet …). A
module may import its own layer and any layer below it, never one above; a module that may
not import Streamlit imports no layer that may (so pure lesson code stays clear of the kits
above it). A topic never imports another topic, save that other topic's ``link_view`` (the
button that opens its page on given numbers). Only the views, the widget kit, the class's
routes and the server harness import Streamlit; in a topic folder the last word of a
pure module's name says what else it may import (:data:`TOPIC_ROLES`: ``figures.py``,
``charts.py`` and ``*_spec.py`` Plotly, ``tables.py`` pandas), and the math imports nothing
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
LAYERS = (
    "views", "lessons", "ui", "class_routes", "server", "static", "classroom",
    "quizbank", "plots", "tables", "state", "text", "core",
)  # fmt: skip
#: the one module of a topic that another topic may import: the button opening its page
LINK = "link_view"
#: a topic module named ``view.py`` or ``*_view.py`` belongs to its view (it may import Streamlit)
VIEW = "view"
#: third-party packages each layer may import (besides the standard library and numpy)
THIRD_PARTY = {
    "views": {"streamlit", "pandas", "plotly"},
    "lessons": set(),  # by role, see TOPIC_ROLES
    "ui": {"streamlit", "pandas", "plotly"},
    "class_routes": {"streamlit"},
    "server": {"streamlit"},
    "static": set(),
    "plots": {"plotly"},
    "tables": {"pandas"},
    "state": set(),
    "classroom": set(),  # redis and segno, but none of the watched UI libraries
    "quizbank": set(),
    "text": set(),
    "core": set(),
}
#: a pure topic module's role, the last word of its name (``panel_spec`` is a spec), and what
#: it may import besides numpy
TOPIC_ROLES = {
    "figures": {"plotly"},
    "charts": {"plotly"},
    "spec": {"plotly"},
    "tables": {"pandas"},
}
WATCHED = {"streamlit", "pandas", "plotly"}
TOPICS = sorted(p.name for p in (ROOT / "relpos" / "topics").iterdir() if (p / "__init__.py").exists())


def _modules():
    folders = ("topics", *(layer for layer in LAYERS if layer not in ("views", "lessons")))
    return sorted(path for folder in folders for path in (ROOT / "relpos" / folder).rglob("*.py"))


def _role(stem: str) -> str:
    """A topic module's role: the last word of its name (``presets_view`` → ``view``)."""
    return stem.rsplit("_", 1)[-1]


def _is_view(stem: str) -> bool:
    """The view rule: ``view.py`` and ``*_view.py`` are a topic's view, every other module is pure."""
    return _role(stem) == VIEW


def _imports(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "relpos":  # from relpos import X: a layer's package, or a public name of the core
                names |= {f"relpos.{a.name}" if a.name in LAYERS else f"relpos.core.{a.name}" for a in node.names}
            elif node.module.count(".") == 2 and node.module.startswith("relpos.topics."):
                # from relpos.topics.t import m: m's own layer (a topic's package holds only its modules)
                names |= {f"{node.module}.{alias.name}" for alias in node.names}
                continue
            names.add(node.module)
    return names


def _layer(path: Path) -> str:
    folder = path.relative_to(ROOT / "relpos").parts[0]
    if folder != "topics":
        return folder
    return "views" if _is_view(path.stem) else "lessons"


def _target_layer(name: str) -> str | None:
    """The layer of an imported ``relpos.…`` module (None: not a module of a layer)."""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != "relpos":
        return None
    if parts[1] != "topics":
        return parts[1] if parts[1] in LAYERS else None
    if len(parts) < 4:  # a topic package itself: its __init__ is pure
        return "lessons"
    return "views" if _is_view(parts[3]) else "lessons"


def test_every_module_lives_in_a_layer():
    loose = sorted(p.name for p in (ROOT / "relpos").glob("*.py") if p.name != "__init__.py")
    assert loose == [], "modules belong in a layer package: " + ", ".join(loose)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path):
    assert layer_problems(path, path.read_text(encoding="utf-8")) == []


def layer_problems(path: Path, source: str) -> list[str]:
    """What module `path` (holding `source`) imports against the layers."""
    own = LAYERS.index(_layer(path))
    allowed = _allowed(path)
    problems = []
    for name in sorted(_imports(source)):
        parts = name.split(".")
        target = _target_layer(name)
        if target is not None:
            if LAYERS.index(target) < own:
                problems.append(f"{_short(path)} ({_layer(path)}) imports {name}, a layer above it")
            elif "streamlit" in THIRD_PARTY[target] and "streamlit" not in allowed:
                problems.append(f"{_short(path)} ({_layer(path)}) imports {name}, which may load streamlit")
            if parts[1] == "topics" and len(parts) > 2 and "topics" in path.parts:
                topic = path.relative_to(ROOT / "relpos" / "topics").parts[0]
                if parts[2] != topic and parts[3:] != [LINK]:
                    problems.append(f"{_short(path)} imports {name}: a topic never imports another topic")
        elif parts[0] in WATCHED and parts[0] not in allowed:
            problems.append(f"{_short(path)} ({_layer(path)}) imports {parts[0]}")
    return problems


#: A lesson folder that is not there: the rule is read off the names alone.
_SOMEWHERE = ROOT / "relpos" / "topics" / "some_lesson"


@pytest.mark.parametrize(
    ("name", "source", "found"),
    [
        ("widgets.py", "import streamlit as st\n", ["(lessons) imports streamlit"]),
        ("widgets_view.py", "import streamlit as st\n", []),
        ("view.py", "import streamlit as st\n", []),
        ("live.py", "import streamlit as st\n", ["(lessons) imports streamlit"]),
        ("viewer.py", "import streamlit as st\n", ["(lessons) imports streamlit"]),
        ("model.py", "from relpos.topics.some_lesson import widgets_view\n", ["a layer above it"]),
        ("model.py", "from relpos.topics.some_lesson import widgets\n", []),
        ("widgets_view.py", "from relpos.topics.other_lesson import model\n", ["never imports another topic"]),
        ("view.py", "from relpos.topics.other_lesson import link_view\n", []),
        ("view.py", "from relpos.topics.other_lesson.link_view import other_link\n", []),
        ("model.py", "from relpos.ui import tables\n", ["may load streamlit"]),
        ("model.py", "from relpos.classroom import quiz\n", []),
        ("model.py", "from relpos.quizbank import checking\n", []),
        ("figures.py", "import plotly.graph_objects as go\n", []),
        ("panel_spec.py", "import plotly.io as pio\n", []),
        ("schema.py", "import plotly.io as pio\n", ["(lessons) imports plotly"]),
        ("tables.py", "import pandas as pd\n", []),
        ("tables_view.py", "import pandas as pd\n", []),
    ],
)
def test_a_modules_name_says_its_layer(name, source, found):
    """A helper that imports Streamlit is a view only when named so (``*_view.py``): called
    ``widgets.py`` it fails, called ``live.py`` it fails too (no list of special names)."""
    problems = layer_problems(_SOMEWHERE / name, source)
    assert bool(problems) == bool(found), problems
    for expected in found:
        assert any(expected in problem for problem in problems), problems


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("classroom/quiz.py", "from relpos.topics.quiz.checking import make_quiz\n"),
        ("class_routes/following.py", "from relpos.topics.walkthrough import spec\n"),
        ("ui/explorer_link.py", "from relpos.topics.explorer.schema import EXPLORER\n"),
        ("quizbank/checking.py", "from relpos.classroom import quiz\n"),
    ],
)
def test_a_kit_never_imports_a_lesson_or_a_kit_above_it(path, source):
    """The live class, its routes and the widget kit sit under the lessons: what they need of
    a lesson lives in a kit (the quiz bank) or is handed to them (app.py hands the class's
    routes the walkthrough's stop)."""
    assert any("a layer above it" in problem for problem in layer_problems(ROOT / "relpos" / path, source))


def _short(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _allowed(path: Path) -> set[str]:
    if _layer(path) != "lessons":
        return THIRD_PARTY[_layer(path)]
    return TOPIC_ROLES.get(_role(path.stem), set())


def test_every_topic_has_one_view_with_render_and_a_one_line_page():
    """Owning a lesson is owning one folder: its view has ``render()``, its page calls it."""
    pages = {}
    for page in (ROOT / "pages").glob("*.py"):
        tree = ast.parse(page.read_text(encoding="utf-8"))
        calls = [node for node in tree.body if isinstance(node, ast.Expr)]
        imports = [n.module for n in tree.body if isinstance(n, ast.ImportFrom)]
        topic = [m for m in imports if m.startswith("relpos.topics.")]
        assert len(calls) == 3 and len(topic) == 1, f"{page.name}: a docstring, page_entry() and view.render()"
        pages[page.stem] = topic[0].split(".")[2]
    assert sorted(set(pages.values())) == TOPICS
    for topic in TOPICS:
        view = ROOT / "relpos" / "topics" / topic / "view.py"
        names = {n.name for n in ast.parse(view.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)}
        assert "render" in names, f"{topic}/view.py has no render()"


@pytest.mark.parametrize(
    "package", ["relpos", "relpos.core", "relpos.text", "relpos.state", "relpos.quizbank", "relpos.classroom"]
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
