"""The app's pages as ``st.Page`` objects, by sidebar section (built from relpos.ui.navigation)."""

from __future__ import annotations

import streamlit as st

from relpos.server import routing, run_finished
from relpos.state.keys import state_key
from relpos.ui.navigation import HOME_URL_PATH, PAGES

#: Session key of the st.Page objects: built once per session, not on every rerun
#: (constructing them resolves and checks every page file: ~1.5 ms a rerun).
SECTIONS = state_key("app", "sections")


def declare_sections() -> dict[str, list]:
    """The pages by sidebar section, plus hidden aliases: of the first page, and of every
    url_path a page had before (:attr:`~relpos.ui.navigation.PageSpec.renamed_from`).

    The first page is served at "/"; it gets a private url_path so that its own name can
    belong to the alias: a typed or bookmarked /overview then opens it instead of
    showing Streamlit's "Page not found". A renamed page's old address (a bookmark, a
    lesson link, a class link made before the rename) opens the page the same way.
    """
    first, *others = PAGES
    home = st.Page(first.path, title=first.title, icon=first.icon, url_path=HOME_URL_PATH, default=True)
    sections: dict[str, list] = {first.section: [home]}
    aliases = [alias(home, first.title, first.url_path)]
    for spec in others:
        page = st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.url_path)
        sections.setdefault(spec.section, []).append(page)
        aliases += [alias(page, spec.title, old) for old in spec.renamed_from]
    sections[first.section] += aliases
    return sections


def alias(page, title: str, url_path: str):
    """A hidden page at `url_path` that opens `page` with the same URL query."""

    def go() -> None:
        run_finished()  # switch_page ends this run early: it was not cut short by the client
        st.switch_page(page, query_params=st.query_params.to_dict())

    return st.Page(go, title=title, url_path=url_path, visibility="hidden")


def sections() -> dict[str, list]:
    """This session's pages by section (declared on its first run)."""
    if SECTIONS not in st.session_state:
        st.session_state[SECTIONS] = declare_sections()
    return st.session_state[SECTIONS]


def renamed_routes() -> list:
    """HTTP redirects from every page's earlier url_paths to its own (app.py serves them)."""
    return routing.redirects({old: spec.url_path for spec in PAGES for old in spec.renamed_from})
