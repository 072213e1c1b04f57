"""Streamlit helpers shared by every page: page chrome, Markdown content, tables.

This is the only relpos module that imports Streamlit; pages call it, and it calls
the figure/table builders, which call the core.
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


def matrix_table(frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None) -> None:
    """Show a labelled matrix with a fixed number of decimals."""
    st.dataframe(frame.style.format(f"{{:.{decimals}f}}"), width="content")
    if caption:
        st.caption(caption)


def _leave_legacy_pages_directory_mode() -> None:
    """Make a direct link to a page run through app.py, even on a fresh server.

    Streamlit treats an app with a ``pages/`` folder as a legacy multipage app until
    some session has run app.py's ``st.navigation`` (a process-wide flag). Until then a
    link such as ``/explorer?n=8`` runs ``pages/explorer.py`` alone: no page config, a
    sidebar listing "app", "explorer", … — and it stays so for every session that
    arrives by link, e.g. a whole class opening a teacher's lesson link after a restart.
    Every page imports this module, so on that first legacy run we clear the flag and
    rerun: the rerun goes through app.py, which resolves the same page and query string.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


_leave_legacy_pages_directory_mode()
