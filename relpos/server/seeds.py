"""Widget values that the app sets reach the browser, even when a click races the run.

A value a page writes into ``st.session_state`` for a keyed widget (a lesson link's
numbers, a reset) goes to the browser once, with the run that wrote it, marked "set by
the app"; later runs draw the widget as one the browser already holds. A browser that
sent its next request before it had applied that run (a tap or a toggle while the first
run is still arriving) never holds the value: it draws the widget with its default, an
empty field, while the server keeps the value, and both disagree unseen until the next
interaction sends the empty text back and overwrites it.

So a value set with :func:`set_widget` stays pending until the browser reports that
widget with a request (then it holds a value of its own); every run before that writes
the value again (:func:`resend`, before the page draws anything), which marks it "set by
the app" for that run too. What is written again is the server's current value, and a
widget the browser does report is never written: nothing the learner typed is replaced.
"""

from __future__ import annotations

import streamlit as st

from relpos.server import internals

__all__ = ["resend", "set_widget"]

#: Session value: keys of widgets whose value the app set and the browser has not reported yet.
PENDING = "app:pending_widget_values"


def set_widget(key: str, value) -> None:
    """Set the keyed widget `key` to `value` (from a callback, or before it is drawn)."""
    st.session_state[key] = value
    st.session_state.setdefault(PENDING, set()).add(key)


def resend() -> None:
    """Before the page: write again every pending value the browser did not report with this
    run's request, so this run sends it; forget those it did report."""
    state = st.session_state
    pending = state.get(PENDING)
    if not pending:
        return
    reported = internals.reported_widget_ids()
    for key in list(pending):
        if key not in state or reported is None:  # gone, or the server cannot tell: as Streamlit does
            pending.discard(key)
        elif internals.widget_id(key) in reported:
            pending.discard(key)  # the browser holds a value of its own
        else:
            state[key] = state[key]
