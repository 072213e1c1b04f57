"""A throwaway ``redis-server`` on loopback, for the live-class store tests and benches.

Debian's ``redis-server`` on a free loopback port (RELPOS_PORTS when set), without
persistence unless asked, in a folder of the caller's; stopped when the ``with`` block ends. Without the
binary, :func:`redis_server_binary` raises :class:`RedisMissingError`: a pytest fixture turns it
into a skip (a failure under RELPOS_REQUIRE_REDIS=1), a bench into a message.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from tests.support.browser import free_port

__all__ = ["REDIS_SERVER", "RedisMissingError", "redis_server", "redis_server_binary"]

REDIS_SERVER = os.environ.get("RELPOS_REDIS_SERVER", "/usr/bin/redis-server")


class RedisMissingError(RuntimeError):
    """No redis-server to run."""


def redis_server_binary(path: str = REDIS_SERVER) -> str:
    """The redis-server to run (`path`, else the same name on PATH)."""
    found = path if os.access(path, os.X_OK) else shutil.which(Path(path).name)
    if not found:
        raise RedisMissingError(f"redis-server is not installed ({path}; apt-get install redis-server)")
    return found


def _ping(port: int) -> bool:
    import redis

    try:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=1).ping()
    except redis.RedisError:
        return False


#: The suite's setting: nothing kept on disk (a test's Redis starts empty).
NOT_PERSISTENT = ("--save", "", "--appendonly", "no")


@contextlib.contextmanager
def redis_server(
    folder: Path, *, binary: str | None = None, port: int | None = None, settings: tuple[str, ...] = NOT_PERSISTENT
) -> Iterator[tuple[str, subprocess.Popen]]:
    """``(redis://127.0.0.1:PORT/0, process)`` of a redis-server kept in `folder`, while the block runs.

    `port` (a free one by default) and `folder` again start it where a stopped one was;
    `settings` are its command-line options (docs/hosting.md's persistent ones, say).
    """
    folder.mkdir(parents=True, exist_ok=True)
    port, log = port or free_port(), folder / "redis.log"
    command = [binary or redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", *settings]
    command += ["--dir", str(folder), "--logfile", str(log)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 15
        while not _ping(port):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise RuntimeError(f"redis-server did not start on port {port}: {tail}")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", server
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
