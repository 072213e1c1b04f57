"""Train a tiny head: a relative-position table learned live on a toy task.

One folder, one lesson: its pure parts (schema, model, text, figures, tables, snippet)
and one Streamlit view (``view.render()``) that ``pages/`` calls.
"""
