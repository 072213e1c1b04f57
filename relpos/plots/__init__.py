"""The figure kit: Plotly building blocks every topic draws with (no Streamlit).

* :mod:`~relpos.plots.style` – the one style: fonts, margins, colours, colour scales and
  :class:`~relpos.plots.style.HeatmapStyle`; no other module writes a size or a colour.
* :mod:`~relpos.plots.heatmaps` – the heatmap builder (matrix orientation, shared
  diverging scale for scores, 0–1 for weights) and the clipping-window outline.
* :mod:`~relpos.plots.offset_map` – which table row each pair reads.

Each topic's own figures live in its folder (``relpos/topics/<topic>/figures.py``).
May import: numpy, Plotly, ``relpos.tables``, ``relpos.state``, ``relpos.text`` and ``relpos.core``.
"""
