"""Go further: train a tiny attention head live, watch a^K learn, and test it on longer sequences."""

import streamlit as st

from relpos.server import page_entry
from relpos.state.schemas import TRAINING
from relpos.ui import common as ui
from relpos.ui import training as page

page_entry()

st.title("Train a tiny head")
ui.markdown("training")
state = ui.page_state(page.STATE, TRAINING)
ui.show_url_problems(page.STATE)
page.sidebar(state)

heads = page.train_controls(state)
if heads is not None:
    page.loss_section(heads)
    head = heads[page.detail_scheme(heads)]
    page.position_section(head)
    page.attention_section(head)
page.length_section(state)
page.export_section(state, heads)
ui.write_url(TRAINING, state)
