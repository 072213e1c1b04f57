"""Links too long for Streamlit: said out loud instead of silently dropped.

Streamlit ignores a whole query string of more than 1,000 parameters or 512 Ki
characters (its query-parameter limits, :mod:`relpos.server.internals`): the page would open with its
defaults and no word about the link. Only the browser still knows the link it was
opened with (the navigation entry keeps the original URL even after the page rewrites
its address), so a small script checks it once and, for an oversized link, reopens the
page with a short description of what was wrong; :func:`oversized_link_notice` turns
that into the page's warning.
"""

from __future__ import annotations

import streamlit as st

from relpos.server.internals import QUERY_MAX_CHARS as MAX_CHARS
from relpos.server.internals import QUERY_MAX_FIELDS as MAX_FIELDS

#: the parameters the guard writes (nothing else from the oversized link survives)
MARKER, FIELDS, CHARS = "oversized_link", "fields", "chars"

GUARD_HTML = f"""<script>
(() => {{
  const entry = performance.getEntriesByType("navigation")[0];
  if (!entry) return;
  const query = new URL(entry.name).search.slice(1);
  const fields = query ? query.split("&").length : 0;
  if (fields <= {MAX_FIELDS} && query.length <= {MAX_CHARS}) return;
  const target = new URL(window.location.href);
  target.search = "{MARKER}=1&{FIELDS}=" + fields + "&{CHARS}=" + query.length;
  window.location.replace(target.toString());
}})();
</script>"""


#: Session key: the guard has been sent to this browser tab.
_GUARDED = "links:guarded"


def guard_oversized_links() -> None:
    """Send the browser-side check of the link the page was opened with (no visible output).

    Only in a session's first run: the check reads the link the tab was opened with,
    which a later run cannot change, and each rerun's messages stay small.
    """
    if st.session_state.get(_GUARDED):
        return
    st.session_state[_GUARDED] = True
    with st.sidebar:
        st.html(GUARD_HTML, unsafe_allow_javascript=True)


def _count(name: str) -> int | None:
    raw = st.query_params.get(name, "")
    return int(raw) if raw.isdigit() and len(raw) <= 12 else None


def oversized_link_message(fields: int | None, chars: int | None) -> str:
    """What to tell a student whose link was too long to read.

    >>> oversized_link_message(10_000, 88_890)[:60]
    'This link holds 10,000 parameters (88,890 characters): a lin'
    """
    size = "is too long" if fields is None or chars is None else f"holds {fields:,} parameters ({chars:,} characters)"
    return (
        f"This link {size}: a link may hold at most {MAX_FIELDS:,} parameters and {MAX_CHARS:,} characters, "
        "so none of it could be used and the page shows its defaults."
    )


def oversized_link_notice() -> None:
    """If the guard reopened this page for an oversized link: warn, and forget the marker."""
    if st.query_params.get(MARKER) != "1":
        return
    st.warning(oversized_link_message(_count(FIELDS), _count(CHARS)), icon=":material/link_off:")
    for name in (MARKER, FIELDS, CHARS):
        st.query_params.pop(name, None)
