"""The only Streamlit code: shared page helpers (common), the walkthrough's widgets
(walkthrough), the page list (navigation) and the routing that sends every page
through app.py (routing).

Pages in ``pages/`` are thin scripts that call these. May import everything below it:
``relpos.plots``, ``relpos.tables``, ``relpos.state``, ``relpos.lessons``,
``relpos.text``, ``relpos.core``.
"""
