"""The only Streamlit code.

* Shared page helpers (common) and settings kept in the URL (page_settings).
* One module per page's widgets: efficiency, explorer, position_effects, quiz, schemes,
  value_side, training, walkthrough and walkthrough_stage; live is the Explorer's live
  panel (a custom component); effects_presets caches the Position effects page's trained
  presets.
* The page list (navigation), the routing that sends every page through app.py (routing),
  the guard for links too long to read (links), the classroom helpers' script (client),
  back-pressure for clients that stop reading (backpressure), runs that take turns, the
  least busy session first (turns), a full run after every reconnect (reconnect), and the
  one naming scheme of widget and session keys (keys: ``page.name`` for widgets,
  ``page:name`` for other values).

Pages in ``pages/`` are thin scripts that call these. May import everything below it:
``relpos.plots``, ``relpos.tables``, ``relpos.state``, ``relpos.lessons``,
``relpos.text``, ``relpos.core``.
"""
