"""The pages' Streamlit views.

* Shared page helpers (common), including the widgets drawn from a schema's fields.
* One module per page's widgets: efficiency, explorer, position_effects, quiz, schemes,
  value_side, training, walkthrough and walkthrough_stage; live is the Explorer's live
  panel (a custom component); effects_presets caches the Position effects page's trained
  presets.
* The page list: plain data (navigation) and the ``st.Page`` objects app.py declares (page_list).

Every run goes through the server harness (:mod:`relpos.server`); widget and session keys
are built by :mod:`relpos.state.keys`. Pages in ``pages/`` are thin scripts that call
these. May import everything below it: ``relpos.server``, ``relpos.plots``,
``relpos.tables``, ``relpos.state``, ``relpos.lessons``, ``relpos.text``, ``relpos.core``.
"""
