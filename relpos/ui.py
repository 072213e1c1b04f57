"""Streamlit helpers shared by every page: page chrome, Markdown content, tables.

This is the only relpos module that imports Streamlit; pages call it, and it calls
the figure/table builders, which call the core.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
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


def labelled_table(
    frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None, stretch: bool = False
) -> None:
    """Show a table mixing text and number columns; numbers get `decimals` places, gaps show a dash."""
    st.dataframe(frame.style.format(precision=decimals, na_rep="—"), width="stretch" if stretch else "content")
    if caption:
        st.caption(caption)


# --------------------------------------------------------------------------- value side page (issue 5)

VALUE_PAGE = "value_side"
VALUE_VARIANTS = ("a^K and a^V", "a^K only", "a^V only", "neither")


def offset_window(k: int) -> str:
    """The offsets a clipping distance keeps apart, in words: "offset 0" or "offsets −2..+2"."""
    return "offset 0" if k == 0 else f"offsets −{k}..+{k}"


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
    terms = [f"{w:.3f}·({a:+.2f})".replace("-", "−") for w, a in zip(mass, table, strict=True) if w > 0]
    total = float(np.dot(mass, table))
    return (
        "Grouped by offset, the position part is each $a^V$ row times the attention that lands on that "
        f"offset ({offset_window(k)}, zero-weight rows left out): "
        + " + ".join(terms)
        + f" = **{total:.4f}**".replace("-", "−")
    )


def _table_label(side: str, offset: int) -> str:
    """Slider label of one table entry, e.g. $a^V_{-2}$ (Streamlit renders the LaTeX)."""
    return f"$a^{side}_{{{offset:+d}}}$" if offset else f"$a^{side}_{{0}}$"


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
            format_func=lambda code: latex_names(variant_codes[code]),
            horizontal=True,
        )
    k = setting_value(page, by_name["k"])
    offsets = range(-(n - 1), n)
    st.markdown("**Values $v_j$** (one number per token, d = 1)")
    number_sliders(page, by_name["v"], [f"$v_{j + 1}$" for j in range(n)])
    st.markdown(
        f"**Value-side table $a^V$** (offsets −{n - 1}..+{n - 1}; at k = {k} only {offset_window(k)} "
        f"{'is' if k == 0 else 'are'} used, "
        "the others are greyed out)"
    )
    number_sliders(page, by_name["av"], [_table_label("V", o) for o in offsets], disabled=[abs(o) > k for o in offsets])
    with st.expander("Queries, keys and $a^K$ (the textbook's numbers)"):
        st.caption(
            "The textbook gives a^K only for offsets −2..+2; the ±3 entries start equal to the ±2 ones, "
            "so k = 3 changes nothing on the key side until you edit them."
        )
        number_sliders(page, by_name["q"], [f"$q_{i + 1}$" for i in range(n)])
        number_sliders(page, by_name["kk"], [f"$k_{j + 1}$" for j in range(n)])
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


# --------------------------------------------------------------------------- scheme comparison page (issue 5)

SCHEME_PAGE = "schemes"

#: Each scheme's score formula, shown above its heatmaps.
SCHEME_FORMULAS = {
    "none": r"e_{ij} = \frac{q_i \cdot k_j}{\sqrt d}",
    "sinusoidal": r"e_{ij} = \frac{(x_i + p_i) W^Q \cdot (x_j + p_j) W^K}{\sqrt d}",
    "shaw": r"e_{ij} = \frac{q_i \cdot k_j + q_i \cdot a^K_{\operatorname{clip}(j-i,\,k)}}{\sqrt d}",
    "t5": r"e_{ij} = \frac{q_i \cdot k_j}{\sqrt d} + \beta_{\operatorname{bucket}(j-i)}",
    "alibi": r"e_{ij} = \frac{q_i \cdot k_j}{\sqrt d} - m\,\lvert j-i \rvert",
    "rope": r"e_{ij} = \frac{(R_i\, q_i) \cdot (R_j\, k_j)}{\sqrt d}",
}


#: What the symbols of each formula are (Markdown, with LaTeX).
SCHEME_SYMBOLS = {
    "none": "$q_i = x_i W^Q$, $k_j = x_j W^K$: the same tokens and projections in every row.",
    "sinusoidal": "$p_i$: sines and cosines of position $i$, added to the token before the projections.",
    "shaw": "$a^K$: a learned vector for each clipped offset $-k..k$.",
    "t5": "$\\beta$: one learned number per bucket of offsets.",
    "alibi": "$m$: the head's fixed slope, chosen in the sidebar.",
    "rope": "$R_i$ turns feature pair $(2t, 2t+1)$ by the angle $i\\,\\theta_t$, $\\theta_t = 10000^{-2t/d}$.",
}


def scheme_settings():
    """The comparison page's settings (all kept in the URL)."""
    from relpos.page_settings import ChoiceSetting, IntSetting

    return (
        IntSetting("n", "sequence length n", 8, 4, 16),
        IntSetting("seed", "seed", 0, 0, 9999),
        IntSetting("k", "Shaw clipping distance k", 2, 0, 15),
        ChoiceSetting("buckets", "T5 buckets", "16", ("8", "16", "32")),
        ChoiceSetting("maxdist", "T5 max_distance", "32", ("16", "32", "64", "128")),
        IntSetting("heads", "ALiBi heads H", 8, 1, 16),
        IntSetting("head", "ALiBi head", 1, 1, 16),
        IntSetting("shift", "shift s", 3, 0, 32),
        IntSetting("L", "trained length L", 8, 2, 32),
    )


def scheme_sidebar():
    """Draw the scenario controls in the sidebar; return (setup, ALiBi slopes, head index 0-based).

    Everything random comes from one seeded generator (see relpos.random_scheme_setup).
    """
    from relpos.schemes import alibi_slopes

    page = SCHEME_PAGE
    settings = scheme_settings()
    init_settings(page, settings)
    show_setting_problems(page)
    with st.sidebar:
        st.markdown("**Scenario** (shared by every scheme)")
        n = st.slider("sequence length n", 4, 16, key=setting_key(page, "n"))
        seed = st.number_input("seed (tokens, projections, tables)", 0, 9999, step=1, key=setting_key(page, "seed"))
        clamp_setting(page, "k", 0, n - 1)
        k = st.slider("Shaw: clipping distance k", 0, n - 1, key=setting_key(page, "k"))
        buckets = st.select_slider("T5: buckets", ["8", "16", "32"], key=setting_key(page, "buckets"))
        max_distance = st.select_slider("T5: max_distance", ["16", "32", "64", "128"], key=setting_key(page, "maxdist"))
        st.caption("T5 itself uses 32 buckets and max_distance 128; smaller values show the log buckets sooner.")
        heads = st.slider("ALiBi: heads H", 1, 16, key=setting_key(page, "heads"))
        clamp_setting(page, "head", 1, heads)
        head = st.slider("ALiBi: head shown", 1, heads, key=setting_key(page, "head")) if heads > 1 else 1
        slopes = alibi_slopes(heads)
        st.caption(f"slope m of head {head}: {slopes[head - 1]:.4g} = 2^{math.log2(slopes[head - 1]):.3g}")
    setup = cached_scheme_setup(n, int(seed), k, int(buckets), int(max_distance), float(slopes[head - 1]))
    return setup, slopes, head - 1


@st.cache_data(show_spinner=False, max_entries=64)
def cached_scheme_setup(n: int, seed: int, k: int, buckets: int, max_distance: int, slope: float):
    from relpos.schemes import random_scheme_setup

    return random_scheme_setup(n, k=k, num_buckets=buckets, max_distance=max_distance, alibi_slope=slope, seed=seed)


def scheme_slider(name: str, label: str, low: int, high: int, *, help: str | None = None) -> int:
    """A section slider of the comparison page (shift s, trained length L)."""
    clamp_setting(SCHEME_PAGE, name, low, high)
    return st.slider(label, low, high, key=setting_key(SCHEME_PAGE, name), help=help)


def save_scheme_settings() -> None:
    """Write the comparison page's settings into the URL (call at the end of the page)."""
    save_settings(SCHEME_PAGE, scheme_settings())


def scheme_rows(results, position_figures, weight_figures) -> None:
    """One row per scheme: name, parameter count, formula and what to notice; then its two heatmaps."""
    from relpos.schemes import SCHEMES
    from relpos.tables import constant_diagonals

    for name, result in results.items():
        with st.container(border=True):
            text, position, weights = st.columns([1.15, 1, 1], vertical_alignment="center")
            with text:
                st.markdown(f"#### {SCHEMES[name]}")
                st.latex(SCHEME_FORMULAS[name])
                st.caption(SCHEME_SYMBOLS[name])
                count = result.n_params
                st.markdown(f"**{count}** learned position parameter{'s' if count != 1 else ''}")
                if name == "none":
                    st.caption(
                        "Its position part is zero; the left panel shows the scores every other scheme starts from."
                    )
                else:
                    constant = constant_diagonals(result.position)
                    st.caption(
                        "Position part constant along every diagonal: "
                        + ("yes, it depends on j − i alone." if constant else "no.")
                    )
            with position:
                st.plotly_chart(position_figures[name], width="stretch", key=f"schemes.position.{name}")
            with weights:
                st.plotly_chart(weight_figures[name], width="stretch", key=f"schemes.weights.{name}")


def chart_row(figures, *, key_prefix: str) -> None:
    """Figures side by side, one column each."""
    for index, (column, fig) in enumerate(zip(st.columns(len(figures)), figures, strict=True)):
        with column:
            st.plotly_chart(fig, width="stretch", key=f"{key_prefix}.{index}")
