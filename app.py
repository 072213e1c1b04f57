"""relpos: the Streamlit entry point. Declares the pages (listed in relpos.navigation)."""

import streamlit as st

from relpos.navigation import PAGES

st.set_page_config(page_title="relpos: relative position encoding", page_icon="↔", layout="wide")

sections: dict[str, list] = {}
for number, spec in enumerate(PAGES):
    page = st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.url_path, default=number == 0)
    sections.setdefault(spec.section, []).append(page)
st.navigation(sections).run()
