"""Page weight: what a lesson link costs a class on one Wi-Fi, in bytes, requests and time.

For every page of the app (relpos.ui.navigation.PAGES) in Chromium, a cold load (a new
browser context: empty cache) and then a warm reload of the same tab: bytes on the wire
(CDP ``Network.loadingFinished`` encodedDataLength, headers included, plus the WebSocket's
traffic both ways as a relay in front of the server counts it, compressed as it travels;
the frames' payloads as CDP reports them, inflated, are printed beside it), requests, and
the time to ready (from the
navigation's start to the first animation frame in which the script is idle, the socket
connected, nothing stale and every chart drawn: each ``st.plotly_chart`` and each figure
of the Explorer panel, counted once the page has settled). Then the same under network
emulation (1.5 MB/s down, 40 ms latency), and a bare Streamlit page with one Plotly chart
(bench/floor_app.py, ``?heatmaps=1``) as the floor in the same run. Last, a class:
``--class-size`` browser contexts open ``/walkthrough?presenter=1`` at once on one
server (total bytes, p95 time to ready).

Targets: cold /explorer ≤ 1.8 MB, /walkthrough ≤ 2.2 MB; a warm reload ≤ 80 KB on every
page; throttled time to ready ≤ 1.3× the floor's.

Example (from the repository root)::

    python bench/page_weight.py                       # every page, throttled too, a class of 30
    python bench/page_weight.py --page explorer --no-throttle --class-size 0
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import socket
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relpos.ui.navigation import PAGES
from tests.support.browser import (
    ARTIFACTS,
    CHROMIUM,
    StreamlitServer,
    browser_unavailable_reason,
    deployed_server_options,
    free_port,
    launch_chromium,
)

MB = 1_000_000
TARGET_COLD = {"explorer": 1.8 * MB, "walkthrough": 2.2 * MB}
TARGET_WARM = 80_000
TARGET_THROTTLED_RATIO = 1.3
#: 1.5 MB/s down, 40 ms latency (CDP takes bytes per second); upload as a classroom's Wi-Fi gives.
THROTTLE = {"offline": False, "latency": 40, "downloadThroughput": 1.5 * MB, "uploadThroughput": 0.75 * MB}
#: Charts a page draws at least: its load is ready only once they are drawn (Streamlit loads
#: a chart's code after the run, and on a busy machine the page can look finished before).
CHARTS = {"walkthrough": 3, "explorer": 7, "position_effects": 4, "value_side": 3, "schemes": 24}
FLOOR_SCRIPT = "bench/floor_app.py"
FLOOR_QUERY = "heatmaps=1"

# Installed before any page script: one log entry whenever "idle" or the number of drawn
# charts changes (performance.now() counts from the navigation's start).
WATCH_JS = """
(() => {
  const log = (window.__weight = []);
  let last = '';
  const tick = () => {
    const app = document.querySelector('[data-testid=stApp]');
    const idle = !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
      && app.getAttribute('data-test-script-state') === 'notRunning'
      && !document.querySelector('[data-stale=true]')
      && !document.querySelector('[data-testid=stStatusWidgetRunningIcon], [data-testid=stStatusWidgetRunningManIcon]');
    const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart], .relpos-explorer-panel .ep-plot')];
    const drawn = charts.filter((chart) => {
      const plot = chart.querySelector('.js-plotly-plot') || chart;
      return !!plot._fullLayout;
    }).length;
    // a chart's container is there before Streamlit has loaded the code that draws it
    const pending = [...document.querySelectorAll('[data-testid=stElementContainer].stPrintGraphic')]
      .filter((box) => !box.querySelector('[data-testid]')).length;
    const state = `${idle}|${charts.length + pending}|${drawn}`;
    if (state !== last) { log.push([performance.now(), idle, charts.length + pending, drawn]); last = state; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();
"""


class Tap:
    """A TCP relay in front of a server that counts the bytes of its WebSocket connections
    as they cross the wire: CDP reports a WebSocket frame's payload after the browser has
    inflated it (permessage-deflate), which is not what the network carries.

    The browser opens the app through :attr:`port`; a connection whose first request asks
    for ``Upgrade: websocket`` is counted (both directions, handshake and frame headers
    included), every other one only relayed.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.socket_bytes = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, server_url: str) -> str:
        """`server_url` (on the target's port) through the tap."""
        return server_url.replace(f":{self.target_port}/", f":{self.port}/", 1)

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
        except OSError:
            client.close()
            return
        first = client.recv(65536)
        counted = b"upgrade: websocket" in first.lower()
        self._count(counted, len(first))
        upstream.sendall(first)
        threading.Thread(target=self._pump, args=(upstream, client, counted), daemon=True).start()
        self._pump(client, upstream, counted)

    def _pump(self, source: socket.socket, sink: socket.socket, counted: bool) -> None:
        try:
            while data := source.recv(65536):
                self._count(counted, len(data))
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def _count(self, counted: bool, size: int) -> None:
        if counted:
            with self._lock:
                self.socket_bytes += size


@dataclass
class Load:
    """One page load, as the wire and the page saw it.

    ``socket_bytes`` is the WebSocket's traffic as it crosses the network (compressed when
    the server and the browser agree on permessage-deflate, counted by a :class:`Tap`),
    ``socket_payload`` the frames' payloads as CDP reports them (inflated)."""

    http_bytes: int = 0
    socket_bytes: int = 0
    socket_payload: int = 0
    requests: int = 0
    ready_ms: float | None = None
    charts: int = 0
    encodings: dict[str, int] = field(default_factory=dict)  # content-encoding -> bytes

    @property
    def bytes(self) -> int:
        return self.http_bytes + self.socket_bytes


class Wire:
    """Counts one tab's bytes through CDP (HTTP bodies with headers, WebSocket frames)."""

    def __init__(self, page: Any, throttle: dict | None, tap: Tap) -> None:
        self.tap = tap
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Network.enable")
        self.cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})
        if throttle:
            self.cdp.send("Network.emulateNetworkConditions", throttle)
        self.load = Load()
        self._encoding: dict[str, str] = {}
        self.in_flight: dict[str, float] = {}  # request id -> when it started
        self.last_activity = time.monotonic()
        self.cdp.on("Network.requestWillBeSent", self._sent)
        self.cdp.on("Network.loadingFailed", self._done)
        self.cdp.on("Network.responseReceived", self._response)
        self.cdp.on("Network.loadingFinished", self._finished)
        self.cdp.on("Network.webSocketFrameReceived", self._frame)
        self.cdp.on("Network.webSocketFrameSent", self._frame)

    def reset(self) -> Load:
        self.load, self._encoding = Load(), {}
        self._tapped = self.tap.socket_bytes
        return self.load

    def finish(self) -> Load:
        """The load with the WebSocket bytes the tap counted since :meth:`reset`."""
        self.load.socket_bytes = self.tap.socket_bytes - self._tapped
        return self.load

    def quiet_for(self) -> float:
        """Seconds since the last HTTP request started or ended (0 while one is in flight)."""
        now = time.monotonic()
        # a request open for 10 s is a long poll or lost, not the page still loading
        busy = any(now - started < 10 for started in self.in_flight.values())
        return 0.0 if busy else now - self.last_activity

    def _sent(self, event: dict) -> None:
        if not event["request"]["url"].startswith("http"):
            return  # data: and blob: URLs never report an end
        self.in_flight[event["requestId"]] = time.monotonic()
        self.last_activity = time.monotonic()

    def _done(self, event: dict) -> None:
        self.in_flight.pop(event["requestId"], None)
        self.last_activity = time.monotonic()

    def _response(self, event: dict) -> None:
        headers = {key.lower(): value for key, value in event["response"].get("headers", {}).items()}
        self._encoding[event["requestId"]] = headers.get("content-encoding", "identity")

    def _finished(self, event: dict) -> None:
        self._done(event)
        size = int(event.get("encodedDataLength", 0))
        self.load.http_bytes += size
        self.load.requests += 1
        encoding = self._encoding.get(event["requestId"], "identity")
        self.load.encodings[encoding] = self.load.encodings.get(encoding, 0) + size

    def _frame(self, event: dict) -> None:
        frame = event["response"]
        data = frame.get("payloadData", "")
        # binary frames (opcode 2, Streamlit's protobufs) arrive base64-encoded
        self.load.socket_payload += len(base64.b64decode(data)) if frame.get("opcode") == 2 else len(data.encode())


def ready_time(
    page: Any, wire: Wire, *, settle_ms: int = 1500, timeout: float = 120, charts: int = 0
) -> tuple[float, int]:
    """(ms from the navigation's start to ready, charts drawn) once the page has settled:
    idle with every chart drawn, no request in flight and nothing changed for `settle_ms`
    (Streamlit loads an element's code when it first draws one, after the run is over), and
    at least `charts` charts on the page."""
    deadline = time.monotonic() + timeout
    stable_since, last = None, None
    while time.monotonic() < deadline:
        log = page.evaluate("() => window.__weight || []")
        final = log[-1] if log else None
        complete = final and final[1] and final[2] == final[3] >= charts
        if complete and log == last:
            if stable_since and time.monotonic() - stable_since >= settle_ms / 1000 and wire.quiet_for() >= 1:
                break
        else:
            stable_since = time.monotonic() if complete else None
        last = log
        page.wait_for_timeout(100)
    else:
        raise TimeoutError(f"{page.url} did not settle within {timeout:.0f} s (log {last[-3:] if last else []})")
    drawn = final[3]
    # the first moment from which the page stayed idle with every chart drawn
    ready = final[0]
    for entry in reversed(log):
        if entry[1] and entry[2] == drawn == entry[3]:
            ready = entry[0]
        else:
            break
    return ready, drawn


def measure(
    browser: Any, tap: Tap, url: str, *, throttle: dict | None = None, warm: bool = True, charts: int = 0
) -> tuple[Load, Load | None]:
    """A cold load of `url` (through `tap`) in a fresh context, then (with `warm`) a reload of the same tab."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        context.add_init_script(WATCH_JS)
        page = context.new_page()
        wire = Wire(page, throttle, tap)
        cold = wire.reset()
        page.goto(tap.url(url), wait_until="commit", timeout=120_000)
        cold.ready_ms, cold.charts = ready_time(page, wire, charts=charts)
        page.wait_for_timeout(300)  # late requests (a chunk loaded after the charts) count too
        wire.finish()
        if not warm:
            return cold, None
        hot = wire.reset()
        page.reload(wait_until="commit", timeout=120_000)
        hot.ready_ms, hot.charts = ready_time(page, wire, charts=charts)
        page.wait_for_timeout(300)
        wire.finish()
        return cold, hot
    finally:
        context.close()


def class_opens(browser: Any, tap: Tap, url: str, size: int, timeout: float = 300) -> tuple[int, list[float]]:
    """`size` fresh contexts open `url` at the same moment; (total bytes, ready times in ms)."""
    contexts, pages, wires = [], [], []
    try:
        for _ in range(size):
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            context.add_init_script(WATCH_JS)
            page = context.new_page()
            contexts.append(context)
            pages.append(page)
            wires.append(Wire(page, None, tap))
        for wire in wires:
            wire.reset()
        for page in pages:  # start every navigation before waiting for any
            page.evaluate("(url) => { window.location.href = url; }", tap.url(url))
        times = [
            ready_time(page, wire, settle_ms=1000, timeout=timeout, charts=CHARTS["walkthrough"])[0]
            for page, wire in zip(pages, wires, strict=True)
        ]
        # the tap counts every tab's WebSocket: the first wire's count holds them all
        return sum(wire.load.http_bytes for wire in wires) + wires[0].finish().socket_bytes, times
    finally:
        for context in contexts:
            context.close()


def p95(values: list[float]) -> float:
    return float(statistics.quantiles(values, n=20, method="inclusive")[-1]) if len(values) > 1 else values[0]


def row(name: str, cold: Load, warm: Load | None) -> str:
    encodings = ", ".join(f"{key} {value / MB:.2f}" for key, value in sorted(cold.encodings.items()))
    line = (
        f"{name:<17} cold {cold.bytes / MB:5.2f} MB ({cold.requests:3d} req, "
        f"socket {cold.socket_bytes / 1000:3.0f} KB, inflated {cold.socket_payload / 1000:3.0f}; "
        f"{encodings}) ready {cold.ready_ms:6.0f} ms, {cold.charts} charts"
    )
    if warm is not None:
        line += (
            f" | warm {warm.bytes / 1000:5.1f} KB (http {warm.http_bytes / 1000:4.1f} KB in {warm.requests} req, "
            f"socket {warm.socket_bytes / 1000:4.1f} KB, inflated {warm.socket_payload / 1000:4.1f}) "
            f"ready {warm.ready_ms:5.0f} ms"
        )
    return line


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def run(browser: Any, args: argparse.Namespace) -> int:
    pages = [spec for spec in PAGES if not args.page or spec.url_path in args.page]
    failures = 0
    options = deployed_server_options() if args.deploy else {}
    with (
        StreamlitServer("app.py", options=options, log_path=ARTIFACTS / "streamlit-page-weight.log") as server,
        StreamlitServer(FLOOR_SCRIPT, options=options, log_path=ARTIFACTS / "streamlit-page-weight-floor.log") as floor,
    ):
        print(f"page weight: {len(pages)} pages, Chromium {browser.version} headless, {os.cpu_count()} CPUs")
        tap, floor_tap = Tap(server.port), Tap(floor.port)
        results = {}
        floor_cold, floor_warm = measure(browser, floor_tap, floor.url("", FLOOR_QUERY), charts=1)
        print(row("floor (1 chart)", floor_cold, floor_warm))
        for spec in pages:
            cold, warm = measure(browser, tap, server.url(spec.url_path), charts=CHARTS.get(spec.url_path, 0))
            results[spec.url_path] = (cold, warm)
            print(row("/" + spec.url_path, cold, warm))
        for path, target in TARGET_COLD.items():
            if path in results:
                ok = results[path][0].bytes <= target
                failures += not ok
                print(f"target: cold /{path} {results[path][0].bytes / MB:.2f} MB (≤ {target / MB:.1f}) {verdict(ok)}")
        heaviest = max(results.items(), key=lambda item: item[1][1].http_bytes)
        ok = heaviest[1][1].http_bytes <= TARGET_WARM
        failures += not ok
        print(
            f"target: heaviest warm reload over HTTP /{heaviest[0]} {heaviest[1][1].http_bytes / 1000:.1f} KB "
            f"(≤ 80; the rest of a reload is Streamlit's WebSocket) {verdict(ok)}"
        )
        heaviest = max(results.items(), key=lambda item: item[1][1].bytes)
        ok = heaviest[1][1].bytes <= TARGET_WARM
        failures += not ok
        print(
            f"target: heaviest warm reload with its WebSocket /{heaviest[0]} {heaviest[1][1].bytes / 1000:.1f} KB "
            f"(≤ 80) {verdict(ok)}"
        )
        if args.throttle:
            print(f"throttled: {THROTTLE['downloadThroughput'] / MB:.1f} MB/s down, {THROTTLE['latency']} ms latency")
            floor_slow, _ = measure(
                browser, floor_tap, floor.url("", FLOOR_QUERY), throttle=THROTTLE, warm=False, charts=1
            )
            print(row("floor (1 chart)", floor_slow, None))
            worst = 0.0
            for spec in pages:
                slow, slow_warm = measure(
                    browser, tap, server.url(spec.url_path), throttle=THROTTLE, charts=CHARTS.get(spec.url_path, 0)
                )
                worst = max(worst, slow.ready_ms / floor_slow.ready_ms)
                print(
                    row("/" + spec.url_path, slow, slow_warm) + f" | {slow.ready_ms / floor_slow.ready_ms:.2f}× floor"
                )
            ok = worst <= TARGET_THROTTLED_RATIO
            failures += not ok
            print(
                f"target: throttled cold time to ready ≤ {TARGET_THROTTLED_RATIO}× floor: "
                f"worst {worst:.2f}× {verdict(ok)}"
            )
        if args.class_size:
            url = server.url("walkthrough", "presenter=1")
            total, times = class_opens(browser, tap, url, args.class_size)
            print(
                f"class: {args.class_size} contexts open /walkthrough?presenter=1 at once: "
                f"{total / MB:.1f} MB in all ({total / args.class_size / MB:.2f} MB each), "
                f"time to ready p50 {statistics.median(times):.0f} ms, p95 {p95(times):.0f} ms"
            )
    print(f"summary: {'all targets PASS' if not failures else f'{failures} target(s) FAIL'}")
    return 1 if failures else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", action="append", help="a page's url_path (repeatable); default every page")
    parser.add_argument("--no-throttle", dest="throttle", action="store_false", help="skip the emulated network")
    parser.add_argument("--class-size", type=int, default=30, help="contexts opening the walkthrough at once (0: none)")
    parser.add_argument("--deploy", action="store_true", help="serve with deploy/streamlit.toml's options")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # each page's line as it is measured
    reason = browser_unavailable_reason()
    if reason:
        raise SystemExit(f"needs Chromium ({CHROMIUM}): {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            return run(browser, args)
        finally:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
