"""Tables on a page: matrices and mixed tables with the one number formatter (true minus
signs), and charts' and panels' numbers as real HTML tables for screen readers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from relpos.tables.frames import matrix_frame, offset_row_frame, scenario_frame
from relpos.text import numbers as num
from relpos.text.escape import escape_markdown
from relpos.ui.layout import screen_width

__all__ = [
    "BOX_INSET_PX",
    "chart_tables",
    "even_parts",
    "labelled_table",
    "matrix_table",
    "matrix_tables",
    "named_index",
    "scenario_tables",
]


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


# --------------------------------------------------------------------------- a quiz's numbers

#: How ``st.table`` draws a quiz's small tables, in CSS px (measured in Chromium on a 390 px
#: phone): the row labels' column ("vector", "table"), a position's column ("position 4"), an
#: offset's ("aᴷ₋₃", "−0.7"); and what the page keeps either side of it (margins and border).
_LABEL_PX, _POSITION_PX, _OFFSET_PX, _AROUND_PX = 52, 74, 40, 34
#: What a bordered ``st.container`` takes of the width: its padding and border, both sides (px).
BOX_INSET_PX = 34


def even_parts(count: int, most: int) -> list[tuple[int, int]]:
    """`count` columns as ``[start, end)`` parts in order: as few as hold at most `most` each,
    their sizes within one of each other; the follow view's ``evenParts`` (follow.js) is its twin,
    checked against it by tests/js/test_follow_fit.py.

    >>> even_parts(5, 4)
    [(0, 3), (3, 5)]
    >>> even_parts(10, 4)
    [(0, 4), (4, 7), (7, 10)]
    >>> even_parts(4, 9)
    [(0, 4)]
    """
    parts = -(-count // max(1, most))
    found, start = [], 0
    for part in range(parts):
        size = count // parts + (part < count % parts)
        found.append((start, start + size))
        start += size
    return found


def _fitted(frame: pd.DataFrame, column_px: int, inset_px: int) -> None:
    """`frame` as one table, or on a screen too narrow for it as a few, one under the other,
    each with the row labels: a phone never scrolls a quiz's numbers sideways."""
    width = screen_width()
    most = frame.shape[1] if width is None else (width - _AROUND_PX - inset_px - _LABEL_PX) // column_px
    for start, end in even_parts(frame.shape[1], most):
        part = named_index(frame.iloc[:, start:end])
        # a static table: no toolbar, which a touch screen keeps over the table above it
        st.table(part.style.format(num.as_written), width="content")


def scenario_tables(scenario, *, inset_px: int = 0) -> None:
    """A d = 1 scenario's queries and keys (positions from 1) and its table aᴷ, as the quiz
    shows them (:func:`relpos.tables.frames.scenario_frame`, :func:`~relpos.tables.frames.offset_row_frame`);
    `inset_px`: what the tables' container takes of the screen's width (:data:`BOX_INSET_PX`
    inside a bordered box)."""
    _fitted(scenario_frame(scenario), _POSITION_PX, inset_px)
    _fitted(offset_row_frame(scenario.table), _OFFSET_PX, inset_px)
