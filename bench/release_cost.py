"""Server cost of one Explorer release (a stall's burst of fragment runs).

Part 1, the fragment body's pure part (what ``relpos.topics.explorer.view.explorer_body`` computes
besides Streamlit): the path before (seven whole Plotly figures with every cell's text,
hover strings and z, then stripped to skeletons by ``oracle.spec_from_figures``) and the path now
(``panel_spec.release_spec``: skeletons and hover recipes built directly, the offset map's
skeleton cached by size), timed alternately in one run, same state, for each n.

Part 2 (``--served OLD_TREE``): whole releases through served apps, the tree at
OLD_TREE (e.g. ``git archive <commit> | tar -x -C /tmp/old``) next to this one, one
protocol client each (tests/support/streamlit_client.py) releasing the Explorer panel's aᴷ₀ slider;
reports each server's CPU time per release (utime + stime from /proc) and the client's
wall time, in alternating blocks.

Run: python bench/release_cost.py [n ...] [--served /tmp/old]   (from the repository root;
default n = 8 16 64)
"""

from __future__ import annotations

import pickle
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import relpos
from relpos.plots import panels
from relpos.text import explain
from relpos.topics.explorer import panel_spec
from relpos.topics.explorer import schema as explorer_schema
from tests.support import oracle

SIZES = (8, 16, 64)


def setting(n: int):
    """State, inputs and result of a link with only n (the default preset), as the page computes them."""
    state = explorer_schema.EXPLORER.decode({"n": str(n)}).state
    inputs = explorer_schema.explorer_inputs(state)
    result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    return state, inputs, result


def body_before(state, inputs, result, offsets_pickle: bytes | None) -> dict:
    """The fragment body's pure part as it was: whole figures (the offset map a cached copy:
    st.cache_data unpickles one per call; None: built afresh), then stripped."""
    n, height = state["n"], panels.panel_height(state["n"])
    hovers = panel_spec.explorer_hovers(inputs.queries, inputs.keys, inputs.table, result, cells=True)
    figures = oracle.explorer_panels(
        inputs.queries, inputs.keys, inputs.table, result, height=height, offsets=False, hovers=hovers
    )
    if offsets_pickle is None:
        figures["offsets"] = panel_spec.offset_map_panel(n, n, state["k"], height)
    else:  # an unpickled figure's template reads {"data": {"scatter": [...]}}, not {}: no heatmap uses it
        figures["offsets"] = pickle.loads(offsets_pickle)
    captions = explain.explorer_captions(result)
    spec = oracle.spec_from_figures(state, inputs, figures, captions, result=result, hovers=hovers, seq=n)
    explain.diagonal_note(inputs.queries, inputs.table, result)
    panels.panel_matrices(result)
    return spec


def body_now(state, inputs, result, _unused: bytes) -> dict:
    """The fragment body's pure part now."""
    captions = explain.explorer_captions(result)
    spec = panel_spec.release_spec(state, inputs, result, captions, seq=state["n"])
    explain.diagonal_note(inputs.queries, inputs.table, result)
    panels.panel_matrices(result)
    return spec


def time_bodies(n: int, rounds: int = 7, repeat: int = 20) -> tuple[float, float]:
    """Median ms per call of each body, timed in alternating rounds (same machine load for both)."""
    state, inputs, result = setting(n)
    offsets = pickle.dumps(panel_spec.offset_map_panel(n, n, state["k"], panels.panel_height(n)))
    if body_before(state, inputs, result, None) != body_now(state, inputs, result, offsets):
        raise AssertionError(f"n = {n}: the two paths send different specs")
    times: dict = {body_before: [], body_now: []}
    for _ in range(rounds):
        for body in times:
            started = time.perf_counter()
            for _ in range(repeat):
                body(state, inputs, result, offsets)
            times[body].append((time.perf_counter() - started) / repeat * 1000)
    return statistics.median(times[body_before]), statistics.median(times[body_now])


def pure_part(sizes) -> None:
    print("fragment body, pure part (median ms per release, alternating rounds)")
    print(f"{'n':>5} {'before':>9} {'now':>9} {'before/now':>11}")
    for n in sizes:
        before, now = time_bodies(n)
        print(f"{n:>5} {before:>9.2f} {now:>9.2f} {before / now:>11.1f}")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    old_tree = None
    if "--served" in arguments:
        at = arguments.index("--served")
        old_tree = arguments[at + 1]
        del arguments[at : at + 2]
    chosen = [int(a) for a in arguments] or list(SIZES)
    pure_part(chosen)
    if old_tree:
        import release_served

        release_served.main(chosen, Path(old_tree))
