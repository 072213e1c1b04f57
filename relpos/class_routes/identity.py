"""Who a browser is in a live class, kept where no script and no other app can read it.

A browser keeps its identity in a class (the teacher's credential, a student's token) so
that a new session (a server restart, another replica, a second tab) is the teacher or the
student again from its first run. It keeps it *sealed*: :func:`seal` encrypts and
authenticates ``kind, secret`` under a key only the server holds, bound to the class code.

* **the cookie** ``relpos-class-CODE`` holds the sealed identity; only the server sets it
  (``POST /relpos/class/{code}/identity``, :func:`identity_route`), ``HttpOnly`` (no script
  reads it), ``SameSite=Strict``, ``Secure`` over HTTPS and with ``Path`` the app's base path.
  Another app on the same host (cookies ignore the port) may still receive it, but it
  holds no credential: it opens nothing but this app's own class, and only until it ends.
* **the private teacher link** is ``/relpos/class/{code}/teach#<resume token>``
  (:func:`teach_page`): the token is in the fragment, which browsers never send to a server
  nor put in a Referer; the page takes it out of the address bar before anything else
  loads, trades it for the cookie (``POST`` to the same path, :func:`redeem_route`) and
  replaces itself with the lesson (``location.replace``: no history entry). A resume token
  is good for :data:`RESUME_SECONDS` only.

The key: Streamlit's ``server.cookieSecret`` when set (replicas share it, see
docs/hosting.md), else a random key kept in the data directory (``identity.key``), so a
restarted server still opens what its browsers kept.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import threading
import time
from pathlib import Path

import streamlit as st
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from relpos.class_routes.store import class_store
from relpos.classroom import codes, model
from relpos.classroom.errors import ClassroomError, StoreUnavailableError
from relpos.classroom.stores import default_sqlite_path
from relpos.server import asgi, internals

__all__ = [
    "IDENTITY_PATH",
    "KEEP_SECONDS",
    "RESUME_SECONDS",
    "TEACH_PATH",
    "cookie_name",
    "identity_path",
    "kept",
    "resume_token",
    "seal",
    "seat_ticket",
    "seat_token",
    "student_token",
    "teach_link",
    "unseal",
]

IDENTITY_PATH = "/relpos/class/{code}/identity"
TEACH_PATH = "/relpos/class/{code}/teach"
#: The page a private teacher link opens (the live class runs on the walkthrough).
TEACH_PAGE = "walkthrough"
#: How long the cookie is kept: the class's lifetime.
KEEP_SECONDS = int(model.CLASS_LIFETIME)
#: How long a private teacher link opens the class: enough to open it on another device.
RESUME_SECONDS = 15 * 60
#: A header only this app's own scripts send: a cross-site form cannot, and a cross-site
#: script would need a CORS preflight this app never grants (no cookie set or dropped by others).
CSRF_HEADER = "x-relpos-identity"
_KINDS = ("teacher", "student", "resume", "seat")
#: What a browser may keep as its identity (a resume token or a seat ticket opens no class).
_IDENTITIES = ("teacher", "student")
_MAX_SEALED = 512
#: The shortest server secret accepted without a warning (the key file's is 64 hex characters).
MIN_KEY_BYTES = 32
#: What :func:`seal` writes: URL-safe base64 without padding.
_SEALED_TEXT = re.compile(r"[A-Za-z0-9_-]+")

_log = logging.getLogger(__name__)
_key: bytes | None = None
_key_lock = threading.Lock()


# ---------------------------------------------------------------- sealing


def _master_key() -> bytes:
    """The server's secret (see the module notes), read once per process."""
    global _key
    with _key_lock:
        if _key is None:
            configured = internals.option_if_set("server.cookieSecret")
            if configured and len(str(configured).encode()) < MIN_KEY_BYTES:
                _log.warning(
                    "server.cookieSecret is shorter than %d bytes: a guessable secret lets a student who "
                    "knows their own token test guesses offline. Use a random one (docs/hosting.md).",
                    MIN_KEY_BYTES,
                )
            _key = str(configured).encode() if configured else _file_key(default_sqlite_path().parent / "identity.key")
        return _key


def _file_key(path: Path) -> bytes:
    """A random key kept at `path` (made once, readable by this user only); a process key
    when the directory cannot hold it (identities then end with the process)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            _publish(path, secrets.token_hex(32))
        key = path.read_bytes().strip()
        if len(key) < MIN_KEY_BYTES:  # emptied or cut short: it would seal nothing
            _log.error("The identity key at %s is too short; a new one is made (class identities start again).", path)
            path.unlink(missing_ok=True)
            _publish(path, secrets.token_hex(32))
            key = path.read_bytes().strip()
        return key
    except OSError as error:
        _log.warning("No identity key at %s (%s): browsers' class identities end with this process.", path, error)
        return secrets.token_bytes(32)


def _publish(path: Path, key: str) -> None:
    """Write `key` to `path` whole or not at all: written aside, then linked (two servers
    starting at once both read the first one's key, never a half-written file)."""
    aside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as file:
            file.write(key)
            file.flush()
            os.fsync(file.fileno())  # on disk before it has its name: a crash leaves no empty key
        os.link(aside, path)
    except FileExistsError:
        pass  # another process made it first: its key is the one
    finally:
        aside.unlink(missing_ok=True)


def _subkey(purpose: str, key: bytes | None = None) -> bytes:
    """One key per use, derived from the server's (or `key`, a test's reading of a server's file)."""
    return hmac.new(key or _master_key(), f"relpos-identity-v1\0{purpose}".encode(), hashlib.sha256).digest()


def _stream(nonce: bytes, length: int, key: bytes | None) -> bytes:
    """HMAC-SHA256 as a pseudorandom function in counter mode: the bytes to XOR with."""
    key = _subkey("encrypt", key)
    blocks = (hmac.new(key, nonce + i.to_bytes(4, "big"), hashlib.sha256).digest() for i in range(length // 32 + 1))
    return b"".join(blocks)[:length]


def _tag(code: str, nonce: bytes, sealed: bytes, key: bytes | None) -> bytes:
    return hmac.new(_subkey("authenticate", key), f"{code}\0".encode() + nonce + sealed, hashlib.sha256).digest()[:16]


def seal(kind: str, code: str, secret: str, *, expires: int = 0) -> str:
    """`kind` and `secret` for class `code`, encrypted and authenticated (URL-safe text).

    Deterministic (the nonce is derived from what is sealed): one identity seals to one
    value, so the browser is asked to keep it once, not at every run. `expires`: a Unix
    time after which :func:`unseal` refuses it (0: never; the class's end refuses it anyway).
    """
    plain = f"{kind}\0{secret}\0{int(expires)}".encode()
    nonce = hmac.new(_subkey("nonce"), f"{code}\0".encode() + plain, hashlib.sha256).digest()[:16]
    hidden = bytes(a ^ b for a, b in zip(plain, _stream(nonce, len(plain), None), strict=True))
    return base64.urlsafe_b64encode(nonce + hidden + _tag(code, nonce, hidden, None)).decode().rstrip("=")


def unseal(sealed, code: str, *, now: float | None = None, key: bytes | None = None) -> tuple[str, str] | None:
    """``(kind, secret)`` sealed by :func:`seal` for `code`, or None: forged, for another
    class, expired, or not sealed at all (an old cookie's ``teacher.<credential>``).
    `key`: another server's key (a test reading what its server sealed)."""
    if not isinstance(sealed, str) or not 40 <= len(sealed) <= _MAX_SEALED or not _SEALED_TEXT.fullmatch(sealed):
        return None  # only what seal() writes: a decoder skipping other characters let text ride along
    try:
        raw = base64.urlsafe_b64decode(sealed + "=" * (-len(sealed) % 4))
    except ValueError:
        return None
    nonce, hidden, tag = raw[:16], raw[16:-16], raw[-16:]
    if not hmac.compare_digest(tag, _tag(code, nonce, hidden, key)):
        return None
    kind, _, rest = bytes(a ^ b for a, b in zip(hidden, _stream(nonce, len(hidden), key), strict=True)).partition(b"\0")
    secret, _, expires = rest.partition(b"\0")
    if kind.decode() not in _KINDS or (int(expires) and int(expires) < (time.time() if now is None else now)):
        return None
    return kind.decode(), secret.decode()


def resume_token(code: str, credential: str, *, now: float | None = None) -> str:
    """What a private teacher link carries: the credential sealed for :data:`RESUME_SECONDS`."""
    return seal("resume", code, credential, expires=int((time.time() if now is None else now) + RESUME_SECONDS))


# ---------------------------------------------------------------- addresses and the cookie


def _base() -> str:
    """The app's base URL path: ``/base`` or empty."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else ""


def cookie_name(code: str) -> str:
    """The cookie in which the browser keeps its sealed identity in class `code`."""
    return f"relpos-class-{code}"


def identity_path(code: str) -> str:
    """Where the page asks the server to keep (or drop) its identity cookie."""
    return _base() + IDENTITY_PATH.format(code=code)


def teach_link(app_url: str, code: str, credential: str, *, presenter: bool = False) -> str:
    """The private teacher link: `app_url` (the app's address, base path included, no page)
    with the teach page's path, ``?presenter=1`` when wanted, and a fresh resume token in the fragment."""
    query = "?presenter=1" if presenter else ""
    return f"{app_url.rstrip('/')}{TEACH_PATH.format(code=code)}{query}#{resume_token(code, credential)}"


def _set_cookie(request: Request, code: str, value: str, max_age: int) -> list[str]:
    """The Set-Cookie headers for `value` (empty and 0: drop it), plus dropping an old
    script-set cookie at ``/`` when the app lives below a base path."""
    base = _base()
    secure = (
        request.url.scheme == "https"
        or request.headers.get("x-forwarded-proto", "").startswith("https")
        # a TLS proxy that does not say so: the address the app is given says it
        or os.environ.get("RELPOS_PUBLIC_URL", "").strip().lower().startswith("https://")
    )
    flags = f"; Max-Age={max_age}; HttpOnly; SameSite=Strict" + ("; Secure" if secure else "")
    headers = [f"{cookie_name(code)}={value}; Path={base}/{flags}"]  # base: "" or "/relpos"
    if base:
        headers.append(f"{cookie_name(code)}=; Path=/; Max-Age=0; SameSite=Strict")
    return headers


def _with_cookies(response: Response, headers: list[str]) -> Response:
    for header in headers:
        response.headers.append("set-cookie", header)
    return response


def kept(cookies, code: str) -> tuple[str, str] | None:
    """``(kind, secret)`` from the identity cookie among `cookies` (a mapping), if it opens for `code`."""
    found = unseal(cookies.get(cookie_name(code)), code)
    return found if found and found[0] in _IDENTITIES else None


def seat_ticket(code: str, token: str) -> str:
    """What a student's event stream names their seat by (``?seat=``, so the server counts
    them here while it is open; :mod:`relpos.class_routes.leases`): the token sealed as a
    ``seat``, which opens no class (:func:`kept` and the identity cookie refuse it), so a
    stream's address in a log holds nothing that answers for the student."""
    return seal("seat", code, token)


def seat_token(ticket, code: str) -> str | None:
    """The student's token a :func:`seat_ticket` names, or None (forged, or for another class)."""
    found = unseal(ticket, code)
    return found[1] if found and found[0] == "seat" else None


def student_token(request: Request, code: str) -> str:
    """A student's token from the request's identity cookie (empty when it holds none)."""
    found = kept(request.cookies, code)
    return found[1] if found and found[0] == "student" else ""


# ---------------------------------------------------------------- routes


def _code(request: Request) -> str | None:
    try:
        return codes.normalise_code(request.path_params["code"])
    except ClassroomError:
        return None


async def identity_route(request: Request) -> Response:
    """Keep ``{"sealed": …}`` in the HttpOnly cookie, or drop it (``{"forget": true}``)."""
    code = _code(request)
    if code is None or request.headers.get(CSRF_HEADER) != "1":
        return JSONResponse({"message": "Not kept."}, status_code=403)
    body = await asgi.bounded_body(request, 2 * _MAX_SEALED)
    if body is None:
        return JSONResponse({"message": "Not kept: too long."}, status_code=413)
    try:
        sent = json.loads(body or b"{}")
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        sent = {}
    if isinstance(sent, dict) and sent.get("forget"):
        return _with_cookies(Response(status_code=204), _set_cookie(request, code, "", 0))
    found = unseal(sent.get("sealed") if isinstance(sent, dict) else None, code)
    if found is None or found[0] not in _IDENTITIES:  # only what this server sealed as an identity
        return JSONResponse({"message": "Not kept."}, status_code=403)
    kept_value = seal(found[0], code, found[1])  # sealed again: the cookie holds the server's text, never the client's
    return _with_cookies(Response(status_code=204), _set_cookie(request, code, kept_value, KEEP_SECONDS))


#: The private link's page: static (no user text); it reads the token from the fragment,
#: takes it out of the address bar, trades it for the cookie and replaces itself with the lesson.
TEACH_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>relpos: opening your class</title>
</head><body style="font: 16px system-ui, sans-serif; margin: 2rem">
<p id="said">Opening your class as its teacher…</p>
<script>
(() => {
  const token = location.hash.slice(1);
  history.replaceState(null, "", location.pathname + location.search); // first: the token leaves the address bar
  const say = (text) => { document.getElementById("said").textContent = text; };
  if (!token) { say("This private teacher link is incomplete: save a new one from the class console."); return; }
  fetch(location.pathname + location.search, {
    method: "POST", body: token, credentials: "same-origin", referrerPolicy: "no-referrer",
    headers: {"Content-Type": "text/plain", "X-Relpos-Identity": "1"},
  }).then((answer) => answer.json().then((reply) => {
    if (answer.ok) location.replace(reply.next); // replace: no history entry for this page
    else say(reply.message);
  })).catch(() => say("The class server cannot be reached just now: open the link again in a moment."));
})();
</script></body></html>
"""
_PAGE_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    # its own inline script and style only; it fetches its own address and nothing else
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
}


async def teach_page(request: Request) -> Response:
    """The private teacher link's page (see :data:`TEACH_HTML`)."""
    return HTMLResponse(TEACH_HTML, headers=_PAGE_HEADERS)


async def redeem_route(request: Request) -> Response:
    """A resume token for the identity cookie and the lesson's address (see the module notes)."""
    code = _code(request)
    if code is None or request.headers.get(CSRF_HEADER) != "1":
        return JSONResponse({"message": "This is not a private teacher link."}, status_code=403)
    body = await asgi.bounded_body(request, _MAX_SEALED)
    found = None if body is None else unseal(body.decode("ascii", "replace"), code)
    if found is None or found[0] != "resume":
        message = (
            f"This private teacher link for class {code} has expired or is not valid: links open the class "
            f"for {RESUME_SECONDS // 60} minutes. Save a new one from the class console."
        )
        return JSONResponse({"message": message}, status_code=403, headers=_PAGE_HEADERS)
    try:
        await asyncio.to_thread(class_store().check_teacher, code, found[1])
    except StoreUnavailableError as error:
        return JSONResponse({"message": error.message}, status_code=503, headers=_PAGE_HEADERS)
    except ClassroomError as error:
        return JSONResponse({"message": error.message}, status_code=403, headers=_PAGE_HEADERS)
    base = request.url.path[: -len(TEACH_PATH.format(code=request.path_params["code"]))]
    presenter = "&presenter=1" if request.query_params.get("presenter") in ("1", "true") else ""
    reply = JSONResponse({"next": f"{base}/{TEACH_PAGE}?class={code}{presenter}"}, headers=_PAGE_HEADERS)
    return _with_cookies(reply, _set_cookie(request, code, seal("teacher", code, found[1]), KEEP_SECONDS))


asgi.register_routes(
    Route(IDENTITY_PATH, identity_route, methods=["POST"]),
    Route(TEACH_PATH, teach_page, methods=["GET"]),
    Route(TEACH_PATH, redeem_route, methods=["POST"]),
)
