"""Nothing lost when a browser reconnects to a server that does not know its session.

A server restart, or a load balancer moving a browser to another replica, leaves the
open page talking to a server session that has never run it. Streamlit's browser
reconnects by itself and keeps showing the old view, but that new session knows none of
the page's fragments and none of its widgets:

* a widget inside an ``st.fragment`` (the Explorer's sliders) asks for a rerun of a
  fragment id the session does not hold, and ``AppSession.request_rerun`` drops it
  without a trace: every slider move is lost until something reruns the whole page;
* a button with an ``on_click`` callback (the walkthrough's Next) reaches a session that
  has no metadata for it, so its callback is never called: the first click is lost.

Both need the same thing: the new session must have run the page once before the
student's next interaction. Streamlit's browser already does exactly that for apps with
an auto-rerunning fragment: when its WebSocket connects again it asks for a full run
with its current widget values whenever a ``run_every`` fragment is registered (otherwise
the new session would not know that fragment either). :func:`rerun_on_reconnect`
registers such a fragment, empty and ticking once an hour, on every run of every page
(app.py calls it before the page). After any reconnect the page therefore runs once:
its state is rebuilt from the URL (which always holds the whole view), every widget and
fragment is registered again, and the next slider move or click is applied as usual.

No private Streamlit API is used or patched. The only window left is the run itself:
an interaction sent while that first run is still going (the page shows it is running;
about 0.1–1 s after the reconnect, longer on a server that is still importing) can
reach the server before the fragment is registered again.
``tests/test_restart.py`` kills and restarts a real server under open browser tabs and
checks that the next interaction is drawn.
"""

from __future__ import annotations

import streamlit as st

#: Seconds between the marker fragment's own reruns: long, because its only job is to
#: exist (each tick reruns an empty fragment). Far below JavaScript's setInterval limit
#: of 2³¹ − 1 ms (24.8 days), beyond which browsers fire immediately.
TICK_SECONDS = 3600


@st.fragment(run_every=TICK_SECONDS)
def _reconnect_marker() -> None:
    """Draws nothing: its registration is what makes the browser rerun on reconnect."""


def rerun_on_reconnect() -> None:
    """Make the browser run the whole page once after any reconnect (see the module doc)."""
    with st.sidebar:
        _reconnect_marker()
