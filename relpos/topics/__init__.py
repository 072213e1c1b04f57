"""One folder per lesson.

Each topic folder holds the lesson's pure parts (its URL schema, model, text, figures,
tables and reproduction snippet) and its Streamlit view: ``view.py`` with ``render()``, and
any helper of it named ``*_view.py``. The file name is the rule (tests/test_layers.py): only
``view.py`` and ``*_view.py`` may import Streamlit. ``pages/*.py`` are one-line entries into
those views. Topics import the shared kits below them
(``relpos.ui``, ``relpos.class_routes``, ``relpos.server``, ``relpos.plots``, ``relpos.tables``, ``relpos.state``,
``relpos.text``, ``relpos.core``) and never one another.
"""
