"""The Explorer: content scores, position biases and weights under sliders, side by side.

One folder, one lesson: its pure parts (schema, model, text, figures, tables, snippet)
and one Streamlit view (``view.render()``) that ``pages/`` calls; ``link_view`` is the
button another lesson opens the Explorer with, on numbers of its own.
"""
