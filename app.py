"""relpos: the Streamlit entry point. Declares the pages (listed in relpos.navigation)."""

import streamlit as st

from relpos.navigation import HOME_URL_PATH, PAGES

st.set_page_config(page_title="relpos: relative position encoding", page_icon="↔", layout="wide")

first, *others = PAGES
# The first page is served at "/"; it gets a private url_path so that its own name can
# belong to a hidden alias: a typed or bookmarked /overview then opens it instead of
# showing Streamlit's "Page not found".
home = st.Page(first.path, title=first.title, icon=first.icon, url_path=HOME_URL_PATH, default=True)


def go_home() -> None:
    st.switch_page(home, query_params=st.query_params.to_dict())


sections: dict[str, list] = {first.section: [home]}
for spec in others:
    sections.setdefault(spec.section, []).append(
        st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.url_path)
    )
sections[first.section].append(st.Page(go_home, title=first.title, url_path=first.url_path, visibility="hidden"))
st.navigation(sections).run()
