"""A folder of static files as served: each file's content type and cache policy, files
served changed (:class:`Transform`), and their compressed variants written at install
(:func:`precompress`).

Used by the page weight middleware (:mod:`relpos.static.weight`) for Streamlit's frontend build.
"""

from __future__ import annotations

import contextlib
import mimetypes
import os
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from relpos.static.compression import ENCODINGS, MIN_SIZE, CompressedStore, compressible, digest_of, write_atomically

__all__ = ["IMMUTABLE", "REVALIDATE", "StaticFile", "StaticFolder", "Transform", "precompress", "with_head"]

#: For a URL whose name carries its content's hash: the bytes behind it never change.
IMMUTABLE = "public, max-age=31536000, immutable"
#: For anything else: the browser keeps it but asks first (ETag → 304).
REVALIDATE = "no-cache"

_HASHED_NAME = re.compile(r"\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9]+$")


@dataclass(frozen=True)
class Transform:
    """How some files of the static folder are served changed.

    `apply` takes a file's bytes and gives the bytes to serve (None: serve it as it is);
    `key` names everything else the result depends on (the code and its inputs), so a
    result kept on disk under the file's digest and this key is never a stale one.
    """

    apply: Callable[[bytes], bytes | None]
    key: str


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
