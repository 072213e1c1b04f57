"""Write docs/core.md from ``relpos.__all__``: every public name, with the first paragraph of its docstring.

    .venv/bin/python -m tools.core_docs          # rewrite docs/core.md
    .venv/bin/python -m tools.core_docs --check  # exit 1 when docs/core.md is not what it would write

The names come in the groups of ``relpos.__all__`` (its comments are the headings); a
function shows its parameters, a constant its keys and the ``#:`` comment above it in its
module. ``tests/test_docs.py`` checks that the committed file is what this writes.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from pathlib import Path

import relpos

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "core.md"
PUBLIC = ROOT / "relpos" / "__init__.py"

HEADER = """\
# Using the core

<!-- Written by `python -m tools.core_docs` from relpos.__all__ and the docstrings: edit those, not this file. -->

```python
import relpos

example = relpos.worked_example()  # q, k and the a^K table of the textbook, k = 2
result = example.attention()  # = relpos.relative_attention(q, k, A_K=table)
result.scores[0]  # array([ 1. ,  0.5, -0.1,  0.7])
result.weights[0].round(3)  # array([0.373, 0.226, 0.124, 0.276])
```

Conventions: offsets are `j − i`; table row `r` holds offset `r − k`; positions are
0-based in code and shown from 1 on screen; heatmaps put query 1 in the top row, so one
offset is one **diagonal**. Bad input raises `ValueError` naming the argument.
`relpos.rope_frequencies` equals Hugging Face transformers' `ROPE_INIT_FUNCTIONS` (5.x) to
1e−6 relative where the library has the method (`tests/long_context/hf_rope_table.json`,
computed with transformers 5.25.0).

Every name of `relpos.__all__`, in its groups:
"""


def groups(source: str | None = None) -> list[tuple[str, list[str]]]:
    """``relpos.__all__`` in its groups: (the comment above a group, its names), in order."""
    source = PUBLIC.read_text(encoding="utf-8") if source is None else source
    block = source[source.index("__all__ = [") :]
    block = block[block.index("\n") + 1 : block.index("\n]")]
    found: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        line = line.strip()
        if line.startswith("#"):
            found.append((line.lstrip("# ").strip(), []))
        elif line:
            found[-1][1].append(ast.literal_eval(line.rstrip(",")))
    return found


def summary(name: str) -> str:
    """The first paragraph of a name's docstring, on one line (a constant: its ``#:`` comment)."""
    value = getattr(relpos, name)
    if inspect.isfunction(value) or inspect.isclass(value):
        text = inspect.getdoc(value) or ""
    else:
        text = _comment_above(name)
    first = " ".join(text.split("\n\n")[0].split())
    return re.sub(r":\w+:`~?([^`]+)`", r"`\1`", first)  # a Sphinx role reads as code in Markdown


def _comment_above(name: str) -> str:
    """The ``#:`` lines just above ``NAME =`` in the core module that defines it."""
    module = _defining_module(name)
    source = (ROOT / Path(*module.split("."))).with_suffix(".py").read_text(encoding="utf-8")
    lines = source.splitlines()
    (index,) = [i for i, line in enumerate(lines) if re.match(rf"{name}\b.*=", line)]
    comments = []
    while index > 0 and lines[index - 1].startswith("#:"):
        index -= 1
        comments.insert(0, lines[index][2:].strip())
    return " ".join(comments)


def _defining_module(name: str) -> str:
    for node in ast.parse(PUBLIC.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and name in {alias.name for alias in node.names}:
            return node.module
    raise LookupError(f"relpos/__init__.py does not import {name}")


def usage(name: str) -> str:
    """How a name is used: a function with its parameters (no annotations), a class by its
    name, a constant with its keys."""
    value = getattr(relpos, name)
    if inspect.isfunction(value):
        signature = inspect.signature(value)
        parameters = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
        return f"`{name}{signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty)}`"
    if inspect.isclass(value):
        return f"`{name}` (class)"
    return f"`{name}`: " + ", ".join(f"`{key}`" for key in value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def page() -> str:
    """docs/core.md as it should read."""
    parts = [HEADER]
    for heading, names in groups():
        parts.append(f"\n## {heading[0].upper()}{heading[1:]}\n\n| name | what it is |\n| --- | --- |\n")
        parts += [f"| {_cell(usage(name))} | {_cell(summary(name))} |\n" for name in names]
    return "".join(parts)


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        if TARGET.read_text(encoding="utf-8") != page():
            print(f"{TARGET.relative_to(ROOT)} is out of date: run python -m tools.core_docs", file=sys.stderr)
            return 1
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    TARGET.write_text(page(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
