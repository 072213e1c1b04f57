"""The live class's widgets, shared by the lessons that run as a class.

Who this browser session is lives in session state (:data:`TEACHER`, :data:`STUDENT`) and,
so that a server restart or another replica does not take it away, in the browser's own
storage and an HttpOnly cookie through :func:`relpos.ui.class_events.class_events`, sealed
by the server (:mod:`relpos.class_routes.identity`; never in the URL: the teacher's address bar
is on the projector). The teacher credential is never drawn: the
private teacher link is offered as a download only.

* the teacher: :func:`start_class`, :func:`projector` (code, join link, QR code, how many
  are here), :func:`question_panel` (ask, "a of N here answered", reveal, hide, ask again,
  the results) and :func:`console` (pace, the live roster with Remove, lock, CSV, private
  link, end);
* a student: :func:`join_form` (the Overview's "Join a class"), :func:`join_prompt` (a join
  link opened), :func:`answer_box` and the feedback after the reveal;
* the join link's address: :func:`public_base_url` (a configured public address, else the
  machine's network address when the teacher's browser says localhost).

Every message of the store is a :class:`~relpos.classroom.errors.ClassroomError` whose text
is shown escaped (:func:`show_error`); nicknames are validated by the store and escaped here.
"""

from __future__ import annotations

# The class views live by job; this module keeps every name the pages and tests use.
from relpos.ui.class_identity import (
    ACTIVITY,
    AGAIN,
    ANSWER,
    CLASS_PARAM,
    COUNT,
    END,
    EVENTS,
    HIDE,
    JOIN,
    JOIN_CODE,
    JOIN_NICKNAME,
    LINK,
    LOCK,
    OVER_DISMISS,
    OVER_NOTICE,
    OVERVIEW_PAGE,
    PACED,
    PAGE,
    QUESTION_ROW,
    REVEAL,
    ROSTER,
    ROSTER_LIST,
    START,
    STUDENT,
    SUBMIT,
    TEACHER,
    TEACHER_PARAM,
    TYPED,
    Role,
    ask_identity,
    flash,
    forget,
    keep_identity,
    lan_address,
    listen,
    network_base_url,
    public_base_url,
    removed_from,
    role,
    show_error,
    show_flash,
    store,
)
from relpos.ui.class_student import (
    answer_box,
    class_over,
    join_form,
    join_prompt,
    over_notice,
)
from relpos.ui.class_teacher import (
    QUIZ_ASK,
    QUIZ_DEFAULT_SEED,
    QUIZ_NUMBER,
    QUIZ_SEED,
    confirm_end,
    console,
    ended_notice,
    join_screen,
    projector,
    question_panel,
    quiz_body,
    quiz_round,
    results_chart,
    results_link,
    roster,
    short_link,
    start_class,
)

__all__ = [
    "ACTIVITY",
    "AGAIN",
    "ANSWER",
    "CLASS_PARAM",
    "COUNT",
    "END",
    "EVENTS",
    "HIDE",
    "JOIN",
    "JOIN_CODE",
    "JOIN_NICKNAME",
    "LINK",
    "LOCK",
    "OVERVIEW_PAGE",
    "OVER_DISMISS",
    "OVER_NOTICE",
    "PACED",
    "PAGE",
    "QUESTION_ROW",
    "QUIZ_ASK",
    "QUIZ_DEFAULT_SEED",
    "QUIZ_NUMBER",
    "QUIZ_SEED",
    "REVEAL",
    "ROSTER",
    "ROSTER_LIST",
    "START",
    "STUDENT",
    "SUBMIT",
    "TEACHER",
    "TEACHER_PARAM",
    "TYPED",
    "Role",
    "answer_box",
    "ask_identity",
    "class_over",
    "confirm_end",
    "console",
    "ended_notice",
    "flash",
    "forget",
    "join_form",
    "join_prompt",
    "join_screen",
    "keep_identity",
    "lan_address",
    "listen",
    "network_base_url",
    "over_notice",
    "projector",
    "public_base_url",
    "question_panel",
    "quiz_body",
    "quiz_round",
    "removed_from",
    "results_chart",
    "results_link",
    "role",
    "roster",
    "short_link",
    "show_error",
    "show_flash",
    "start_class",
    "store",
]
