"""Plotly figures, built and tested without a server (no Streamlit).

* :mod:`~relpos.plots.style` – the one style: fonts, margins, colours, colour scales and
  :class:`~relpos.plots.style.HeatmapStyle`; no other module writes a size or a colour.
* :mod:`~relpos.plots.heatmaps` – the heatmap builder (matrix orientation, shared
  diverging scale for scores, 0–1 for weights) and the clipping-window outline.
* :mod:`~relpos.plots.offset_map` – which table row each pair reads.
* One module per page's figures: :mod:`~relpos.plots.panels` (Explorer and Position
  effects), :mod:`~relpos.plots.walkthrough`, :mod:`~relpos.plots.efficiency`,
  :mod:`~relpos.plots.value_side`, :mod:`~relpos.plots.schemes`, :mod:`~relpos.plots.training`.

May import: numpy, Plotly, ``relpos.core``, ``relpos.lessons``, ``relpos.text``,
``relpos.state`` and ``relpos.tables``.
"""
