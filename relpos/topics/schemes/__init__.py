"""Comparing position schemes: Shaw, sinusoidal, T5, ALiBi and RoPE on one input.

One folder, one lesson: its pure parts (schema, model, text, figures, tables, snippet)
and one Streamlit view (``view.render()``) that ``pages/`` calls.
"""
