"""Position effects: random embeddings and projections, a shaped a^K table, four panels.

The textbook's "visualizing relative position effects" experiment, live: the sidebar
sets the experiment (state in relpos.state.schemas.EFFECTS, mirrored in the URL), the
page draws content scores, position biases and both weight matrices, and says in
numbers what the position term did.
"""

import streamlit as st

import relpos
from relpos.lessons import effects
from relpos.plots import panels
from relpos.server import page_entry
from relpos.state import schemas as page_states
from relpos.state.export import effects_snippet
from relpos.state.schemas import EFFECTS
from relpos.text import effects as effects_text
from relpos.ui import common as ui
from relpos.ui import effects_presets
from relpos.ui import position_effects as page

page_entry()

PAGE, STATE, W = page.PAGE, page.STATE, page.W

st.title("Position effects: what the position term does to attention")
ui.markdown("position_effects")
st.latex(
    r"e_{ij} = \underbrace{\frac{q_i \cdot k_j}{\sqrt{d_k}}}_{\text{content}}"
    r" + \underbrace{\frac{q_i \cdot a^K_{\mathrm{clip}(j-i,\,k)}}{\sqrt{d_k}}}_{\text{position}}"
)
state = ui.page_state(STATE, EFFECTS)
ui.show_url_problems(STATE)
page.setup_sidebar(state)

profile, trained_note = effects_presets.preset_profile(state)  # None, [] for a hand-made or random preset
inputs = page_states.effects_inputs(state, profile)
result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)  # both terms / sqrt(d_k)
figures = panels.effects_panels(result, height=560)  # two panels a row: room for 64 tokens
favoured = effects.favoured_offsets(state["preset"], profile)
if trained_note:
    st.info("\n".join(f"- {sentence}" for sentence in trained_note))
captions = effects_text.effects_captions(result, favoured, d=inputs.queries.shape[1])
for row in (("content", "bias"), ("content_weights", "weights")):
    for name, column in zip(row, st.columns(2), strict=True):
        with column:
            ui.heatmap_panel(
                figures[name],
                captions[name],
                key=f"{W}fig.{name}",
                alt=f"Heatmap: {panels.plain_title(name, effects=True)}",
            )

st.header("What the position term did")
sentences = effects_text.effects_summary(
    inputs.queries, result, favoured, inputs.direction, trained=effects.is_trained(state["preset"]), table=inputs.table
)
st.markdown("\n".join(f"- {sentence}" for sentence in sentences))

matrices = {
    "content": result.content,
    "bias": result.bias,
    "content_weights": result.content_weights,
    "weights": result.weights,
}
ui.matrix_tables(
    {panels.plain_title(name, effects=True): matrix for name, matrix in matrices.items()}, key=W + "tables"
)

ui.export_section(
    schema=EFFECTS,
    state=state,
    url_path=PAGE,
    matrices=matrices,
    result=result,
    computed={"X": inputs.X, "W_q": inputs.W_q, "W_k": inputs.W_k, "table a^K": inputs.table},
    snippet=effects_snippet(state),
    key=W + "export",
)
ui.write_url(EFFECTS, state)
