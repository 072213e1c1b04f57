"""Plotly figures: heatmaps in matrix orientation, the efficiency grids, value-side bars,
the scheme comparison.

No Streamlit: every figure is built and tested without a server. May import: numpy,
Plotly, ``relpos.core``, ``relpos.lessons``, ``relpos.text``, ``relpos.state`` and
``relpos.tables``.
"""
