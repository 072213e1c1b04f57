"""The walkthrough page: the textbook's worked example, one (query, key) pair at a time.

The lesson's state and widgets come from :mod:`relpos.topics.walkthrough.controls_view`, the
current stop's figures and tables from :mod:`relpos.topics.walkthrough.stage_view`, the live
class (start, follow, ask, answer) from :mod:`relpos.topics.walkthrough.classroom_view`.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from relpos import ui
from relpos.topics.walkthrough import classroom_view, controls_view, stage_view
from relpos.topics.walkthrough.controls_view import Lesson

__all__ = ["render", "show"]


def render() -> None:
    """The whole page: the textbook example computed one (query, key) pair at a time."""
    in_class = classroom_view.follow()  # a paced student's stop is the teacher's, set before the lesson is read
    if in_class.following:  # the browser draws each stop: a Next costs no run of this page
        classroom_view.follow_page(in_class)
        return
    if in_class.invited:  # a join link: the join box first, the lesson once joined
        classroom_view.join_page(in_class)
        return
    lesson = controls_view.lesson()
    show(replace(lesson, locked=in_class.locked, asked=classroom_view.asked(lesson, in_class)), in_class)


def show(lesson: Lesson, in_class: classroom_view.InClass | None = None) -> None:
    """The page for one lesson state: the stop first in presenter mode, the background after."""
    in_class = in_class or classroom_view.InClass()
    controls_view.sync_url(lesson)
    ui.presenter_style(lesson.presenter)
    record = classroom_view.push(lesson, in_class)  # the teacher's stop, before the version is listened to
    classroom_view.listen(in_class, record)

    if lesson.presenter:  # Start a class in the title's row: on the first screen, with no row of its own
        heading, start, toggle = st.columns([2, 1, 1], vertical_alignment="center")
    else:
        heading, toggle = st.columns([3, 1], vertical_alignment="center")
        start = toggle
    heading.title("Walkthrough: one pair at a time")
    with toggle:
        controls_view.presenter_toggle()
    with start:
        classroom_view.start_button(lesson, in_class)
    classroom_view.class_panel(lesson, in_class)
    # the teacher is talking (presenter mode, or a paced student): the stop first, the rest below it
    if not lesson.presenter and not in_class.locked:
        ui.markdown("walkthrough_intro")
        controls_view.edited_note(lesson)
        ui.callout("walkthrough_offsets")
    controls_view.problems_summary(lesson)

    controls_view.step_controls(lesson)
    classroom_view.student_panel(lesson, in_class)
    stage_view.stage(lesson)
    classroom_view.teacher_questions(lesson, in_class)
    if lesson.presenter:  # one screen holds the stop; the note, conventions and editor follow
        controls_view.edited_note(lesson)
        ui.callout("walkthrough_offsets")
        controls_view.presenter_editor(lesson)
    stage_view.offset_section(lesson)

    st.divider()
    ui.markdown("walkthrough_background")
    stage_view.step_table(lesson)
    controls_view.export_section(lesson)

    with st.sidebar:
        if not lesson.presenter:
            controls_view.editor(lesson)
            st.divider()
        controls_view.share(lesson)
    controls_view.land_on_stop()
