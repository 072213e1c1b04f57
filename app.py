"""relpos: the Streamlit entry point. Page config, the page list, and the page in its harness."""

import streamlit as st
from starlette.middleware import Middleware

from relpos import class_routes  # its other routes join the server when imported, before st.App
from relpos.server import asgi, page_run
from relpos.server.admission import AdmissionMiddleware
from relpos.topics.walkthrough.spec import follow_view
from relpos.ui.page_list import renamed_routes, sections
from relpos.ui.theme import THEME_CSS, follow_theme

if __name__ != "__main__":  # imported by `streamlit run` as the server: st.App (relpos.server.asgi)
    # a following student sees the teacher's stop as the lesson draws it (a class runs on the walkthrough)
    class_view_route = class_routes.following.view_route({"walkthrough": follow_view})
    # the theme's colours from the first paint; a renamed page's old address redirects to it
    routes, middleware = [*renamed_routes(), class_view_route], [Middleware(AdmissionMiddleware)]  # sessions paced
    app = st.App(__file__, **asgi.app_options(routes=routes, middleware=middleware, head=THEME_CSS))
else:  # each session's run of the script
    st.set_page_config(page_title="relpos: relative position encoding", page_icon="↔", layout="wide")
    page = st.navigation(sections())
    with page_run():  # back-pressure, turns, reconnect, routing, the page helpers and the reader's theme
        follow_theme()  # a switch of theme reruns the page, so its figures follow (relpos.ui.theme)
        page.run()
