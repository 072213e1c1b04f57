"""README.md and docs/ point only at what exists, and docs/core.md lists every public name.

A doc's claims about code are checked where a machine can check them: every repository path
it names (``relpos/…``, ``tests/…::test_name``, ``bench/…``; ``<topic>`` and ``*`` match any
name), every dotted ``relpos.…`` name (imported and looked up), every ``make`` target, and the
results the core's examples print. docs/core.md is written by ``python -m tools.core_docs``
from ``relpos.__all__``; the committed page must be what it writes.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import relpos
from tools import core_docs

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Made when the app or the suite runs, not part of a checkout.
RUNTIME = {".venv", "data", "test-artifacts", ".relpos-data"}
#: The checkout's top-level files and folders: a path in a doc starts with one of them.
TOP = {path.name for path in ROOT.iterdir()} - RUNTIME - {".git"}
#: A fenced block the doc marks as an example of code to write (README, "Adding a page").
EXAMPLE = re.compile(r"```python\n# pages/offsets\.py.*?```", re.DOTALL)


def _text(doc: Path) -> str:
    return EXAMPLE.sub("", doc.read_text(encoding="utf-8"))


def _id(doc: Path) -> str:
    return str(doc.relative_to(ROOT))


# --- docs/core.md -----------------------------------------------------------------


def test_core_md_is_what_tools_core_docs_writes():
    assert (ROOT / "docs" / "core.md").read_text(encoding="utf-8") == core_docs.page(), (
        "docs/core.md is out of date: run .venv/bin/python -m tools.core_docs"
    )


def test_core_md_groups_hold_every_public_name_once():
    names = [name for _, group in core_docs.groups() for name in group]
    assert names == list(relpos.__all__)


def test_every_public_name_has_a_summary():
    missing = [name for name in relpos.__all__ if not core_docs.summary(name)]
    assert missing == [], f"no docstring (or #: comment) to summarise: {missing}"


# --- paths --------------------------------------------------------------------------


def repo_paths(text: str) -> set[str]:
    """Tokens of code spans, code blocks and link targets that name a path in the checkout."""
    blocks = re.findall(r"^```\w*\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    text = re.sub(r"^```\w*\n.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    spans = blocks + re.findall(r"`([^`\n]+)`", text) + re.findall(r"\]\(([^)\s]+)\)", text)
    found = set()
    for token in (token for span in spans for token in span.split()):
        token = re.sub(r"'s$", "", token.rstrip(".,;:)"))  # docs/hosting.md's configuration
        if token.split("/")[0] in TOP and ("/" in token or "." in token):
            found.add(token)
    return found


def missing_path(token: str, base: Path = ROOT) -> str | None:
    """Why `token` (a path, maybe with ``::test`` or ``?query``) is not in the checkout, or None."""
    path, _, test = token.partition("::")
    path, _, anchor = path.split("?")[0].partition("#")
    pattern = re.sub(r"<[^>]+>", "*", path)
    matches = sorted(base.glob(pattern.rstrip("/"))) if "*" in pattern else [base / path]
    if not any(match.exists() for match in matches):
        return f"{token}: no such file or folder"
    if test and not re.search(rf"def {re.escape(test)}\b", matches[0].read_text(encoding="utf-8")):
        return f"{token}: {path} has no {test}"
    if anchor and anchor not in anchors(matches[0]):
        return f"{token}: {path} has no heading #{anchor}"
    return None


def anchors(doc: Path) -> set[str]:
    """The link anchors of a Markdown file's headings, as GitHub makes them."""
    headings = re.findall(r"^#+ (.+)$", doc.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def test_the_path_check_sees_a_missing_file():
    assert missing_path("relpos/ui/nowhere.py") and missing_path("tests/test_docs.py::test_nothing_here")
    assert missing_path("tests/test_docs.py::test_the_path_check_sees_a_missing_file") is None
    assert missing_path("relpos/topics/<topic>/view.py") is None and missing_path("relpos/topics/<x>/nope.py")
    assert missing_path("docs/benchmarks.md#the-test-suite") is None and missing_path("docs/benchmarks.md#nothing")
    assert repo_paths(
        "see `relpos/ui/explorer_panel.py`, `/explorer?n=2`, [x](docs/pages.md)\n```\nbench/  x\n```\n"
    ) == {
        "relpos/ui/explorer_panel.py",
        "docs/pages.md",
        "bench/",
    }


@pytest.mark.parametrize("doc", DOCS, ids=_id)
def test_every_path_a_doc_names_exists(doc):
    text = _text(doc)
    problems = [missing_path(token) for token in sorted(repo_paths(text))]
    # links relative to the doc itself (docs/pages.md: screenshots/…)
    links = [t for t in re.findall(r"\]\(([^)\s#]+)\)", text) if "://" not in t and t.split("/")[0] not in TOP]
    problems += [missing_path(link, doc.parent) for link in links]
    assert [p for p in problems if p] == []


# --- file names and module lists ---------------------------------------------------

#: A file's name alone in a code span (``apptest.py``, ``follow.js``), without its folder.
FILE_NAME = re.compile(r"[\w-]+\.(?:py|mjs|js|css|json|toml|sh|html)")
#: Every file name of the checkout (a name alone must be one of them).
CHECKOUT_NAMES = {path.name for top in TOP for path in [ROOT / top, *(ROOT / top).rglob("*")]}


def file_names(text: str) -> set[str]:
    """File names alone in the code spans of `text` (code blocks left out: they hold commands)."""
    text = re.sub(r"^```\w*\n.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    tokens = (token.rstrip(".,;:)") for span in re.findall(r"`([^`\n]+)`", text) for token in span.split())
    return {token for token in tokens if FILE_NAME.fullmatch(token)}


def test_the_file_name_check_sees_an_old_name():
    assert file_names("`live.py` and `apptest.py`; `relpos/ui/fields.py`, `st.App`") == {"live.py", "apptest.py"}
    assert "apptest.py" in CHECKOUT_NAMES and "live.py" not in CHECKOUT_NAMES


@pytest.mark.parametrize("doc", DOCS, ids=_id)
def test_every_file_name_a_doc_names_is_a_file_of_the_checkout(doc):
    assert sorted(file_names(_text(doc)) - CHECKOUT_NAMES) == []


#: Kits whose every module the docs name, by path or dotted (docs/pages.md's module tables):
#: a module split off or added there is described, and a renamed one is not left behind.
LISTED = ["relpos/classroom/*.py", "relpos/class_routes/*.py", "relpos/state/*.py", "relpos/ui/class*.py"]


def unnamed_modules(text: str) -> list[str]:
    """The modules of :data:`LISTED` that `text` names neither by path nor as ``relpos.x.y``."""
    modules = sorted(path for pattern in LISTED for path in ROOT.glob(pattern) if path.name != "__init__.py")
    paths = (str(path.relative_to(ROOT)) for path in modules)
    return [path for path in paths if path not in text and path[:-3].replace("/", ".") not in dotted_names(text)]


def test_every_module_of_the_live_class_and_the_state_kit_is_named():
    assert unnamed_modules("\n".join(_text(doc) for doc in DOCS)) == []


# --- dotted names -------------------------------------------------------------------


def dotted_names(text: str) -> set[str]:
    """``relpos.…`` names (not parts of a path or URL such as ``relpos.explorer_panel/…``)."""
    return {m.group(0) for m in re.finditer(r"(?<![\w/.-])relpos(?:\.\w+)+(?![\w/-])", text)}


def resolves(name: str) -> bool:
    """Whether `name` is a module of relpos, or an attribute of one (of any depth)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in parts[cut:]:
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True
    return False


def test_the_name_check_sees_a_missing_name():
    assert resolves("relpos.text.hover.sum_text") and resolves("relpos.__all__") and resolves("relpos.plots")
    assert not resolves("relpos.text.hover.no_such_name") and not resolves("relpos.nowhere.thing")
    assert dotted_names(
        "`relpos.ui.explorer_panel`, /_stcore/bidi-components/relpos.explorer_panel/x, relpos.core."
    ) == {
        "relpos.ui.explorer_panel",
        "relpos.core",
    }


@pytest.mark.parametrize("doc", DOCS, ids=_id)
def test_every_relpos_name_a_doc_names_exists(doc):
    assert sorted(name for name in dotted_names(_text(doc)) if not resolves(name)) == []


ASSETS = sorted(path for ext in ("js", "css") for path in (ROOT / "relpos").rglob(f"*.{ext}"))


def comments(source: str) -> str:
    """The comments of a JS or CSS file (``// …`` lines, ``/* … */`` blocks)."""
    return "\n".join(re.findall(r"//([^\n]*)", source) + re.findall(r"/\*(.*?)\*/", source, flags=re.DOTALL))


@pytest.mark.parametrize("asset", ASSETS, ids=_id)
def test_every_relpos_name_the_browsers_code_mentions_exists(asset):
    """attention.js and its neighbours name the Python they mirror or talk to: those names are real."""
    names = dotted_names(comments(asset.read_text(encoding="utf-8")))
    assert sorted(name for name in names if not resolves(name)) == []


# --- commands and results -----------------------------------------------------------


def make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", makefile, flags=re.MULTILINE))


@pytest.mark.parametrize("doc", DOCS, ids=_id)
def test_every_make_target_a_doc_names_exists(doc):
    named = set(re.findall(r"\bmake ([a-z][\w-]*)", _text(doc)))
    assert sorted(named - make_targets()) == []


def printed_results(text: str) -> list[tuple[str, str]]:
    """``expression  # array([...])`` lines of the docs' Python examples: (expression, result)."""
    return re.findall(r"^(result\.[^#\n]+?)\s+#\s+(array\(.+\))$", text, flags=re.MULTILINE)


@pytest.mark.parametrize("doc", [ROOT / "README.md", ROOT / "docs" / "core.md"], ids=_id)
def test_the_core_example_prints_what_the_doc_says(doc):
    shown = printed_results(doc.read_text(encoding="utf-8"))
    assert shown, f"{_id(doc)} has no example result to check"
    result = relpos.worked_example().attention()
    for expression, printed in shown:
        value = eval(expression, {"result": result})  # the doc's own expression, on the core's result
        assert repr(value) == printed, f"{expression}: the doc says {printed}, the core gives {value!r}"
