"""The class's results as a CSV file, for the teacher's browser only (issue 38, point 13).

``GET /relpos/class/{code}/results.csv?tz=Europe/Paris`` answers the CSV only to a request
that carries the class's teacher identity cookie (:mod:`relpos.class_routes.identity`: HttpOnly,
SameSite=Strict, so a link followed from another site does not carry it). Streamlit's
``download_button`` served the same file at an unguessable ``/media/…`` address that
anyone holding the address could fetch without any session, for as long as Streamlit kept
it; this route is asked at the click and the file is made then (every answer so far).
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlencode

import streamlit as st
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from relpos.class_routes import identity
from relpos.class_routes.store import class_store
from relpos.classroom import codes
from relpos.classroom.errors import ClassroomError, StoreUnavailableError
from relpos.server import asgi

__all__ = ["RESULTS_PATH", "file_name", "results_path"]

RESULTS_PATH = "/relpos/class/{code}/results.csv"
#: A file the teacher keeps, never a cache's: not stored, not sent on as a Referer.
_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}


def file_name(code: str) -> str:
    """The downloaded file's name: ``relpos_class_K7QX2M.csv``."""
    return f"relpos_class_{code}.csv"


def results_path(code: str, zone: str | None) -> str:
    """The route's address for `code`, below the app's base path, with the teacher's time zone."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    query = f"?{urlencode({'tz': zone})}" if zone else ""
    return f"{'/' + base if base else ''}{RESULTS_PATH.format(code=code)}{query}"


def _refused(message: str, status: int = 403) -> Response:
    return PlainTextResponse(message, status_code=status, headers=_HEADERS)


def _csv(code: str, credential: str, zone: str | None) -> bytes:
    """The CSV for a spreadsheet: UTF-8 with a byte order mark (Excel reads e₁₄ right only with it)."""
    return ("\ufeff" + class_store().export_csv(code, credential, zone)).encode("utf-8")


async def results_route(request: Request) -> Response:
    """The class's CSV, if this browser is the class's teacher (its identity cookie says so)."""
    try:
        code = codes.normalise_code(request.path_params["code"])
    except ClassroomError as error:
        return _refused(error.message, 404)
    found = identity.kept(request.cookies, code)
    if found is None or found[0] != "teacher":
        return _refused(f"Only the teacher's browser of class {code} downloads its results, from its console.")
    try:
        body = await asyncio.to_thread(_csv, code, found[1], request.query_params.get("tz"))
    except StoreUnavailableError as error:
        return _refused(error.message, 503)
    except ClassroomError as error:
        return _refused(error.message)
    headers = {**_HEADERS, "Content-Disposition": f'attachment; filename="{file_name(code)}"'}
    return Response(body, media_type="text/csv; charset=utf-8", headers=headers)


asgi.register_routes(Route(RESULTS_PATH, results_route, methods=["GET"]))
