"""A student on a phone follows the class in real Chromium through the follow view.

The phone (390 × 844, touch) opens the join link: the join box is on its first screen and
no teacher's control is on the page. Joined, it follows five of the teacher's Nexts, each
drawn by the browser from the class's view (no run of its page), predicts a score while
the score is nowhere on its screen, submits with the keyboard's Enter, and sees its
verdict and the class's results after the reveal. The teacher's moves are stored as the
teacher's tab stores them (relpos.topics.walkthrough.classroom_view.push). Screenshots go to
test-artifacts/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from relpos.class_routes import identity
from relpos.classroom.questions import number_question
from relpos.classroom.stores import open_store
from relpos.core.examples import worked_example
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough import schema as walkthrough_schema
from relpos.topics.walkthrough.classroom_view import pace_of
from tests.support.browser import ARTIFACTS
from tests.support.class_students import class_server

WITHIN = 45_000  # ms: generous on a busy 2-core machine; the bench measures latency
FOLLOW = ".relpos-follow"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with class_server(tmp_path_factory.mktemp("follow-browser"), "follow-browser") as running:
        yield running


def _move(store, code, credential, stop: wt.Stop):
    pace = pace_of(walkthrough_schema.walkthrough_state(worked_example(), stop, False))
    return store.set_stop(code, credential, index=pace.index, step=pace.step, state=pace.state)


@pytest.mark.browser
@pytest.mark.server
def test_a_phone_follows_five_nexts_answers_and_sees_the_reveal(chromium, server):
    store = open_store(f"sqlite://{server.data_dir / 'classes.sqlite3'}")
    record, credential = store.create_class("walkthrough", pace_of(
        walkthrough_schema.walkthrough_state(worked_example(), wt.Stop(0, 0), False)))  # fmt: skip
    code = record.code
    context = chromium.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    context.set_default_timeout(WITHIN)
    try:
        phone = context.new_page()
        frames: list = []  # what the page sends Streamlit: a page run is a rerun_script message
        phone.on("websocket", lambda socket: socket.on("framesent", lambda payload: frames.append(payload)))
        phone.goto(server.url("walkthrough", {"class": code}))
        join = phone.get_by_role("button", name="Join the class")
        join.wait_for()
        box = join.bounding_box()
        assert box["y"] + box["height"] <= 844, f"the join button is below the first screen: {box}"
        assert phone.get_by_role("button", name=re.compile("^(Start a class|Next|Previous)")).count() == 0
        phone.get_by_label("Nickname (optional)").fill("Ada")
        join.click(no_wait_after=True)
        phone.locator(f"{FOLLOW}[data-stop='1']").wait_for()
        assert sum(map(_is_rerun, frames)) >= 2, "the page's load and the join click are runs"
        following = len(frames)
        for step in range(1, 6):  # pairs (1, 2) to (1, 4), the softmax stop, pair (2, 1)
            stop = wt.lesson_stops(4)[step]
            moved = _move(store, code, credential, stop)
            phone.locator(f"{FOLLOW}[data-version='{moved.version}']").wait_for()
            assert phone.get_attribute(FOLLOW, "data-stop") == str(step + 1)
            phone.get_by_text(f"Stop {step + 1} of 20").wait_for()
        assert phone.get_by_text("Query i = 2, key j = 1").is_visible()

        _move(store, code, credential, wt.Stop(1, 3))  # pair (2, 4): e₂₄ = 0.4 + (−0.5)·… asked
        truth = worked_example().attention().scores[1, 3]
        asked = store.ask(code, credential, number_question("Predict e₂₄", truth, stop="r2j4"))
        field = phone.get_by_label("Your answer")
        field.wait_for()
        assert "Predict e₂₄" in phone.inner_text(FOLLOW)
        # the asked score is nowhere: not in the score matrix's cell or hover, not in the
        # arithmetic (its three values are question marks), and the table of all pairs waits
        matrix = phone.evaluate(SCORE_MATRIX_JS)
        assert matrix["text"][1][3] == "" and matrix["hover"][1][3] == "not computed yet", matrix
        assert phone.locator(f"{FOLLOW} .rf-pairs").count() == 0
        assert phone.get_by_text("appears when the answers are revealed").is_visible()
        assert phone.locator(f"{FOLLOW} .katex-html").first.inner_text().count("?") == 3
        phone.screenshot(path=ARTIFACTS / "follow-phone-question.png")
        field.fill(f"{truth:.2f}")
        field.press("Enter")  # the phone keyboard's Go
        phone.get_by_text("is in").wait_for()
        store.reveal(code, credential)
        phone.get_by_text("Right:").wait_for()
        phone.get_by_text("1 answer · true value").wait_for()
        phone.screenshot(path=ARTIFACTS / "follow-phone-reveal.png")
        assert store.my_answer(code, phone_token(phone, code, server.data_dir), asked.id).correct
        runs = sum(map(_is_rerun, frames[following:]))
        assert runs == 0, f"the phone asked for {runs} page runs while it followed, answered and saw the reveal"
    finally:
        context.close()
        store.close()


#: The score matrix as plotly.js holds it: its cell texts and hover texts.
SCORE_MATRIX_JS = """() => {
  const plot = [...document.querySelectorAll('.relpos-follow .rf-figure')]
    .find((node) => node.getAttribute('aria-label') === 'Scores computed so far');
  const trace = plot.data[0];
  return { text: trace.text, hover: trace.hovertext };
}"""


def phone_token(page, code: str, data_dir: Path) -> str:
    """The student's token the phone keeps (sealed, so opened with its server's key)."""
    kept = page.evaluate("(code) => JSON.parse(localStorage.getItem('relpos.class.' + code) || '{}')", code)
    return identity.unseal(kept["sealed"], code, key=(data_dir / "identity.key").read_bytes().strip())[1]


def _is_rerun(frame) -> bool:
    """A BackMsg asking for a run (Streamlit's protocol: field 11, rerun_script)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    message = BackMsg()
    try:
        message.ParseFromString(frame if isinstance(frame, bytes) else frame.encode("latin-1"))
    except Exception:  # not a BackMsg: not a run
        return False
    return message.WhichOneof("type") == "rerun_script"
