"""Explorer: content scores, position biases and weights under sliders, side by side.

The whole view lives in one state dict (relpos.state.schemas.EXPLORER) mirrored in the
URL; the sidebar changes its structure (preset, n, k, d, seed), the sliders in the
fragment change its values and redraw only the fragment.
"""

import streamlit as st

import relpos
from relpos.lessons import presets
from relpos.plots import panels
from relpos.state import export
from relpos.state import schemas as page_states
from relpos.state.schemas import EXPLORER, SLIDER_K, SLIDER_TOKENS
from relpos.text import explain, numbers
from relpos.ui import common as ui
from relpos.ui.routing import require_app_entry

require_app_entry()

PAGE = "explorer"  # url_path
STATE = "explorer"  # st.session_state key of the state dict
W = "explorer."  # prefix of this page's widget keys (forgotten when the state is replaced)
TAB = "explorer:tab"  # the open value tab survives preset changes
# plain Unicode labels: a screen reader announces the label text as it is (KaTeX source would be read out)
TAB_TABLE, TAB_QUERIES, TAB_KEYS = "Table aᴷ", "Queries qᵢ", "Keys kⱼ"
LOW, HIGH = presets.VALUE_RANGE


def _state() -> dict:
    return st.session_state[STATE]


def _replace(new: dict) -> None:
    ui.set_page_state(STATE, new, widget_prefix=W)


# --- callbacks of the sidebar (structural changes) -------------------------------------
def _on_preset() -> None:
    _replace(page_states.apply_preset(_state(), st.session_state[W + "preset"]))


def _on_n() -> None:
    _replace(page_states.resize(_state(), n=st.session_state[W + "n"]))


def _on_k() -> None:
    _replace(page_states.resize(_state(), k=st.session_state[W + "k"]))


def _on_d() -> None:
    _replace(dict(_state(), d=st.session_state[W + "d"]))


def _on_seed() -> None:
    _replace(page_states.reseed(_state(), st.session_state[W + "seed"]))


def _on_upload(state: dict) -> None:
    _replace(state)


#: Sequence lengths offered: every n with per-token sliders, then a few long ones.
TOKEN_COUNTS = (*range(2, SLIDER_TOKENS + 1), 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def _token_counts(current: int) -> list[int]:
    """The offered lengths, plus one a link asked for if it is not among them."""
    return sorted(set(TOKEN_COUNTS) | {current})


def setup_sidebar(state: dict) -> None:
    with st.sidebar:
        st.subheader("Scenario")
        for name in ("preset", "k", "d", "seed"):
            ui.seed_widget(W + name, state[name])
        ui.seed_widget(W + "n", state["n"])
        st.selectbox(
            "Preset", list(presets.PRESETS), format_func=presets.PRESETS.get, key=W + "preset", on_change=_on_preset
        )
        st.select_slider(
            "Tokens n",
            _token_counts(state["n"]),
            key=W + "n",
            on_change=_on_n,
            help=f"Up to {SLIDER_TOKENS} tokens every q and k has a slider; longer sequences are generated "
            "from the preset and seed.",
        )
        st.slider(
            "Clipping distance k",
            0,
            state["n"] - 1,
            key=W + "k",
            on_change=_on_k,
            help="Offsets j − i beyond ±k share the table entries of ±k.",
        )
        st.radio(
            "Vector size d",
            (1, 2),
            key=W + "d",
            on_change=_on_d,
            horizontal=True,
            format_func=lambda d: "d = 1 (textbook)" if d == 1 else "d = 2",
            help="With d = 2 the sliders set the first coordinate; the second comes from the seed.",
        )
        st.number_input(
            "Seed",
            0,
            999_999,
            key=W + "seed",
            on_change=_on_seed,
            help="Draws the random preset, the values beyond the textbook's four tokens and "
            "the second coordinates for d = 2.",
        )
        ui.scenario_upload(PAGE, EXPLORER, key=W + "upload", on_loaded=_on_upload, lazy_key="explorer:load")


# --- the fragment: value sliders and everything they change ----------------------------
def _slider_grid(values: list, key: str, labels: list[str]) -> None:
    """One slider per value, eight to a row; writes the slider values back into `values`."""
    columns = st.columns(min(8, len(values)))
    for index, label in enumerate(labels):
        widget = f"{W}v.{key}.{index}"
        ui.seed_widget(widget, values[index])
        with columns[index % len(columns)]:
            values[index] = round(st.slider(label, LOW, HIGH, step=presets.VALUE_STEP, key=widget, format="%.2f"), 2)


def value_sliders(state: dict, inputs: presets.ExplorerInputs) -> None:
    """The value sliders in three tabs; only the open tab's sliders run (lazy tabs)."""
    n, k = state["n"], state["k"]
    table_tab, query_tab, key_tab = st.tabs([TAB_TABLE, TAB_QUERIES, TAB_KEYS], key=TAB, on_change="rerun")
    second = "The sliders set the first coordinate; the second comes from the seed: " if state["d"] == 2 else ""
    for tab, name, symbol, matrix in ((query_tab, "q", "q", inputs.queries), (key_tab, "keys", "k", inputs.keys)):
        if not tab.open:
            continue
        with tab:
            if state[name] is None:
                st.info(
                    f"With more than {SLIDER_TOKENS} tokens the values are generated from the preset and "
                    f"seed (range {explain.number(matrix[:, 0].min())} to {explain.number(matrix[:, 0].max())})."
                )
                continue
            _slider_grid(state[name], name, [f"{symbol}{numbers.subscript(i + 1)}" for i in range(n)])
            if second:
                st.caption(second + ", ".join(explain.number(v) for v in matrix[:, 1]))
    if table_tab.open:
        with table_tab:
            if state["a"] is None:
                st.info(f"With k > {SLIDER_K} the {2 * k + 1} table entries are generated from the preset and seed.")
            else:
                labels = [f"aᴷ{numbers.offset_subscript(o)}" for o in range(-k, k + 1)]
                _slider_grid(state["a"], "a", labels)
                if second:
                    st.caption(second + ", ".join(explain.number(v) for v in inputs.table[:, 1]))


@st.cache_resource(max_entries=64, show_spinner=False)
def _offset_map(n: int, k: int, height: int):
    """The offset map depends on n and k only: build it once per size (never mutated)."""
    return panels.offset_map(n, n, k, height)


@st.cache_data(max_entries=64, show_spinner=False)
def _generated_inputs(state: dict) -> presets.ExplorerInputs:
    """Drawing a preset's values for up to 512 tokens is worth keeping."""
    return page_states.explorer_inputs(state)


def _inputs(state: dict) -> presets.ExplorerInputs:
    """Arrays of a state: straight from the sliders, or drawn (and cached) when generated."""
    explicit = None not in (state["q"], state["keys"], state["a"]) and state["d"] == 1
    return page_states.explorer_inputs(state) if explicit else _generated_inputs(state)


@st.fragment
def explorer_body() -> None:
    """Value sliders and everything they change: a slider move reruns only this."""
    state = _state()
    value_sliders(state, _inputs(state))
    inputs = _inputs(state)  # with this run's slider values
    ui.seed_widget(W + "scalar", state["bias"] == "scalar")
    scalar = st.toggle(explain.SCALAR_TOGGLE_LABEL, key=W + "scalar")
    state["bias"] = "scalar" if scalar else "shaw"
    if scalar:
        result = relpos.scalar_bias_attention(inputs.queries, inputs.keys, inputs.table[:, 0])
    else:
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    height = panels.panel_height(state["n"])
    figures = panels.explorer_panels(
        inputs.queries, inputs.keys, inputs.table, result, scalar=scalar, height=height, offsets=False
    )
    figures["offsets"] = _offset_map(state["n"], state["k"], height)
    captions = explain.explorer_captions(result, scalar=scalar)
    for row in (("content", "bias", "scores"), ("content_weights", "weights", "difference")):
        for name, column in zip(row, st.columns(3), strict=True):
            with column:
                ui.heatmap_panel(
                    figures[name], captions[name], key=f"{W}fig.{name}", alt=f"Heatmap: {panels.plain_title(name)}"
                )
    st.info(explain.diagonal_note(inputs.queries, inputs.table, result, scalar=scalar), icon=":material/search:")
    offset_column, text_column = st.columns([1, 2])
    with offset_column:
        ui.heatmap_panel(
            figures["offsets"],
            captions["offsets"],
            key=f"{W}fig.offsets",
            alt="Heatmap: offset map, the table row each pair uses",
        )
    with text_column:
        ui.markdown("explorer_offsets")
    matrices = panels.panel_matrices(result)
    ui.matrix_tables({panels.plain_title(name): matrix for name, matrix in matrices.items()}, key=W + "tables")
    ui.export_section(
        schema=EXPLORER,
        state=state,
        url_path=PAGE,
        matrices=matrices,
        result=result,
        computed={"queries": inputs.queries, "keys": inputs.keys, "table a^K": inputs.table},
        snippet=export.explorer_snippet(state, inputs.queries, inputs.keys, inputs.table),
        key=W + "export",
    )
    ui.write_url(EXPLORER, state)


st.title("Explorer: content and position, side by side")
ui.markdown("explorer")
state = ui.page_state(STATE, EXPLORER)
ui.show_url_problems(STATE)
setup_sidebar(state)
explorer_body()
