"""A student's tab without a browser: Streamlit's own WebSocket protocol, spoken from Python.

Used by bench/load.py (a classroom of sessions on one server) and by the cold-start test
(a class opening the lesson link at once on a fresh server). The client speaks what the
browser speaks (the ``streamlit.proto`` BackMsg/ForwardMsg messages over
``/_stcore/stream``): it sends the same ``rerun_script`` client state that a page load or
a slider change sends (widget id and value, page, query string, fragment id) and reads
until the server's ``script_finished`` arrives, every delta received.

Why not browsers: a classroom's browsers render on the students' machines; thirty
headless Chromium renderers on a 2-core machine would measure the client, not the server.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import time
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from relpos.ui.navigation import PAGES
from tests.support.browser import StreamlitServer, label_matches

#: The page served at "/": the browser sends no page name for it.
DEFAULT_PAGE = PAGES[0].url_path


def run_in_own_loop(coroutine):
    """asyncio.run in a thread of its own: Playwright's sync API may hold this thread's loop
    (a test run after any browser test would otherwise fail with "cannot be called from a
    running event loop")."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@dataclass
class Slider:
    """What the client needs to move a slider like the browser does."""

    id: str
    label: str
    low: float
    high: float
    step: float
    default: list[float]
    fragment_id: str = ""


@dataclass
class PanelValue:
    """One value slider of the Explorer panel (a custom component, not a Streamlit slider).

    The browser moves it without the server; on release the panel hands all its values back
    as the component's JSON state (``{"values": {"seq", "bias", "a", "q", "keys"}}``), which
    reruns the panel's fragment. The client sends the same.
    """

    component_id: str
    fragment_id: str
    group: str  # "a", "q" or "keys"
    index: int
    label: str
    step: float
    low: float
    high: float
    groups: dict[str, list[float]]  # every group's values as the panel last drew them
    scalar: bool

    def release_json(self, seq: int) -> str:
        """The component state the panel sends when this slider is let go (values as they are now)."""
        values = {"seq": seq, "bias": "scalar" if self.scalar else "shaw"}
        values.update({name: list(group) for name, group in self.groups.items() if group})
        return json.dumps({"values": values})


@dataclass
class Stats:
    """What all sessions of a round report."""

    interactions: list[float] = field(default_factory=list)  # ms, interaction -> finished rerun
    finished_at: list[float] = field(default_factory=list)  # time.monotonic() when each interaction finished
    loads: list[float] = field(default_factory=list)  # ms, connect -> first run finished
    errors: list[str] = field(default_factory=list)
    sessions_done: int = 0


class RunError(Exception):
    """A run that did not finish cleanly (the message says why)."""


class Session:
    """One student's tab: load the page, then interact until the deadline."""

    def __init__(self, server: StreamlitServer, page: str, query: str, slider_label, rng: random.Random) -> None:
        self.url = f"ws://127.0.0.1:{server.port}/_stcore/stream"
        self.origin = server.base_url
        self.page = page
        self.query = query
        self.slider_label = slider_label
        self.rng = rng
        self.page_script_hash = ""
        self.sliders: dict[str, Slider] = {}
        self.widget_values: dict[str, list[float]] = {}
        self.elements: list[str] = []  # kinds of the elements drawn, in order (e.g. "heading", "plotly_chart")
        self.headings: list[str] = []  # the text of every heading drawn
        self.alerts: list[str] = []  # the text of every st.info / warning / error drawn
        self.texts: list[str] = []  # the text of every Markdown element drawn
        self.buttons: dict[str, str] = {}  # button label -> widget id
        self.charts: list[str] = []  # every Plotly figure drawn, as its JSON
        self.component_figures = 0  # Plotly figures drawn inside custom components (the Explorer panel's skeletons)
        self.triggers: list[str] = []  # ids of buttons the next message clicks
        self.panel_values: dict[str, PanelValue] = {}  # label -> a value slider of the Explorer panel
        self.panel_state: dict[str, str] = {}  # component id -> the JSON state the next message sends
        self.components: dict[str, dict] = {}  # custom component name -> the data it was last drawn with
        self.panel_seq = 0
        # run_every fragments the server registered: with any, the browser asks for a full
        # run with its widget values whenever its WebSocket connects again
        self.auto_rerun_fragments: set[str] = set()

    def rerun_message(self, fragment_id: str = "") -> bytes:
        message = BackMsg()
        state = message.rerun_script
        state.query_string = self.query
        state.page_name = "" if self.page == DEFAULT_PAGE else self.page
        state.page_script_hash = self.page_script_hash
        state.fragment_id = fragment_id
        state.context_info.timezone = "UTC"
        state.context_info.locale = "en-US"
        state.context_info.url = f"{self.origin}/{self.page}"
        for widget_id, value in self.widget_values.items():
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            widget.double_array_value.data.extend(value)
        for widget_id in self.triggers:
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            widget.trigger_value = True
        for widget_id, value in self.panel_state.items():
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            widget.json_value = value
        self.triggers = []
        return message.SerializeToString()

    async def run_once(self, socket, payload: bytes, timeout: float) -> None:
        """Send one rerun request and read until its run has finished."""
        await socket.send(payload)
        async with asyncio.timeout(timeout):
            while True:
                message = ForwardMsg()
                message.ParseFromString(await socket.recv())
                kind = message.WhichOneof("type")
                if kind == "delta":
                    self.read_delta(message.delta)
                elif kind == "navigation" and message.navigation.page_script_hash:
                    self.page_script_hash = message.navigation.page_script_hash
                elif kind == "auto_rerun":
                    self.auto_rerun_fragments.add(message.auto_rerun.fragment_id)
                elif kind == "page_not_found":
                    raise RunError(f"page not found: {self.page!r}")
                elif kind == "script_finished":
                    status = message.script_finished
                    if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                        raise RunError("the page did not compile")
                    if status in (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                        return
                    # FINISHED_EARLY_FOR_RERUN: the page asked for another run; keep reading.

    def read_delta(self, delta) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        self.elements.append(kind)
        if kind == "heading":
            self.headings.append(element.heading.body)
        elif kind == "alert":
            self.alerts.append(element.alert.body)
        elif kind == "markdown":
            self.texts.append(element.markdown.body)
        elif kind == "button":
            self.buttons.setdefault(element.button.label, element.button.id)
        elif kind == "plotly_chart":
            self.charts.append(element.plotly_chart.spec)
        elif kind == "bidi_component":  # the Explorer panel: figure skeletons whose cells it fills itself
            data = element.bidi_component.json or element.bidi_component.mixed.json
            spec = json.loads(data) if data else {}
            self.components[element.bidi_component.component_name] = spec
            figures = spec.get("figures", {})
            self.charts.extend(json.dumps(figure) for figure in figures.values())
            self.component_figures += len(figures)
            self.read_panel_values(element.bidi_component.id, delta.fragment_id, spec)
        if kind == "exception":
            raise RunError(f"exception on the page: {element.exception.type}: {element.exception.message[:200]}")
        if kind == "slider" and element.slider.type == element.slider.SLIDER:
            proto = element.slider
            self.sliders.setdefault(
                proto.label,
                Slider(proto.id, proto.label, proto.min, proto.max, proto.step, list(proto.default), delta.fragment_id),
            )

    def read_panel_values(self, component_id: str, fragment_id: str, spec: dict) -> None:
        """Note the Explorer panel's value sliders (labels, values) from the spec it was sent."""
        groups = {group["name"]: [float(v) for v in group["values"]] for group in spec.get("groups", [])}
        for group in spec.get("groups", []):
            for index, label in enumerate(group["labels"]):
                self.panel_values[label] = PanelValue(
                    component_id, fragment_id, group["name"], index, label,
                    float(spec.get("step", 0.01)), float(spec.get("low", -2.0)), float(spec.get("high", 2.0)),
                    groups, bool(spec.get("scalar")),
                )  # fmt: skip
        self.panel_seq = max(self.panel_seq, int(spec.get("seq", 0)))

    def pick_slider(self) -> Slider | PanelValue | None:
        """The slider the session moves: a Streamlit slider, else a value slider of the Explorer panel."""
        if self.slider_label is None:
            return next(iter(self.sliders.values()), None)
        candidates = [*self.sliders.values(), *self.panel_values.values()]
        return next((s for s in candidates if label_matches(s.label, self.slider_label)), None)

    def release_panel_value(self, value: PanelValue) -> bytes:
        """Move an Explorer-panel slider one step up or down, alternately, and let go: what the panel sends."""
        self.panel_seq += 1
        values = value.groups[value.group]
        step = value.step if self.panel_seq % 2 else -value.step
        if not value.low <= values[value.index] + step <= value.high:
            step = -step
        values[value.index] = round(values[value.index] + step, 2)
        self.panel_state = {value.component_id: value.release_json(self.panel_seq)}
        return self.rerun_message(value.fragment_id)

    def next_interaction(self) -> bytes:
        """Move the chosen slider one step away from its default and back, alternately."""
        slider = self.pick_slider()
        if slider is None:
            return self.rerun_message()  # a page without the slider: a plain rerun
        if isinstance(slider, PanelValue):
            return self.release_panel_value(slider)
        current = self.widget_values.get(slider.id, slider.default)
        default = slider.default[0]
        moved = default + slider.step if default + slider.step <= slider.high else default - slider.step
        self.widget_values[slider.id] = [moved if current[0] == default else default]
        return self.rerun_message(slider.fragment_id)

    def connect(self, timeout: float):
        return connect(
            self.url,
            origin=self.origin,
            subprotocols=[Subprotocol("streamlit")],
            max_size=None,
            open_timeout=timeout,
        )

    async def run(self, start_at: float, deadline: float, think: float, timeout: float, stats: Stats) -> None:
        """Load the page at `start_at`, then interact every ~`think` s until `deadline`."""
        await asyncio.sleep(max(0.0, start_at - time.monotonic()))
        try:
            async with self.connect(timeout) as socket:
                started = time.perf_counter()
                await self.run_once(socket, self.rerun_message(), timeout)
                stats.loads.append((time.perf_counter() - started) * 1000)
                if not self.elements:
                    raise RunError("the first load drew nothing")
                while time.monotonic() + think < deadline:
                    await asyncio.sleep(think * self.rng.uniform(0.5, 1.5))
                    payload = self.next_interaction()
                    started = time.perf_counter()
                    await self.run_once(socket, payload, timeout)
                    stats.interactions.append((time.perf_counter() - started) * 1000)
                    stats.finished_at.append(time.monotonic())
        except TimeoutError:
            stats.errors.append(f"a run did not finish within {timeout:.0f} s")
        except RunError as failure:
            stats.errors.append(str(failure))
        except Exception as error:  # connection refused, socket closed, …
            stats.errors.append(f"{type(error).__name__}: {error}")
        finally:
            stats.sessions_done += 1


async def first_loads(
    server: StreamlitServer,
    page: str,
    query: str,
    *,
    sessions: int,
    within: float,
    timeout: float,
    seed: int = 0,
    keep: list[Session] | None = None,
) -> Stats:
    """`sessions` students open ``/<page>?<query>`` within `within` seconds; only the first load.

    What a class does when a teacher shares a lesson link at the start of a lesson. The
    sessions are appended to `keep` (if given), to inspect what each one drew.
    """
    stats, rng = Stats(), random.Random(seed)
    students = [Session(server, page, query, None, random.Random(rng.random())) for _ in range(sessions)]
    if keep is not None:
        keep.extend(students)
    now = time.monotonic()
    await asyncio.gather(*(student.run(now + rng.uniform(0, within), 0.0, 1.0, timeout, stats) for student in students))
    return stats
