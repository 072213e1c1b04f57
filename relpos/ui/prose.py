"""The app's prose on a page: Markdown from ``content/`` and sentences computed from the numbers."""

from __future__ import annotations

import streamlit as st

from relpos.text.prose import read_content

__all__ = ["bullets", "callout", "caption", "markdown"]


def markdown(name: str) -> None:
    """Show ``content/<name>.md`` (our own prose; never user text)."""
    st.markdown(read_content(name))


def bullets(sentences) -> None:
    """Show sentences computed from the numbers as a Markdown list (nothing when there are none)."""
    if sentences:
        st.markdown("\n".join(f"- {sentence}" for sentence in sentences))


def caption(name: str) -> None:
    """Show ``content/<name>.md`` in small print (help next to controls)."""
    st.caption(read_content(name))


def callout(name: str) -> None:
    """Show ``content/<name>.md`` in an info box (a convention the reader must not miss)."""
    st.info(read_content(name))
