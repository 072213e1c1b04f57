"""A one-page app for tests/test_backpressure.py: relpos's back-pressure around a run whose
answer size and duration the test chooses (query ``?answer=<bytes>&seconds=<s>``).

Each run that gets past :func:`wait_for_client` draws "run started", then reports what the
back-pressure sees of its own connection (so a Streamlit or uvicorn upgrade that hides the
transport fails the test), sleeps, and sends an answer of the requested size. The answer is
random text: the server compresses its WebSocket (permessage-deflate), and a repeated letter
would shrink to nothing on the wire, where the back-pressure measures.
"""

import base64
import os
import socket
import time

import streamlit as st

from relpos.server import backpressure

backpressure.wait_for_client()
st.markdown("run started")
server, session_id = backpressure.served_session()
client = server.get_client(session_id)
transport = backpressure.client_transport(client)
connection = transport.get_extra_info("socket") if transport else None
no_delay = connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) if connection else None
st.markdown(f"TCP_NODELAY: {no_delay}")
st.markdown(
    f"transport found: {backpressure.client_transport(client) is not None}; "
    f"unread bytes: {backpressure.unread_bytes(client)}; "
    f"queued messages: {backpressure.pending_messages(client)}; "
    f"unflushed messages: {backpressure.unflushed_messages(server, session_id)}"
)
for _ in range(int(float(st.query_params.get("seconds", 0)) * 20)):
    time.sleep(0.05)
    st.session_state.get("never set")  # a point where Streamlit may end the run for a newer request
size = int(st.query_params.get("answer", 0))
st.code(base64.b64encode(os.urandom(size * 3 // 4 + 3)).decode("ascii")[:size])
backpressure.run_finished()
