"""Size of the Explorer Explorer panel's spec, one release's message.

Prints, for each n, the JSON size of :func:`tests.support.oracle.spec_from_figures` as the page
builds it (figure skeletons, the browser fills the cells) next to the same spec carrying
the seven figures whole (what the page sent before: every cell's ``z``, ``text`` and
``customdata``), and their ratio. Both are measured side by side in one run from the
same state (the default preset, as a link with only ``n`` opens it).

Run: python bench/spec_size.py [n ...]   (from the repository root; default 2 8 16 64 128 512)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import relpos
from relpos.plots import panels
from relpos.text import explain
from relpos.topics.explorer import panel_spec
from relpos.topics.explorer import schema as explorer_schema
from tests.support import oracle

SIZES = (2, 8, 16, 64, 128, 512)
#: What the spec carries only since the figures travel as skeletons (recipes, shared parts).
COMPACT_ONLY = ("offsets", "origin", "layout", "trace")


def page_spec(query: dict[str, str], *, seq: int = 0) -> tuple[dict, dict]:
    """The spec the Explorer sends for a link's query (built from the whole figures; the page's
    panel_spec.release_spec sends the same without building them, tests/explorer/test_panel_spec.py),
    and the seven Plotly figures it was made from, keyed as :data:`relpos.topics.explorer.panel_spec.PANEL_ORDER`."""
    state = explorer_schema.EXPLORER.decode(query).state
    inputs = explorer_schema.explorer_inputs(state)
    scalar = state["bias"] == "scalar"
    if scalar:
        result = relpos.scalar_bias_attention(inputs.queries, inputs.keys, inputs.table[:, 0])
    else:
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    layout = panel_spec.panel_layout(state)
    height = panels.panel_height(state["n"], layout)
    hovers = panel_spec.explorer_hovers(inputs.queries, inputs.keys, inputs.table, result, scalar=scalar, cells=True)
    figures = oracle.explorer_panels(
        inputs.queries, inputs.keys, inputs.table, result, scalar=scalar, height=height, hovers=hovers, layout=layout
    )
    captions = explain.explorer_captions(result, scalar=scalar)
    return oracle.spec_from_figures(state, inputs, figures, captions, result=result, hovers=hovers, seq=seq), figures


def spec_bytes(n: int) -> tuple[int, int]:
    """JSON bytes of one release's spec for n tokens: (figures whole, skeletons)."""
    spec, figures = page_spec({"n": str(n)})
    before = {key: value for key, value in spec.items() if key not in COMPACT_ONLY}
    whole = {**before, "figures": {name: oracle.figure_json(figure) for name, figure in figures.items()}}
    return len(json.dumps(whole).encode()), len(json.dumps(spec).encode())


def main(sizes: list[int]) -> None:
    print(f"{'n':>5} {'whole figures':>15} {'skeletons':>11} {'ratio':>7}")
    for n in sizes:
        before, after = spec_bytes(n)
        print(f"{n:>5} {before / 1024:>11.1f} KiB {after / 1024:>7.1f} KiB {before / after:>6.0f}x")


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or list(SIZES))
