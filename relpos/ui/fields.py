"""A page's widgets drawn from the fields of its schema, so a bound or a label is written once."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from relpos.state.codec import Schema
from relpos.state.keys import widget_key
from relpos.ui.url_state import page_state, seed_widget, show_url_problems, write_url

__all__ = ["PageFields"]


@dataclass(frozen=True)
class PageFields:
    """A page's widgets, each drawn from a field of the page's schema.

    The field gives the widget its label, bounds (narrowed by the schema's ``limits``,
    such as k ≤ n − 1), step or options; the page adds only help text and layout. The
    state dict is :func:`page_state` (read from the URL once), every widget is seeded
    from it and writes back into it when moved, and :meth:`write_url` mirrors it: the
    same sync as every other page with a lesson link. Widget keys are
    ``widget_key(page, name[, index])``.

    Why not Streamlit's ``bind="query-params"``: a bound widget names its URL parameter
    after its key (``?schemes.shift=3`` instead of the lesson links' ``?shift=3``), and it
    drops an invalid value from the URL without a word, where a bad link must get a
    message saying which parameter was wrong and what is allowed (and a list such as
    ``v=0.1,0.2`` is one parameter for many sliders).
    """

    page: str
    schema: Schema

    def state(self) -> dict:
        """The page's state, decoded from the URL on the page's first run in this session."""
        return page_state(self.page, self.schema)

    def key(self, name: str, index: int | None = None) -> str:
        """Widget key of a field (one per entry of a list field)."""
        return widget_key(self.page, name) if index is None else widget_key(self.page, name, index)

    def _keys(self, name: str) -> list[str]:
        """Every widget key of a field: one, or one per entry of a list field."""
        if self.schema.fields[name].kind == "floats":
            return [self.key(name, index) for index in range(len(self.state()[name]))]
        return [self.key(name)]

    def _changed(self, name: str, index: int | None) -> None:
        """A widget moved: store its value, and bring fields whose bounds it moved back inside."""
        state = dict(self.state())
        value = st.session_state[self.key(name, index)]
        if index is None:
            state[name] = value
        else:
            state[name] = [*state[name][:index], float(value), *state[name][index + 1 :]]
        for other, (low, high) in self.schema.limits(state).items():
            if not low <= state[other] <= high:
                state[other] = min(max(state[other], low), high)
                st.session_state.pop(self.key(other), None)  # re-seeded from the state
        st.session_state[self.page] = state

    def _options(self, name: str, index: int | None = None) -> dict:
        """A widget's key and callback, its value seeded from the state."""
        value = self.state()[name]
        seed_widget(self.key(name, index), value if index is None else float(value[index]))
        return {"key": self.key(name, index), "on_change": self._changed, "args": (name, index)}

    def slider(self, name: str, *, help: str | None = None) -> int | float:
        """A slider over the field's bounds in the current state."""
        spec = self.schema.fields[name]
        low, high = self.schema.bounds(name, self.state())
        return st.slider(spec.label, low, high, step=spec.step, help=help, **self._options(name))

    def select_slider(self, name: str, *, help: str | None = None) -> str:
        """A slider over the field's choices."""
        spec = self.schema.fields[name]
        return st.select_slider(spec.label, list(spec.choices), help=help, **self._options(name))

    def number_input(self, name: str, *, help: str | None = None) -> int:
        """A number field over the field's bounds."""
        spec = self.schema.fields[name]
        low, high = self.schema.bounds(name, self.state())
        return st.number_input(spec.label, low, high, step=spec.step, help=help, **self._options(name))

    def radio(self, name: str, *, format_func=str, horizontal: bool = True):
        """Radio buttons over the field's choices, or over every integer within its bounds."""
        spec = self.schema.fields[name]
        if spec.kind == "choice":
            options = list(spec.choices)
        else:
            low, high = self.schema.bounds(name, self.state())
            options = list(range(int(low), int(high) + 1))
        return st.radio(spec.label, options, format_func=format_func, horizontal=horizontal, **self._options(name))

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
                    **self._options(name, index),
                )

    def reset(self) -> None:
        """Every field back to its default (a button's on_click)."""
        st.session_state[self.page] = self.schema.reconcile(self.schema.defaults())[0]
        for name in self.schema.fields:
            for key in self._keys(name):
                st.session_state.pop(key, None)

    def show_problems(self) -> None:
        """Warn (once) about the parameters of the opening link that could not be used."""
        self.state()
        show_url_problems(self.page)

    def write_url(self) -> dict:
        """Mirror the state into the URL; returns the state."""
        state = self.state()
        write_url(self.schema, state)
        return state
