"""Browser-side helpers of the classroom: ``relpos/server/assets/classroom.js``.

Formulas scaled to fit their column (or made keyboard-scrollable regions when they
cannot), text fields that let go of the focus after Enter (so a clicker steps the lesson
again), the current walkthrough stop kept in view after Previous / Next in presenter
mode, presenter mode's folded sidebar, free focus and "Copy link" button, a phone's
decimal keyboard in the number fields, and the window width in a cookie for the server
(``relpos.ui.common.phone_screen``). Static code, no user text; installed once per
browser tab (it watches the page itself, so later runs and page switches need nothing
more).
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from relpos.state.keys import NUMBER_FIELDS, css_class

#: The script (static, read once), with the st-key classes of the number fields filled in.
SCRIPT = (
    (Path(__file__).parent / "assets" / "classroom.js")
    .read_text(encoding="utf-8")
    .replace("/*NUMBER_FIELDS*/[]", json.dumps([css_class(key) for key in NUMBER_FIELDS]))
)

#: Session key: the helpers have been sent to this browser tab.
_INSTALLED = "client:installed"


def install_client_helpers() -> None:
    """Send the helpers until a run that sent them has finished (no visible output).

    A run cut short by ``st.switch_page`` (the "/overview" alias sends a visitor home)
    may never reach the browser, so the session counts them as sent only in
    :func:`client_helpers_sent`, at the end of a complete run; the script itself ignores
    a second copy.
    """
    if st.session_state.get(_INSTALLED):
        return
    with st.sidebar:
        st.html(f"<script>{SCRIPT}</script>", unsafe_allow_javascript=True)


def client_helpers_sent() -> None:
    """Call at the end of a complete run: the helpers sent in it reached the browser."""
    st.session_state[_INSTALLED] = True
