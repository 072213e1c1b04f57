"""One page-state API for every lesson: :class:`PageState`.

A lesson's page keeps its whole view in one dict, read from the URL once and mirrored into it,
and every widget gets its value from that dict through :meth:`PageState.bind` (or the
drawing methods built on it, which take label and bounds from the schema's field). Callbacks
change the dict only through :meth:`PageState.update` or :meth:`PageState.replace`, which
also forget the widgets that must re-seed from the new values. ``tests/test_page_state.py``
checks that the views use nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from relpos.server import set_widget
from relpos.state.codec import Schema
from relpos.state.keys import widget_key
from relpos.ui.url_state import page_state, seed_widget, show_url_problems, write_url

__all__ = ["EVERY_WIDGET", "PageState"]

#: ``forget=`` of :meth:`PageState.replace`: every widget of the page re-seeds.
EVERY_WIDGET = None


@dataclass(frozen=True)
class PageState:
    """A page's state dict and the widgets drawn from it.

    The state is :func:`page_state` under ``st.session_state[page]`` (decoded from the URL on
    the page's first run; :meth:`show_problems` warns about what the link got wrong), and
    :meth:`write_url` mirrors it into the address bar. Widget keys are
    ``widget_key(page, name[, index])``; a widget bound to a field (:meth:`bind`, :meth:`slider`
    …) is seeded from the state and writes back into it when moved. The drawing methods take
    the widget's label, bounds (narrowed by the schema's ``limits``, such as k ≤ n − 1), step
    or options from the field; the page adds only help text and layout.

    Why not Streamlit's ``bind="query-params"``: a bound widget names its URL parameter
    after its key (``?schemes.shift=3`` instead of the lesson links' ``?shift=3``), and it
    drops an invalid value from the URL without a word, where a bad link must get a
    message saying which parameter was wrong and what is allowed (and a list such as
    ``v=0.1,0.2`` is one parameter for many sliders).
    """

    page: str
    schema: Schema
    #: URL parameters that belong to someone else (a live class's ``class``): no problem in
    #: a link.
    foreign: tuple[str, ...] = ()
    #: Foreign parameters that :meth:`write_url` keeps in the URL (the others are dropped).
    keep: tuple[str, ...] = ()

    # --- reading ---------------------------------------------------------------------
    def state(self) -> dict:
        """The page's state, decoded from the URL on the page's first run in this session."""
        return page_state(self.page, self.schema, foreign=self.foreign)

    def opened(self) -> bool:
        """Whether the state is already read (False before the page's first run in this session)."""
        return self.page in st.session_state

    def key(self, name: str, index: int | None = None) -> str:
        """Widget key of a field (one per entry of a list field), or of another widget of the page."""
        return widget_key(self.page, name) if index is None else widget_key(self.page, name, index)

    def value(self, name: str, index: int | None = None):
        """The value the learner gave widget `name` (in its callback)."""
        return st.session_state[self.key(name, index)]

    # --- changing (from callbacks, or before the widgets are drawn) --------------------
    def replace(self, state: dict, *, forget=EVERY_WIDGET) -> None:
        """Make `state` the page's state; the widgets named in `forget` (every widget of the
        page by default) re-seed from it when next drawn.

        Forget only widgets this run draws again: a widget forgotten but not drawn would fire
        its callback on a later run as if the learner had changed it.
        """
        st.session_state[self.page] = state
        if forget is EVERY_WIDGET:
            prefix = self.key("")
            keys = [key for key in st.session_state if isinstance(key, str) and key.startswith(prefix)]
        else:
            keys = [self.key(name) for name in forget]
        for key in keys:
            st.session_state.pop(key, None)

    def update(self, *, forget: tuple[str, ...] = (), **changes) -> None:
        """Change some fields; fields whose bounds the change moved (k ≤ n − 1) are brought back
        inside, and their widgets re-seed, as do those named in `forget`."""
        state = {**self.state(), **changes}
        clamped = []
        for other, (low, high) in self.schema.limits(state).items():
            if not low <= state[other] <= high:
                state[other] = min(max(state[other], low), high)
                clamped.append(other)
        self.replace(state, forget=(*forget, *clamped))

    def reset(self) -> None:
        """Every field back to its default (a button's on_click)."""
        self.replace(self.schema.reconcile(self.schema.defaults())[0], forget=self._field_widgets())

    def _field_widgets(self) -> list[str]:
        """Names (``name`` or ``name.index``) of every field's widgets."""
        names = []
        for name, spec in self.schema.fields.items():
            if spec.kind == "floats":
                names += [f"{name}.{index}" for index in range(len(self.state()[name]))]
            else:
                names.append(name)
        return names

    # --- widgets -----------------------------------------------------------------------
    def set_widget(self, key: str, value) -> None:
        """Set the page's keyed widget `key` (one that is no field, or a field's widget following a
        change made elsewhere) to `value`, from a callback or before it is drawn; a field's widget is
        seeded by :meth:`bind`."""
        set_widget(key, value)

    def link_names(self, *names: str) -> bool:
        """Whether the URL names any of the parameters `names` (on the first run: the opening link)."""
        return any(name in st.query_params for name in names)

    def _changed(self, name: str, index: int | None, forget: tuple[str, ...]) -> None:
        """A bound widget moved: store its value."""
        value = self.value(name, index)
        if index is not None:
            entries = self.state()[name]
            value = [*entries[:index], float(value), *entries[index + 1 :]]
        self.update(forget=forget, **{name: value})

    def bind(self, name: str, index: int | None = None, *, forget: tuple[str, ...] = (), on_change=None) -> dict:
        """Keyword arguments binding a widget to field `name` (entry `index` of a list field): its
        key, its value seeded from the state, and a callback storing what the learner chose
        (:meth:`update`, re-seeding the widgets named in `forget`), or `on_change` instead, for
        a change that is more than one field's new value (a preset, a new size)."""
        value = self.state()[name]
        seed_widget(self.key(name, index), value if index is None else float(value[index]))
        if on_change is not None:
            return {"key": self.key(name, index), "on_change": on_change}
        return {"key": self.key(name, index), "on_change": self._changed, "args": (name, index, forget)}

    def slider(self, name: str, *, help: str | None = None) -> int | float:
        """A slider over the field's bounds in the current state."""
        spec = self.schema.fields[name]
        low, high = self.schema.bounds(name, self.state())
        return st.slider(spec.label, low, high, step=spec.step, help=help, **self.bind(name))

    def select_slider(self, name: str, *, help: str | None = None) -> str:
        """A slider over the field's choices."""
        spec = self.schema.fields[name]
        return st.select_slider(spec.label, list(spec.choices), help=help, **self.bind(name))

    def number_input(self, name: str, *, help: str | None = None) -> int:
        """A number field over the field's bounds."""
        spec = self.schema.fields[name]
        low, high = self.schema.bounds(name, self.state())
        return st.number_input(spec.label, low, high, step=spec.step, help=help, **self.bind(name))

    def radio(self, name: str, *, format_func=str, horizontal: bool = True):
        """Radio buttons over the field's choices, or over every integer within its bounds."""
        spec = self.schema.fields[name]
        if spec.kind == "choice":
            options = list(spec.choices)
        else:
            low, high = self.schema.bounds(name, self.state())
            options = list(range(int(low), int(high) + 1))
        return st.radio(spec.label, options, format_func=format_func, horizontal=horizontal, **self.bind(name))

    def sliders(self, name: str, labels, *, disabled=None) -> None:
        """One slider per entry of a list field, side by side, each over the field's bounds."""
        spec = self.schema.fields[name]
        for index, (column, label) in enumerate(zip(st.columns(len(labels)), labels, strict=True)):
            with column:
                st.slider(
                    label,
                    float(spec.low),
                    float(spec.high),
                    step=spec.step,
                    disabled=bool(disabled[index]) if disabled is not None else False,
                    **self.bind(name, index),
                )

    # --- the URL -----------------------------------------------------------------------
    def show_problems(self) -> None:
        """Warn (once) about the parameters of the opening link that could not be used."""
        self.state()
        show_url_problems(self.page)

    def write_url(self) -> dict:
        """Mirror the state into the URL (keeping the parameters named in :attr:`keep`); returns the state."""
        state = self.state()
        write_url(self.schema, state, keep=self.keep)
        return state
