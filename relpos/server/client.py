"""Browser-side helpers of the classroom: ``relpos/server/assets/classroom.js``.

Formulas scaled to fit their column (or made keyboard-scrollable regions when they
cannot), text fields that let go of the focus after Enter (so a clicker steps the lesson
again), and the current walkthrough stop kept in view after Previous / Next in presenter
mode. Static code, no user text; installed once per browser tab (it watches the page
itself, so later runs and page switches need nothing more).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

#: The script (static, read once).
SCRIPT = (Path(__file__).parent / "assets" / "classroom.js").read_text(encoding="utf-8")

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
