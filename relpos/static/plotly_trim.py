"""Streamlit's Plotly chunk with only the plotly.js the app draws with.

Streamlit's ``static/js/PlotlyChart.<hash>.js`` carries the whole plotly.js (4.7 MB, 1.06 MB
in brotli: maps with their worker, WebGL, 3D, geo, polar, sankey …), evaluated and
downloaded by every tab that shows a chart. The app draws three trace types (scatter, bar,
heatmap: :data:`TRACES`), which need about a quarter of it.

plotly.js sits in the chunk as its esbuild build left it: every source file one CommonJS
wrapper, ``NAME=_({"src/traces/bar/plot.js"(e,t){…}})``, run when first required as
``NAME()``, and ``lib/index.js`` registering every trace type
(``n.register([Iu(),hee(),…])``). :func:`trim` keeps in that list the trace types in
`traces` (and ``lib/core.js``, which registers scatter and the components), follows the
``NAME()`` calls from there, and empties every wrapper never reached (``NAME=0``): the
code that runs is the code that ran before, less the modules nothing requires.

Following calls by name over-approximates (a local function of the same name called with
no arguments keeps a module it does not use), which costs bytes and never a module.
Anything in the chunk that does not have this shape makes :func:`trim` return None, and
the chunk is then served as Streamlit ships it.

:func:`draw_once` changes one thing besides, in Streamlit's own chart element at the end of
the chunk: it renders the chart only once it knows the chart's width. As shipped, it draws
every chart twice on a page load, hidden at plotly.js's default size and then at its width
(/schemes: 48 draws for 24 charts; a fifth of the page load's CPU in Chromium).

The trimmed chunk is served under Streamlit's URL for the chunk (the main bundle imports
it by that name), so it is not immutable as that name promises: a later trim of the same
chunk (another set of traces) must reach browsers, so it is revalidated by its ETag
(:mod:`relpos.static.weight`).
"""

from __future__ import annotations

import re
from pathlib import Path

from relpos.plots.template import TRACE_TYPES

__all__ = ["TRACES", "draw_once", "key", "trim", "trim_bytes"]

#: Trace types the app draws (relpos.plots.template), less scatter, which plotly.js's core
#: registers itself.
TRACES = tuple(kind for kind in TRACE_TYPES if kind != "scatter")

# `NAME=_({"path"(` after `,`, `;` or `{` (and maybe `var`): one CommonJS wrapper of the
# esbuild build; the match starts at the separator, where the wrapper before it ends
_MODULE = re.compile(r'[,;{](?:var )?([A-Za-z_$][\w$]*)=([A-Za-z_$][\w$]*)\(\{"([^"]+)"\(')
# a call with no arguments, not a method: how one wrapper requires another
_CALL = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\(\)")
_ROOT = re.compile(r'return ([A-Za-z_$][\w$]*)\(\{"lib/index\.js"\(e,t\)\{var n=([A-Za-z_$][\w$]*)\(\);n\.register\(\[')
_ROOT_END = "]),t.exports=n}})()"


def trim(source: str, traces: tuple[str, ...] = TRACES) -> str | None:
    """`source` (Streamlit's Plotly chunk) registering only `traces` (and scatter), with
    the modules they do not need emptied; None when the chunk is not built as expected."""
    root = _ROOT.search(source)
    if root is None or source.count('"lib/index.js"(') != 1:
        return None
    list_end = source.find(_ROOT_END, root.end())
    if list_end < 0:
        return None
    found = [match for match in _MODULE.finditer(source, 0, root.start()) if match.group(2) == root.group(1)]
    if not found:
        return None
    # each wrapper runs from its `_({` to the separator before the next one's name
    spans: dict[str, tuple[str, int, int]] = {}
    for match, after in zip(found, [*found[1:], None], strict=True):
        end = after.start() if after is not None else source.rfind("}})", match.end(), root.start()) + 3
        if not source.endswith("}})", 0, end) or match.group(1) in spans:
            return None
        spans[match.group(1)] = (match.group(3), match.start(2), end)
    paths = {name: path for name, (path, _, _) in spans.items()}
    registered = _CALL.findall(source, root.end(), list_end)
    if source[root.end() : list_end] != ",".join(f"{name}()" for name in registered):
        return None
    if any(name not in paths or not paths[name].startswith("lib/") for name in registered):
        return None
    wanted = {f"lib/{trace}.js" for trace in traces}
    if paths[root.group(2)] != "lib/core.js" or not wanted <= {paths[name] for name in registered}:
        return None
    kept_list = [name for name in registered if paths[name] in wanted]
    reached = _reachable([root.group(2), *kept_list], spans, source)
    pieces, at = [], 0
    for name, (_, start, end) in sorted(spans.items(), key=lambda item: item[1][1]):
        if name not in reached:
            pieces += [source[at:start], "0"]
            at = end
    pieces += [source[at : root.end()], ",".join(f"{name}()" for name in kept_list), source[list_end:]]
    return "".join(pieces)


def key() -> str:
    """What a trimmed chunk depends on besides Streamlit's: this code and :data:`TRACES`."""
    return f"plotly-trim {','.join(TRACES)} " + Path(__file__).read_text(encoding="utf-8")


# Streamlit's chart element renders its Plot child, ``children:q(Plot,{data:N.data,layout:N.layout,…``,
# before it knows its width: plotly.js draws the chart hidden at its default size, and again
# once the width is measured. Rendered only with a width, the chart is drawn once.
_NAME = r"[A-Za-z_$][\w$]*"
_PLOT_CHILD = re.compile(rf"children:({_NAME})\(({_NAME}),\{{data:({_NAME})\.data,layout:\3\.layout,")


def draw_once(source: str) -> str | None:
    """`source` (Streamlit's Plotly chunk) whose chart element draws the chart only once its
    width is known; None when the chunk does not have that one element."""
    found = _PLOT_CHILD.findall(source)
    if len(found) != 1:
        return None
    return _PLOT_CHILD.sub(r"children:\3.layout.width===void 0?null:\1(\2,{data:\3.data,layout:\3.layout,", source)


def trim_bytes(data: bytes) -> bytes | None:
    """:func:`trim` on the chunk's bytes (UTF-8), then :func:`draw_once` where it applies."""
    try:
        trimmed = trim(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    if trimmed is None:
        return None
    return (draw_once(trimmed) or trimmed).encode("utf-8")


def _reachable(roots: list[str], spans: dict[str, tuple[str, int, int]], source: str) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        _, start, end = spans[name]
        stack += [called for called in _CALL.findall(source, start, end) if called in spans and called not in seen]
    return seen
