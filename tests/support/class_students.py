"""Students of a live class as their browsers behave, without a browser each.

Each student is a session of Streamlit's own protocol (:class:`~tests.support.streamlit_client.Session`)
that opens the lesson's join link, presses "Join the class" and keeps its WebSocket open,
as a tab does. A following student's page then holds the follow view
(``relpos/ui/follow_assets/follow.js``); :class:`Follower` does what that script does
with the network: it holds the class's event stream and, at each new version, fetches the
class's view, one at a time. The moment a view of a stop arrives is when the student's
device can draw it (the drawing is the device's own work, not the server's); a browser
test (tests/classroom/test_follow_browser.py) checks that real Chromium draws it.

Used by bench/classroom.py (30 to 200 students) and tests/classroom/test_follow_scale.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request

from tests.support.browser import ARTIFACTS, ROOT, StreamlitServer
from tests.support.streamlit_client import Session

#: The follow view's component (relpos.ui.class_follow.NAME).
FOLLOW = "relpos.class_follow"
JOIN = "Join the class"
STREAM_TIMEOUT = 40.0  # s without a byte (heartbeats come every 15 s): the stream is dead
RETRY_SECONDS = 1.0  # the server's `retry:` (relpos/class_routes/events.py)
RETRY_ANSWER_SECONDS = 3.0  # follow.js sends an answer the network refused again this often


@contextlib.contextmanager
def class_server(data, name: str):
    """``streamlit run app.py`` with its class store in the folder `data` (``server.data_dir``),
    its log named after `name`."""
    log = ARTIFACTS / f"streamlit-{name}-{os.getpid()}.log"
    with StreamlitServer(ROOT / "app.py", log_path=log, env={"RELPOS_DATA_DIR": str(data)}) as server:
        server.data_dir = data
        yield server


class JoinError(Exception):
    """A student's join did not end with the follow view on their page."""


async def join(session: Session, socket, timeout: float) -> dict:
    """Open the join link's page, press "Join the class": the follow view's data."""
    await session.run_once(socket, session.rerun_message(), timeout)
    if JOIN not in session.buttons:
        raise JoinError(f"no {JOIN!r} button on the join link's page (alerts: {session.alerts[:2]})")
    session.triggers = [session.buttons[JOIN]]
    await session.run_once(socket, session.rerun_message(), timeout)
    data = session.components.get(FOLLOW)
    if not data:
        raise JoinError(f"no follow view after joining (alerts: {session.alerts[:2]})")
    return data


class Follower(threading.Thread):
    """What a following page's script does with the network (see the module notes).

    ``shown`` maps each stop (1-based) to when its view first arrived (``time.monotonic()``),
    ``view`` is the last view, ``errors`` what went wrong. The stream behaves as the
    browser's EventSource: after a drop it opens again 1 s later (the server's ``retry:``),
    keeps a new affinity cookie a proxy hands it, and gives up for good on an answer that
    is not a ``200 text/event-stream`` (a refusal). ``arrivals`` maps each version to when
    it first arrived, ``drops`` when an open stream ended, ``resumed`` seconds from a drop
    to the next connection's first version. With no ``view`` in `data` it only listens
    (the projector's activity stream).
    """

    def __init__(self, base_url: str, data: dict, cookie: str = "", affinity: str = ""):
        super().__init__(daemon=True)
        self.base, self.data, self.cookie, self.affinity = base_url.rstrip("/"), data, cookie, affinity
        self.shown: dict[int, float] = {}
        self.view: dict | None = None
        self.drawn = -1
        self.errors: list[str] = []
        self.arrivals: dict[int, float] = {}
        self.drops: list[float] = []
        self.resumed: list[float] = []
        self.refusals: list[str] = []
        self.streaming = False  # the current connection has brought a version
        self.ready, self.stopping = threading.Event(), threading.Event()

    @property
    def replica(self) -> str:
        return self.cookie.partition("=")[2] or "-"

    def _headers(self, **extra) -> dict:
        headers = {"Accept-Encoding": "gzip", **extra}
        if self.data.get("token"):
            headers["X-Relpos-Token"] = self.data["token"]
        if self.cookie:
            headers["Cookie"] = self.cookie
        return headers

    def run(self) -> None:
        while not self.stopping.is_set():
            self.streaming = False
            with contextlib.suppress(OSError, http.client.HTTPException):  # the connection dropped
                self._listen()
            if self.stopping.is_set() or self.refusals:
                break
            if self.streaming:
                self.drops.append(time.monotonic())
            self.stopping.wait(RETRY_SECONDS)
        self.ready.set()

    def _listen(self) -> None:
        request = urllib.request.Request(self.base + self.data["events"], headers=self._headers())
        try:
            answer = urllib.request.urlopen(request, timeout=STREAM_TIMEOUT)
        except urllib.error.HTTPError as error:
            self.refusals.append(f"HTTP {error.code}")
            return
        with answer:
            for header in answer.headers.get_all("Set-Cookie") or []:
                if self.affinity and header.startswith(self.affinity + "="):  # the proxy chose another replica
                    self.cookie = header.split(";", 1)[0]
            if not answer.headers.get("Content-Type", "").startswith("text/event-stream"):
                self.refusals.append(f"Content-Type {answer.headers.get('Content-Type')}")
                return
            for raw in answer:
                if self.stopping.is_set():
                    return
                line = raw.decode().strip()
                if line.startswith("data: ") and line[6:].lstrip("-").isdigit():
                    now, version = time.monotonic(), int(line[6:])
                    if not self.streaming and self.drops:
                        self.resumed.append(now - self.drops[-1])
                    self.streaming = True
                    self.arrivals.setdefault(version, now)
                    if self.data.get("view") and version > self.drawn:
                        self.fetch(version)
                    self.ready.set()

    def seen_after(self, version: int) -> float | None:
        """When a version newer than `version` first arrived, if one did."""
        arrived = tuple(self.arrivals.items())  # one copy: the stream's thread adds to it meanwhile
        return min((at for seen, at in arrived if seen > version), default=None)

    def fetch(self, version: int) -> None:
        """The class's view of `version`, as the page's script fetches it."""
        request = urllib.request.Request(f"{self.base}{self.data['view']}?v={version}", headers=self._headers())
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                body = answer.read()
                if answer.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
        except (urllib.error.URLError, OSError) as error:
            self.errors.append(f"view {version}: {error}")
            return
        view = json.loads(body)
        arrived = time.monotonic()
        self.view, self.drawn = view, max(self.drawn, view.get("version", version))
        stop = view.get("stop")
        if stop:
            self.shown.setdefault(stop["index"] + 1, arrived)

    def answer(self, question_id: int, text: str, *, retry_for: float = 60.0) -> dict:
        """Submit an answer as the follow view's form does: a network failure (a server
        restarting, a proxy's 502) keeps the answer and sends it again every 3 s."""
        body = json.dumps({"question": question_id, "answer": text}).encode()
        headers = self._headers(**{"Content-Type": "application/json"})
        headers.pop("Accept-Encoding")
        give_up = time.monotonic() + retry_for
        while True:
            request = urllib.request.Request(self.base + self.data["answer"], data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return json.loads(answer.read())
            except urllib.error.HTTPError as error:
                if error.code < 500 or time.monotonic() > give_up:
                    return {"status": f"HTTP {error.code}", **_json_or_nothing(error.read())}
            except (urllib.error.URLError, OSError):
                if time.monotonic() > give_up:
                    raise
            time.sleep(RETRY_ANSWER_SECONDS)


def _json_or_nothing(body: bytes) -> dict:
    try:
        return json.loads(body or b"{}")
    except ValueError:
        return {}


class Classroom:
    """N students who join through the page and follow: their sessions' loop in a thread of its own.

    ``joined`` the followers, ``join_times`` seconds from each student's arrival to their
    follow view, ``errors`` joins that failed.
    """

    def __init__(self, server, page: str, code: str, *, timeout: float = 90.0, affinity: str = ""):
        self.server, self.page, self.code, self.timeout, self.affinity = server, page, code, timeout, affinity
        self.joined: list[Follower] = []
        self.join_times: list[float] = []
        self.errors: list[str] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.sockets: list = []
        self.closing = asyncio.Event()

    async def _student(self, number: int, at: float, cookie: str) -> None:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        arrived = time.monotonic()
        session = Session(self.server, self.page, f"class={self.code}", None, None)
        joined = False
        try:
            async with session.connect(self.timeout) as socket:
                data = await join(session, socket, self.timeout)
                self.join_times.append(time.monotonic() - arrived)
                follower = Follower(self.server.base_url, data, cookie, self.affinity)
                follower.start()
                self.joined.append(follower)
                joined = True
                await self.closing.wait()  # the tab stays open for the lesson
        except Exception as error:  # counted and shown (a tab whose server is lost later follows on)
            if not joined:
                self.errors.append(f"student {number}: {type(error).__name__}: {error}")

    def join_all(self, students: int, *, spread: float, cookies=None) -> None:
        """`students` arrive at moments spread evenly over `spread` seconds; returns once
        every one has joined or failed."""
        start = time.monotonic()
        for number in range(students):
            cookie = cookies(number) if cookies else ""
            at = start + spread * number / max(1, students)
            asyncio.run_coroutine_threadsafe(self._student(number, at, cookie), self.loop)
        deadline = start + spread + self.timeout
        while len(self.joined) + len(self.errors) < students and time.monotonic() < deadline:
            time.sleep(0.05)
        for follower in self.joined:
            follower.ready.wait(30)

    def close(self) -> None:
        for follower in self.joined:
            follower.stopping.set()
        self.loop.call_soon_threadsafe(self.closing.set)
        time.sleep(0.5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
