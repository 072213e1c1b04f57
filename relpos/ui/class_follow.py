"""A following student's screen: a custom component (``st.components.v2``) that draws each
of the teacher's stops in the browser, from the class's view (:mod:`relpos.class_routes.following`).

Mounted once, when a student of a paced class opens or joins the lesson; from then on a
Next costs the server no run of the student's page (the script in
``relpos/ui/follow_assets/follow.js`` fetches and draws the new view). It hands the page
back (sets its ``handover`` state, which reruns the script) when the class stops being
paced, ends, or is gone.
"""

from __future__ import annotations

import streamlit as st

from relpos.class_routes import following
from relpos.class_routes.events import events_path
from relpos.classroom.presence import seat_tag
from relpos.ui import components

__all__ = ["NAME", "follow_view"]

#: Streamlit's name for the component: ``<project>.<component>`` from pyproject.toml.
NAME = components.name("class_follow")


def _ignore() -> None:
    """The state change itself is the message: the rerun reads the store again."""


def _path(template: str, code: str) -> str:
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return ("/" + base if base else "") + template.format(code=code)


def follow_view(code: str, version: int, token: str, *, key: str) -> None:
    """Draw class `code`'s stops in this browser from `version` on (see the module notes).

    `token` is the student's secret: sent with their answers in a header, never in a URL
    (the stream names the seat by a sealed ticket; the view lists removed seats by their tag).
    """
    mount = components.mount("class_follow")
    data = {
        "code": code,
        "version": int(version),
        "token": token,
        "events": events_path(code, "state", seat=token),
        "seat": seat_tag(token),
        "view": _path(following.VIEW_PATH, code),
        "answer": _path(following.ANSWER_PATH, code),
        "mine": _path(following.MINE_PATH, code),
        "plotly": components.plotly_chunk(),
        "katex": components.katex_chunk(),
    }
    mount(key=key, data=data, default={"handover": None}, on_handover_change=_ignore)
