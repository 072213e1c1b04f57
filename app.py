"""relpos: the Streamlit entry point. Declares the pages (listed in relpos.ui.navigation)."""

import streamlit as st

from relpos.ui.backpressure import run_finished, wait_for_client
from relpos.ui.client import client_helpers_sent, install_client_helpers
from relpos.ui.keys import state_key
from relpos.ui.links import guard_oversized_links, oversized_link_notice
from relpos.ui.navigation import HOME_URL_PATH, PAGES
from relpos.ui.reconnect import rerun_on_reconnect
from relpos.ui.routing import app_entry
from relpos.ui.turns import take_turn

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


wait_for_client()  # a client that does not read its answers gets no new run meanwhile
st.set_page_config(page_title="relpos: relative position encoding", page_icon="↔", layout="wide")
if SECTIONS not in st.session_state:
    st.session_state[SECTIONS] = declare_sections()
page = st.navigation(st.session_state[SECTIONS])
guard_oversized_links()
install_client_helpers()
oversized_link_notice()
rerun_on_reconnect()  # a restarted server or another replica runs the page before the next click
with take_turn(), app_entry():  # runs compute in turns, the least busy session first
    page.run()
client_helpers_sent()  # not reached when the page switched or stopped: sent again next run
run_finished()
