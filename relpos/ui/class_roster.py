"""The teacher's roster: a custom component (``st.components.v2``) drawing every student
with ✓ once they answered, greyed once they left, and a Remove button that asks first.

One element however many students (``relpos/ui/roster_assets/roster.js``; a row of
Streamlit widgets per student cost a teacher's run about 15 ms at 60 students, at every
Next), in a box of fixed height that scrolls. Removing a student is a trigger: the
callback reads the student's number with :func:`removal`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

from relpos.classroom.presence import Attendance
from relpos.ui import components

__all__ = ["NAME", "removal", "roster_list", "rows"]

#: Streamlit's name for the component: ``<project>.<component>`` from pyproject.toml.
NAME = components.name("class_roster")


def rows(attendance: Attendance) -> list[dict]:
    """The students as the component draws them: those here first, then those who left.

    >>> from relpos.classroom.model import Student
    >>> ada, bo = Student("t1", 1, "Ada", 0.0), Student("t2", 2, None, 0.0)
    >>> drawn = rows(Attendance((ada, bo), here=frozenset({2}), answered=frozenset({1})))
    >>> [(row["label"], row["here"], row["answered"]) for row in drawn]
    [('anonymous 2', True, False), ('Ada', False, True)]
    """
    ordered = (*attendance.present, *attendance.away)
    return [
        {
            "n": s.number,
            "label": s.label,
            "here": s.number in attendance.here,
            "answered": s.number in attendance.answered,
        }
        for s in ordered
    ]


def roster_list(attendance: Attendance, *, key: str, on_remove: Callable[..., None], args: tuple = ()) -> None:
    """Draw the roster; ``on_remove(*args)`` runs (a widget callback) when the teacher confirms a removal."""
    mount = components.mount("class_roster")
    mount(key=key, data={"rows": rows(attendance)}, on_remove_change=functools.partial(on_remove, *args))


def removal(key: str) -> int | None:
    """The number of the student whose removal the teacher just confirmed, if any."""
    result = st.session_state.get(key)
    number = result.get("remove") if hasattr(result, "get") else None
    return number if type(number) is int else None
