"""The schemes page's section sliders rerun only their section (Streamlit fragments).

Measured over Streamlit's own protocol (tests/support/streamlit_client.py), as a browser sees it:
the charts the server sends after one step of a slider.
"""

from __future__ import annotations

import random

import pytest

from tests.conftest import ROOT
from tests.support.browser import ARTIFACTS, StreamlitServer
from tests.support.streamlit_client import Session, run_in_own_loop

pytestmark = pytest.mark.server

#: Section sliders and the charts their section draws: a bar chart and six heatmaps;
#: five curves.
SECTIONS = {
    "shift s: the tokens move to positions s + 1 .. s + n": 7,
    "trained length L (the model is asked about 2L)": 5,
}


async def _load_then_step(server: StreamlitServer, slider: str) -> tuple[Session, int, list[str]]:
    """Open /schemes, move `slider` one step; return the session, the charts of the first
    load, and what the step redrew (element kinds)."""
    session = Session(server, "schemes", "", slider, random.Random(0))
    async with session.connect(30) as socket:
        await session.run_once(socket, session.rerun_message(), 60)
        loaded = len(session.charts)
        session.elements.clear()
        session.charts.clear()
        await session.run_once(socket, session.next_interaction(), 60)
    return session, loaded, list(session.elements)


@pytest.fixture(scope="module")
def server():
    with StreamlitServer(ROOT / "app.py", log_path=ARTIFACTS / "streamlit-schemes-fragments.log") as running:
        yield running


@pytest.mark.parametrize("slider", SECTIONS, ids=["shift", "length"])
def test_a_section_slider_redraws_only_its_section(server, slider):
    session, loaded, redrawn = run_in_own_loop(_load_then_step(server, slider))
    assert session.pick_slider().fragment_id, f"the {slider!r} slider is not inside a fragment"
    assert loaded >= 24, f"the first load drew {loaded} charts"
    assert redrawn.count("plotly_chart") == SECTIONS[slider], redrawn
    assert "exception" not in redrawn and not session.alerts
