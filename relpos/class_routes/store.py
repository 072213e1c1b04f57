"""The process's one live-class store, shared by every page, stream and route of this server.

Its own module so that every route module can reach it without importing another route
module (the event route and the identity cookie each need the other's store otherwise).
"""

from __future__ import annotations

import threading

from relpos.classroom.store import ClassStore
from relpos.classroom.stores import open_store

__all__ = ["class_store"]

_store: ClassStore | None = None
_store_lock = threading.Lock()


def class_store() -> ClassStore:
    """The process's one live-class store (:func:`relpos.classroom.stores.open_store`)."""
    global _store
    with _store_lock:
        if _store is None:
            _store = open_store()
        return _store
