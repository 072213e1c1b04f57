"""Which class store a server uses: SQLite by default, Redis when ``RELPOS_CLASS_STORE`` names one.

Apart from :mod:`relpos.classroom.store` (the rules every backend shares), so the backends
import the rules and nothing imports back: a SQLite server never loads the Redis client.
"""

from __future__ import annotations

import os

from relpos.classroom.store import BaseStore, default_sqlite_path

__all__ = ["open_store"]


def open_store(url: str | None = None, **options) -> BaseStore:
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
