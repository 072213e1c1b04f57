"""Page runs take turns, the least busy session first (relpos.server.turns)."""

from __future__ import annotations

import threading
import time

from relpos.server import turns as turns_module
from relpos.server.turns import HALF_LIFE, Turns, take_turn


def start_when_first(turns: Turns, ticket: int, order: list[str], name: str) -> threading.Thread:
    """A thread that waits for `ticket`'s turn, notes `name`, and hands the slot back."""

    def wait() -> None:
        while not turns.try_start(ticket, 0.01):
            pass
        order.append(name)
        turns.finish()

    thread = threading.Thread(target=wait)
    thread.start()
    return thread


class TestUsage:
    def test_fades_by_half_every_half_life(self):
        turns = Turns()
        turns.charge("s", 4.0, now=10.0)
        assert turns.usage("s", now=10.0) == 4.0
        assert abs(turns.usage("s", now=10.0 + 2 * HALF_LIFE) - 1.0) < 1e-12

    def test_adds_up(self):
        turns = Turns()
        turns.charge("s", 1.0, now=0.0)
        turns.charge("s", 1.0, now=HALF_LIFE)
        assert abs(turns.usage("s", now=HALF_LIFE) - 1.5) < 1e-12

    def test_faded_sessions_are_forgotten(self):
        turns = Turns()
        for index in range(100):
            turns.charge(f"old{index}", 0.01, now=0.0)
        turns.charge("new", 0.01, now=100 * HALF_LIFE)
        assert len(turns._usage) < 100


class TestOrder:
    def test_the_least_busy_session_goes_first(self):
        turns = Turns(slots=1)
        turns.charge("script", 3.0, now=time.monotonic())
        holder = turns.ask("teacher")
        assert turns.try_start(holder, 0)  # the only slot is taken
        order: list[str] = []
        busy = start_when_first(turns, turns.ask("script"), order, "script")  # asked first
        time.sleep(0.05)
        light = start_when_first(turns, turns.ask("student"), order, "student")
        time.sleep(0.05)
        assert order == []  # nobody starts while the slot is taken
        turns.finish()
        busy.join(2)
        light.join(2)
        assert order == ["student", "script"]

    def test_equal_sessions_go_in_the_order_they_asked(self):
        turns = Turns(slots=1)
        holder = turns.ask("a")
        assert turns.try_start(holder, 0)
        order: list[str] = []
        threads = []
        for name in ("b", "c", "d"):
            threads.append(start_when_first(turns, turns.ask(name), order, name))
            time.sleep(0.02)
        turns.finish()
        for thread in threads:
            thread.join(2)
        assert order == ["b", "c", "d"]

    def test_a_run_ended_while_waiting_leaves_the_line(self):
        turns = Turns(slots=1)
        holder = turns.ask("a")
        assert turns.try_start(holder, 0)
        gone = turns.ask("b")
        order: list[str] = []
        waiting = start_when_first(turns, turns.ask("c"), order, "c")
        turns.give_up(gone)
        turns.finish()
        waiting.join(2)
        assert order == ["c"]

    def test_two_slots_let_two_runs_compute(self):
        turns = Turns(slots=2)
        first, second, third = (turns.ask(name) for name in "abc")
        assert turns.try_start(first, 0)
        assert turns.try_start(second, 0)
        assert not turns.try_start(third, 0)


def test_outside_a_served_session_the_block_runs_at_once():
    turns = Turns(slots=1)
    holder = turns.ask("x")
    assert turns.try_start(holder, 0)  # every slot taken: a served run would wait
    ran = []
    with take_turn(turns):
        ran.append(True)
    assert ran == [True]


def test_paced_fragment_keeps_the_function_and_its_result():
    @turns_module.paced_fragment
    def body(x, *, y):
        """Doc."""
        return x + y

    assert body(1, y=2) == 3
    assert body.__name__ == "body" and body.__doc__ == "Doc."
