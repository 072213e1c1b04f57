"""A client that does not read gets no new runs: bounded memory and CPU per session.

A student's frozen laptop, a tab on a dead network or a script can keep asking for
reruns (slider moves) while never reading the answers. Streamlit would run the page for
every request and keep every answer for that client (up to 500 messages per session
before it drops the session), and those runs take the CPU that the rest of the class
needs.

:func:`wait_for_client` is called at the start of every run (app.py) and of every
fragment run (the Explorer's panels), :func:`run_finished` at their end. A run waits,
sleeping (no CPU, no new messages; a newer request or a stop ends the wait at once):

1. **while the session asks faster than its runs finish.** Every request cuts the run
   before it short (Streamlit starts the newest at once), so a client that sends faster
   than its runs take would make the server compute for every request and finish none:
   under load, when runs slow down, fifty such clients kept the interpreter busy and the
   answers never even left the server. After two runs cut short in a row the next one
   pauses (:func:`unfinished_pause`: 0.1 s, doubling up to 1.6 s) before it starts.
2. **while the client has not taken its previous answers** (:func:`behind`), for up to
   :data:`MAX_WAIT` seconds. Counted on the server's side of the connection: messages a
   run has made that are not yet handed to the connection (:func:`unflushed_messages`,
   :func:`pending_messages`), and bytes in the asyncio write buffer and in the kernel's
   send queue, i.e. sent but not acknowledged by the client (:func:`unread_bytes`).

The kernel's part matters most. The operating system buffers up to 4 MiB per connection
(Linux's ``tcp_wmem``) before the application notices anything; counting only
Streamlit's queue, a client that stopped reading got about 75 more Explorer runs (15 s
at 5 moves/s) before it had to wait. Counting the kernel's send queue, it waits once its
own receive buffer is full (a run or two). A reading client never waits: on a LAN its
answer has left the kernel a few milliseconds after the run, and on a slow link the next
run starts as soon as the previous answer is through, with the latest widget values
(Streamlit folds requests that arrive meanwhile into the next run, as always). A client
that has gone away ends the wait and the run (its reconnect reruns the page:
relpos.server.reconnect). Nothing is dropped. A client that never reads again is cut off by
the WebSocket ping timeout (``server.websocketPingInterval`` in deploy/streamlit.toml).

The counts come from Streamlit's and uvicorn's private objects, all reached through
:mod:`relpos.server.internals`; where one is missing (another version) that part is not
counted, and ``tests/test_backpressure.py`` (which serves ``tests/apps/backpressure_probe.py``)
fails on such an upgrade, so it cannot go unnoticed. Nothing is patched.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
import weakref

try:  # POSIX: the kernel's send queue can be asked for (Linux answers for TCP sockets)
    import fcntl
    import termios
except ImportError:  # Windows: only Streamlit's and asyncio's buffers are counted
    fcntl = termios = None

import streamlit as st

from relpos.server import internals
from relpos.server.internals import pending_messages, served_session, unflushed_messages
from relpos.state.keys import state_key

#: Messages a session may have waiting before its next run waits: the few a run sends
#: when it starts (~3) and a little more, fewer than one Explorer run sends (~12).
BACKLOG = 8
#: Bytes a client may leave unread before its next run waits: a few compact Explorer answers
#: (or part of one large one); far less than the 4 MiB the kernel would take for a client that stopped
#: reading. A reading client's earlier answers are through long before it asks again.
BACKLOG_BYTES = 32 * 1024
#: Longest wait (s) before a run goes ahead anyway; a client that never reads is cut off
#: by Streamlit's WebSocket ping timeout (30 s + 30 s) or its 500-message limit.
MAX_WAIT = 20.0
#: Seconds between the first two looks at the client; each later look waits twice as
#: long, up to POLL_MAX: a client that catches up is answered quickly, while fifty
#: stalled ones wake rarely (each wake-up competes for the interpreter lock, and frequent
#: ones delayed everyone else's runs).
POLL = 0.02
POLL_MAX = 1.0
#: Runs a session may see cut short in a row before its next run pauses (unfinished_pause).
PATIENCE = 1
#: First pause (s) of a session whose runs keep being cut short; it doubles up to PAUSE_MAX.
PAUSE = 0.1
PAUSE_MAX = 1.6
#: The count of runs cut short in a row stops growing here: the pause reached PAUSE_MAX long
#: before (at PATIENCE + 5), and an unbounded count overflowed ``2 ** n`` as a float after
#: 1,026 runs (from then on every run raised, and logged a traceback per message).
MOST_UNFINISHED = 64
#: Longest single sleep (s): between two, Streamlit may end the run for a newer request.
SLICE = 0.25
#: Session-state key: runs of this session started since one last finished.
_UNFINISHED = state_key("app", "runs-unfinished")
#: A session-state key nobody sets: reading it is only a yield point.
_NEVER_SET = state_key("app", "backpressure-yield")
#: Session-state key: this full run drew a fragment (:func:`fragment_drawn`).
_DREW_FRAGMENT = state_key("app", "run-drew-fragment")
#: Longest wait (s) at the end of a full run for its elements to leave the session's queue
#: (:func:`run_finished`); the event loop hands them on every few ms, a flooded one later.
SEND_WAIT = 3.0
#: Seconds between two looks at the session's queue while waiting for it to empty.
SEND_POLL = 0.005
#: Linux's SIOCOUTQ (bytes in a socket's send queue not yet acknowledged by the peer);
#: None where the platform has no such request (the kernel's part is then not counted).
_SIOCOUTQ = getattr(termios, "TIOCOUTQ", None) if termios else None

_transports: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # session client -> transport


def client_transport(client) -> asyncio.WriteTransport | None:
    """The asyncio transport of a session client's WebSocket, or None if it cannot be found.

    The first time a connection is looked up its socket gets ``TCP_NODELAY``
    (:func:`send_without_delay`).
    """
    try:
        return _transports[client]
    except (KeyError, TypeError):
        pass
    transport = internals.transport_of(client)
    if transport is not None:
        send_without_delay(transport)
        _transports[client] = transport
    return transport


def send_without_delay(transport: asyncio.BaseTransport) -> bool:
    """Turn off Nagle's algorithm on the transport's TCP socket; True if it is off now.

    The server's WebSocket sockets come without ``TCP_NODELAY`` (the Starlette server
    does not set it; Tornado did): the last small message of a run (``script_finished``)
    then waited for the client's delayed acknowledgement of the one before, and every
    interaction took about 40 ms longer than its run (bench/stalled.py: p95 45 ms for
    runs of a few ms). Not a TCP socket (a Unix socket, a test double): left alone.
    """
    sock = transport.get_extra_info("socket")
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return False
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:  # closed meanwhile
        return False
    return True


def kernel_unacknowledged(transport: asyncio.BaseTransport) -> int:
    """Bytes in the kernel's send queue of the transport's socket (0 where it cannot say)."""
    sock = transport.get_extra_info("socket")
    if sock is None or _SIOCOUTQ is None:
        return 0
    try:
        answer = fcntl.ioctl(sock.fileno(), _SIOCOUTQ, struct.pack("i", 0))
    except (OSError, ValueError):  # closed meanwhile
        return 0
    return struct.unpack("i", answer)[0]


def closing(client) -> bool:
    """True once the client's connection is being closed (e.g. it missed the ping timeout):
    Streamlit has not dropped the session yet, but nothing more will reach the client."""
    transport = client_transport(client)
    return transport is not None and transport.is_closing()


def unread_bytes(client) -> int | None:
    """Bytes sent to the client's connection that it has not taken, or None if the server cannot say.

    The asyncio write buffer (not yet handed to the kernel) plus the kernel's send queue
    (handed over, not yet acknowledged by the client's machine).
    """
    transport = client_transport(client)
    if transport is None:
        return None
    if transport.is_closing():
        return 0
    return transport.get_write_buffer_size() + kernel_unacknowledged(transport)


def behind(server, session_id: str, client) -> bool:
    """True while the session has more than BACKLOG messages or BACKLOG_BYTES bytes not taken
    by its client: made and not yet sent, or sent and not yet acknowledged."""
    messages = (unflushed_messages(server, session_id) or 0) + (pending_messages(client) or 0)
    return messages > BACKLOG or (unread_bytes(client) or 0) > BACKLOG_BYTES


def wait_for_client(*, fragment: bool = False) -> None:
    """Call first in every run: pause a session that asks faster than its runs finish, then
    sleep while its client has not taken its earlier answers (:func:`behind`).

    app.py calls it for every full run; a fragment calls it with ``fragment=True``, which
    acts only when the fragment runs on its own (in a full run app.py has waited already).
    Ends the run (st.stop) if the client disconnects while the run waits. Pair it with
    :func:`run_finished` at the end of the run.
    """
    served = served_session(fragment)
    if served is None:
        return
    unfinished = st.session_state.get(_UNFINISHED, 0)
    st.session_state[_UNFINISHED] = min(unfinished + 1, MOST_UNFINISHED)
    _sleep(unfinished_pause(unfinished))
    _wait_while_behind(*served)


def run_finished(*, fragment: bool = False) -> None:
    """Call last in every run that called :func:`wait_for_client` (with the same `fragment`):
    this session's runs finish.

    A full run that drew a fragment (:func:`fragment_drawn`) also waits until its elements
    have left the session's outgoing queue (:data:`SEND_WAIT` s at most). When a fragment's
    own run starts, Streamlit drops from that queue every element of the fragment not yet
    sent, those the whole run before it made included; on a server slowed by a flood the
    queue was still full, the browser never got the fragment's place, and the teacher's page
    later applied another fragment's elements at the wrong place, threw, and went blank
    (bench/flood.py, during 300 joins).
    """
    served = served_session(fragment)
    if served is None:
        return
    st.session_state[_UNFINISHED] = 0
    if not fragment and st.session_state.pop(_DREW_FRAGMENT, False):
        _wait_until_sent(*served)


def fragment_drawn() -> None:
    """Call in a fragment's body: the full run that draws it waits for its elements to be
    sent before it finishes (:func:`run_finished`)."""
    if served_session() is not None:
        st.session_state[_DREW_FRAGMENT] = True


def _wait_until_sent(server, session_id: str) -> None:
    """Sleep until the session's outgoing queue is empty, for up to SEND_WAIT seconds. No
    yield point: ended here, the run would count as cut short, and a fragment's run that
    Streamlit holds back until this run ends would start over the unsent elements."""
    deadline = time.monotonic() + SEND_WAIT
    while (unflushed_messages(server, session_id) or 0) > 0 and time.monotonic() < deadline:
        time.sleep(SEND_POLL)


def unfinished_pause(unfinished: int) -> float:
    """Seconds a run waits before it starts when `unfinished` runs before it were cut short.

    A learner who changes a value while a run is under way cuts one run short: no pause.
    A client whose requests keep coming faster than its runs finish (a script, or a client
    that stopped reading: its runs wait for it and are cut short by the next request)
    would otherwise make the server start a run, and compute the Explorer's panels, for
    every request without ever finishing one: the pause doubles with every run cut short,
    up to PAUSE_MAX, so such a client soon only costs a sleeping thread.

    >>> [unfinished_pause(n) for n in range(7)], unfinished_pause(10**6)
    ([0.0, 0.0, 0.1, 0.2, 0.4, 0.8, 1.6], 1.6)
    """
    if unfinished <= PATIENCE:
        return 0.0
    doublings = min(unfinished, MOST_UNFINISHED) - PATIENCE - 1  # a count from before the cap stays finite
    return min(PAUSE_MAX, PAUSE * 2**doublings)


def _sleep(seconds: float) -> None:
    """Sleep in slices, ending the run at once if a newer request or a stop came meanwhile."""
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        time.sleep(min(left, SLICE))
        yield_point()


def _wait_while_behind(server, session_id: str) -> None:
    """Sleep while the session's client is :func:`behind`, for up to MAX_WAIT seconds."""
    deadline = time.monotonic() + MAX_WAIT
    waited, pause = False, POLL
    while True:
        client = server.get_client(session_id)
        if client is None or closing(client):  # disconnected: its reconnect reruns the page
            if waited:
                st.stop()
            return
        if not behind(server, session_id, client) or time.monotonic() > deadline:
            return
        waited = True
        _sleep(pause)
        pause = min(2 * pause, POLL_MAX)


def yield_point() -> None:
    """Let Streamlit end this run here if a newer rerun or a stop was requested.

    Reading session state is one of the points where Streamlit checks for such
    requests (as at every element): without it a waiting run would linger after
    Streamlit had started its successor in a new thread.
    """
    st.session_state.get(_NEVER_SET)
