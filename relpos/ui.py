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
