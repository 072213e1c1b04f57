"""The walkthrough page: the textbook's worked example, one (query, key) pair at a time.

The lesson's state and widgets come from :mod:`relpos.topics.walkthrough.controls`, the
current stop's figures and tables from :mod:`relpos.topics.walkthrough.stage`.
"""

from __future__ import annotations

import streamlit as st

from relpos.topics.walkthrough import controls as walk
from relpos.topics.walkthrough import stage as walk_stage
from relpos.topics.walkthrough.controls import Lesson
from relpos.ui import common as ui

__all__ = ["render", "show"]


def render() -> None:
    """The whole page: the textbook example computed one (query, key) pair at a time."""
    show(walk.lesson())


def show(lesson: Lesson) -> None:
    """The page for one lesson state: the stop first in presenter mode, the background after."""
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
