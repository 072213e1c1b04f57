"""Idle class event streams: what they cost the server in threads, CPU and memory.

Starts one server (deployment configuration) with a fresh SQLite data folder, starts
``--classes`` classes through the store, then opens ``--streams`` event streams spread over
them (raw sockets, from several loopback addresses: one address may hold at most
``MAX_STREAMS_PER_CLIENT``), reads each one's first version and lets them sit idle. Reports
the server's threads and resident memory before and with the streams open, its CPU share
over ``--seconds`` idle seconds, and how long one change takes to reach its class's streams.

Example::

    python bench/streams.py                          # 2,000 streams over 1,000 classes
    python bench/streams.py --classes 100 --streams 400 --seconds 5
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relpos.classroom.stores import open_store
from tests.support.browser import StreamlitServer, deployed_server_options

PER_ADDRESS = 500  # streams opened from one loopback address (below any per-client cap)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--classes", type=int, default=1000)
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=10.0, help="idle seconds the CPU share is measured over")
    return parser.parse_args(argv)


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_stream(port: int, code: str, number: int) -> socket.socket:
    """A stream of `code` from loopback address 127.0.0.(2 + number // PER_ADDRESS)."""
    sock = socket.socket()
    sock.bind((f"127.0.0.{2 + number // PER_ADDRESS}", 0))
    sock.settimeout(60)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /relpos/class/{code}/events?watch=state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def read_until(sock: socket.socket, marker: bytes) -> None:
    seen = b""
    while marker not in seen:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError(f"a stream closed before {marker!r}: {seen[-200:]!r}")
        seen += chunk


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as data:
        options = deployed_server_options()
        with StreamlitServer("app.py", options=options, env={"RELPOS_DATA_DIR": data}) as server:
            pid, store = server.process.pid, open_store(f"sqlite://{Path(data) / 'classes.sqlite3'}")
            classes = [store.create_class() for _ in range(args.classes)]
            time.sleep(1.0)
            before = (threads(pid), server.rss_bytes())
            opened = time.monotonic()
            streams = [open_stream(server.port, classes[n % len(classes)][0].code, n) for n in range(args.streams)]
            for sock in streams:
                read_until(sock, b"data: 0")
            opened = time.monotonic() - opened
            time.sleep(2.0)
            started, cpu = time.monotonic(), cpu_seconds(pid)
            time.sleep(args.seconds)
            share = (cpu_seconds(pid) - cpu) / (time.monotonic() - started)
            during = (threads(pid), server.rss_bytes())
            record, credential = classes[0]
            changed = time.monotonic()
            store.set_stop(record.code, credential, index=1)
            for sock in streams[:: len(classes)]:
                read_until(sock, b"data: 1")
            reached = time.monotonic() - changed
            for sock in streams:
                sock.close()
            store.close()
    mib = 2**20
    print(f"{args.streams} idle streams over {args.classes} classes (opened in {opened:.1f} s)")
    print(f"threads: {before[0]} before, {during[0]} with the streams open")
    print(f"memory (RSS): {before[1] / mib:.0f} MiB before, {during[1] / mib:.0f} MiB with the streams open")
    print(f"CPU while idle: {share:.1%} of a core over {args.seconds:g} s")
    print(f"one change reached its class's {len(streams[:: len(classes)])} streams in {reached * 1000:.0f} ms")


if __name__ == "__main__":
    main()
