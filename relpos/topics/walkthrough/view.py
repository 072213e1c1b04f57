"""The walkthrough page: the textbook's worked example, one (query, key) pair at a time.

The lesson's state and widgets come from :mod:`relpos.topics.walkthrough.controls`, the
current stop's figures and tables from :mod:`relpos.topics.walkthrough.stage`, the live
class (start, follow, ask, answer) from :mod:`relpos.topics.walkthrough.live`.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from relpos import ui
from relpos.topics.walkthrough import controls as walk
from relpos.topics.walkthrough import live as walk_live
from relpos.topics.walkthrough import stage as walk_stage
from relpos.topics.walkthrough.controls import Lesson

__all__ = ["render", "show"]


def render() -> None:
    """The whole page: the textbook example computed one (query, key) pair at a time."""
    live = walk_live.follow()  # a paced student's stop is the teacher's, set before the lesson is read
    if live.following:  # the browser draws each stop: a Next costs no run of this page
        walk_live.follow_page(live)
        return
    if live.invited:  # a join link: the join box first, the lesson once joined
        walk_live.join_page(live)
        return
    lesson = walk.lesson()
    show(replace(lesson, locked=live.locked, asked=walk_live.asked(lesson, live)), live)


def show(lesson: Lesson, live: walk_live.Live | None = None) -> None:
    """The page for one lesson state: the stop first in presenter mode, the background after."""
    live = live or walk_live.Live()
    walk.sync_url(lesson)
    ui.presenter_style(lesson.presenter)
    record = walk_live.push(lesson, live)  # the teacher's stop, before the version is listened to
    walk_live.listen(live, record)

    if lesson.presenter:  # Start a class in the title's row: on the first screen, with no row of its own
        heading, start, toggle = st.columns([2, 1, 1], vertical_alignment="center")
    else:
        heading, toggle = st.columns([3, 1], vertical_alignment="center")
        start = toggle
    heading.title("Walkthrough: one pair at a time")
    with toggle:
        walk.presenter_toggle()
    with start:
        walk_live.start_button(lesson, live)
    walk_live.class_panel(lesson, live)
    # the teacher is talking (presenter mode, or a paced student): the stop first, the rest below it
    if not lesson.presenter and not live.locked:
        ui.markdown("walkthrough_intro")
        walk.edited_note(lesson)
        ui.callout("walkthrough_offsets")
    walk.problems_summary(lesson)

    walk.step_controls(lesson)
    walk_live.student_panel(lesson, live)
    walk_stage.stage(lesson)
    walk_live.teacher_questions(lesson, live)
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
    walk.land_on_stop()
