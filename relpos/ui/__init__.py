"""The only Streamlit code. Shared page helpers (common), settings kept in the URL
(page_settings), one module per page's widgets (efficiency, quiz, schemes, value_side,
training, walkthrough; effects_presets caches the Position effects page's trained
presets), the page list (navigation), the routing that sends every page through app.py
(routing) and the guard for links too long to read (links).

Pages in ``pages/`` are thin scripts that call these. May import everything below it:
``relpos.plots``, ``relpos.tables``, ``relpos.state``, ``relpos.lessons``,
``relpos.text``, ``relpos.core``.
"""
