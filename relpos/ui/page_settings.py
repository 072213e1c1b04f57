"""Settings that travel in the URL, kept in widget state (the schemes and value-side pages).

The settings are declared in :mod:`relpos.state.settings` and parsed by the one codec.

Why not Streamlit's ``bind="query-params"``: a bound widget names its URL parameter after
its key (``?schemes.shift=3`` instead of the lesson links' ``?shift=3``), and it drops an
invalid value from the URL without a word, where a bad link must get a message saying
which parameter was wrong and what is allowed (and list settings such as ``v=0.1,0.2``
are one parameter for many sliders)."""

from __future__ import annotations

import streamlit as st

from relpos.state.keys import state_key, widget_key
from relpos.text.escape import escape_markdown

# --------------------------------------------------------------------------- settings in the URL (issue 5)
# A page's settings live in widget state, are saved each run (Streamlit forgets the
# state of widgets a run did not draw, e.g. while another page was open) and are
# mirrored into the URL, so a teacher can share a link that opens the same view.


def setting_key(page: str, name: str, index: int | None = None) -> str:
    """Widget key of a setting (one key per entry of a list setting)."""
    return widget_key(page, name) if index is None else widget_key(page, name, index)


def _setting_items(page: str, setting, value):
    from relpos.state.settings import FloatsSetting

    if isinstance(setting, FloatsSetting):
        return [(setting_key(page, setting.name, index), float(v)) for index, v in enumerate(value)]
    return [(setting_key(page, setting.name), value)]


def init_settings(page: str, settings) -> None:
    """Fill the widget state of `settings`: from the URL on the page's first run in this
    session (malformed parameters are reported by :func:`show_setting_problems`), later
    from the values saved by :func:`save_settings`."""
    from relpos.state.settings import read_settings

    saved_key = state_key(page, "saved")
    if saved_key not in st.session_state:
        values, problems = read_settings(settings, st.query_params.to_dict())
        st.session_state[saved_key] = values
        st.session_state[state_key(page, "problems")] = problems
    saved = st.session_state[saved_key]
    for setting in settings:
        for key, value in _setting_items(page, setting, saved[setting.name]):
            if key not in st.session_state:
                st.session_state[key] = value


def reset_settings(page: str, settings) -> None:
    """Put every setting back to its default (use as a button's on_click)."""
    for setting in settings:
        for key, value in _setting_items(page, setting, setting.default):
            st.session_state[key] = value


def setting_value(page: str, setting):
    """The current value of a setting (a tuple for a list setting)."""
    from relpos.state.settings import FloatsSetting

    if isinstance(setting, FloatsSetting):
        return tuple(st.session_state[setting_key(page, setting.name, i)] for i in range(len(setting.default)))
    return st.session_state[setting_key(page, setting.name)]


def clamp_setting(page: str, name: str, low: int, high: int) -> None:
    """Keep an integer setting inside a range that depends on other settings."""
    key = setting_key(page, name)
    st.session_state[key] = min(max(st.session_state[key], low), high)


def show_setting_problems(page: str) -> None:
    """Warn (once) about URL parameters that were malformed and replaced by defaults."""
    problems = st.session_state.pop(state_key(page, "problems"), [])
    if problems:
        lines = "\n".join(f"- {escape_markdown(problem)}" for problem in problems)
        st.warning(f"Some settings in the link were not usable:\n\n{lines}")


def save_settings(page: str, settings) -> dict:
    """Remember the current values and write them into the URL; returns them."""
    from relpos.state.settings import encode_settings

    values = {setting.name: setting_value(page, setting) for setting in settings}
    st.session_state[state_key(page, "saved")] = values
    st.query_params.from_dict(encode_settings(settings, values))
    return values


def number_sliders(page: str, setting, labels, *, step: float = 0.05, disabled=None, columns=None) -> None:
    """One slider per entry of a list setting, side by side."""
    columns = columns or st.columns(len(labels))
    for index, (column, label) in enumerate(zip(columns, labels, strict=True)):
        with column:
            st.slider(
                label,
                min_value=float(setting.low),
                max_value=float(setting.high),
                step=step,
                key=setting_key(page, setting.name, index),
                disabled=bool(disabled[index]) if disabled is not None else False,
            )
