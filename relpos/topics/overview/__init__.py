"""The Overview: what the app teaches, the pages in order, and where to start.

One folder, one lesson: its pure parts (schema, model, text, figures, tables, snippet)
and one Streamlit view (``view.render()``) that ``pages/`` calls.
"""
