"""Calling one of the app's Starlette routes directly, as the server would (no server, no HTTP client)."""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.streamlit_client import run_in_own_loop


@dataclass
class Answer:
    """A route's answer: status, headers (every Set-Cookie kept) and body."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str:
        return next((value for key, value in self.headers if key == name.lower()), "")

    @property
    def set_cookies(self) -> list[str]:
        return [value for key, value in self.headers if key == "set-cookie"]


def call(
    route,
    path: str,
    *,
    method: str = "POST",
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    query: str = "",
    path_params: dict | None = None,
    scheme: str = "http",
) -> Answer:
    """Run `route` (an async Starlette endpoint) on one request and collect its answer."""
    from starlette.requests import Request

    scope = {
        "type": "http",
        "method": method,
        "scheme": scheme,
        "server": ("testserver", 443 if scheme == "https" else 80),
        "path": path,
        "root_path": "",
        "query_string": query.encode(),
        "headers": [(key.lower().encode(), value.encode()) for key, value in (headers or {}).items()],
        "path_params": path_params or {},
    }
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    async def run() -> None:
        response = await route(Request(scope, receive))
        await response(scope, receive, send)

    run_in_own_loop(run())  # after a browser test this thread's loop is Playwright's
    start = next(message for message in sent if message["type"] == "http.response.start")
    raw = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return Answer(start["status"], [(k.decode(), v.decode()) for k, v in start["headers"]], raw)
