"""A client that does not read gets no new runs: bounded memory and CPU per session.

A student's frozen laptop, a tab on a dead network or a script can keep asking for
reruns (slider moves) while never reading the answers. Streamlit would run the page for
every request and queue every answer for that client, up to 500 messages per session
(about 12 MiB on the Explorer at 64 tokens) before it drops the session, and those runs
take the CPU that the rest of the class needs.

:func:`wait_for_client` is called at the start of every run (app.py) and of every
fragment run (the Explorer's panels): while the session's client still has more than
:data:`BACKLOG` messages waiting to be sent, the run waits, sleeping (no CPU, no new
messages; a newer request or a stop ends the wait at once), for up to :data:`MAX_WAIT`
seconds. A reading client never waits (its queue
is empty when it asks for the next run); a slow one is answered as soon as it has taken
the previous answer, with its latest widget values (Streamlit folds requests that arrive
meanwhile into the next run, as it always does); a client that has gone away ends the
wait and the run (its reconnect reruns the page: relpos.ui.reconnect). Nothing is
dropped: the run that waited goes on and draws the latest state.

The one private detail, isolated here: Streamlit's WebSocket session client
(``StarletteSessionClient``) keeps its outgoing messages in an ``asyncio.Queue`` named
``_send_queue``; Streamlit offers no public way to ask how many are waiting. When the
attribute is missing (another Streamlit version or server) :func:`pending_messages`
answers ``None`` and nothing waits; ``tests/test_backpressure.py`` fails on such an
upgrade, so it cannot go unnoticed. Nothing is patched.
"""

from __future__ import annotations

import asyncio
import time

import streamlit as st

from relpos.ui.keys import state_key

#: Messages a client may leave unread before its next run waits: more than the few a
#: busy event loop has not flushed yet, fewer than one Explorer run sends (~50).
BACKLOG = 16
#: Longest wait (s) before a run goes ahead anyway; a client that never reads is cut off
#: by Streamlit's WebSocket ping timeout (30 s + 30 s) or its 500-message limit.
MAX_WAIT = 20.0
#: Seconds between the first two looks at the queue; each later look waits twice as
#: long, up to POLL_MAX: a client that catches up is answered quickly, while fifty
#: stalled ones wake rarely (each wake-up competes for the interpreter lock, and frequent
#: ones delayed everyone else's runs: p95 2.2 s with 0.1 s polls, 0.9 s with 1 s polls).
POLL = 0.05
POLL_MAX = 1.0
#: A session-state key nobody sets: reading it is only a yield point.
_NEVER_SET = state_key("app", "backpressure-yield")


def _session():
    """(runtime, session id) of this run, or None outside a served session (AppTest, bare import)."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    context = get_script_run_ctx()
    if context is None or not runtime.exists():
        return None
    return runtime.get_instance(), context.session_id


def pending_messages(client) -> int | None:
    """Messages the client has not been sent yet, or None if the server cannot say."""
    queue = getattr(client, "_send_queue", None)
    return queue.qsize() if isinstance(queue, asyncio.Queue) else None  # AppTest's client is a mock


def wait_for_client() -> None:
    """Sleep while this session's client leaves more than BACKLOG messages unread.

    Ends the run (st.stop) if the client disconnects while the run waits.
    """
    served = _session()
    if served is None:
        return
    server, session_id = served
    deadline = time.monotonic() + MAX_WAIT
    waited, pause = False, POLL
    while True:
        client = server.get_client(session_id)
        if client is None:  # disconnected: its reconnect reruns the page
            if waited:
                st.stop()
            return
        pending = pending_messages(client)
        if pending is None or pending <= BACKLOG or time.monotonic() > deadline:
            return
        waited = True
        time.sleep(pause)
        pause = min(2 * pause, POLL_MAX)
        _yield_point()


def _yield_point() -> None:
    """Let Streamlit end this run here if a newer rerun or a stop was requested.

    Reading session state is one of the points where Streamlit checks for such
    requests (as at every element): without it a waiting run would linger after
    Streamlit had started its successor in a new thread.
    """
    st.session_state.get(_NEVER_SET)
