"""A button that opens the Explorer on given numbers, for another lesson (the one module of
the Explorer another topic may import).

The Explorer's own schema (:data:`relpos.topics.explorer.schema.EXPLORER`, the one state codec)
decides whether it can show the numbers and writes its URL, so the link opens exactly them or
is not offered.
"""

from __future__ import annotations

import streamlit as st

from relpos import ui
from relpos.state.codec import StateError
from relpos.topics.explorer.schema import EXPLORER

__all__ = ["EXPLORER_PAGE", "explorer_link", "explorer_query"]

#: The Explorer's url_path.
EXPLORER_PAGE = "explorer"


def explorer_query(setting: dict) -> dict[str, str] | None:
    """The Explorer's URL parameters for `setting` (typed entries, e.g. ``{"n": 4, "k": 2, "q": [...]}``),
    or None when the Explorer cannot show it (a value outside a slider, k beyond n − 1, a list of
    the wrong length …). Only the entries given are written; the Explorer fills in the rest.

    >>> explorer_query({"n": 4, "k": 2, "q": [0.8, 0.2, 0.8, -0.6]})
    {'n': '4', 'k': '2', 'q': '0.8,0.2,0.8,-0.6'}
    >>> explorer_query({"n": 4, "k": 4}) is None, explorer_query({"n": 4, "q": [3.0, 0, 0, 0]}) is None
    (True, True)
    """
    try:
        state = EXPLORER.from_json(setting)
    except StateError:
        return None
    return EXPLORER.encode({name: state[name] for name in setting})


def explorer_link(setting: dict, *, here: str, label: str, key: str | None = None) -> str | None:
    """A button opening the Explorer on `setting` in a new tab (the page here stays as it is);
    `here` is the url_path of the page running. Returns the address, or None (and draws
    nothing) when the Explorer cannot show the setting.

    A new tab, not a page switch: the Explorer reads a link only when it first opens in a
    session, so a learner who has used it already would see their old numbers instead.
    """
    params = explorer_query(setting)
    if params is None:
        return None
    url = ui.app_url(EXPLORER_PAGE, params, here=here)
    st.link_button(
        label, url, key=key, icon=":material/open_in_new:", help="Opens in a new tab; this page stays as it is."
    )
    return url
