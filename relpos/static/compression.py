"""Compressed variants of a body: which encoding a browser gets (:func:`negotiate`), each
variant made once (:func:`compress`) and kept in memory and on disk (:class:`CompressedStore`).

Used by the page weight middleware (:mod:`relpos.static.weight`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import brotli

__all__ = [
    "CACHE_DIR",
    "ENCODINGS",
    "MIN_SIZE",
    "SUFFIX",
    "CompressedStore",
    "compress",
    "compressible",
    "digest_of",
    "negotiate",
    "write_atomically",
]

ROOT = Path(__file__).resolve().parents[2]
#: Compressed variants of static files, one file per (content digest, encoding); gitignored.
#: RELPOS_CACHE_DIR moves it (e.g. to a writable volume).
CACHE_DIR = Path(os.environ.get("RELPOS_CACHE_DIR", ROOT / "data" / "cache" / "compressed"))

#: Encodings served, best first when the browser likes them equally.
ENCODINGS = ("br", "gzip")
#: The disk cache's file suffix of each encoding (and of its ETag).
SUFFIX = {"br": "br", "gzip": "gz"}
#: Below this many bytes an encoding saves less than its headers cost.
MIN_SIZE = 512
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
        return None if self.cache_dir is None else self.cache_dir / f"{digest}.{SUFFIX[encoding]}"

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
