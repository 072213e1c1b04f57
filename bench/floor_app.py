"""The framework's floor: a bare Streamlit page whose one slider redraws N heatmaps.

bench/latency.py measures a real page against this page drawing the same number of
heatmaps of the same size, in the same run, so the ratio shows what our own code adds on
top of Streamlit + Plotly. Nothing from relpos is imported: this is the least any page
with these heatmaps can cost.

URL parameters (all optional, clamped to sane ranges):
``n`` matrix size (16) · ``heatmaps`` how many (7) · ``columns`` per row (3) ·
``height`` of each figure in px (400).

Run alone: ``streamlit run bench/floor_app.py`` then open ``/?n=256&heatmaps=7``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st


def int_param(name: str, default: int, low: int, high: int) -> int:
    """A whole-number URL parameter, clamped to [low, high]; the default when malformed."""
    try:
        value = int(st.query_params.get(name, default))
    except ValueError:
        value = default
    return min(max(value, low), high)


@st.cache_data(show_spinner=False)
def base_matrices(count: int, n: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal((count, n, n))  # (count, n, n)


n = int_param("n", 16, 1, 1024)
count = int_param("heatmaps", 7, 1, 24)
columns = int_param("columns", 3, 1, 6)
height = int_param("height", 400, 100, 2000)

st.title("Floor: bare Streamlit heatmaps")
shift = st.slider("shift", -1.0, 1.0, 0.0, 0.1)
matrices = base_matrices(count, n) + shift  # (count, n, n)

slots = st.columns(columns)
for index, matrix in enumerate(matrices):
    figure = go.Figure(go.Heatmap(z=matrix, colorscale="RdBu_r", zmid=0.0))
    figure.update_layout(height=height, margin={"l": 40, "r": 10, "t": 30, "b": 30}, title=f"heatmap {index + 1}")
    figure.update_yaxes(autorange="reversed")
    with slots[index % columns]:
        st.plotly_chart(figure)
