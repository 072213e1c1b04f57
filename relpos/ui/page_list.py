"""The app's pages as ``st.Page`` objects, by sidebar section (built from relpos.ui.navigation)."""

from __future__ import annotations

import streamlit as st

from relpos.server import run_finished
from relpos.state.keys import state_key
from relpos.ui.navigation import HOME_URL_PATH, PAGES

#: Session key of the st.Page objects: built once per session, not on every rerun
#: (constructing them resolves and checks every page file: ~1.5 ms a rerun).
SECTIONS = state_key("app", "sections")


def declare_sections() -> dict[str, list]:
    """The pages by sidebar section, plus a hidden alias of the first page.

    The first page is served at "/"; it gets a private url_path so that its own name can
    belong to the alias: a typed or bookmarked /overview then opens it instead of
    showing Streamlit's "Page not found".
    """
    first, *others = PAGES
    home = st.Page(first.path, title=first.title, icon=first.icon, url_path=HOME_URL_PATH, default=True)

    def go_home() -> None:
        run_finished()  # switch_page ends this run early: it was not cut short by the client
        st.switch_page(home, query_params=st.query_params.to_dict())

    sections: dict[str, list] = {first.section: [home]}
    for spec in others:
        sections.setdefault(spec.section, []).append(
            st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.url_path)
        )
    sections[first.section].append(st.Page(go_home, title=first.title, url_path=first.url_path, visibility="hidden"))
    return sections


def sections() -> dict[str, list]:
    """This session's pages by section (declared on its first run)."""
    if SECTIONS not in st.session_state:
        st.session_state[SECTIONS] = declare_sections()
    return st.session_state[SECTIONS]
