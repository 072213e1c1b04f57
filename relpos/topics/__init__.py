"""One folder per lesson.

Each topic folder holds the lesson's pure parts (its URL schema, model, text, figures,
tables and reproduction snippet) and one Streamlit view with ``render()``; ``pages/*.py``
are one-line entries into those views. Topics import the shared kits below them
(``relpos.ui``, ``relpos.class_routes``, ``relpos.server``, ``relpos.plots``, ``relpos.tables``,
``relpos.state``, ``relpos.text``, ``relpos.core``) and never one another.
"""
