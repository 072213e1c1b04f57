"""Streamlit helpers shared by every page: page chrome, Markdown content, tables.

This and the page-specific ``ui_<topic>.py`` modules are the only relpos modules that
import Streamlit; pages call them, and they call the figure/table builders, which call
the core.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

CONTENT_DIR = Path(__file__).resolve().parents[1] / "content"


@st.cache_data(show_spinner=False)
def _read_content(name: str) -> str:
    return (CONTENT_DIR / f"{name}.md").read_text(encoding="utf-8")


def markdown(name: str) -> None:
    """Show ``content/<name>.md`` (our own prose; never user text)."""
    st.markdown(_read_content(name))


def caption(name: str) -> None:
    """Show ``content/<name>.md`` in small print (help next to controls)."""
    st.caption(_read_content(name))


def matrix_table(frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None) -> None:
    """Show a labelled matrix with a fixed number of decimals."""
    st.dataframe(frame.style.format(f"{{:.{decimals}f}}"), width="content")
    if caption:
        st.caption(caption)


def callout(name: str) -> None:
    """Show ``content/<name>.md`` in an info box (a convention the reader must not miss)."""
    st.info(_read_content(name))


#: Always on pages that use :func:`presenter_style`: a formula wider than its column
#: scrolls sideways instead of being cut off.
FORMULA_CSS = """
<style>
[data-testid="stMainBlockContainer"] .stLatex { overflow-x: auto; overflow-y: hidden; }
</style>
"""

#: Presenter mode, for a projector: bigger text and formulas in the main area, and the
#: container keyed ``presenter-nav`` pinned to the bottom right of the window. Static
#: CSS only (no user text).
PRESENTER_CSS = """
<style>
/* bigger text and widgets: Streamlit sizes them in rem (figures are enlarged by the page) */
html { font-size: 20px; }
[data-testid="stMainBlockContainer"] { padding-top: 4rem; padding-bottom: 7rem; }
/* the page title need not grow: the room goes to the lesson */
[data-testid="stMainBlockContainer"] h1 { font-size: 2.1rem; padding-top: 0.5rem; }
/* formulas a step larger again */
[data-testid="stMainBlockContainer"] .katex { font-size: 1.15em; }
/* Previous / Next stay at the same place on screen, whatever is scrolled */
.st-key-presenter-nav {
  position: fixed; bottom: 1rem; right: 1.5rem; z-index: 999;
  width: auto !important; padding: 0.5rem 0.75rem; border-radius: 0.75rem;
  background: rgba(255, 255, 255, 0.96); box-shadow: 0 2px 12px rgba(0, 0, 0, 0.25);
}
</style>
"""


def presenter_style(enabled: bool) -> None:
    """Apply presenter mode's CSS (see :data:`PRESENTER_CSS`) and fold the sidebar away.

    The sidebar is only collapsed, not hidden: its arrow brings it back for a live edit.
    :data:`FORMULA_CSS` applies in both modes.
    """
    st.html(FORMULA_CSS + PRESENTER_CSS if enabled else FORMULA_CSS)
    st.set_page_config(initial_sidebar_state="collapsed" if enabled else "auto")


def download_csv(frame: pd.DataFrame, filename: str, *, label: str, key: str) -> None:
    """A download button for `frame` as UTF-8 CSV with a byte-order mark (no index; full precision)."""
    st.download_button(
        label,
        data=frame.to_csv(index=False).encode("utf-8-sig"),  # the BOM tells spreadsheet programs it is UTF-8
        file_name=filename,
        mime="text/csv",
        key=key,
        icon=":material/download:",
    )
