"""Long context: RoPE as rotations and the ways to stretch it (PI, NTK, dynamic NTK, YaRN, Llama 3.1).

One folder, one lesson: its pure parts (schema, model, text, figures) and one Streamlit
view (``view.render()``) that ``pages/long_context.py`` calls.
"""
