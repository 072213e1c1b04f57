"""The widget kit: the Streamlit pieces every topic's view is built from.

* common: shared page helpers, including the widgets drawn from a schema's fields;
* live: the live panel (a custom component) that repaints heatmaps while a slider moves;
* navigation and page_list: the page list as plain data, and the ``st.Page`` objects app.py declares.

Every run goes through the server harness (:mod:`relpos.server`); widget and session keys
are built by :mod:`relpos.state.keys`. Each lesson's view lives in its topic folder
(``relpos/topics/<topic>/view.py``). May import everything below it: ``relpos.server``,
``relpos.plots``, ``relpos.tables``, ``relpos.state``, ``relpos.text``, ``relpos.core``.
"""
