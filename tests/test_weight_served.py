"""The real app, served by ``streamlit run app.py``, answers light (relpos/static/weight.py).

One server for the module: Streamlit's big Plotly chunk arrives trimmed to the app's
traces (relpos/static/plotly_trim.py) in brotli, revalidated by its ETag; the page HTML
and the Explorer panel's files carry ETags and answer a revalidation with 304, nothing is
encoded twice, and the same holds behind docs/hosting.md's HAProxy configuration (the
proxy neither recompresses nor drops a header).
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sys
import urllib.error
import urllib.request

import brotli
import pytest

from relpos.server import internals
from relpos.static import plotly_trim
from tests.support.browser import ARTIFACTS, ROOT, StreamlitServer, free_port
from tests.support.streamlit_client import first_loads, run_in_own_loop

pytestmark = pytest.mark.server

CHROMIUM_ACCEPT = "gzip, deflate, br, zstd"


@pytest.fixture(scope="module")
def server():
    with StreamlitServer(ROOT / "app.py", log_path=ARTIFACTS / "streamlit-weight-served.log") as served:
        yield served


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """(status, headers with lower-case names, body as sent) of one GET; 304 is not an error."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def chunk_path() -> str:
    return internals.plotly_chunk()


def served_chunk() -> bytes:
    """The chunk as the app serves it: Streamlit's, trimmed."""
    trimmed = plotly_trim.trim_bytes((internals.static_dir() / chunk_path()).read_bytes())
    assert trimmed is not None
    return trimmed


def assert_big_chunk_is_light(base: str, **more: str) -> None:
    status, headers, body = fetch(f"{base}/{chunk_path()}", **{"Accept-Encoding": CHROMIUM_ACCEPT}, **more)
    plain = (internals.static_dir() / chunk_path()).read_bytes()
    assert status == 200 and headers.get("content-encoding") == "br", headers
    assert brotli.decompress(body) == served_chunk()
    assert len(body) < len(plain) / 12, f"{len(body)} bytes for {len(plain)}"
    # its name's hash is Streamlit's file, not the trimmed one: asked again, not kept a year
    assert headers["cache-control"] == "no-cache"
    assert headers["vary"] == "Accept-Encoding"
    status, _, _ = fetch(f"{base}/{chunk_path()}", **{"If-None-Match": headers["etag"]}, **more)
    assert status == 304


def assert_revalidated(url: str) -> None:
    status, headers, body = fetch(url, **{"Accept-Encoding": CHROMIUM_ACCEPT})
    assert status == 200 and headers.get("etag"), headers
    assert headers["cache-control"].endswith("no-cache"), headers
    if headers.get("content-encoding") == "br":
        brotli.decompress(body)  # one encoding, not two
    status, again, body = fetch(url, **{"Accept-Encoding": CHROMIUM_ACCEPT, "If-None-Match": headers["etag"]})
    assert (status, body) == (304, b""), again
    assert again["etag"] == headers["etag"]


def test_the_plotly_chunk_comes_trimmed_in_brotli_and_revalidated(server):
    assert_big_chunk_is_light(server.base_url)


def test_a_browser_without_brotli_gets_gzip_once(server):
    status, headers, body = fetch(server.url(chunk_path()), **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == served_chunk()


def test_the_page_and_the_live_panel_files_answer_revalidations_with_304(server):
    assert_revalidated(server.url("explorer"))
    assert_revalidated(server.url("/"))
    # the panel's files are served once a session has run the Explorer (it registers them)
    stats = run_in_own_loop(first_loads(server, "explorer", "", sessions=1, within=0.0, timeout=60))
    assert stats.errors == [], stats.errors
    assert_revalidated(server.url("_stcore/bidi-components/relpos.explorer_panel/explorer_panel.js"))


def test_the_panel_draws_with_streamlits_plotly_not_a_copy(server):
    """One plotly.js: the panel imports the chunk st.plotly_chart loads; no vendored copy is served."""
    status, _, _ = fetch(server.url("_stcore/bidi-components/relpos.explorer_panel/vendor/plotly.min.js"))
    assert status == 404
    assert re.fullmatch(r"static/js/PlotlyChart\.[\w-]{8}\.js", chunk_path())


@pytest.fixture(scope="module")
def proxy(server):
    """docs/hosting.md's HAProxy configuration in front of the server (as both replicas)."""
    if shutil.which("haproxy") is None and not os.access("/usr/sbin/haproxy", os.X_OK):
        if os.environ.get("RELPOS_REQUIRE_HAPROXY") == "1":
            pytest.fail("RELPOS_REQUIRE_HAPROXY=1 but haproxy is not installed")
        pytest.skip("haproxy is not installed (apt-get install haproxy)")
    sys.path.insert(0, str(ROOT / "bench"))
    import failover

    port = free_port()
    process = failover.start_proxy(port, (server.port, server.port))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_behind_haproxy_the_compression_and_cache_headers_stay(proxy):
    """A browser holds the proxy's affinity cookie from the page's HTML on (the proxy marks
    only the answer that sets it ``private``, its ``nocache`` option), so every file after
    it passes with the app's own headers and encoding."""
    status, headers, body = fetch(f"{proxy}/explorer", **{"Accept-Encoding": CHROMIUM_ACCEPT})
    assert status == 200 and headers["content-encoding"] == "br" and b"<html" in brotli.decompress(body)
    cookie = headers["set-cookie"].split(";")[0]
    assert cookie.startswith("RELPOS_REPLICA=")
    assert_big_chunk_is_light(proxy, Cookie=cookie)
    status, again, _ = fetch(f"{proxy}/explorer", Cookie=cookie, **{"If-None-Match": headers["etag"]})
    assert status == 304, again
