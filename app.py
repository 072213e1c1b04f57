"""relpos: the Streamlit entry point. Declares the pages; each lives in pages/."""

import streamlit as st

st.set_page_config(page_title="relpos: relative position encoding", page_icon="↔", layout="wide")

navigation = st.navigation(
    [
        st.Page("pages/overview.py", title="Overview", icon="🏠", default=True),
    ]
)
navigation.run()
