"""The live class's HTTP routes: what a class's browsers ask the server for between page runs.

* :mod:`~relpos.class_routes.events`: the class's event stream (a route of its own), and the
  process's one store of classes (:func:`~relpos.class_routes.events.class_store`);
* :mod:`~relpos.class_routes.following`: the class's view, answers and verdicts for a student's
  browser (following costs no page run);
* :mod:`~relpos.class_routes.results_csv`: the class's CSV, for its teacher's browser only;
* :mod:`~relpos.class_routes.identity`: who a browser is in a class, sealed in an HttpOnly
  cookie, and the private teacher link's page.

Each module adds its routes to the app's server (:func:`relpos.server.asgi.register_routes`)
when it is imported, so app.py imports this package before it builds ``st.App``; the one
route that shows a lesson, the class's view, app.py builds itself
(:func:`~relpos.class_routes.following.view_route`), handing it the lesson's stop. The class
itself, its model and stores, is :mod:`relpos.classroom`; the pages' side of it is
:mod:`relpos.ui.classroom`.
"""

from relpos.class_routes import events, following, identity, results_csv

__all__ = ["events", "following", "identity", "results_csv"]
