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

import contextlib
import hashlib
import mimetypes
import os
import re
import tempfile
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import anyio
import brotli

__all__ = [
    "CACHE_DIR",
    "IMMUTABLE",
    "REVALIDATE",
    "CompressedStore",
    "StaticFolder",
    "WeightMiddleware",
    "negotiate",
    "precompress",
]

ROOT = Path(__file__).resolve().parents[2]
#: Compressed variants of static files, one file per (content digest, encoding); gitignored.
#: RELPOS_CACHE_DIR moves it (e.g. to a writable volume).
CACHE_DIR = Path(os.environ.get("RELPOS_CACHE_DIR", ROOT / "data" / "cache" / "compressed"))

#: For a URL whose name carries its content's hash: the bytes behind it never change.
IMMUTABLE = "public, max-age=31536000, immutable"
#: For anything else: the browser keeps it but asks first (ETag → 304).
REVALIDATE = "no-cache"

#: Encodings served, best first when the browser likes them equally.
ENCODINGS = ("br", "gzip")
_SUFFIX = {"br": "br", "gzip": "gz"}
#: Below this many bytes an encoding saves less than its headers cost.
MIN_SIZE = 512
#: Passed-through answers up to this size are buffered for an ETag and compression.
BUFFER_LIMIT = 4 * 1024 * 1024
#: Compressed variants kept in memory (least recently used leave first).
MEMORY_LIMIT = 64 * 1024 * 1024
#: Final quality, spent once per file and kept on disk (brotli 11 is ~10 % smaller than 9
#: on Streamlit's Plotly chunk, and takes ~10 s for its 4.7 MB).
BROTLI_FINAL, GZIP_FINAL = 11, 9
#: Quality for a body needed now that has no stored variant yet (~20 MB/s brotli), when it
#: is larger than QUICK_ABOVE (a smaller one gets the final quality at once).
BROTLI_QUICK, GZIP_QUICK = 5, 6
QUICK_ABOVE = 64 * 1024

_COMPRESSIBLE = re.compile(r"^(text/|application/(javascript|json|manifest\+json|xml|wasm)|image/svg\+xml|font/ttf)")
_HASHED_NAME = re.compile(r"\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9]+$")
_FRESHNESS = re.compile(r"max-age|no-cache|no-store|immutable", re.IGNORECASE)


def compressible(content_type: str | None) -> bool:
    """Whether a body of this type shrinks when encoded (fonts in woff2 and images do not)."""
    return bool(content_type and _COMPRESSIBLE.match(content_type.lower()))


def negotiate(accept_encoding: str | None, available: Iterable[str] = ENCODINGS) -> str:
    """The content coding to send for this ``Accept-Encoding`` header: one of `available` or
    ``"identity"``.

    Follows RFC 9110 §12.5.3: the highest q-value wins, ``q=0`` refuses a coding, ``*``
    stands for every coding not named, and ``identity`` is acceptable unless refused
    (explicitly or by ``*;q=0``). Among equal q-values the order of `available` decides.
    When even ``identity`` is refused the body is still sent as is (the alternative is
    an error page no browser asks for).

    >>> negotiate("gzip, deflate, br, zstd")
    'br'
    >>> negotiate("gzip;q=1.0, br;q=0.5")
    'gzip'
    >>> negotiate("br;q=0, *")
    'gzip'
    >>> negotiate("identity"), negotiate(None), negotiate("")
    ('identity', 'identity', 'identity')
    """
    weights: dict[str, float] = {}
    for item in (accept_encoding or "").split(","):
        name, _, params = item.strip().partition(";")
        name = name.strip().lower()
        if not name:
            continue
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    weight = 0.0
        weights[name] = weight
    star = weights.get("*")

    def weight_of(coding: str) -> float:
        return weights.get(coding, star if star is not None else 0.0)

    # identity, when not named, comes after every coding the browser accepts
    identity = weights.get("identity", 0.0 if star == 0 else 0.001)
    offers = [(weight_of(coding), -rank, coding) for rank, coding in enumerate(available) if weight_of(coding) > 0]
    best = max(offers, default=None)
    return best[2] if best is not None and best[0] >= identity else "identity"


def compress(data: bytes, encoding: str, *, final: bool) -> bytes:
    """`data` in `encoding` (``br`` or ``gzip``), at the final or the quick quality."""
    if encoding == "br":
        return brotli.compress(data, quality=BROTLI_FINAL if final else BROTLI_QUICK)
    # gzip framing without a timestamp: the same input always gives the same bytes
    packer = zlib.compressobj(GZIP_FINAL if final else GZIP_QUICK, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()


def digest_of(data: bytes) -> str:
    """The content's name in ETags and in the disk cache."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class CompressedStore:
    """Compressed variants by (content digest, encoding): in memory, then on disk, else made.

    A variant is made once: a body needed now with none stored is compressed at the
    quick quality, and (for a file worth keeping, ``persist``) its final variant is made
    by a background thread, written to `cache_dir` and used from then on. A cache folder
    that cannot be written (a read-only image) leaves the memory alone in use.
    """

    def __init__(self, cache_dir: Path | None = CACHE_DIR, memory_limit: int = MEMORY_LIMIT) -> None:
        self.cache_dir = cache_dir
        self.memory_limit = memory_limit
        self._memory: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._memory_bytes = 0
        self._lock = threading.Lock()
        self._making: dict[tuple[str, str], threading.Lock] = {}
        self._final_pending: set[tuple[str, str]] = set()
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="relpos-compress")
        self.made = {"quick": 0, "final": 0}  # how many variants were compressed here (tests, bench)

    def path(self, digest: str, encoding: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / f"{digest}.{_SUFFIX[encoding]}"

    def get(self, digest: str, encoding: str, data: Callable[[], bytes], *, persist: bool) -> bytes:
        """The `encoding` variant of the body `data()` returns (read only when needed)."""
        key = (digest, encoding)
        found = self._remembered(key) or self._from_disk(key)
        if found is not None:
            return found
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        with making:  # one thread compresses a body; the others wait for its result
            found = self._remembered(key)
            if found is not None:
                return found
            body = data()
            final = len(body) < QUICK_ABOVE
            if persist and final and self.store(digest, encoding, body):
                return self._remembered(key) or self._from_disk(key) or compress(body, encoding, final=True)
            variant = compress(body, encoding, final=final)
            self.made["final" if final else "quick"] += 1
            self._remember(key, variant)
            if persist and not final and self.path(digest, encoding) is not None:
                self._final_later(key, data)
        return variant

    def _remembered(self, key: tuple[str, str]) -> bytes | None:
        with self._lock:
            found = self._memory.get(key)
            if found is not None:
                self._memory.move_to_end(key)
            return found

    def _remember(self, key: tuple[str, str], variant: bytes) -> None:
        with self._lock:
            old = self._memory.pop(key, None)
            self._memory_bytes -= len(old) if old is not None else 0
            self._memory[key] = variant
            self._memory_bytes += len(variant)
            while self._memory_bytes > self.memory_limit and len(self._memory) > 1:
                _, dropped = self._memory.popitem(last=False)
                self._memory_bytes -= len(dropped)

    def _from_disk(self, key: tuple[str, str]) -> bytes | None:
        path = self.path(*key)
        if path is None:
            return None
        try:
            variant = path.read_bytes()
        except OSError:
            return None
        self._remember(key, variant)
        return variant

    def store(self, digest: str, encoding: str, body: bytes) -> bool:
        """Make the final variant of `body` and write it to disk (atomically); False when
        the cache folder cannot be written."""
        path = self.path(digest, encoding)
        if path is None:
            return False
        variant = compress(body, encoding, final=True)
        with self._lock:
            self.made["final"] += 1
        if not write_atomically(path, variant):
            return False
        self._remember((digest, encoding), variant)
        return True

    def _final_later(self, key: tuple[str, str], data: Callable[[], bytes]) -> None:
        with self._lock:
            if key in self._final_pending:
                return
            self._final_pending.add(key)
        self._background.submit(self.store, key[0], key[1], data())

    def wait_background(self) -> None:
        """Block until every final variant asked for so far is written (tests, install)."""
        self._background.submit(lambda: None).result()

    def close(self) -> None:
        self._background.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class Transform:
    """How some files of the static folder are served changed.

    `apply` takes a file's bytes and gives the bytes to serve (None: serve it as it is);
    `key` names everything else the result depends on (the code and its inputs), so a
    result kept on disk under the file's digest and this key is never a stale one.
    """

    apply: Callable[[bytes], bytes | None]
    key: str


def write_atomically(path: Path, data: bytes) -> bool:
    """Write `data` to `path` whole or not at all; False when the folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=path.parent, suffix=".partial")
    except OSError:
        return False
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(partial, 0o644)  # written at image build by root, read by the app's user
        os.replace(partial, path)  # another server writing the same file wins or loses whole
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
    return True


@dataclass(frozen=True)
class StaticFile:
    """One file of a static folder, as served."""

    path: Path
    content_type: str
    cache_control: str
    transform: Transform | None = None


class StaticFolder:
    """A folder of files served at URL paths (Streamlit's frontend build).

    The listing is made once (the folder is package content, fixed while the server
    runs); each file's digest is computed on its first request and remembered.

    `transforms` maps a glob below `root` to a :class:`Transform`: those files are served
    as it changes them, and, as their URL's hash no longer names what is sent, revalidated
    rather than immutable. A change is made once per version of the file and kept in
    memory and in `cache_dir` (a font subset takes seconds: made at install, it is read
    back by every server after).
    """

    def __init__(
        self,
        root: Path,
        index: str = "index.html",
        transforms: dict[str, Transform] | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        self.root = root
        self.cache_dir = cache_dir
        self.files: dict[str, StaticFile] = {}
        changed = {path: change for glob, change in (transforms or {}).items() for path in root.glob(glob)}
        for path in sorted(root.rglob("*")):
            if path.is_file():
                relative = path.relative_to(root).as_posix()
                change = changed.get(path)
                policy = REVALIDATE if change else _cache_policy(relative)
                self.files["/" + relative] = StaticFile(path, _content_type(path), policy, change)
        if f"/{index}" in self.files:
            self.files["/"] = self.files[f"/{index}"]
        self._known: dict[Path, tuple[tuple[int, int], str, bytes | None]] = {}
        self._lock = threading.Lock()
        self._locks: dict[Path, threading.Lock] = {}

    def get(self, url_path: str) -> StaticFile | None:
        return self.files.get(url_path)

    def _version(self, file: StaticFile) -> tuple[str, bytes | None]:
        """(digest, changed bytes or None) of the file as served now."""
        stat = file.path.stat()
        version = (stat.st_size, stat.st_mtime_ns)
        with self._lock:
            lock = self._locks.setdefault(file.path, threading.Lock())
        with lock:  # one thread reads (and changes) a file; the others wait for its result
            known = self._known.get(file.path)
            if known is None or known[0] != version:
                data = file.path.read_bytes()
                changed = self._changed(data, file.transform) if file.transform else None
                known = (version, digest_of(data if changed is None else changed), changed)
                self._known[file.path] = known
        return known[1], known[2]

    def _changed(self, data: bytes, transform: Transform) -> bytes | None:
        """`transform` applied to `data`, from the disk cache when it was made before (an
        empty file there: it left `data` as it is)."""
        path = None
        if self.cache_dir is not None:
            path = self.cache_dir / f"{digest_of(data)}-{digest_of(transform.key.encode())}.changed"
            with contextlib.suppress(OSError):
                kept = path.read_bytes()
                return kept or None
        changed = transform.apply(data)
        if path is not None:
            write_atomically(path, changed or b"")
        return changed

    def warm(self) -> None:
        """Make every change now (install, or a server's start) rather than on first request."""
        for file in self.files.values():
            if file.transform is not None:
                self._version(file)

    def digest(self, file: StaticFile) -> str:
        return self._version(file)[0]

    def body(self, file: StaticFile) -> bytes:
        """The bytes served for `file`."""
        changed = self._version(file)[1]
        return file.path.read_bytes() if changed is None else changed

    def size(self, file: StaticFile) -> int:
        changed = self._version(file)[1]
        return file.path.stat().st_size if changed is None else len(changed)


def _content_type(path: Path) -> str:
    guessed = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if guessed.startswith("text/") or guessed in ("application/javascript", "application/json"):
        guessed += "; charset=utf-8"
    return guessed


def _cache_policy(relative: str) -> str:
    """Immutable for Streamlit's hashed bundle names under ``static/``, revalidate the rest."""
    return IMMUTABLE if relative.startswith("static/") and _HASHED_NAME.search(relative) else REVALIDATE


def precompress(folder: StaticFolder, store: CompressedStore, *, workers: int | None = None) -> tuple[int, int]:
    """Write the final variants of every compressible file in `folder` that the disk cache
    lacks, on `workers` threads (every core by default: brotli and zlib let go of the GIL
    while they compress); (variants written, variants already there)."""
    present = 0
    jobs = []
    folder.warm()
    for file in set(folder.files.values()):
        if not compressible(file.content_type) or folder.size(file) < MIN_SIZE:
            continue
        digest = folder.digest(file)
        for encoding in ENCODINGS:
            path = store.path(digest, encoding)
            if path is not None and path.exists():
                present += 1
            else:
                jobs.append((folder.size(file), file.path, file, digest, encoding))
    jobs.sort(key=lambda job: (-job[0], job[1], job[4]))  # the largest first: the cores finish together

    def make(job) -> bool:
        _, _, file, digest, encoding = job
        return store.store(digest, encoding, folder.body(file))

    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1, thread_name_prefix="relpos-make") as pool:
        written = sum(pool.map(make, jobs))
    return written, present


def with_head(page: bytes, head: str) -> bytes | None:
    """`page` (HTML) with `head` put just before its ``</head>``; None when there is
    nothing to add or no ``</head>`` to add it before."""
    at = page.rfind(b"</head>")
    if not head or at < 0:
        return None
    return page[:at] + head.encode() + page[at:]


# ---------------------------------------------------------------------------------------
# The middleware


def _etag(digest: str, encoding: str) -> str:
    return f'"{digest}"' if encoding == "identity" else f'"{digest}-{_SUFFIX[encoding]}"'


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
        if tag == digest or tag in (f"{digest}-{suffix}" for suffix in _SUFFIX.values()):
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
