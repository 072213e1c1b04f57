"""The live class's push receiver: a custom component (``st.components.v2``) without a face.

It opens an ``EventSource`` on :func:`relpos.class_routes.events.events_path` and sets its
value (a version number) only when the class's version differs from the one this run drew
with; that value change reruns the script, or only the fragment the component sits in.
So a student's page follows the teacher within a round trip, and an idle class costs no
runs (no polling rerun, no timer). Its JavaScript lives in ``relpos/ui/class_assets``
(declared in ``pyproject.toml``, registered with the others in :mod:`relpos.ui.components`).
"""

from __future__ import annotations

from relpos.class_routes import identity
from relpos.class_routes.events import events_path
from relpos.ui import components

__all__ = ["NAME", "class_events", "identity_cookie"]

#: Streamlit's name for the component: ``<project>.<component>`` from pyproject.toml.
NAME = components.name("class_events")


def _ignore() -> None:
    """The value change itself is the message: the rerun reads the store again."""


def identity_cookie(code: str) -> str:
    """The cookie in which the browser keeps who it is in class `code`: sealed, and set by
    the server only, HttpOnly (:mod:`relpos.class_routes.identity`).

    Beside the browser's local storage: a cookie reaches the server with a new session's
    WebSocket, so a session on a restarted server or another replica knows from its very
    first run who this browser is (local storage is handed back only by a second run,
    after a first one drew this browser a stranger's page: a join prompt on the projector).
    """
    return identity.cookie_name(code)


def _sealed(remember: dict | None) -> dict | None:
    """What the browser may hold of an identity: its code and the sealed rest (no credential)."""
    if not remember:
        return None
    return {"code": remember["code"], "sealed": identity.seal(remember["kind"], remember["code"], remember["secret"])}


def class_events(
    code: str,
    version: int,
    *,
    key: str,
    watch: str | None = "state",
    min_interval_ms: int = 0,
    remember: dict | None = None,
    ask: bool = False,
    forget: bool = False,
    seat: str | None = None,
) -> None:
    """Rerun this script (or the enclosing fragment) when `code`'s `watch` counter leaves `version`.

    Parameters
    ----------
    code : str
        The class code (validated by the store before this is drawn).
    version : int
        The version this run drew from.
    key : str
        The element's key (one per watched counter on a page).
    watch : {"state", "activity"} or None
        What students follow, or joins and answers (the projector's counts); None opens no
        stream (the teacher's own tab: it makes the changes, and only keeps its identity).
    min_interval_ms : int
        Changes closer together than this are handed on as one.
    remember : dict, optional
        Who this session is (``code``, ``kind``, ``secret``): sealed
        (:func:`relpos.class_routes.identity.seal`), then kept in the browser's local storage and,
        by the server, in :func:`identity_cookie` for this code; never shown, never in clear.
    ask : bool
        This session does not know who it is: hand back what the browser kept for this
        code (as the ``identity`` state, which reruns the script).
    forget : bool
        Drop what the browser kept for this code (the class is over, or the session left).
    seat : str, optional
        A student's token: the stream names their seat (sealed), so they count as here
        while this page is open (:mod:`relpos.class_routes.leases`).
    """
    mount = components.mount("class_events")
    data = {
        "url": events_path(code, watch, seat=seat) if watch else None,
        "code": code,
        "version": int(version),
        "minInterval": int(min_interval_ms),
        "remember": _sealed(remember),
        "ask": bool(ask),
        "forget": bool(forget),
        "identityUrl": identity.identity_path(code),
    }
    mount(key=key, data=data, default={"version": int(version)}, on_version_change=_ignore, on_identity_change=_ignore)
