"""Page runs take turns, the session that has used the server least first.

Streamlit runs every session's script in a thread of its own, and all of them share one
interpreter lock, so fifty runs at once do not finish sooner than fifty in a row: each
takes fifty times longer, and the event loop that sends every answer and reads every
request waits for the lock behind them. When a few sessions ask for far more runs than
the rest (a script, or clients that stopped reading and still get a few runs before
:mod:`relpos.server.backpressure` can tell), the whole class waited seconds for each
interaction.

:func:`take_turn` wraps the work of a run (app.py: the page; the Explorer's fragment).
At most :data:`SLOTS` runs compute at once; the others wait, sleeping, and the next
turn goes to the waiting run whose session has used the least run time recently (an
exponentially fading sum of its runs' CPU time, half-life :data:`HALF_LIFE` s). A student who moves a
slider now and then is served before a session that asks many times a second. Waiting
runs stay interruptible: a newer request or a stop ends the wait at once, as elsewhere.
A run that is already computing (a fragment inside its page's run) does not wait again.

A teacher's session goes first (:func:`go_first`): a flood of fresh sessions (300 students
opening the join link at once) has used nothing yet, so by usage alone every one of them
came before the teacher, whose Next then waited 59 s. A session that goes first still
waits for a run already computing (a fraction of a second), and loses its place once it
uses more than :data:`LEAD_BUDGET` (a teacher's tab cannot starve the class).
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

from relpos.server import backpressure
from relpos.state.keys import state_key

#: Runs that compute at once: the interpreter runs one thread at a time; a second slot
#: lets a run start while another finishes sending, more only slow every run down.
SLOTS = 2
#: Half-life (s) of a session's recent run time, which orders the waiting runs.
HALF_LIFE = 5.0
#: Recent run time (s, fading as above) up to which a session that goes first keeps its
#: place: a teacher's Next costs about 0.15 s, a few in a row stay well under it, and a
#: tab that asks runs without end falls back in line with everyone else.
LEAD_BUDGET = 2.0
#: Session-state key: this session's runs go first (:func:`go_first`).
FIRST = state_key("app", "turn-first")


class Turns:
    """Slots for computing runs, handed to the waiting run of the least busy session.

    A finished run hands its slot straight to the next run in line (each waiting run has
    an event of its own): waking every waiting thread to let them compete for the slot
    cost more than the runs themselves when fifty waited.

    >>> turns = Turns(slots=1)
    >>> turns.charge("busy", 2.0, now=0.0)
    >>> turns.usage("busy", now=0.0), turns.usage("busy", now=HALF_LIFE), turns.usage("idle", now=0.0)
    (2.0, 1.0, 0.0)
    """

    def __init__(self, slots: int = SLOTS) -> None:
        self._lock = threading.Lock()
        self._free = slots
        self._waiting: dict[int, tuple[int, float, int]] = {}  # ticket -> (rank, usage when it asked, ticket)
        self._granted: dict[int, threading.Event] = {}  # ticket -> set when the ticket has a slot
        self._usage: dict[str, tuple[float, float]] = {}  # session -> (run seconds, as of time)
        self._tickets = itertools.count()

    def usage(self, session: str, now: float) -> float:
        """Recent run time of a session (s), fading with HALF_LIFE."""
        seconds, at = self._usage.get(session, (0.0, now))
        return seconds * 0.5 ** ((now - at) / HALF_LIFE)

    def charge(self, session: str, seconds: float, now: float) -> None:
        """Add a finished (or ended) run's time to its session; forget faded sessions."""
        with self._lock:
            self._usage[session] = (self.usage(session, now) + seconds, now)
            if len(self._usage) > 64:
                faded = [name for name in self._usage if self.usage(name, now) < 1e-3]
                for name in faded:
                    del self._usage[name]

    def ask(self, session: str, *, first: bool = False) -> int:
        """Queue a run of `session` (it starts at once if a slot is free); returns its ticket.
        A run that goes `first` comes before every other in line while its session's usage
        is within LEAD_BUDGET."""
        with self._lock:
            ticket = next(self._tickets)
            self._granted[ticket] = threading.Event()
            usage = self.usage(session, time.monotonic())
            rank = 0 if first and usage <= LEAD_BUDGET else 1
            self._waiting[ticket] = (rank, usage, ticket)
            self._hand_over()
            return ticket

    def try_start(self, ticket: int, timeout: float) -> bool:
        """True once the ticket has a slot; waits up to `timeout` s for it."""
        granted = self._granted[ticket]
        if granted.wait(timeout):
            with self._lock:
                self._granted.pop(ticket, None)
            return True
        return False

    def give_up(self, ticket: int) -> None:
        """Leave the line (the run was ended while it waited); a slot it was just given passes on."""
        with self._lock:
            if self._waiting.pop(ticket, None) is None and ticket in self._granted:
                self._free += 1  # granted meanwhile, never used
            self._granted.pop(ticket, None)
            self._hand_over()

    def finish(self) -> None:
        """Hand a slot back: to the next run in line, if any."""
        with self._lock:
            self._free += 1
            self._hand_over()

    def _hand_over(self) -> None:
        """Give free slots to the first runs in line (call with the lock held)."""
        while self._free > 0 and self._waiting:
            ticket = min(self._waiting.values())[-1]
            del self._waiting[ticket]
            self._free -= 1
            self._granted[ticket].set()


TURNS = Turns()
_computing = threading.local()  # .depth: take_turn blocks this thread is inside


@contextmanager
def take_turn(turns: Turns = TURNS) -> Iterator[None]:
    """Run the block when it is this session's turn (see the module docstring).

    Outside a served session (AppTest, a bare import) and inside a block that already
    has a turn, the block runs at once.
    """
    served = backpressure.served_session()
    if served is None or getattr(_computing, "depth", 0):
        yield
        return
    session = served[1]
    ticket = turns.ask(session, first=bool(st.session_state.get(FIRST)))
    try:
        while not turns.try_start(ticket, backpressure.SLICE):
            backpressure.yield_point()  # a newer request or a stop ends the wait here
    except BaseException:
        turns.give_up(ticket)
        raise
    started = time.thread_time()  # CPU time of this thread: waiting for the lock is not charged
    _computing.depth = 1
    try:
        yield
    finally:
        _computing.depth = 0
        turns.charge(session, time.thread_time() - started, time.monotonic())
        turns.finish()


def go_first(first: bool = True) -> None:
    """From this session's next run on, its runs go before the others' (a teacher's tab:
    see the module notes); ``False`` puts it back in line."""
    if st.session_state.get(FIRST, False) != first:
        st.session_state[FIRST] = first


def paced_fragment(body: Callable) -> Callable:
    """Decorate a fragment's body (under ``@st.fragment``) like app.py paces a whole run.

    When the fragment reruns on its own it waits for its client
    (:func:`relpos.server.backpressure.wait_for_client`) before it takes a turn, computes in
    its turn, and marks the run finished; inside its page's full run all three are
    app.py's.
    """

    @functools.wraps(body)
    def run(*args, **kwargs):
        backpressure.fragment_drawn()
        backpressure.wait_for_client(fragment=True)
        with take_turn():
            result = body(*args, **kwargs)
        backpressure.run_finished(fragment=True)
        return result

    return run
