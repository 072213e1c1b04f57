"""The only Streamlit code: shared page helpers (common), the walkthrough's widgets
(walkthrough), the page list (navigation), the routing that sends every page
through app.py (routing), the training page's widgets (training) and the Position
effects page's cached trained presets (effects_presets).

Pages in ``pages/`` are thin scripts that call these. May import everything below it:
``relpos.plots``, ``relpos.tables``, ``relpos.state``, ``relpos.lessons``,
``relpos.text``, ``relpos.core``.
"""
