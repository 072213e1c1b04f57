"""One naming scheme for Streamlit keys, so a key says whose it is and what it holds.

* A widget's key: ``<page>.<name>[.<part>…]``, e.g. ``explorer.tables``, ``quiz.check.42.1``.
  Streamlit forgets a widget's key when the widget is not drawn in a run.
* Any other session value: ``<page>:<name>``, e.g. ``explorer:load``, ``quiz:progress.42.1``; it lives
  for the whole session.

Containers that CSS or JavaScript find by their ``st-key-…`` class
(:func:`relpos.server.internals.css_class`) keep a CSS-safe key without dots
(:data:`LESSON_NAV`, :data:`CLICKER`).

A lesson keeps its view as one state dict (:class:`relpos.ui.fields.PageState`)
under the bare page name (``explorer``, ``quiz``, ``training``, ``walkthrough`` …); its
widgets are ``<page>.<name>``, so one prefix forgets them all when the state is replaced.

``<page>`` is the page's url_path (``explorer``, ``walkthrough``, ``quiz`` …), or
``app`` and ``links`` for values of the
whole app. Pages' modules build their keys here; tests find widgets through these functions
or by label, never by hand-written key strings.
"""

from __future__ import annotations

__all__ = ["CLICKER", "LESSON_NAV", "NUMBER_FIELDS", "START_CLASS", "state_key", "widget_key"]

#: Container key of a lesson's Previous / Next bar, which presenter mode keeps on screen
#: (relpos.ui.presenter.PRESENTER_CSS).
LESSON_NAV = "lesson-nav"
#: Container key of the invisible Page Up / Page Down buttons a presentation clicker presses
#: (hidden by relpos.ui.presenter.ALWAYS_CSS).
CLICKER = "clicker"

#: The walkthrough's "Start a class" button, which presenter mode fits into the title's row.
START_CLASS = "start-class"


def widget_key(page: str, *parts) -> str:
    """Key of a widget (or a keyed element) of `page`.

    >>> widget_key("quiz", "check", 42, 1)
    'quiz.check.42.1'
    """
    return ".".join(str(part) for part in (page, *parts))


def state_key(page: str, name: str) -> str:
    """Key of a session value of `page` that is not a widget.

    >>> state_key("explorer", "load")
    'explorer:load'
    """
    return f"{page}:{name}"


#: Key prefixes of the text fields where a number is typed: the page helpers give
#: them a phone's decimal keyboard (``inputmode="decimal"``). The walkthrough's q, k and
#: aᴷ fields (``walkthrough.q.0``, ``walkthrough.a.+1`` …), and the quiz's and the
#: live class's number answers.
NUMBER_FIELDS = tuple(
    widget_key(page, *parts, "")
    for page, *parts in (
        ("walkthrough", "q"),
        ("walkthrough", "k"),
        ("walkthrough", "a"),
        ("quiz", "answer"),  # number answers only: the others are quiz.typed.…
        ("classroom", "answer"),
    )
)
