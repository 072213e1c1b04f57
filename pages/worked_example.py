"""Classroom walkthrough: the textbook example computed one (query, key) pair at a time."""

import streamlit as st

from relpos.server import page_entry
from relpos.ui import common as ui
from relpos.ui import walkthrough as walk
from relpos.ui import walkthrough_stage as walk_stage

page_entry()

lesson = walk.lesson()
walk.sync_url(lesson)
ui.presenter_style(lesson.presenter)

heading, toggle = st.columns([3, 1], vertical_alignment="center")
heading.title("Walkthrough: one pair at a time")
with toggle:
    walk.presenter_toggle()
if not lesson.presenter:  # the teacher is talking: the stop comes first, the rest below it
    ui.markdown("walkthrough_intro")
    walk.edited_note(lesson)
    ui.callout("walkthrough_offsets")
walk.problems_summary(lesson)

walk.step_controls(lesson)
walk_stage.stage(lesson)
if lesson.presenter:  # one screen holds the stop; the note, conventions and editor follow
    walk.edited_note(lesson)
    ui.callout("walkthrough_offsets")
    walk.live_editor(lesson)
walk_stage.offset_section(lesson)

st.divider()
ui.markdown("walkthrough_background")
walk_stage.step_table(lesson)
walk.export_section(lesson)

with st.sidebar:
    if not lesson.presenter:
        walk.editor(lesson)
        st.divider()
    walk.share(lesson)
