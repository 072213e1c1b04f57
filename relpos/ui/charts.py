"""Charts on a page: Plotly figures named for screen readers, never zoomed by a drag or a
swipe, with Plotly's tool bar (not on a phone)."""

from __future__ import annotations

import re

import streamlit as st

from relpos.ui import layout

__all__ = ["CHART_CONFIG", "chart", "chart_name", "chart_row", "heatmap_panel", "plotly"]


# Buttons taken off Plotly's tool bar, which keeps its PNG download and Streamlit's full-screen
# button: dragging never zooms, so zoom, pan and hover-mode buttons would only switch it back on.
_TOOLS_REMOVED = [
    *("zoom2d", "pan2d", "select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "resetScale2d"),
    *("toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian"),
]


#: Plotly options of every chart: no zoom or pan by drag or wheel, so a swipe or a wheel
#: turn that starts on a chart scrolls the page (a phone's swipe would otherwise be
#: trapped); a tap or hover still shows a cell's text. A phone shows no tool bar (`chart`):
#: it came up at every tap that reads a cell, over a title as wide as the screen.
CHART_CONFIG = {
    "displaylogo": False,
    "scrollZoom": False,
    "doubleClick": False,
    "responsive": True,
    "modeBarButtonsToRemove": _TOOLS_REMOVED,
}


def chart_name(fig) -> str:
    """A chart's accessible name: its title without HTML tags (``e<sub>ij</sub>`` reads "e ij")."""
    title = fig.layout.title.text or ""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", title)).strip() or "Chart"


def chart(fig, *, key: str | None = None, alt: str | None = None, width="stretch", toolbar: bool = True) -> None:
    """Show a Plotly figure (Plotly's JS ships with Streamlit: no CDN), named for screen readers.

    Dragging never zooms (``dragmode`` off), so touch scrolling passes through the chart;
    Plotly's tool bar offers the PNG download and the full-screen view, and not on a phone.
    """
    # the tool bar stands on end in the top right corner, beside a centred title, not over it
    fig.update_layout(dragmode=False, modebar_orientation="v")
    config = CHART_CONFIG if toolbar and not layout.phone_screen() else {**CHART_CONFIG, "displayModeBar": False}
    st.plotly_chart(fig, width=width, config=config, key=key, alt=alt or chart_name(fig))


def plotly(fig, *, key: str | None = None) -> None:
    """Show a Plotly figure at the container's width, named by its title."""
    chart(fig, key=key)


def chart_row(figures, *, key_prefix: str) -> None:
    """Figures side by side, one column each."""
    for index, (column, fig) in enumerate(zip(st.columns(len(figures)), figures, strict=True)):
        with column:
            chart(fig, key=f"{key_prefix}.{index}")


def heatmap_panel(fig, caption: str, *, key: str, alt: str) -> None:
    """One heatmap with its "what to notice" caption; `alt` names it for screen readers."""
    chart(fig, key=key, alt=alt, toolbar=False)
    st.caption(caption)
