"""Floods are refused cheaply (issue 38 #1): answers before any thread or store call, new seats
before any store read or write, and a teacher's run before a flood of fresh sessions' runs.

bench/flood.py measures the teacher's Next during such floods on a real server.
"""

from __future__ import annotations

import json
import time

import pytest

from relpos.class_routes import following
from relpos.classroom import limits
from relpos.classroom.errors import RateLimitedError
from relpos.classroom.limits import TokenBucket
from relpos.server.turns import LEAD_BUDGET, Turns
from tests.support.streamlit_client import run_in_own_loop
from tests.test_turns import start_when_first

CODE = "K7QX2M"


class SpyStore:
    """A class store that counts the answers it is asked to store (and stores none)."""

    def __init__(self):
        self.submitted = 0

    def submit_answer(self, code, token, question_id, text):
        self.submitted += 1
        raise following.NotJoinedError("not in this class")


def post_answer(token: str, address: str = "10.0.0.7"):
    """One POST to the answer route, as a student's browser sends it; the response."""
    body = json.dumps({"question": 1, "answer": "0.5"}).encode()
    scope = {
        "type": "http",
        "method": "POST",
        "path": f"/relpos/class/{CODE}/answer",
        "path_params": {"code": CODE},
        "headers": [(b"x-relpos-token", token.encode()), (b"content-type", b"application/json")],
        "query_string": b"",
        "client": (address, 50000),
    }

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    return run_in_own_loop(following.answer_route(following.Request(scope, receive)))


@pytest.fixture
def spy(monkeypatch) -> SpyStore:
    """The answer route's store is a spy; every answer limit starts afresh, its clock stopped
    (nothing refills while the test floods)."""
    spy = SpyStore()
    monkeypatch.setattr(following, "class_store", lambda: spy)
    for name in ("STUDENT_ANSWERS", "ADDRESS_ANSWERS", "CLASS_ANSWERS"):
        old = getattr(following, name)
        monkeypatch.setattr(following, name, TokenBucket(old.burst, rate=old.rate, clock=lambda: 0.0))
    return spy


def test_an_answer_flood_from_one_seat_gets_429s_without_store_calls(spy):
    statuses = [post_answer("flooding-token").status_code for _ in range(1000)]
    allowed = following.STUDENT_ANSWERS.burst
    assert spy.submitted == allowed
    assert statuses.count(429) == 1000 - allowed
    refused = post_answer("flooding-token")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert json.loads(refused.body)["too_fast"] is True
    assert "Too fast" in json.loads(refused.body)["message"]


def test_a_flood_from_one_seat_leaves_its_address_and_class_alone(spy):
    for _ in range(500):
        post_answer("flooding-token")
    before = spy.submitted
    assert post_answer("calm-token").status_code == 403  # reached the store: not refused by the flood
    assert spy.submitted == before + 1


def test_an_answer_flood_of_made_up_seats_from_one_address_is_capped(spy):
    statuses = [post_answer(f"made-up-{index}").status_code for index in range(600)]
    assert spy.submitted == following.ADDRESS_ANSWERS.burst
    assert statuses.count(429) == 600 - following.ADDRESS_ANSWERS.burst
    assert post_answer("another-seat", address="10.0.0.8").status_code == 403  # another address answers


class CountingReads:
    """Counts the store's reads of a class while a join flood is refused."""

    def __init__(self, store, monkeypatch):
        self.reads = 0
        original = store._load_class

        def load(code):
            self.reads += 1
            return original(code)

        monkeypatch.setattr(store, "_load_class", load)


def test_a_join_flood_from_one_address_is_refused_beyond_its_limit(started, monkeypatch):
    store, code, _ = started
    joined = [store.join(code, client="10.0.0.9") for _ in range(limits.JOINS_PER_CLIENT)]
    counting = CountingReads(store, monkeypatch)
    for _ in range(50):
        with pytest.raises(RateLimitedError, match=r"Many students are joining from your network.*wait \d+ s"):
            store.join(code, client="10.0.0.9")
    assert counting.reads == 0  # refused before the store is read, let alone written
    assert len(store.students(*started[1:])) == len(joined)
    assert store.join(code, "Ada", client="10.0.0.10").nickname == "Ada"  # another address joins
    assert store.join(code, token=joined[0].token, client="10.0.0.9").token == joined[0].token  # a rejoin


def test_a_class_takes_new_seats_at_a_bounded_pace_from_many_addresses(started, clock):
    store, code, credential = started
    for index in range(limits.JOINS_PER_CLASS):
        store.join(code, client=f"10.1.{index // 250}.{index % 250}")
    with pytest.raises(RateLimitedError, match="joining this class just now"):
        store.join(code, client="10.2.0.1")
    clock.advance(1.0)
    store.join(code, client="10.2.0.1")  # the class's allowance fills again
    assert len(store.students(code, credential)) == limits.JOINS_PER_CLASS + 1


def test_the_teachers_run_goes_before_a_flood_of_fresh_sessions():
    turns = Turns(slots=1)
    holder = turns.ask("someone")
    assert turns.try_start(holder, 0)
    order: list[str] = []
    threads = [start_when_first(turns, turns.ask(f"joiner{index}"), order, "joiner") for index in range(30)]
    turns.charge("teacher", 0.3, now=time.monotonic())  # the teacher has run pages already
    threads.append(start_when_first(turns, turns.ask("teacher", first=True), order, "teacher"))
    turns.finish()
    for thread in threads:
        thread.join(5)
    assert order[0] == "teacher", order[:3]


def test_a_session_past_its_lead_budget_waits_in_line():
    turns = Turns(slots=1)
    holder = turns.ask("someone")
    assert turns.try_start(holder, 0)
    turns.charge("runaway", 2 * LEAD_BUDGET, now=time.monotonic())
    order: list[str] = []
    threads = [start_when_first(turns, turns.ask("runaway", first=True), order, "runaway")]
    threads.append(start_when_first(turns, turns.ask("student"), order, "student"))
    turns.finish()
    for thread in threads:
        thread.join(5)
    assert order == ["student", "runaway"]
