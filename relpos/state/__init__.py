"""What a page's URL and scenario files hold: one codec (codec), every page's schema
declared once (schemas), and the exports (JSON scenarios, NumPy snippets).

No Streamlit. May import: numpy, ``relpos.core``, ``relpos.lessons`` and ``relpos.text``.
"""
