"""The value-side page's widgets: the example's numbers, k, the query and the variant."""

from __future__ import annotations

import numpy as np
import streamlit as st

from relpos.text import notation
from relpos.text import numbers as num
from relpos.ui.page_settings import (
    init_settings,
    number_sliders,
    reset_settings,
    save_settings,
    setting_key,
    setting_value,
    show_setting_problems,
)

# --------------------------------------------------------------------------- value side page (issue 5)

VALUE_PAGE = "value_side"
VALUE_VARIANTS = ("a^K and a^V", "a^K only", "a^V only", "neither")


def offset_window(k: int) -> str:
    """The offsets a clipping distance keeps apart, in words: "offset 0" or "offsets −2..+2"."""
    return "offset 0" if k == 0 else f"offsets {num.offset_range(k)}"


def latex_names(text: str) -> str:
    """Our own labels with a^K / a^V typeset by Streamlit's Markdown LaTeX."""
    return text.replace("a^K", "$a^K$").replace("a^V", "$a^V$")


def offset_mass_sentence(mass, table, k: int) -> str:
    """Markdown: the position part as attention mass per clipped offset times the a^V row.

    Parameters
    ----------
    mass : array_like, shape (2k+1,)
        One query's attention mass per clipped offset (relpos.weight_per_offset).
    table : array_like, shape (2k+1,)
        The a^V rows for offsets −k..+k (d = 1).
    """
    terms = [f"{num.number(w, 3)}·({num.number(a, sign=True)})" for w, a in zip(mass, table, strict=True) if w > 0]
    total = float(np.dot(mass, table))
    return (
        "Grouped by offset, the position part is each $a^V$ row times the attention that lands on that "
        f"offset ({offset_window(k)}, zero-weight rows left out): "
        + " + ".join(terms)
        + f" = **{num.number(total, 4)}**"
    )


def _table_label(side: str, offset: int) -> str:
    """Slider label of one table entry in plain text (``aⱽ₋₂``): announced as words."""
    return notation.entry(side, offset)


def value_side_settings():
    """The value-side page's settings, with the example's numbers as defaults."""
    from relpos.core.value_side import value_example
    from relpos.state.settings import ChoiceSetting, FloatsSetting, IntSetting

    example = value_example()
    n = example.n
    return (
        IntSetting("k", "clipping distance k", 2, 0, n - 1),
        IntSetting("query", "query", 1, 1, n),
        ChoiceSetting("variant", "variant", "both", ("both", "key", "value", "neither")),
        FloatsSetting("v", "values v", example.values, -2.0, 2.0),
        FloatsSetting("av", "aⱽ table", example.value_table, -2.0, 2.0),
        FloatsSetting("q", "queries q", example.queries, -2.0, 2.0),
        FloatsSetting("kk", "keys k", example.keys, -2.0, 2.0),
        FloatsSetting("ak", "aᴷ table", example.key_table, -2.0, 2.0),
    )


def _choice_row(page: str, n: int, variant_codes: dict) -> None:
    """k, the query and which relative tables are in use, side by side."""
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
            format_func=lambda code: latex_names(variant_codes[code]),
            horizontal=True,
        )


def value_side_controls():
    """Draw the value-side controls; return (example, k, query index 0-based, variant name).

    ``variant`` is one of :data:`VALUE_VARIANTS`; the tables it leaves out are zeroed
    by the page, not forgotten, so switching back restores them.
    """
    from relpos.core.value_side import ValueExample

    page = VALUE_PAGE
    settings = value_side_settings()
    init_settings(page, settings)
    show_setting_problems(page)
    by_name = {s.name: s for s in settings}
    n = len(by_name["v"].default)
    variant_codes = dict(zip(("both", "key", "value", "neither"), VALUE_VARIANTS, strict=True))

    _choice_row(page, n, variant_codes)
    k = setting_value(page, by_name["k"])
    offsets = range(-(n - 1), n)
    st.markdown("**Values $v_j$** (one number per token, d = 1)")
    number_sliders(page, by_name["v"], [f"v{num.subscript(j + 1)}" for j in range(n)])
    st.markdown(
        f"**Value-side table $a^V$** (offsets {num.offset_range(n - 1)}; at k = {k} only {offset_window(k)} "
        f"{'is' if k == 0 else 'are'} used, "
        "the others are greyed out)"
    )
    number_sliders(page, by_name["av"], [_table_label("V", o) for o in offsets], disabled=[abs(o) > k for o in offsets])
    with st.expander("Queries, keys and $a^K$ (the textbook's numbers)"):
        st.caption(
            "The textbook gives aᴷ only for offsets −2..+2; the ±3 entries start equal to the ±2 ones, "
            "so k = 3 changes nothing on the key side until you edit them."
        )
        number_sliders(page, by_name["q"], [f"q{num.subscript(i + 1)}" for i in range(n)])
        number_sliders(page, by_name["kk"], [f"k{num.subscript(j + 1)}" for j in range(n)])
        number_sliders(
            page, by_name["ak"], [_table_label("K", o) for o in offsets], disabled=[abs(o) > k for o in offsets]
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
