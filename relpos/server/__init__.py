"""The server harness: what every run of every page goes through, in one place.

app.py reads as page config, navigation and ``with page_run(): page.run()``; a fragment
that reruns on its own is declared with :func:`fragment` instead of ``st.fragment``; a
page file's first statement is :func:`page_entry`. Inside:

* :mod:`~relpos.server.backpressure`: a client that does not read its answers gets no new
  runs meanwhile, and a session asking faster than its runs finish is paused;
* :mod:`~relpos.server.turns`: at most two runs compute at once, the least busy session first;
* :mod:`~relpos.server.reconnect`: a browser that reconnects (server restart, another
  replica) gets a full run before its next interaction;
* :mod:`~relpos.server.routing`: every page runs through app.py, even on a fresh server
  whose first request names a page;
* :mod:`~relpos.server.links`: a link too long for Streamlit is reported, not dropped;
* :mod:`~relpos.server.page_helpers`: the browser-side helpers of every page (``assets/page_helpers.js``);
* :mod:`~relpos.server.seeds`: widget values a page sets reach the browser, even when a
  click races the run that set them;
* :func:`draw_in_readers_theme`: the figures of a run (or of a fragment's run) take the
  colours of the theme the reader's browser shows (``relpos.plots.style.palette``);
* :func:`relpos.plots.template.use_lean_default`: the first run of the process makes the
  app's lean Plotly template the default, so every figure starts from it;
* :mod:`~relpos.server.internals`: every private Streamlit name the above need, and why.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

from relpos.plots import style, template
from relpos.server import backpressure, links, page_helpers, reconnect, routing, seeds, turns

__all__ = ["draw_in_readers_theme", "fragment", "page_entry", "page_run", "run_finished", "set_widget"]

#: A run that ended early on purpose (``st.switch_page``) calls this before it ends.
run_finished = backpressure.run_finished
#: The first statement of every page file (see :func:`relpos.server.routing.require_app_entry`).
page_entry = routing.require_app_entry
#: Set a keyed widget's value so that it reaches the browser (see :mod:`relpos.server.seeds`).
set_widget = seeds.set_widget


@contextmanager
def page_run() -> Iterator[None]:
    """Wrap app.py's ``page.run()``: the whole harness, in the order it needs.

    Before the page: wait for a client that has not read its answers, start figures from
    the app's lean Plotly template and draw them in the reader's theme, check the link the
    tab was opened with, send the page helpers, say if the link was too long, and
    register the reconnect marker, and write again the widget values the browser has not
    applied yet. The page then runs in its turn, marked as reached through app.py. A
    complete run is marked finished; a run that stopped or switched pages on the way
    is not.
    """
    backpressure.wait_for_client()
    template.use_lean_default()  # once per process; every later run finds it done
    draw_in_readers_theme()
    links.guard_oversized_links()
    page_helpers.install_page_helpers()
    links.oversized_link_notice()
    reconnect.rerun_on_reconnect()
    seeds.resend()
    with turns.take_turn(), routing.app_entry():
        yield
    backpressure.run_finished()


def draw_in_readers_theme() -> None:
    """Draw this run's figures in the colours of the theme the browser shows (light when it
    does not say, as in tests without a browser). The browser names its theme with every
    run it asks for; a run that a theme change asks for (relpos.ui.theme) names the new one."""
    style.use_theme(st.context.theme.type)


def fragment(body: Callable) -> Callable:
    """``st.fragment`` paced like a whole run: when it reruns on its own it waits for its
    client, computes in its turn and marks the run finished (in its page's full run,
    :func:`page_run` does all three); its figures take the reader's theme, as a page's do."""

    @functools.wraps(body)
    def themed(*args, **kwargs):
        draw_in_readers_theme()
        return body(*args, **kwargs)

    return st.fragment(turns.paced_fragment(themed))
