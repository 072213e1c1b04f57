"""Which class store a server uses: SQLite by default, Redis when ``RELPOS_CLASS_STORE`` names one.

Apart from :mod:`relpos.classroom.store` (the rules every backend shares), so the backends
import the rules and nothing imports back: a SQLite server never loads the Redis client.
"""

from __future__ import annotations

import os
from pathlib import Path

from relpos.classroom.store import ClassStore

__all__ = ["DEFAULT_DATA_DIR", "default_sqlite_path", "open_store"]

#: Where the SQLite store keeps its file unless RELPOS_DATA_DIR says otherwise.
DEFAULT_DATA_DIR = ".relpos-data"


def open_store(url: str | None = None, **options) -> ClassStore:
    """The store `url` names, else ``RELPOS_CLASS_STORE``, else SQLite in the data directory.

    Parameters
    ----------
    url : str, optional
        ``redis://host:6379/0`` (also ``rediss://``, ``unix://``) for Redis;
        ``sqlite:///path/to/file.sqlite3`` or empty for SQLite.
    **options
        Passed to the store (``clock``, ``rng``).
    """
    url = url if url is not None else os.environ.get("RELPOS_CLASS_STORE", "")
    if url.startswith(("redis://", "rediss://", "unix://")):
        from relpos.classroom.redis_store import RedisStore  # only a Redis deployment needs the client

        return RedisStore(url, **options)
    if not url or url.startswith("sqlite://"):
        from relpos.classroom.sqlite_store import SqliteStore

        return SqliteStore(url.removeprefix("sqlite://") or default_sqlite_path(), **options)
    raise ValueError(f"RELPOS_CLASS_STORE must be redis://host:port/db or sqlite:///path; got {url[:60]!r}")


def default_sqlite_path() -> Path:
    """``$RELPOS_DATA_DIR/classes.sqlite3`` (``.relpos-data/`` when unset)."""
    return Path(os.environ.get("RELPOS_DATA_DIR") or DEFAULT_DATA_DIR) / "classes.sqlite3"
