"""Page weight: every response compressed once, and cached by the browser as long as it may be.

:class:`WeightMiddleware` is an ASGI middleware (mounted through ``st.App`` by
:mod:`relpos.server.asgi`) in front of Streamlit's own stack:

* **Streamlit's frontend files** (``/``, ``/static/…``, ``/manifest.json``) are answered
  from the installed package's static folder without reaching Streamlit: Streamlit serves
  them uncompressed on purpose (its gzip middleware skips ``/static`` because it would
  recompress them on every request). Here each file is compressed once, with brotli and
  gzip, and the variants are kept on disk (:data:`CACHE_DIR`, filled at install by
  ``python -m relpos.server.frontend``) and in memory. Hashed file names
  (``index.DormvYxC.js``) are immutable: ``Cache-Control: public, max-age=31536000,
  immutable``. The others get an ETag and ``no-cache``, so a reload asks and gets a 304.
* **Everything else** (the page HTML of ``/explorer``, ``/_stcore/host-config``, the Explorer
  panel's files, media) goes through Streamlit with ``Accept-Encoding`` taken off the
  request, so Streamlit's gzip never runs and nothing is encoded twice. A complete answer
  of known length (at most :data:`BUFFER_LIMIT`) then gets an ETag of its bytes (and a 304
  for a matching ``If-None-Match``) and is compressed here, once per distinct body: the
  variants are kept in memory by the body's digest. Answers of unknown length (a stream,
  server-sent events) and partial ones (``Range``) pass untouched.
* **Streamlit's Plotly chunk** is served with only the plotly.js the app draws with
  (:func:`relpos.server.frontend.app_transforms`, :mod:`relpos.static.plotly_trim`): 0.31 MB
  in brotli instead of 1.06. Its URL's hash names Streamlit's file, not what is sent, so it
  is revalidated (ETag, ``no-cache``) rather than immutable.
* **A page's head** can carry a few lines of the app's own (``head``: the theme's style
  sheet, :data:`relpos.ui.theme.THEME_CSS`): they are put before ``</head>`` of every HTML
  page served (``/`` from the static folder, ``/explorer`` from Streamlit), so they hold
  from the first paint rather than from the run that sends them.
* WebSocket traffic never enters: the back-pressure reads the socket's transport through
  the ``send`` wrappers (:func:`relpos.server.internals.transport_behind`), and none is added.

Variants are negotiated from ``Accept-Encoding`` with q-values (:func:`negotiate`); every
answer that could have been encoded says ``Vary: Accept-Encoding``.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import anyio

from relpos.static.compression import CACHE_DIR, MIN_SIZE, SUFFIX, CompressedStore, compressible, digest_of, negotiate
from relpos.static.static_folder import (
    IMMUTABLE,
    REVALIDATE,
    StaticFile,
    StaticFolder,
    Transform,
    precompress,
    with_head,
)

__all__ = [
    "CACHE_DIR",
    "IMMUTABLE",
    "REVALIDATE",
    "CompressedStore",
    "StaticFolder",
    "Transform",
    "WeightMiddleware",
    "digest_of",
    "negotiate",
    "precompress",
    "with_head",
]

#: Passed-through answers up to this size are buffered for an ETag and compression.
BUFFER_LIMIT = 4 * 1024 * 1024
_FRESHNESS = re.compile(r"max-age|no-cache|no-store|immutable", re.IGNORECASE)


def _etag(digest: str, encoding: str) -> str:
    return f'"{digest}"' if encoding == "identity" else f'"{digest}-{SUFFIX[encoding]}"'


def etag_matches(if_none_match: str | None, digest: str) -> bool:
    """Whether an ``If-None-Match`` header names this content in any of its encodings
    (the weak comparison RFC 9110 asks for here: ``W/`` and the encoding suffix aside)."""
    if not if_none_match:
        return False
    for tag in if_none_match.split(","):
        tag = tag.strip()
        if tag == "*":
            return True
        tag = tag.removeprefix("W/").strip('"')
        if tag == digest or tag in (f"{digest}-{suffix}" for suffix in SUFFIX.values()):
            return True
    return False


def _header(scope_headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    values = [value.decode("latin-1") for key, value in scope_headers if key.lower() == name]
    return ", ".join(values) if values else None


class WeightMiddleware:
    """Compression, ETags and cache policy for every HTTP answer (see the module's docstring).

    Parameters
    ----------
    app
        The ASGI application inside (Streamlit's stack).
    static_root
        The folder whose files are answered directly (Streamlit's frontend build), or None.
    transforms
        Files of that folder served changed (:class:`StaticFolder`).
    base_url
        Streamlit's ``server.baseUrlPath``: the static files are served under it.
    store
        Where compressed variants are kept; a new :class:`CompressedStore` by default.
    head
        HTML put in the head of every page Streamlit serves (:func:`with_head`); the
        static folder's ``index.html`` gets it through `transforms` (:func:`relpos.server.frontend.app_transforms`).
    """

    def __init__(
        self,
        app,
        *,
        static_root: Path | None = None,
        base_url: str = "",
        store: CompressedStore | None = None,
        transforms: dict[str, Transform] | None = None,
        head: str = "",
    ) -> None:
        self.app = app
        self.head = head
        self.base = "/" + base_url.strip("/") if base_url.strip("/") else ""
        self.store = store if store is not None else CompressedStore()
        self.static = None
        if static_root is not None:
            self.static = StaticFolder(static_root, transforms=transforms, cache_dir=self.store.cache_dir)
            if transforms:  # ready before the first page asks, as far as the server's start allows
                threading.Thread(target=self.static.warm, name="relpos-static-changes", daemon=True).start()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        file = self._static_file(scope["path"])
        if file is not None:
            await self._serve_file(file, scope, send)
        else:
            await self._pass_through(scope, receive, send)

    def _static_file(self, path: str) -> StaticFile | None:
        if self.static is None:
            return None
        if self.base:
            if path == self.base:
                path = "/"
            elif path.startswith(self.base + "/"):
                path = path[len(self.base) :]
            else:
                return None
        return self.static.get(path)

    async def _serve_file(self, file: StaticFile, scope, send) -> None:
        digest = await anyio.to_thread.run_sync(self.static.digest, file)
        size = self.static.size(file)

        def body() -> bytes:
            return self.static.body(file)

        await self._answer(
            scope, send, digest=digest, size=size, body=body, content_type=file.content_type,
            cache_control=file.cache_control, persist=True, headers=[],
        )  # fmt: skip

    async def _answer(
        self, scope, send, *, digest, size, body, content_type, cache_control, persist, headers, status=200
    ) -> None:
        """Send one representation: a 304 for a matching ETag, else the best variant."""
        request = scope["headers"]
        encodable = compressible(content_type) and size >= MIN_SIZE
        encoding = negotiate(_header(request, b"accept-encoding")) if encodable else "identity"
        common = [*headers, (b"etag", _etag(digest, encoding).encode())]
        if cache_control:
            common.append((b"cache-control", cache_control.encode("latin-1")))
        if encodable:
            common.append((b"vary", b"Accept-Encoding"))
        if etag_matches(_header(request, b"if-none-match"), digest):
            await send({"type": "http.response.start", "status": 304, "headers": common})
            await send({"type": "http.response.body", "body": b""})
            return
        if encoding == "identity":
            payload = await anyio.to_thread.run_sync(body)
        else:
            payload = await anyio.to_thread.run_sync(lambda: self.store.get(digest, encoding, body, persist=persist))
            common.append((b"content-encoding", encoding.encode()))
        common += [(b"content-type", content_type.encode("latin-1")), (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": common})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else payload})

    async def _pass_through(self, scope, receive, send) -> None:
        """Streamlit answers (as a GET, with no Accept-Encoding); a complete 200 of known
        length gets an ETag and is compressed here, anything else is forwarded as it came."""
        head = scope["method"] == "HEAD"
        inner = dict(
            scope, method="GET", headers=[(k, v) for k, v in scope["headers"] if k.lower() != b"accept-encoding"]
        )
        state: dict = {"start": None, "buffer": None}

        async def capture(message) -> None:
            if message["type"] == "http.response.start":
                if self._worth_buffering(message):
                    state["start"], state["buffer"] = message, []
                else:
                    await send(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            if state["buffer"] is None:
                await send(dict(message, body=b"") if head else message)
                return
            state["buffer"].append(message.get("body", b""))
            if not message.get("more_body", False):
                await self._answer_buffered(scope, send, state["start"], b"".join(state["buffer"]))

        await self.app(inner, receive, capture)

    @staticmethod
    def _worth_buffering(start) -> bool:
        if start["status"] != 200:
            return False
        headers = {key.lower(): value for key, value in start.get("headers", [])}
        if b"content-encoding" in headers or b"content-range" in headers:
            return False
        length = headers.get(b"content-length")
        return length is not None and length.isdigit() and int(length) <= BUFFER_LIMIT

    async def _answer_buffered(self, scope, send, start, payload: bytes) -> None:
        keep, content_type, cache_control = [], None, None
        for key, value in start.get("headers", []):
            name = key.lower()
            if name == b"content-type":
                content_type = value.decode("latin-1")
            elif name == b"cache-control":
                cache_control = value.decode("latin-1")
            elif name not in (b"content-length", b"etag") and (name, value.lower()) != (b"vary", b"accept-encoding"):
                keep.append((key, value))
        if self.head and (content_type or "").startswith("text/html"):
            payload = with_head(payload, self.head) or payload
        if not cache_control or not _FRESHNESS.search(cache_control):
            # "public" alone (the component assets) or nothing (media): no freshness, so
            # say it — the browser revalidates with the ETag and gets a 304.
            cache_control = f"{cache_control}, {REVALIDATE}" if cache_control else REVALIDATE
        await self._answer(
            scope, send, digest=digest_of(payload), size=len(payload), body=lambda: payload,
            content_type=content_type or "application/octet-stream", cache_control=cache_control,
            persist=False, headers=keep, status=start["status"],
        )  # fmt: skip
