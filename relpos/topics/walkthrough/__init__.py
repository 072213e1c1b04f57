"""The walkthrough: the textbook's worked example, one stop at a time.

One folder, one lesson: its pure parts (schema, model, text, figures, tables, snippet)
and one Streamlit view (``view.render()``) that ``pages/`` calls.
"""
