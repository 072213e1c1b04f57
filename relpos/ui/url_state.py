"""Lesson links: a page's whole state in the URL.

A page keeps its state as one dict in ``st.session_state[name]``. On the page's first run
in a browser session the dict is decoded from ``st.query_params`` (bad values reported and
replaced by defaults); afterwards widgets change the dict and :func:`write_url` mirrors it
into the address bar, so the URL is always a link to exactly this view. A lesson uses these
through :class:`relpos.ui.fields.PageState`, never directly.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import streamlit as st

from relpos.server import set_widget
from relpos.state.codec import Schema
from relpos.state.keys import state_key
from relpos.text.escape import escape_markdown

__all__ = [
    "app_url",
    "lesson_link",
    "page_state",
    "seed_widget",
    "show_url_problems",
    "url_problems_text",
    "write_url",
]


def page_state(name: str, schema: Schema, *, foreign: tuple[str, ...] = ()) -> dict:
    """The page's state dict, decoded from the URL on the page's first run in this session.

    Problems found in the URL are kept for :func:`show_url_problems`; the parameters named
    in `foreign` belong to someone else (a live class's ``class``) and are no problem.
    """
    if name not in st.session_state:
        params = {key: value for key, value in st.query_params.to_dict().items() if key not in foreign}
        decoded = schema.decode(params)
        st.session_state[name] = decoded.state
        st.session_state[state_key(name, "problems")] = decoded.problems
    return st.session_state[name]


def show_url_problems(name: str) -> None:
    """Warn (once) about the parameters of the opening link that could not be used."""
    problems = st.session_state.pop(state_key(name, "problems"), ())
    if problems:
        st.warning(url_problems_text(problems), icon=":material/warning:")


def url_problems_text(problems) -> str:
    """The warning about a link's unusable parts: each line says what the page used instead (a
    default, or a value clamped into range such as k = 7 for k = 9 at n = 8), so the header claims
    neither.

    >>> url_problems_text(["Using 7"]).splitlines()
    ['Parts of this link could not be used as given; each line says what the page used instead:', '', '- Using 7']
    """
    lines = "\n".join(f"- {escape_markdown(problem)}" for problem in problems)
    return f"Parts of this link could not be used as given; each line says what the page used instead:\n\n{lines}"


def seed_widget(key: str, value) -> None:
    """Give a keyed widget its value from the page state unless it already has one.

    Through :func:`set_widget` (:mod:`relpos.server.seeds`): a click that races this run
    would otherwise leave the browser showing the widget's default while the server holds
    the value.
    """
    if key not in st.session_state:
        set_widget(key, value)


def write_url(schema: Schema, state: dict, *, keep: tuple[str, ...] = ()) -> None:
    """Mirror the state into st.query_params (only when it changed); the parameters named in
    `keep` (such as a live class's ``class``) stay as they are."""
    current = st.query_params.to_dict()
    params = {**{name: current[name] for name in keep if name in current}, **schema.encode(state)}
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


def _app_base_url(url_path: str) -> str:
    """The app's address without the page (``http://host:8501``), or "" when unknown."""
    parts = urlsplit(st.context.url or "")
    if parts.scheme not in ("http", "https"):
        return ""
    path = parts.path.rstrip("/")
    if path == f"/{url_path}" or path.endswith(f"/{url_path}"):
        path = path[: -len(url_path) - 1]
    return f"{parts.scheme}://{parts.netloc}{path}"


def app_url(url_path: str, params: dict[str, str], *, here: str | None = None) -> str:
    """The address of page `url_path` with the URL parameters `params`, on this app's host
    (just ``/url_path?…`` when the address is unknown); `here` is the url_path of the page running
    (`url_path` itself by default)."""
    return f"{_app_base_url(here or url_path)}/{url_path}?{urlencode(params, safe=',')}"


def lesson_link(schema: Schema, state: dict, url_path: str) -> None:
    """Show the link that reopens exactly this view, ready to copy."""
    st.code(app_url(url_path, schema.encode(state)), language=None, wrap_lines=True)
    st.caption("The address bar holds the same link: paste it into a slide or a message to open this exact view.")
