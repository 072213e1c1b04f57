"""The value side: Shaw's a^V, the relative embeddings added to the values.

One folder, one lesson: its pure parts (schema, model, text, figures, tables, snippet)
and one Streamlit view (``view.render()``) that ``pages/`` calls.
"""
