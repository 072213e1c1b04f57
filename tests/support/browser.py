"""Real-browser machinery shared by the browser tests and the benchmarks.

* :class:`StreamlitServer` runs ``streamlit run <script>`` on a free loopback port and
  waits for ``/_stcore/health``; it also reads the server's memory from ``/proc``.
* :func:`launch_chromium` starts Debian's Chromium through Playwright (never a
  downloaded browser).
* :class:`AppTab` wraps one Playwright page of the app with the few verbs the tests
  need: open a page, wait until the app is idle, press keys on a slider, click a
  button, read the Plotly figures that are actually drawn, take a screenshot.

How "idle" is detected: every ``script_finished`` message the server sends over the
page's WebSocket is counted (decoded with Streamlit's own protobufs), so an interaction
waits for *its own* rerun instead of racing the moment before the rerun starts; then
Streamlit's root element must say ``data-test-script-state="notRunning"`` and
``data-test-connection-state="CONNECTED"``, with no stale element left and no running
indicator. (Watching the DOM attribute alone misses runs: when a fast run's messages
arrive together, React renders "running" and "notRunning" in one batch and the attribute
never changes.)

No pytest import here: the benchmarks in ``bench/`` use this module too.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import tomllib
import unicodedata
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlencode, urlsplit

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screens"
DEPLOY_CONFIG = ROOT / "deploy" / "streamlit.toml"

#: Debian's Chromium; override with RELPOS_CHROMIUM=/path/to/chromium.
CHROMIUM = os.environ.get("RELPOS_CHROMIUM", "/usr/bin/chromium")
#: Fresh tabs a test of a race opens, each one more chance for the race to go wrong: few
#: in ``make test``, more in ``make soak`` (bench/suite_soak.py sets RELPOS_RACE_TRIES=10).
RACE_TRIES = int(os.environ.get("RELPOS_RACE_TRIES", "4"))

#: Chromium features Playwright turns off (its chromiumSwitches.ts). Chromium keeps only the
#: last ``--disable-features`` of a command line, so a list of our own must repeat these;
#: tests/test_chromium_flags.py checks that it still does after a Playwright upgrade.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
#: Headless Chromium opens a window per browser context, and each window starts the address
#: bar's drop-down as a WebUI page in a renderer of its own (chrome://omnibox-popup.top-chrome):
#: about 0.8 s of CPU per context, which no test ever shows. The suite opens hundreds of contexts.
UNSEEN_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + UNSEEN_FEATURES),
]

#: What an Android phone's Chrome says it is ("Mobile": a phone, not a tablet).
PHONE_USER_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/125.0.0.0 Mobile Safari/537.36"
)

#: Streamlit's own test ids (the only DOM details the helpers rely on).
SELECTORS = {
    "app": "[data-testid=stApp]",
    "main": "[data-testid=stMain]",
    "exception": "[data-testid=stException]",
    "error": "[data-testid=stAlertContentError]",
    "warning": "[data-testid=stAlertContentWarning]",
    "heading": "[data-testid=stMain] h1",
    # st.plotly_chart figures and the Explorer panel (relpos/ui/explorer_panel.py), in page order
    "plot": "[data-testid=stPlotlyChart] .js-plotly-plot, .relpos-explorer-panel .js-plotly-plot",
    "slider": ":is([data-testid=stSlider], .relpos-explorer-panel .ep-slider)",
    "slider_input": "input[type=range]",
    "button": "[data-testid=stButton] button",
    "toggle": "[data-testid=stCheckbox]",
    "tab": "[data-testid=stTab]",
    "panel_tab": ".relpos-explorer-panel [role=tab]",
    "dataframe": "[data-testid=stDataFrame], [data-testid=stTable]",
    "latex": "[data-testid=stMain] .katex",
    "sidebar_link": "[data-testid=stSidebarNav] a[data-testid=stSidebarNavLink]",
    "running_icon": "[data-testid=stStatusWidgetRunningIcon], [data-testid=stStatusWidgetRunningManIcon]",
}

# Installed before any page script: a log of script-state changes, for error messages.
_STATE_LOG_JS = """
(() => {
  if (window.__relpos) return;
  const state = (window.__relpos = { log: [] });
  new MutationObserver((records) => {
    for (const record of records) {
      state.log.push([Math.round(performance.now()), record.target.getAttribute('data-test-script-state')]);
      if (state.log.length > 50) state.log.shift();
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-test-script-state'] });
})();
"""

# Installed before any page script: what the Explorer panel reports as DOM events
# (relpos/ui/explorer_panel_assets/explorer_panel.js), kept for tests and bench/, with readers of its DOM:
# the plots and sliders by name, the slider values, and load(spec) (a relpos-explorer-panel:load
# event, resolved once the spec is drawn).
PANEL_LOG_JS = """
(() => {
  if (window.__relposPanelLog) return;
  const log = (window.__relposPanelLog = {
    painted: 0, paints: [], restyled: 0, sends: [], specs: [], spec: null, mounts: 0,
    root: () => document.querySelector('.relpos-explorer-panel'),
    plots: () => Object.fromEntries([...document.querySelectorAll('.relpos-explorer-panel .ep-panel')].map((figure) => [
      [...figure.classList].find((name) => name.startsWith('ep-') && name !== 'ep-panel').slice(3),
      figure.querySelector('.ep-plot')])),
    sliders: (group) =>
      [...document.querySelectorAll(`.relpos-explorer-panel .ep-group[data-group="${group}"] input[type=range]`)],
    values: () => Object.fromEntries([...document.querySelectorAll('.relpos-explorer-panel .ep-group')].map((panel) => [
      panel.dataset.group, [...panel.querySelectorAll('input[type=range]')].map((input) => Number(input.value))])),
    load: (spec, redraw = false) => new Promise((done) => {
      const before = log.specs.length;
      log.root().dispatchEvent(new CustomEvent('relpos-explorer-panel:load', { detail: { spec, redraw } }));
      const check = () => (log.specs.length > before ? done(log.specs.at(-1)) : requestAnimationFrame(check));
      check();
    }),
  });
  const on = (kind, record) =>
    document.addEventListener(`relpos-explorer-panel:${kind}`, (event) => record(event.detail), true);
  on('paint', (paint) => {
    log.painted += 1;
    log.paints.push(paint);
    if (log.paints.length > 5000) log.paints.splice(0, 1000);
  });
  on('restyle', () => { log.restyled += 1; });
  on('send', (send) => log.sends.push(send.at));
  on('spec', ({ spec, ...shown }) => { log.spec = spec; log.specs.push(shown); });
  on('mount', () => { log.mounts += 1; });
})();
"""

_IDLE_JS = """
() => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app) return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-stale=true]')) return false;
  const running = '[data-testid=stStatusWidgetRunningIcon], [data-testid=stStatusWidgetRunningManIcon]';
  if (document.querySelector(running)) return false;
  return true;
}
"""

# Where the main area's blocks are: a layout fingerprint for wait_layout_settled.
_LAYOUT_JS = """
() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stElementContainer]')]
  .map((el) => { const r = el.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.height)]; })
"""

# Every st.plotly_chart and every figure of the Explorer panel has been drawn by plotly.js.
_ALL_DRAWN_JS = """
() => [...document.querySelectorAll('[data-testid=stPlotlyChart], .relpos-explorer-panel .ep-plot')]
  .every((chart) => { const plot = chart.querySelector('.js-plotly-plot') || chart; return !!plot._fullLayout; })
"""

# Resolves with measure() once fonts are in, every formula box on the page has been fitted
# by the page helpers (and, with `settled`, their last refit after the latest render
# is done), and measure() gives the same answer on two frames in a row.
_SETTLED_JS = """
async ({ measure, timeout, settled }) => {
  const read = eval(measure);
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const deadline = performance.now() + timeout;
  const helpers = () => !!document.getElementById('relpos-page-helpers-css');
  // a formula box waits for the helpers too: a page of the app that shows formulas
  // without them has lost its helpers (a bug to report, not a page to measure)
  const unfitted = () => [...document.querySelectorAll(
    '[data-testid=stMain] .katex-display, [data-testid=stSidebar] .katex-display')]
    .filter((box) => !box.dataset.relposFitted).length;
  await document.fonts.ready;
  let last = JSON.stringify(read());
  for (;;) {
    await frame();
    const now = JSON.stringify(read());
    const waiting = [];
    if (now !== last) waiting.push('the layout moved between two frames');
    const missing = helpers() ? '' : ' (no page helpers on the page)';
    if (unfitted()) waiting.push(`${unfitted()} formulas not fitted yet${missing}`);
    if (settled && helpers() && document.documentElement.dataset.relposLayout !== 'settled') {
      waiting.push('the helpers have not done their last refit');
    }
    if (document.fonts.status !== 'loaded') waiting.push('fonts still loading');
    if (!waiting.length) return JSON.parse(now);
    if (performance.now() > deadline) throw new Error(`layout not settled after ${timeout} ms: ${waiting.join('; ')}`);
    last = now;
  }
}
"""

# Playwright's words when a navigation destroyed the document a script ran in.
_NAVIGATED = re.compile(r"Execution context was destroyed|because of a navigation")

_NEXT_PAINT_JS = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"

# Streamlit's connection state, for tests whose server goes away (restart, failover).
_CONNECTION_STATE = "document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-connection-state')"
CONNECTED_JS = f"() => {_CONNECTION_STATE} === 'CONNECTED'"
# Notes any moment the page is not connected (polled every 50 ms): a tab checked late has
# long reconnected, yet must be seen to have lost its server.
WATCH_DROPS_JS = (
    f"() => {{ window.__relposDropped = false; "
    f"setInterval(() => {{ if ({_CONNECTION_STATE} !== 'CONNECTED') window.__relposDropped = true; }}, 50); }}"
)
DROPPED_JS = "() => window.__relposDropped === true"
# A mark on the page's window: still there afterwards means the page was not reloaded.
NO_RELOAD_MARK_JS = "() => { window.__relposSamePage = true; }"
SAME_PAGE_JS = "() => window.__relposSamePage === true"

# Every Plotly figure drawn on the page, decoded by plotly.js itself (_fullData holds
# typed arrays decoded from plotly's base64 `bdata`; fall back to the raw `data`).
_FIGURES_JS = """
(selector) => {
  const plain = (value) => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    if (ArrayBuffer.isView(value) || Array.isArray(value)) return Array.from(value, plain);
    return null;
  };
  return [...document.querySelectorAll(selector)].map((el) => {
    const layout = el._fullLayout || el.layout || {};
    const title = layout.title ? (typeof layout.title === 'string' ? layout.title : layout.title.text || '') : '';
    const traces = (el._fullData || el.data || []).map((t) => ({
      type: t.type || '', name: t.name || '', z: plain(t.z), x: plain(t.x), y: plain(t.y), text: plain(t.text),
    }));
    return { title: String(title), traces };
  });
}
"""

# A cheap fingerprint of every heatmap's numbers: one weighted sum per plot. Comparing
# fingerprints tells "the drawn data changed" without shipping n² numbers to Python.
FINGERPRINT_JS = """
(selector) => [...document.querySelectorAll(selector)].map((el) => {
  let total = 0;
  for (const trace of el._fullData || []) {
    const z = trace.z;
    if (!z) continue;
    for (let i = 0; i < z.length; i++) {
      const row = z[i];
      if (row && row.length !== undefined) {
        for (let j = 0; j < row.length; j++) total += (row[j] || 0) * (((i * 31 + j) % 97) + 1);
      } else {
        total += (row || 0) * ((i % 97) + 1);
      }
    }
  }
  return total;
}).join(',')
"""


# ---------------------------------------------------------------------------------------
# Availability


def browser_unavailable_reason() -> str | None:
    """Why the real-browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -r requirements-dev.txt)"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return (
            f"Chromium not found at {CHROMIUM}: install Debian's package (apt-get install chromium) "
            "or point RELPOS_CHROMIUM at a Chromium binary"
        )
    return None


def launch_chromium(playwright: Any):
    """Debian's Chromium, headless, with the flags this environment needs."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


# ---------------------------------------------------------------------------------------
# The Streamlit server


def _flags(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A TOML table as dotted option names; nested tables (``[theme.dark]``) nest the name."""
    flags: dict[str, Any] = {}
    for name, value in table.items():
        if isinstance(value, dict):
            flags.update(_flags(value, f"{prefix}{name}."))
        else:
            flags[f"{prefix}{name}"] = value
    return flags


def deploy_options() -> dict[str, Any]:
    """deploy/streamlit.toml (what the Docker image serves) as ``section.option`` flags
    (``theme.dark.textColor`` for a ``[theme.dark]`` table)."""
    return _flags(tomllib.loads(DEPLOY_CONFIG.read_text(encoding="utf-8")))


def deployed_server_options() -> dict[str, Any]:
    """The deployment's options for a local server: same behaviour, loopback address, any port."""
    options = deploy_options()
    for local in ("server.address", "server.port"):
        options.pop(local, None)
    return options


_HANDED_OUT: set[int] = set()  # ports given to servers that may not have bound them yet


def free_port() -> int:
    """A free loopback port: from RELPOS_PORTS (e.g. ``8641-8659``) if set, else the OS's choice."""
    wanted = os.environ.get("RELPOS_PORTS", "")
    if match := re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", wanted):
        candidates = iter(range(int(match[1]), int(match[2]) + 1))
    else:
        candidates = iter(lambda: 0, None)  # ask the OS, as often as needed
    for candidate in candidates:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            port = probe.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port
    raise RuntimeError(f"no free port in RELPOS_PORTS={wanted}")


def process_tree(root: int) -> dict[int, list[str]]:
    """Every living descendant of process `root`, with the fields of its ``/proc/<pid>/stat``
    after the command name (``fields[1]`` is the parent, ``fields[11:15]`` the CPU ticks of
    the process and of its ended children)."""
    fields: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:
                continue  # ended meanwhile
            fields[int(entry.name)] = text[text.rindex(")") + 2 :].split()
    children: dict[int, list[int]] = {}
    for pid, stat in fields.items():
        children.setdefault(int(stat[1]), []).append(pid)
    tree, stack = {}, list(children.get(root, []))
    while stack:
        pid = stack.pop()
        tree[pid] = fields[pid]
        stack += children.get(pid, [])
    return tree


def _proc_status_bytes(pid: int, key: str) -> int:
    """A ``VmRSS``/``VmHWM`` line of /proc/<pid>/status, in bytes (Linux)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


class StreamlitServer:
    """``streamlit run <script>`` on 127.0.0.1, headless, no file watcher, no usage stats.

    Use as a context manager, or call :meth:`start` and :meth:`stop`. Extra
    ``--section.option value`` flags go in ``options``; the repository's
    ``.streamlit/config.toml`` applies as usual because the server runs from the
    repository root.
    """

    def __init__(
        self,
        script: str | Path = "app.py",
        *,
        port: int | None = None,
        options: dict[str, Any] | None = None,
        log_path: Path | None = None,
        startup_timeout: float = 60.0,
        env: dict[str, str] | None = None,
    ) -> None:
        self.script = str(script)
        self.env = dict(env or {})  # extra environment, e.g. STREAMLIT_SERVER_COOKIE_SECRET
        self.port = port
        self.options = dict(options or {})
        self.log_path = log_path or ARTIFACTS / f"streamlit-{Path(self.script).stem}.log"
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen | None = None

    # lifecycle ----------------------------------------------------------------------
    def command(self) -> list[str]:
        flags = {
            "server.address": "127.0.0.1",
            "server.port": self.port,
            "server.headless": "true",
            "server.fileWatcherType": "none",
            "server.runOnSave": "false",
            "browser.gatherUsageStats": "false",
            **self.options,
        }
        # RELPOS_SERVER_PYTHON: serve from another environment, e.g. one trimmed like the image's
        python = os.environ.get("RELPOS_SERVER_PYTHON") or sys.executable
        command = [python, "-m", "streamlit", "run", self.script]
        for name, value in flags.items():
            command += [f"--{name}", str(value).lower() if isinstance(value, bool) else str(value)]
        return command

    def start(self) -> StreamlitServer:
        """Launch the server and wait until it is healthy."""
        self.launch()
        self.wait_healthy()
        return self

    def launch(self) -> StreamlitServer:
        """Start the process without waiting (start several, then :meth:`wait_healthy` each)."""
        if self.port is None:
            self.port = free_port()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "PYTHONUNBUFFERED": "1", **self.env}
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                self.command(), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        return self

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {self.process.returncode}:\n{self.log_tail()}")
            with (
                contextlib.suppress(OSError, urllib.error.URLError),
                urllib.request.urlopen(self.url("_stcore/health"), timeout=2) as response,
            ):
                if response.status == 200 and response.read().strip() == b"ok":
                    return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"streamlit did not answer /_stcore/health within {self.startup_timeout:.0f} s")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        # The server runs in its own session: signal its group, then insist.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def __enter__(self) -> StreamlitServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    # addresses and measurements -----------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "", query: dict[str, Any] | str | None = None) -> str:
        """``http://127.0.0.1:<port>/<path>?<query>`` (query as a dict or a ready string)."""
        url = f"{self.base_url}/{path.lstrip('/')}"
        if query:
            url += "?" + (query if isinstance(query, str) else urlencode(query, doseq=True))
        return url

    def rss_bytes(self) -> int:
        """The server process's resident memory now."""
        return _proc_status_bytes(self.process.pid, "VmRSS")

    def peak_rss_bytes(self) -> int:
        """The server process's peak resident memory since it started."""
        return _proc_status_bytes(self.process.pid, "VmHWM")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


# ---------------------------------------------------------------------------------------
# Label matching


def normalise_label(label: str) -> str:
    """Compare widget labels loosely: ``$q_1$``, ``q₁``, ``q_{1}`` and ``Q 1`` are the same.

    >>> normalise_label("$q_{1}$") == normalise_label("q₁") == normalise_label("Q 1")
    True
    >>> normalise_label("a^K_{+1}")
    'a^k+1'
    """
    text = unicodedata.normalize("NFKC", label)  # subscript digits become digits
    text = re.sub(r"[$\\{}_\s*]", "", text)
    return text.replace("−", "-").lower()


def label_matches(actual: str, wanted: str | re.Pattern) -> bool:
    """Exact match after :func:`normalise_label`, or a regular-expression search."""
    if isinstance(wanted, re.Pattern):
        return wanted.search(actual) is not None
    return normalise_label(actual) == normalise_label(wanted)


# ---------------------------------------------------------------------------------------
# One page of the app in the browser


@dataclass
class Figure:
    """One drawn Plotly figure: its title and its traces' decoded data."""

    title: str
    traces: list[dict]

    @property
    def heatmaps(self) -> list[np.ndarray]:
        """The z matrices of the figure's heatmap traces."""
        return [
            np.array([[np.nan if v is None else v for v in row] for row in trace["z"]], dtype=float)
            for trace in self.traces
            if trace["type"] == "heatmap" and trace["z"] is not None
        ]

    @property
    def z(self) -> np.ndarray:
        """The first heatmap's matrix."""
        return self.heatmaps[0]


class TabKind(NamedTuple):
    """What a kept tab must match to be given to another test (:meth:`AppTab.new`'s options)."""

    browser: int  # id() of the Browser
    viewport: tuple[int, int]
    touch: bool
    user_agent: str | None
    color_scheme: str | None
    init_scripts: tuple[str, ...]


#: Tabs whose test has ended, reset and kept for the next test in this process that asks for
#: the same kind of context, keyed by :meth:`AppTab.new`'s options. A page load in a fresh
#: context costs about twice the CPU of one in a kept tab, which has Streamlit's frontend
#: cached and compiled already (bench/context_cost.py).
_KEPT_TABS: dict[TabKind, list[Any]] = {}


@dataclass
class AppTab:
    """A Playwright page showing the app, with the verbs browser tests need."""

    page: Any
    base_url: str
    errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    runs_finished: int = 0  # runs finished, counted from the server's messages (all navigations)
    #: the options it was made with, when :meth:`close` may keep it for the next test
    kept_as: TabKind | None = None
    origins: set[str] = field(default_factory=set)  # every http(s) origin it has requested
    _listeners: list[tuple[str, Any]] = field(default_factory=list)

    @classmethod
    def new(
        cls,
        browser: Any,
        base_url: str,
        *,
        viewport=(1400, 1000),
        touch: bool = False,
        user_agent: str | None = None,
        color_scheme: str | None = None,
        init_scripts: tuple[str, ...] = (),
        fresh: bool = False,
    ) -> AppTab:
        """A tab with no cookies, storage or listeners of earlier tests, on a page of its own (a
        phone's with `touch`: touch events, a mobile viewport and an Android phone's user agent),
        whose system setting is light or dark as `color_scheme` says (the app follows it), and
        whose documents run `init_scripts` before their own scripts.

        It is a tab an earlier test closed, reset (:meth:`close`), when one with the same options
        is kept, so Streamlit's frontend is in the browser's cache already. ``fresh=True`` makes a
        new browser context instead, never kept: for a test of a first visit (what a cold load
        fetches, a race while the frontend starts), or one that changes its context in ways
        :meth:`close` does not undo (an init script added after this call). With
        RELPOS_FRESH_TABS=1 every tab is fresh (to rule a kept tab out when a test fails only in
        the suite, or to measure what keeping them saves).
        """
        fresh = fresh or os.environ.get("RELPOS_FRESH_TABS") == "1"
        options = TabKind(id(browser), tuple(viewport), touch, user_agent, color_scheme, tuple(init_scripts))
        page = None
        while not fresh and _KEPT_TABS.get(options) and page is None:
            kept = _KEPT_TABS[options].pop()
            page = None if kept.is_closed() else kept
        if page is None:
            size = {"width": viewport[0], "height": viewport[1]}
            agent = user_agent or (PHONE_USER_AGENT if touch else None)
            context = browser.new_context(
                viewport=size, has_touch=touch, is_mobile=touch, user_agent=agent, color_scheme=color_scheme
            )
            context.set_default_timeout(60_000)  # waits end at their condition; a busy machine is slow
            context.add_init_script(_STATE_LOG_JS)
            context.add_init_script(PANEL_LOG_JS)
            for script in init_scripts:
                context.add_init_script(script)
            page = context.new_page()
        tab = cls(page=page, base_url=base_url, kept_as=None if fresh else options)
        origin = urlsplit(base_url).netloc
        tab._listen("pageerror", lambda error: tab.errors.append(f"page error: {error}"))
        tab._listen("console", lambda message: tab._console(message))
        tab._listen("request", lambda request: tab._request(request.url, origin))
        tab._listen("response", lambda response: tab._response(response.status, response.url))
        tab._listen("websocket", tab._watch_socket)
        return tab

    def _listen(self, event: str, handler: Any) -> None:
        self.page.on(event, handler)
        self._listeners.append((event, handler))

    def close(self) -> None:
        """End the tab: reset and kept for a later test (see :meth:`new`), or closed with its context."""
        from playwright.sync_api import Error

        for event, handler in self._listeners:
            self.page.remove_listener(event, handler)
        try:
            kept = self.kept_as is not None and self._reset()
        except Error:
            kept = False  # a page that cannot be reset (crashed, hung) is not kept
        if kept:
            _KEPT_TABS.setdefault(self.kept_as, []).append(self.page)
        else:
            with contextlib.suppress(Error):
                self.page.context.close()

    def _reset(self) -> bool:
        """Undo what a test may have done to the page and its context; False if it cannot be undone."""
        page, context = self.page, self.page.context
        if len(context.pages) != 1:
            return False  # the test opened windows of its own
        page.unroute_all(behavior="ignoreErrors")
        page.goto("about:blank", timeout=15_000)  # the app's socket closes with its document
        context.clear_cookies()
        context.clear_permissions()
        session = context.new_cdp_session(page)
        for origin in self.origins:  # local and session storage, IndexedDB, caches (not the HTTP cache)
            session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        session.detach()
        width, height = self.kept_as.viewport
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme=self.kept_as.color_scheme or "light")
        return True

    def _watch_socket(self, socket: Any) -> None:
        socket.on("framereceived", self._frame_received)

    def _frame_received(self, payload: bytes | str) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if isinstance(payload, bytes):
            message = ForwardMsg()
            message.ParseFromString(payload)
            # A run ended by st.rerun() is not finished: its successor is on the way.
            kind = message.WhichOneof("type")
            if kind == "script_finished" and message.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.runs_finished += 1

    def _console(self, message: Any) -> None:
        # Failed loads are reported with their URL by _response instead.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.errors.append(f"console error: {message.text}")

    def _response(self, status: int, url: str) -> None:
        path = urlsplit(url).path
        # Streamlit's frontend probes <page path>/_stcore/{health,host-config} to find
        # its base URL before falling back to /_stcore/…; those 404s are expected.
        probing = status == 404 and re.search(r"/[^/]+/_stcore/(health|host-config)$", path)
        if status >= 400 and not probing:
            self.errors.append(f"HTTP {status}: {url}")

    def _request(self, url: str, origin: str) -> None:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")
        if parts.scheme in ("http", "https", "ws", "wss") and parts.netloc != origin:
            self.foreign_requests.append(url)

    # navigation and idleness --------------------------------------------------------
    def open(self, url_path: str = "", query: dict[str, Any] | str | None = None, *, timeout: float = 60) -> AppTab:
        """Load ``/<url_path>?<query>`` and wait for the first run to finish."""
        url = f"{self.base_url}/{url_path.lstrip('/')}"
        if query:
            url += "?" + (query if isinstance(query, str) else urlencode(query, doseq=True))
        self.goto(url, timeout=timeout)
        return self

    def goto(self, url: str, *, timeout: float = 60) -> None:
        """Load a full URL (e.g. a lesson link) and wait for its first run to finish."""
        before = self.finished_runs()
        self.page.goto(url, wait_until="domcontentloaded", timeout=timeout * 1000)
        self.wait_idle(after=before, timeout=timeout)

    def finished_runs(self) -> int:
        """How many script (or fragment) runs have finished in this tab so far."""
        return self.runs_finished

    def wait_idle(self, *, after: int | None = None, timeout: float = 30, quiet_ms: int = 150) -> None:
        """Wait until the app is connected, no run is going on and nothing is stale.

        ``after``: first wait until more than this many runs have finished (pass
        :meth:`finished_runs` taken before an interaction to wait for its rerun).
        The app must then stay idle for ``quiet_ms`` with no further run finishing:
        a script that calls ``st.rerun()`` is idle for an instant between its two
        runs. Returns after the next two animation frames, so the result is painted.
        """
        deadline = time.monotonic() + timeout
        while True:
            if after is None or self.runs_finished > after:
                remaining_ms = max(1.0, (deadline - time.monotonic()) * 1000)
                if self._survive_navigation(self._idle_for, quiet_ms, remaining_ms) is True:
                    break
            else:
                self.page.wait_for_timeout(15)
            if time.monotonic() > deadline:
                log = self._survive_navigation(
                    self.page.evaluate, "() => window.__relpos ? window.__relpos.log.slice(-6) : []"
                )
                raise TimeoutError(
                    f"the app did not become idle within {timeout:.0f} s "
                    f"(runs finished {self.runs_finished}, waiting for > {after}; script states {log})"
                )
        if self._survive_navigation(self.page.evaluate, _NEXT_PAINT_JS) is None:
            self.wait_idle(timeout=max(1.0, deadline - time.monotonic()), quiet_ms=quiet_ms)

    def _idle_for(self, quiet_ms: int, timeout_ms: float) -> bool:
        """Idle now and still idle ``quiet_ms`` later, with no run finished in between."""
        self.page.wait_for_function(_IDLE_JS, polling=100, timeout=timeout_ms)
        settled = self.runs_finished
        self.page.wait_for_timeout(quiet_ms)  # also lets Playwright deliver socket frames
        return self.runs_finished == settled and self.page.evaluate(_IDLE_JS)

    def _survive_navigation(self, step, *args):
        """``step(*args)``, or None when the page navigated away under it (the caller tries again).

        The page may reload itself (the oversized-link guard does), destroying the document
        a check was evaluating in; the check is then repeated in the new document, once it
        has loaded.
        """
        from playwright.sync_api import Error

        try:
            return step(*args)
        except Error as error:
            if not _NAVIGATED.search(str(error)):
                raise
        with contextlib.suppress(Error):
            self.page.wait_for_load_state("domcontentloaded")
        return None

    def wait_layout_settled(self, measure_js: str = _LAYOUT_JS, *, timeout: float = 30, last_refit: bool = True) -> Any:
        """Wait until the page's layout has stopped moving; return ``measure_js``'s last result.

        Settled means: every web font has loaded, the page helpers have fitted every
        formula box on the page (and, with ``last_refit``, done their last refit after the
        latest render: ``data-relpos-layout="settled"`` on the root element), and
        ``measure_js`` returns the same value on two animation frames in a row. No fixed
        pause: a slow machine waits longer, a fast one less.
        """
        arguments = {"measure": measure_js, "timeout": timeout * 1000, "settled": last_refit}
        return self.page.evaluate(_SETTLED_JS, arguments)

    def wait_drawn(self, *, timeout: float = 30) -> None:
        """Wait until the app is idle, every chart on the page is drawn, every formula is
        fitted and the layout holds still for a frame."""
        self.wait_idle(timeout=timeout)
        self.page.wait_for_function(_ALL_DRAWN_JS, timeout=timeout * 1000)
        self.wait_layout_settled(timeout=timeout, last_refit=False)

    def interact(self, action, *, timeout: float = 30) -> None:
        """Run ``action()`` (a click, a key press …) and wait for the rerun it causes."""
        before = self.finished_runs()
        action()
        self.wait_idle(after=before, timeout=timeout)

    # reading the page ---------------------------------------------------------------
    def count(self, what: str) -> int:
        """Number of elements for a :data:`SELECTORS` name (or a raw CSS selector)."""
        return self.page.locator(SELECTORS.get(what, what)).count()

    def wait_count(self, what: str, at_least: int, *, timeout: float = 30) -> int:
        """Wait until at least ``at_least`` elements match (:meth:`count`); return how many do.

        Streamlit draws some elements (data grids, charts) from code chunks it loads lazily
        on a tab's first page: an idle app may not show them yet. Returns the count found
        at the timeout instead of raising, so the caller's assertion says what was missing.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        selector = SELECTORS.get(what, what)
        with contextlib.suppress(PlaywrightTimeout):
            self.page.wait_for_function(
                "([selector, n]) => document.querySelectorAll(selector).length >= n",
                arg=[selector, at_least],
                timeout=timeout * 1000,
            )
        return self.count(what)

    def exceptions(self) -> list[str]:
        """Texts of Streamlit exception boxes on the page (should be empty)."""
        return self.page.locator(SELECTORS["exception"]).all_inner_texts()

    def main_text(self) -> str:
        return self.page.locator(SELECTORS["main"]).inner_text()

    def wait_plots(self, count: int, *, timeout: float = 30) -> None:
        """Wait until at least ``count`` Plotly figures are drawn (plotly loads lazily)."""
        self.page.wait_for_function(
            "([selector, count]) => [...document.querySelectorAll(selector)].filter((el) => el._fullData).length"
            " >= count",
            arg=[SELECTORS["plot"], count],
            timeout=timeout * 1000,
        )

    def figures(self) -> list[Figure]:
        """Every Plotly figure on the page, with the data plotly.js actually drew."""
        return [Figure(**figure) for figure in self.page.evaluate(_FIGURES_JS, SELECTORS["plot"])]

    def hover_cell(self, title: str, i: int, j: int, n: int) -> str:
        """Point at cell (i, j) (0-based, matrix orientation) of the n × n heatmap titled
        `title` and return the hover label plotly.js shows."""
        plain_titles = [re.sub(r"<[^>]+>", "", figure.title).lower() for figure in self.figures()]
        index = next(number for number, plain in enumerate(plain_titles) if title.lower() in plain)
        area = self.page.locator(SELECTORS["plot"]).nth(index).locator(".nsewdrag").first
        area.scroll_into_view_if_needed()
        box = area.bounding_box()
        self.page.mouse.move(box["x"] + box["width"] * (j + 0.5) / n, box["y"] + box["height"] * (i + 0.5) / n)
        label = self.page.locator(".hoverlayer .hovertext").first
        label.wait_for(state="attached", timeout=5000)
        return label.text_content() or ""

    def figure(self, title: str | re.Pattern, *, timeout: float = 30) -> Figure:
        """The figure whose title contains ``title`` (case-insensitive) or matches the pattern.

        Titles are compared without their HTML tags (``<b>``, ``<sub>`` …). Waits up to
        ``timeout`` seconds for it: a page read while plotly.js redraws a figure may not show
        that figure's title yet.
        """
        deadline = time.monotonic() + timeout
        while True:
            figures = self.figures()
            for candidate in figures:
                plain = re.sub(r"<[^>]+>", "", candidate.title)
                found = title.search(plain) if isinstance(title, re.Pattern) else title.lower() in plain.lower()
                if found:
                    return candidate
            if time.monotonic() > deadline:
                titles = [candidate.title for candidate in figures]
                raise LookupError(f"no figure titled {title!r}; titles on the page: {titles}")
            self.page.wait_for_timeout(50)

    def fingerprint(self) -> str:
        """A cheap digest of every drawn heatmap's numbers (changes when any redraws with new data)."""
        return self.page.evaluate(FINGERPRINT_JS, SELECTORS["plot"])

    def font_size(self, selector: str) -> float:
        """Computed font size (px) of the first element matching ``selector``."""
        return self.page.locator(selector).first.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)")

    # widgets ------------------------------------------------------------------------
    def slider_labels(self) -> list[str]:
        return self.page.locator(f"{SELECTORS['slider']} {SELECTORS['slider_input']}").evaluate_all(
            "(inputs) => inputs.map((input) => input.getAttribute('aria-label') || '')"
        )

    def slider(self, label: str | re.Pattern, *, timeout: float = 45) -> Any:
        """The range input of the slider with this label (see :func:`label_matches`).

        Waits up to ``timeout`` seconds for it: on a tab's first page load Streamlit's
        widget code arrives in lazily loaded chunks, so an idle app may still be drawing
        its sidebar.
        """
        inputs = self.page.locator(f"{SELECTORS['slider']} {SELECTORS['slider_input']}")
        deadline = time.monotonic() + timeout
        while True:
            labels = self.slider_labels()
            for index, actual in enumerate(labels):
                if label_matches(actual, label):
                    return inputs.nth(index)
            if time.monotonic() > deadline:
                raise LookupError(f"no slider labelled {label!r}; sliders on the page: {labels}")
            self.page.wait_for_timeout(50)

    def slider_value(self, label: str | re.Pattern) -> float:
        return float(self.slider(label).get_attribute("value"))

    def press_slider(self, label: str | re.Pattern, key: str = "ArrowRight", times: int = 1) -> float:
        """Focus a slider, press ``key`` ``times`` times (waiting for each rerun); return its value."""
        handle = self.slider(label)
        for _ in range(times):
            handle.focus()
            self.interact(lambda: self.page.keyboard.press(key))
        return self.slider_value(label)

    def button(self, text: str | re.Pattern) -> Any:
        """The first button whose text contains ``text`` (case-insensitive) or matches the pattern."""
        pattern = text if isinstance(text, re.Pattern) else re.compile(re.escape(text), re.IGNORECASE)
        return self.page.locator("button").filter(has_text=pattern, visible=True).first

    def click(self, text: str | re.Pattern) -> None:
        """Click a button (see :meth:`button`) and wait for the rerun."""
        target = self.button(text)
        self.interact(target.click)

    def open_tab(self, label: str | re.Pattern) -> None:
        """Click the ``st.tabs`` tab with this text and wait for the rerun it causes.

        Only for tabs created with ``on_change="rerun"`` (lazy tabs): a plain tab switch
        runs nothing on the server. A tab of the Explorer panel switches in the
        browser only: nothing to wait for.
        """
        pattern = label if isinstance(label, re.Pattern) else re.compile(re.escape(label))
        panel_tabs = self.page.locator(SELECTORS["panel_tab"]).filter(has_text=pattern)
        target = (
            panel_tabs.first
            if panel_tabs.count()
            else self.page.locator(SELECTORS["tab"]).filter(has_text=pattern).first
        )
        if target.get_attribute("aria-selected") == "true":
            return
        if panel_tabs.count():
            target.click()
        else:
            self.interact(target.click)

    def toggle(self, label: str | re.Pattern) -> None:
        """Flip a checkbox or toggle by its label and wait for the rerun."""
        pattern = label if isinstance(label, re.Pattern) else re.compile(re.escape(label), re.IGNORECASE)
        target = self.page.locator(SELECTORS["toggle"]).filter(has_text=pattern).first.locator("label").first
        self.interact(target.click)

    # evidence -----------------------------------------------------------------------
    def screenshot(self, name: str, *, full_page: bool = True) -> Path:
        """Save ``test-artifacts/screens/<name>.png`` and return its path."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"
        if not full_page:
            self.page.screenshot(path=str(path))
            return path
        # Streamlit scrolls inside its main container, not the document, so a "full page"
        # shot needs a window as tall as that container's content (capped), briefly.
        viewport = self.page.viewport_size
        content_height = self.page.evaluate(
            "() => Math.max(document.body.scrollHeight, ...[...document.querySelectorAll("
            "'[data-testid=stMain], [data-testid=stAppViewContainer]')].map((el) => el.scrollHeight))"
        )
        tall = {"width": viewport["width"], "height": int(min(max(content_height, viewport["height"]), 12_000))}
        try:
            self.page.set_viewport_size(tall)
            self.page.wait_for_timeout(300)  # let charts re-layout to the new window
            self.page.screenshot(path=str(path))
        finally:
            self.page.set_viewport_size(viewport)
        return path
