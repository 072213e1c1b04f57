"""Where a page draws: a phone's screen or a wide one, cards linking to pages, and the
container a page opens scrolled to."""

from __future__ import annotations

import re

import streamlit as st

from relpos.server.internals import css_class

__all__ = [
    "ASSUMED_PHONE_WIDTH",
    "PHONE_WIDTH",
    "WIDTH_COOKIE",
    "land_on",
    "page_links",
    "phone_screen",
    "screen_width",
]


#: Narrower than this (CSS px) is a phone: presenter mode's CSS steps aside below it too.
PHONE_WIDTH = 700

#: The cookie in which the page helpers (relpos/server/assets/page_helpers.js) keep the
#: window's width, so a later run knows the screen before anything is drawn.
WIDTH_COOKIE = "relpos-width"


#: The width assumed for a phone whose browser has not said its width yet (CSS px; an iPhone 12–15's).
ASSUMED_PHONE_WIDTH = 390


def screen_width() -> int | None:
    """This browser's window width in CSS px, as far as the server can tell before drawing:
    the page helpers' cookie; before they have run here (a first visit), a phone's by its own
    word (:data:`ASSUMED_PHONE_WIDTH`), else None (a wider screen of unknown width)."""
    width = str(st.context.cookies.get(WIDTH_COOKIE, ""))
    if width.isdigit():
        return int(width)
    headers = st.context.headers
    mobile = headers.get("Sec-CH-UA-Mobile", "") == "?1" or "Mobi" in headers.get("User-Agent", "")
    return ASSUMED_PHONE_WIDTH if mobile else None


def phone_screen() -> bool:
    """Whether this browser is a phone, decided on the server before anything is drawn.

    The window width the page helpers keep in a cookie decides; before they have
    run in this browser (its first visit), the phone's own word does: the client hint
    ``Sec-CH-UA-Mobile: ?1`` or "Mobi" in the user agent (as every phone browser sends).
    """
    width = screen_width()
    return width is not None and width < PHONE_WIDTH


def page_links(pages, *, columns: int = 2) -> None:
    """A card per page (link plus its one-line summary), `columns` to a row."""
    for first in range(0, len(pages), columns):
        for column, spec in zip(st.columns(columns), pages[first : first + columns], strict=False):
            with column.container(border=True):
                st.page_link(spec.path, label=spec.title, icon=spec.icon)
                st.caption(spec.summary)


def land_on(key: str) -> None:
    """Have this page open scrolled to the container keyed `key` (``st.container(key=…)``).

    A mark for the page helpers (relpos/server/assets/page_helpers.js, landOnStop), drawn
    in the sidebar, where it takes no room: they keep that container at the top of the
    screen while the page settles, until the reader scrolls, taps or types. Draw it in one
    run only.
    """
    if not re.fullmatch(r"[a-z][a-z0-9-]*", key):
        raise ValueError(f"key must be a CSS-safe container key (a-z, 0-9, -); got {key!r}")
    with st.sidebar:
        st.html(f'<span data-relpos-land="{css_class(key)}" hidden></span>', width="content")
