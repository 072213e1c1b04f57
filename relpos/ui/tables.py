"""Tables on a page: matrices and mixed tables with the one number formatter (true minus
signs), and charts' and panels' numbers as real HTML tables for screen readers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from relpos.tables.frames import matrix_frame
from relpos.text import numbers as num
from relpos.text.escape import escape_markdown

__all__ = ["chart_tables", "labelled_table", "matrix_table", "matrix_tables", "named_index"]


def _number_cells(decimals: int):
    """A Styler formatter: floats by the one number formatter, anything else as it is."""
    return lambda value: num.number(value, decimals) if isinstance(value, (float, np.floating)) else str(value)


#: Names for an unnamed index, by how its labels begin: a screen reader announces the
#: index column's header, and an empty one is an accessibility violation (axe: empty-table-header).
_INDEX_NAMES = (
    ("i = ", "query"),
    ("offset", "offset"),
    ("key j", "key"),
    ("q_i", "vector"),
    ("aᴷ", "table"),
    ("aⱽ", "table"),
)


def named_index(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with its index named (for its header cell) when it has no name yet.

    >>> named_index(pd.DataFrame({"j = 1": [1.0]}, index=["i = 1"])).index.name
    'query'
    """
    if frame.index.name is not None or isinstance(frame.index, pd.MultiIndex):
        return frame
    first = str(frame.index[0]) if len(frame.index) else ""
    name = next((name for prefix, name in _INDEX_NAMES if first.startswith(prefix)), "row")
    return frame.rename_axis(name)


def matrix_table(frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None) -> None:
    """Show a labelled matrix with a fixed number of decimals and true minus signs."""
    frame = named_index(frame)
    st.dataframe(frame.style.format(_number_cells(decimals)), width="content")
    if caption:
        st.caption(caption)


def labelled_table(
    frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None, stretch: bool = False
) -> None:
    """Show a table mixing text and number columns; numbers get `decimals` places, gaps show a dash."""
    frame = named_index(frame)
    styled = frame.style.format(_number_cells(decimals), na_rep="—")
    st.dataframe(styled, width="stretch" if stretch else "content")
    if caption:
        st.caption(caption)


def matrix_tables(matrices: dict[str, object], *, key: str, limit: int = 16, decimals: int = 4) -> None:
    """Every panel's numbers as real HTML tables, in an expander that renders only when open.

    Larger matrices show their top-left ``limit × limit`` corner (the CSV downloads
    hold everything).
    """
    expander = st.expander("Numbers as tables (screen-reader friendly)", key=key, on_change="rerun")
    if not expander.open:
        return
    with expander:
        for title, matrix in matrices.items():
            array = np.asarray(matrix)
            corner = array[:limit, :limit]
            note = (
                ""
                if corner.shape == array.shape
                else f" (top-left {limit} × {limit} of {array.shape[0]} × {array.shape[1]})"
            )
            st.markdown(f"**{title}**{note}")
            frame = named_index(matrix_frame(corner))
            st.table(frame.style.format(_number_cells(decimals)))


def chart_tables(
    frames: dict[str, pd.DataFrame],
    *,
    key: str,
    label: str = "Charts as tables (screen-reader friendly)",
    decimals: int | None = None,
) -> None:
    """Charts' cells as real HTML tables (each chart's screen-reader alternative), in an
    expander that renders only when open; `frames` maps a chart's title to its table.
    With `decimals`, numbers are printed by the one formatter (true minus signs)."""
    expander = st.expander(label, key=key, on_change="rerun")
    if not expander.open:
        return
    with expander:
        for title, frame in frames.items():
            st.markdown(f"**{escape_markdown(title)}**")
            frame = named_index(frame)
            st.table(frame if decimals is None else frame.style.format(_number_cells(decimals)))
