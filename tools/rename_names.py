"""One word, one thing: the renames of issue 35 (points 1, 3 and 9), as one idempotent script.

Run from anywhere inside the repository, on a clean tree::

    python tools/rename_names.py            # rename, then report what is left
    python tools/rename_names.py --check    # report only (exit 1 when something is left to rename)

It does, in order:

1. the ``git mv``s (a source that another branch moved is found again by a line it holds; a
   move already done, or whose source is gone, is skipped and said so);
2. the Python imports of the moved modules (``from relpos.ui import live`` → ``from relpos.ui
   import explorer_panel``), the names they bind (``live.x`` → ``explorer_panel.x``) and a few
   aliases that named a module after another thing (``spec as live``), from the syntax tree:
   only names, never strings or comments;
3. whole-word text substitutions (module paths, file names, component and asset names, CSS
   classes, session keys, test ids, the prose that names them) over the code, tests, benches
   and docs;
4. ``ruff check --select I --fix`` and ``ruff format`` on the Python files it changed;
5. a report of what still reads like an old name (for a person to judge).

A line that holds ``renamed_from`` (in any case) names an old name on purpose (an alias that keeps old
links working) and is never changed. Standard library only (ruff is the project's own).
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(
    subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=Path(__file__).parent, capture_output=True, text=True, check=True
    ).stdout.strip()
)
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()
#: Where the substitutions apply (content/ is the lessons' prose, data/ is data: neither names code).
SCOPE = (
    "relpos/",
    "app.py",
    "pages/",
    "tests/",
    "bench/",
    "docs/",
    "tools/",
    "README.md",
    "pyproject.toml",
    "Makefile",
    "Dockerfile",
    ".dockerignore",
    ".ci/",
    "deploy/",
)
TEXT_SUFFIXES = {".py", ".js", ".mjs", ".css", ".md", ".toml", ".txt", ".sh", ".cfg", ".ini", ".yml", ".yaml", ".html"}
TEXT_NAMES = {"Makefile", "Dockerfile", ".dockerignore", "run"}
#: A line that names an old name on purpose.
KEEP_LINE = "renamed_from"


# --- 1. moves --------------------------------------------------------------------------
@dataclass(frozen=True)
class Move:
    """``old`` (a file or folder on main before the rename) gets the name ``new``, in the
    folder where it is found; ``marker`` is a line it holds, to find it if it moved."""

    old: str
    new: str
    marker: str | None = None


MOVES = (
    # the Explorer's in-browser panel: "explorer_panel", from folder to function
    Move("relpos/ui/live.py", "explorer_panel.py", "def live_panel("),
    Move("relpos/ui/live_assets", "explorer_panel_assets", "live.js"),
    Move("relpos/ui/explorer_panel_assets/live.js", "explorer_panel.js", "class LivePanel"),
    Move("relpos/ui/explorer_panel_assets/live.css", "explorer_panel.css", ".relpos-live"),
    Move("relpos/topics/explorer/live_values.py", "panel_values.py", "def apply_live_values("),
    Move("relpos/topics/explorer/spec.py", "panel_spec.py", "def release_spec("),
    # the walkthrough's view of a class, and its other view modules: *_view.py (the view rule)
    Move("relpos/topics/walkthrough/live.py", "classroom_view.py", "class Live:"),
    Move("relpos/topics/walkthrough/controls.py", "controls_view.py", "class Lesson"),
    Move("relpos/topics/walkthrough/stage.py", "stage_view.py", "def stage("),
    # the page helpers, every page's (clicker keys, fitted formulas …): nothing to do with a class
    Move("relpos/server/client.py", "page_helpers.py", "def install_client_helpers("),
    Move("relpos/server/assets/classroom.js", "page_helpers.js", "NUMBER_FIELDS"),
    # the walkthrough lesson: one name from URL to folder
    Move("pages/worked_example.py", "walkthrough.py", "relpos.topics.walkthrough"),
    # tests named after the old words
    Move("tests/explorer/test_live_panel.py", "test_explorer_panel.py", None),
    Move("tests/explorer/test_live_spec.py", "test_panel_spec.py", None),
)
#: Every tests/classroom/test_live_*.py (the live class) becomes test_class_*.py.
GLOB_MOVES = (("tests/classroom", "test_live_", "test_class_"),)


def git(*args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=check).stdout


def tracked() -> list[str]:
    return git("ls-files").splitlines()


def _holds(path: str, marker: str) -> bool:
    target = ROOT / path
    if target.is_dir():
        return (target / marker).exists()
    try:
        return marker in target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def _candidates(name: str, marker: str | None, files: list[str]) -> list[str]:
    """Tracked files (or folders of tracked files) called `name` that hold `marker`."""
    if marker is None:
        return []
    paths = {f for f in files if f.rsplit("/", 1)[-1] == name}
    folders = {"/".join(f.split("/")[: i + 1]) for f in files for i in range(f.count("/"))}
    paths |= {folder for folder in folders if folder.rsplit("/", 1)[-1] == name}
    return sorted(p for p in paths if _holds(p, marker))


@dataclass
class Done:
    """What the moves did: (old path, new path) of every file and folder, and what was skipped."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def move_all(dry: bool) -> Done:
    done = Done()
    for move in MOVES:
        _move_one(move, done, dry)
    for folder, old_prefix, new_prefix in GLOB_MOVES:
        for path in sorted({f for f in tracked() if f.startswith(folder + "/")}):
            name = path.rsplit("/", 1)[-1]
            if name.startswith(old_prefix) and name.endswith(".py"):
                _move_one(Move(path, new_prefix + name[len(old_prefix) :]), done, dry)
            elif name.startswith(new_prefix) and name.endswith(".py"):  # done before: still a rename
                done.pairs.append((f"{folder}/{old_prefix}{name[len(new_prefix) :]}", path))
    return done


def _move_one(move: Move, done: Done, dry: bool) -> None:
    files = tracked()
    source = move.old
    beside = move.old.rsplit("/", 1)[0] + "/" + move.new
    if not (ROOT / source).exists() and (ROOT / beside).exists():
        done.pairs.append((move.old, beside))
        done.skipped.append(f"already moved: {move.old} -> {beside}")
        return
    if not (ROOT / source).exists():
        old_name = move.old.rsplit("/", 1)[-1]
        renamed = _candidates(move.new, _new_marker(move), files)
        found = _candidates(old_name, move.marker, files)
        if renamed and not found:
            done.pairs.append((renamed[0].rsplit("/", 1)[0] + "/" + old_name, renamed[0]))
            done.skipped.append(f"already moved: {move.old} -> {renamed[0]}")
            return
        if len(found) != 1:
            done.skipped.append(f"source missing: {move.old} (found {found or 'nothing'} holding {move.marker!r})")
            return
        source = found[0]
        done.skipped.append(f"found elsewhere: {move.old} is {source}")
    target = source.rsplit("/", 1)[0] + "/" + move.new
    if (ROOT / target).exists():
        done.skipped.append(f"target exists, not moved: {source} -> {target}")
        return
    if not dry:
        git("mv", source, target)
    print(f"git mv {source} {target}")
    done.pairs.append((source, target))


def _new_marker(move: Move) -> str | None:
    """What the renamed file holds once the script has run (its old marker, renamed)."""
    if move.marker is None:
        return None
    return {
        "def live_panel(": "def explorer_panel(",
        "live.js": "explorer_panel.js",
        "class LivePanel": "class ExplorerPanel",
        ".relpos-live": ".relpos-explorer-panel",
        "def apply_live_values(": "def apply_panel_values(",
        "class Live:": "class InClass:",
        "def install_client_helpers(": "def install_page_helpers(",
    }.get(move.marker, move.marker)


def module_of(path: str) -> str | None:
    """The dotted module name of a Python file of the packages (None: not one)."""
    if not path.endswith(".py") or not path.startswith(("relpos/", "tests/", "bench/")):
        return None
    return path[: -len(".py")].replace("/", ".")


# --- 2. imports and the names they bind ------------------------------------------------
#: (module, alias) -> the alias it gets (None: no alias, the module's own name). Keyed by the
#: module's new name. An alias that named a module after another thing goes.
ALIASES = {
    ("relpos.topics.walkthrough.classroom_view", "walk_live"): None,
    ("relpos.topics.walkthrough.controls_view", "walk"): None,
    ("relpos.topics.walkthrough.controls_view", "walkthrough_ui"): None,
    ("relpos.topics.walkthrough.stage_view", "walk_stage"): None,
    ("relpos.ui.explorer_panel", "live_ui"): None,
    ("relpos.topics.explorer.panel_spec", "live"): None,
    ("relpos.topics.position_effects.presets_view", "effects_presets"): None,
    ("relpos.topics.position_effects.model", "effects"): "position_effects_model",
    ("relpos.topics.position_effects.model", "effects_model"): "position_effects_model",
    ("relpos.topics.position_effects.text", "effects_text"): "position_effects_text",
}
#: file -> {old name: new name}: names renamed everywhere in one file (variables, parameters,
#: definitions, keyword arguments and ``__all__`` entries), beyond the imports.
NAMES = {
    "relpos/topics/walkthrough/classroom_view.py": {"Live": "InClass", "live": "in_class"},
    "relpos/topics/walkthrough/view.py": {"Live": "InClass", "live": "in_class"},
    "tests/support/browser.py": {"live": "panel_tabs"},
    "tests/classroom/test_streams.py": {"live": "running"},  # a class that is on
}


@dataclass
class Edit:
    line: int  # 1-based
    col: int  # characters
    old: str
    new: str


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8"))


def python_edits(path: str, text: str, modules: dict[str, str], problems: list[str]) -> list[Edit]:
    """The edits of step 2 for one Python file."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        problems.append(f"{path}: not parsed ({error})")
        return []
    lines = text.splitlines()
    edits: list[Edit] = []
    imports: list[tuple[Edit, str, str]] = []  # an import's edit, the name it bound, the name it binds
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imports += [found for alias in node.names if (found := _import_edit(node.module, alias, lines, modules))]
    explicit = NAMES.get(path, {})
    for edit, was, now in imports:
        clash = was != now and (_binds_elsewhere(tree, was) or _binds_elsewhere(tree, now))
        if clash and was not in explicit:
            problems.append(f"{path}: import of {was} (-> {now}) left alone: {clash}")
            continue
        edits.append(edit)
        if was != now:
            edits += _name_edits(tree, lines, was, now, everything=False)
    for old, new in explicit.items():
        edits += _name_edits(tree, lines, old, new, everything=True)
    return edits


def _import_edit(module: str, alias: ast.alias, lines: list[str], modules: dict) -> tuple[Edit, str, str] | None:
    """The edit of one imported name (``from module import name [as alias]``), or None."""
    full = f"{module}.{alias.name}"
    new_full = modules.get(full, full)
    new_name = new_full.rsplit(".", 1)[1]
    key = (new_full, alias.asname)
    if new_full == full and key not in ALIASES:
        return None
    asname = ALIASES.get(key, alias.asname)
    written = new_name if asname is None or asname == new_name else f"{new_name} as {asname}"
    col = _char_col(lines, alias.lineno, alias.col_offset)
    end = _char_col(lines, alias.end_lineno, alias.end_col_offset)
    old_text = lines[alias.lineno - 1][col:end]
    if old_text == written:
        return None
    return Edit(alias.lineno, col, old_text, written), alias.asname or alias.name, asname or new_name


def _binds_elsewhere(tree: ast.AST, name: str) -> str | None:
    """Where the file binds `name` other than by an import (a clash for a renamed import)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return f"assigned on line {node.lineno}"
        if isinstance(node, ast.arg) and node.arg == name:
            return f"a parameter on line {node.lineno}"
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return f"defined on line {node.lineno}"
    return None


def _name_edits(tree: ast.AST, lines: list[str], old: str, new: str, *, everything: bool) -> list[Edit]:
    found: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == old:
            found.append((node.lineno, _char_col(lines, node.lineno, node.col_offset)))
        elif not everything:
            continue
        elif isinstance(node, ast.arg | ast.keyword) and node.arg == old:
            found.append((node.lineno, _char_col(lines, node.lineno, node.col_offset)))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == old:
            match = re.search(rf"\b(def|class)\s+{re.escape(old)}\b", lines[node.lineno - 1])
            if match:
                found.append((node.lineno, match.end() - len(old)))
        elif isinstance(node, ast.Constant) and node.value == old:  # an __all__ entry
            col = _char_col(lines, node.lineno, node.col_offset)
            found.append((node.lineno, col + 1))
    return [Edit(line, col, old, new) for line, col in found if lines[line - 1][col : col + len(old)] == old]


def apply_edits(text: str, edits: list[Edit]) -> str:
    lines = text.split("\n")
    for edit in sorted({(e.line, e.col, e.old, e.new) for e in edits}, reverse=True):
        line, col, old, new = edit
        current = lines[line - 1]
        if KEEP_LINE in current.lower() or current[col : col + len(old)] != old:
            continue
        lines[line - 1] = current[:col] + new + current[col + len(old) :]
    return "\n".join(lines)


# --- 3. text substitutions -------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """Replace `pattern` (a regex) by `new` in the files under `only` (all when empty), not in
    `skip`, on the lines that do not match `unless`."""

    pattern: str
    new: str
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    unless: str = ""

    def applies(self, path: str) -> bool:
        inside = not self.only or any(path == p or path.startswith(p) for p in self.only)
        return inside and not any(path == p or path.startswith(p) for p in self.skip)


def W(old: str, new: str, *, only: tuple[str, ...] = (), skip: tuple[str, ...] = ()) -> Rule:  # noqa: N802
    """A whole-word rule (``_`` is part of a word: ``live`` never matches ``live_values``)."""
    return Rule(rf"(?<![\w]){re.escape(old)}(?![\w])", new, only, skip)


def L(old: str, new: str, *, only: tuple[str, ...] = (), skip: tuple[str, ...] = ()) -> Rule:  # noqa: N802
    """A literal rule."""
    return Rule(re.escape(old), new, only, skip)


TESTS_AND_BENCHES = ("tests/", "bench/")
#: The public core's worked_example() (and the chapter's reference file) is another thing.
CORE_EXAMPLE = ("relpos/__init__.py", "relpos/core/", "docs/core.md", "tools/core_docs.py")

RULES: tuple[Rule, ...] = (
    # --- the Explorer's panel ---
    W("live_assets", "explorer_panel_assets"),
    Rule(r"(?<![\w.-])live\.(js|css)\b", r"explorer_panel.\1"),
    W("relpos.live", "relpos.explorer_panel"),
    L("relpos-live", "relpos-explorer-panel"),
    W("__relposLiveLog", "__relposPanelLog"),
    W("LivePanel", "ExplorerPanel"),
    Rule(r"(?<![\w-])(--)?rl-(?=[a-z$'])", r"\1ep-", only=("relpos/ui/", *TESTS_AND_BENCHES)),  # was "relpos live"
    W("live_panel", "explorer_panel"),
    W("apply_live_values", "apply_panel_values"),
    W("live_values", "panel_values"),
    W("LIVE_MAX_N", "DRAG_REPAINT_MAX_N"),
    Rule(r"\bspec\.live\b", "spec.drag_repaint"),
    L('spec["live"]', 'spec["drag_repaint"]'),
    L('"live": n <=', '"drag_repaint": n <='),
    L('widget_key(PAGE, "live")', 'widget_key(PAGE, "panel")', only=("relpos/topics/explorer/view.py",)),
    W("LIVE", "PANEL", only=("relpos/topics/explorer/view.py",)),
    W("live_specs", "panel_specs"),
    W("live_figures", "panel_figures"),
    W("live_skeleton", "panel_skeleton"),
    W("live_release", "panel_release"),
    W("LIVE_PLOTS", "PANEL_PLOTS"),
    W("LIVE_READY", "PANEL_READY"),
    W("LIVE_LOG_JS", "PANEL_LOG_JS"),
    W("live_stats", "panel_stats"),
    W("live_drawn", "panel_drawn"),
    W("LiveValue", "PanelValue"),
    W("live_state", "panel_state"),
    W("live_seq", "panel_seq"),
    W("live_problems", "panel_problems"),
    W("LIVE_PROBLEMS", "PANEL_PROBLEMS"),
    W("read_live_values", "read_panel_values"),
    W("release_live_value", "release_panel_value"),
    W("live_tab", "panel_tab"),
    W("live_spec", "spec_from_figures"),
    W("TestLiveSpec", "TestPanelSpec"),
    W("TestApplyLiveValues", "TestApplyPanelValues"),
    # the panel's JavaScript: a local that held this repaint's numbers, and the tests' handles
    L("const live = this.compute();", "const computed = this.compute();"),
    Rule(r"\blive\.result\b", "computed.result", only=("relpos/ui/",)),
    Rule(r"\((spec|name), live\)", r"(\1, computed)", only=("relpos/ui/",)),
    L("{ ...live,", "{ ...computed,", only=("relpos/ui/",)),
    L("const live = window.__relposPanelLog", "const panel = window.__relposPanelLog", only=TESTS_AND_BENCHES),
    L("const live = document.querySelector(", "const panel = document.querySelector(", only=TESTS_AND_BENCHES),
    Rule(
        r"(?<![\w.])(\.\.\.)?live\.(painted|sliders|plots|values|restyled|load|spec|root|querySelector|querySelectorAll)\b",
        r"\1panel.\2",
        only=TESTS_AND_BENCHES,
    ),
    Rule(r"\blive\.release_spec\b", "panel_spec.release_spec"),
    Rule(r"\blive\.ask_options\b", "classroom_view.ask_options"),
    L('screenshot("live_', 'screenshot("panel_', only=("tests/",)),
    L("live: !!el.closest(", "panel: !!el.closest(", only=("tests/support/theme.py",)),
    L("chart['live']", "chart['panel']", only=("tests/support/theme.py",)),
    # lines the new names would make too long
    L(" (custom component) on the page", " on the page", only=("tests/support/apptest.py",)),
    L("share put back (as explorer_panel.js does)", "share put back (explorer_panel.js)"),
    L("].some((t) => t.textContent.includes(text))", "]\n  .some((t) => t.textContent.includes(text))"),
    L("const on = (kind, record) => document.", "const on = (kind, record) =>\n    document."),
    L('name = "live"', 'name = "explorer_panel"', only=("pyproject.toml",)),
    L("* live: the", "* explorer_panel: the", only=("relpos/ui/__init__.py",)),
    L("``live`` (the Explorer panel)", "``explorer_panel`` (the Explorer panel)"),
    # the panel, in prose
    L("relpos live panel:", "relpos Explorer panel:"),
    L("Live panel failed:", "Explorer panel failed:"),
    Rule(r"\b([Tt])he Explorer's live panel", r"\1he Explorer panel"),
    L("Explorer's live panel", "Explorer panel"),
    Rule(r"\b([Aa])n? live([ -])panel", r"\1n Explorer\2panel"),
    Rule(r"\blive([ -])panel", r"Explorer\1panel"),
    Rule(r"\blive(\n\s*(?:#:?\s*)?)panel", r"Explorer\1panel"),  # wrapped over two lines
    Rule(r"\bLive([ -])panel", r"Explorer\1panel"),
    Rule(r"\b([Aa]) live spec\b", r"\1 panel spec"),
    W("live spec", "panel spec"),
    # --- the class (the live class's code word is "class"/"classroom") ---
    W("walk_live", "classroom_view"),
    W("live_editor", "presenter_editor"),
    W("check_live", "check_admits"),
    W("_count_live", "_count_kept"),
    W("MAX_LIVE_CLASSES", "MAX_KEPT_CLASSES"),
    Rule(r"(?<![\w`])Live\b(?! class| panel)", "InClass", only=("relpos/topics/walkthrough/",)),
    Rule(r"\bclassroom_view\.Live\b", "classroom_view.InClass"),
    # --- the page helpers (were "the classroom helpers", relpos.server.client): every page's ---
    W("install_client_helpers", "install_page_helpers"),
    L('"/relpos/classroom.', '"/relpos/page_helpers.'),
    Rule(r"(?<![\w.-])classroom\.js\b", "page_helpers.js"),
    L("Browser-side helpers of the classroom:", "Browser-side helpers of every page:"),
    L("the classroom's browser-side helpers", "the browser-side helpers of every page"),
    Rule(r"\b(classroom|client) helpers\b", "page helpers"),
    # --- the walkthrough: one name from URL to folder (its old URL stays an alias) ---
    Rule(r"(?<![\w.])worked_example(?![\w(]|\.md)", "walkthrough", skip=CORE_EXAMPLE, unless=r"\bimport\s"),
    # --- position effects: one name ---
    W("EFFECTS_PANELS", "POSITION_EFFECTS_PANELS"),
    W("_EFFECTS_HOVER_DECIMALS", "_POSITION_EFFECTS_HOVER_DECIMALS"),
    W("EFFECTS_DEFAULT_K", "POSITION_EFFECTS_DEFAULT_K"),
    W("EFFECTS", "POSITION_EFFECTS"),
    W("EffectsInputs", "PositionEffectsInputs"),
    W("_reconcile_effects", "_reconcile_position_effects"),
    W("effects_inputs", "state_inputs"),
    Rule(r"(?<![\w])effects_(panels|decimals|hover|captions|summary|snippet|sentences|page)\b", r"position_effects_\1"),
    W("_effects_move", "_position_effects_move"),
    W("effects=True", "position_effects=True"),
    W("effects: bool = False", "position_effects: bool = False", only=("relpos/plots/panels.py",)),
    L("    effects : bool", "    position_effects : bool", only=("relpos/plots/panels.py",)),
    L("if effects else", "if position_effects else", only=("relpos/plots/panels.py",)),
    Rule(r"(?<=[\"'])effects(?=[.:]?\w*[\"'])", "position_effects", only=("relpos/topics/position_effects/", "tests/")),
    L("``explorer``, ``effects``, ``training``", "``explorer``, ``position_effects``, ``training``"),
    Rule(r";\s+Position\s+effects keeps its older short name ``effects``\), or ", "), or\n"),
)


def text_files() -> Iterable[str]:
    for path in tracked():
        if path == SELF or not any(path == s or path.startswith(s) for s in SCOPE):
            continue
        name = path.rsplit("/", 1)[-1]
        if Path(name).suffix in TEXT_SUFFIXES or name in TEXT_NAMES:
            yield path


def module_rules(done: Done) -> list[Rule]:
    """Dotted module names and ``folder/file`` paths of everything moved."""
    rules = []
    for old, new in done.pairs:
        old_module, new_module = module_of(old), module_of(new)
        if old_module and new_module:
            rules.append(W(old_module, new_module))
        old_tail, new_tail = "/".join(old.split("/")[-2:]), "/".join(new.split("/")[-2:])
        rules.append(Rule(rf"(?<![\w.-]){re.escape(old_tail)}(?![\w])", new_tail))
        old_stem, new_stem = Path(old).stem, Path(new).stem
        if old_stem.startswith("test_"):  # a test file's own name is one word: test ids, docs
            rules.append(W(old_stem, new_stem))
    return rules


def substitute(text: str, rules: Iterable[Rule], path: str) -> str:
    lines = text.split("\n")
    for rule in rules:
        if not rule.applies(path):
            continue
        regex, unless = re.compile(rule.pattern), re.compile(rule.unless) if rule.unless else None
        lines = [
            line if KEEP_LINE in line.lower() or (unless and unless.search(line)) else regex.sub(rule.new, line)
            for line in lines
        ]
    joined = "\n".join(lines)
    for rule in rules:  # a multi-line rule (prose wrapped over lines)
        if rule.applies(path) and r"\s" in rule.pattern and KEEP_LINE not in joined.lower():
            joined = re.sub(rule.pattern, rule.new, joined)
    return joined


# --- 5. the report ---------------------------------------------------------------------
#: What still reads like an old name (code-like uses; prose such as "a live class" is fine).
LEFTOVERS = (
    r"(?<![\w-])live(?=[_(\[=/\"']|\.\w)|(?<=\.)live\b|\blive_\w+|\w+_live\b|\bLIVE\w*|\bLive[A-Z]\w*",
    r"\brelpos-live|\blive panel|\blive\.(js|css)\b|live_assets|(?<![\w-])rl-|``live``",
    r"\bworked_example\b(?!\()",
    r"\bEFFECTS\w*|\b[Ee]ffects_\w+|\w+_effects\b(?<!position_effects)|[\"']effects\b|\bEffects[A-Z]\w*",
    r"classroom\.js|[Cc]lassroom helpers|client helpers|server\.client\b|install_client_helpers",
)
#: Known and judged: what these match is not an old name.
FINE = (
    r"aria-live|time-to-live|live-class|test_\w*live\w*|test_\w*effects\w*|test_\w*worked_example\w*",
    r"relpos\.worked_example|import [\w, ]*worked_example|\"worked_example\"[\],]|def worked_example|trained live",
    r"worked_example\.md|:func:`worked_example`|`worked_example\(\)`|Scenario, worked_example",
    r"side_effects|Test\w*Effects\w*|(?i:.*" + KEEP_LINE + ".*)",
    r"\"live\.py\"|``live\.py``",  # tests/test_layers.py's example of a name that is no view
)


def report() -> int:
    """Print every line where an old name may be left (after taking out what :data:`FINE` allows)."""
    leftovers = re.compile("|".join(f"(?:{p})" for p in LEFTOVERS))
    fine = re.compile("|".join(f"(?:{p})" for p in FINE))
    count = 0
    for path in text_files():
        for number, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), 1):
            hits = sorted({m.group(0) for m in leftovers.finditer(fine.sub(" ", line))})
            if hits:
                count += 1
                print(f"  {path}:{number}: {', '.join(hits)}: {line.strip()[:100]}")
    return count


# --- main ------------------------------------------------------------------------------
def run(dry: bool) -> int:
    done = move_all(dry)
    for line in done.skipped:
        print(f"skipped: {line}")
    modules = {module_of(o): module_of(n) for o, n in done.pairs if module_of(o) and module_of(n)}
    rules = [*module_rules(done), *RULES]
    changed, problems = [], []
    for path in text_files():
        original = (ROOT / path).read_text(encoding="utf-8")
        text = original
        if path.endswith(".py"):
            text = apply_edits(text, python_edits(path, text, modules, problems))
        text = substitute(text, rules, path)
        if text != original:
            changed.append(path)
            if not dry:
                (ROOT / path).write_text(text, encoding="utf-8")
    for line in problems:
        print(f"not renamed: {line}")
    print(f"{len(changed)} files changed" + (" (dry run: nothing written)" if dry else ""))
    python = [p for p in changed if p.endswith(".py")]
    if python and not dry:
        _ruff(python)
    return len(changed)


def _ruff(paths: list[str]) -> None:
    ruff = ROOT / ".venv" / "bin" / "ruff"
    command = str(ruff) if ruff.exists() else shutil.which("ruff")
    if command is None:
        print("ruff not found: imports not re-sorted, files not formatted")
        return
    subprocess.run([command, "check", "--select", "I,RUF022", "--fix", "--quiet", *paths], cwd=ROOT, check=False)
    subprocess.run([command, "format", "--quiet", *paths], cwd=ROOT, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="change nothing: report what is left")
    parser.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    args = parser.parse_args(argv)
    if not args.check:
        run(args.dry_run)
    print("what still reads like an old name (not changed; judge each):")
    left = report()
    print(f"{left} lines")
    return 1 if args.check and left else 0


if __name__ == "__main__":
    sys.exit(main())
