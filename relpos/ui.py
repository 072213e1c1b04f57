"""Streamlit helpers shared by every page: page chrome, Markdown content, tables.

This is the only relpos module that imports Streamlit; pages call it, and it calls
the figure/table builders, which call the core.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

CONTENT_DIR = Path(__file__).resolve().parents[1] / "content"


@st.cache_data(show_spinner=False)
def _read_content(name: str) -> str:
    return (CONTENT_DIR / f"{name}.md").read_text(encoding="utf-8")


def markdown(name: str) -> None:
    """Show ``content/<name>.md`` (our own prose; never user text)."""
    st.markdown(_read_content(name))


def matrix_table(frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None) -> None:
    """Show a labelled matrix with a fixed number of decimals."""
    st.dataframe(frame.style.format(f"{{:.{decimals}f}}"), width="content")
    if caption:
        st.caption(caption)


# --------------------------------------------------------------------------- settings in the URL (issue 5)
# A page's settings live in widget state, are saved each run (Streamlit forgets the
# state of widgets a run did not draw, e.g. while another page was open) and are
# mirrored into the URL, so a teacher can share a link that opens the same view.


def setting_key(page: str, name: str, index: int | None = None) -> str:
    """Widget key of a setting (one key per entry of a list setting)."""
    return f"{page}.{name}" if index is None else f"{page}.{name}.{index}"


def _setting_items(page: str, setting, value):
    from relpos.page_settings import FloatsSetting

    if isinstance(setting, FloatsSetting):
        return [(setting_key(page, setting.name, index), float(v)) for index, v in enumerate(value)]
    return [(setting_key(page, setting.name), value)]


def init_settings(page: str, settings) -> None:
    """Fill the widget state of `settings`: from the URL on the page's first run in this
    session (malformed parameters are reported by :func:`show_setting_problems`), later
    from the values saved by :func:`save_settings`."""
    from relpos.page_settings import read_settings

    saved_key = f"{page}._saved"
    if saved_key not in st.session_state:
        values, problems = read_settings(settings, st.query_params.to_dict())
        st.session_state[saved_key] = values
        st.session_state[f"{page}._problems"] = problems
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
    from relpos.page_settings import FloatsSetting

    if isinstance(setting, FloatsSetting):
        return tuple(st.session_state[setting_key(page, setting.name, i)] for i in range(len(setting.default)))
    return st.session_state[setting_key(page, setting.name)]


def clamp_setting(page: str, name: str, low: int, high: int) -> None:
    """Keep an integer setting inside a range that depends on other settings."""
    key = setting_key(page, name)
    st.session_state[key] = min(max(st.session_state[key], low), high)


def show_setting_problems(page: str) -> None:
    """Warn (once) about URL parameters that were malformed and replaced by defaults."""
    problems = st.session_state.pop(f"{page}._problems", [])
    if problems:
        # the messages quote at most a sanitised excerpt of the parameter (see page_settings.sanitise)
        st.warning("Some settings in the link were not usable:\n\n" + "\n".join(f"- {p}" for p in problems))


def save_settings(page: str, settings) -> dict:
    """Remember the current values and write them into the URL; returns them."""
    from relpos.page_settings import encode_settings

    values = {setting.name: setting_value(page, setting) for setting in settings}
    st.session_state[f"{page}._saved"] = values
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


def labelled_table(frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None) -> None:
    """Show a table mixing text and number columns; numbers get `decimals` places, gaps stay blank."""
    st.dataframe(frame.style.format(precision=decimals, na_rep=""), width="content")
    if caption:
        st.caption(caption)


# --------------------------------------------------------------------------- value side page (issue 5)

VALUE_PAGE = "value_side"
VALUE_VARIANTS = ("a^K and a^V", "a^K only", "a^V only", "neither")


def value_side_settings():
    """The value-side page's settings, with the example's numbers as defaults."""
    from relpos.page_settings import ChoiceSetting, FloatsSetting, IntSetting
    from relpos.value_side import value_example

    example = value_example()
    n = example.n
    return (
        IntSetting("k", "clipping distance k", 2, 0, n - 1),
        IntSetting("query", "query", 1, 1, n),
        ChoiceSetting("variant", "variant", "both", ("both", "key", "value", "neither")),
        FloatsSetting("v", "values v", example.values, -2.0, 2.0),
        FloatsSetting("av", "a^V table", example.value_table, -2.0, 2.0),
        FloatsSetting("q", "queries q", example.queries, -2.0, 2.0),
        FloatsSetting("kk", "keys k", example.keys, -2.0, 2.0),
        FloatsSetting("ak", "a^K table", example.key_table, -2.0, 2.0),
    )


def value_side_controls():
    """Draw the value-side controls; return (example, k, query index 0-based, variant name).

    ``variant`` is one of :data:`VALUE_VARIANTS`; the tables it leaves out are zeroed
    by the page, not forgotten, so switching back restores them.
    """
    from relpos.value_side import ValueExample

    page = VALUE_PAGE
    settings = value_side_settings()
    init_settings(page, settings)
    show_setting_problems(page)
    by_name = {s.name: s for s in settings}
    n = len(by_name["v"].default)
    variant_codes = dict(zip(("both", "key", "value", "neither"), VALUE_VARIANTS, strict=True))

    top = st.columns([2, 2, 3])
    with top[0]:
        st.slider("clipping distance k", 0, n - 1, key=setting_key(page, "k"))
    with top[1]:
        st.radio(
            "query i",
            list(range(1, n + 1)),
            key=setting_key(page, "query"),
            horizontal=True,
            format_func=lambda i: f"{i}",
        )
    with top[2]:
        st.radio(
            "relative tables in use (Shaw et al.'s Table 3)",
            list(variant_codes),
            key=setting_key(page, "variant"),
            format_func=variant_codes.get,
            horizontal=True,
        )
    k = setting_value(page, by_name["k"])
    offsets = range(-(n - 1), n)
    st.markdown("**Values v_j** (one number per token, d = 1)")
    number_sliders(page, by_name["v"], [f"v_{j + 1}" for j in range(n)])
    st.markdown(f"**Value-side table a^V** (offsets −{n - 1}..+{n - 1}; only −{k}..+{k} are used at k = {k})")
    number_sliders(
        page,
        by_name["av"],
        [f"a^V[{o:+d}]" if o else "a^V[0]" for o in offsets],
        disabled=[abs(o) > k for o in offsets],
    )
    with st.expander("Queries, keys and a^K (the textbook's numbers)"):
        st.caption(
            "The textbook gives a^K only for offsets −2..+2; the ±3 entries start equal to the ±2 ones, "
            "so k = 3 changes nothing on the key side until you edit them."
        )
        number_sliders(page, by_name["q"], [f"q_{i + 1}" for i in range(n)])
        number_sliders(page, by_name["kk"], [f"k_{j + 1}" for j in range(n)])
        number_sliders(
            page,
            by_name["ak"],
            [f"a^K[{o:+d}]" if o else "a^K[0]" for o in offsets],
            disabled=[abs(o) > k for o in offsets],
        )
    st.button("Reset to the example's numbers", on_click=reset_settings, args=(page, settings))
    values = save_settings(page, settings)
    example = ValueExample(
        queries=values["q"],
        keys=values["kk"],
        values=values["v"],
        key_table=values["ak"],
        value_table=values["av"],
    )
    return example, values["k"], values["query"] - 1, variant_codes[values["variant"]]
