"""A lesson link's weight in Chromium: what bench/page_weight.py measures, at a test's size.

A cold load (empty cache) of the Explorer and of the walkthrough, then a warm reload of
each, counted on the wire by CDP (HTTP bodies with headers, WebSocket frames). Without
the page weight middleware (relpos/static/weight.py) the Explorer weighed 5.2 MB cold and
1.5 MB warm, the walkthrough 11.4 MB cold.

The limits are the issue's targets: a lesson link for a class on one Wi-Fi. The
WebSocket's bytes are counted as they cross the wire (permessage-deflate), see
docs/benchmarks.md.
"""

from __future__ import annotations

import sys

import pytest

from tests.support.browser import ROOT

pytestmark = pytest.mark.browser

MB = 1_000_000
#: cold bytes at most, per page
COLD_LIMIT = {"explorer": 1.8 * MB, "walkthrough": 2.2 * MB}
#: charts each page draws at least (the load counts as ready only once they are drawn)
CHARTS = {"explorer": 7, "walkthrough": 3}
WARM_LIMIT = 80_000


@pytest.fixture(scope="module")
def page_weight():
    sys.path.insert(0, str(ROOT / "bench"))
    import page_weight

    return page_weight


@pytest.mark.parametrize("page", sorted(COLD_LIMIT))
def test_a_lesson_link_is_light_cold_and_almost_free_warm(chromium, app_server, page_weight, page):
    tap = page_weight.Tap(app_server.port)
    try:
        cold, warm = page_weight.measure(chromium, tap, app_server.url(page), charts=CHARTS[page])
    finally:
        tap.close()
    assert cold.bytes <= COLD_LIMIT[page], f"/{page} cold: {cold.bytes / MB:.2f} MB ({cold.encodings})"
    assert cold.encodings.get("br", 0) > cold.encodings.get("identity", 0), cold.encodings
    assert warm.bytes <= WARM_LIMIT, f"/{page} warm: {warm.bytes} bytes (http {warm.http_bytes})"
    assert warm.charts == cold.charts
