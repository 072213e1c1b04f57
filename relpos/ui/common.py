"""Streamlit helpers shared by every page: page chrome, Markdown content, tables.

This and the page-specific ``ui_<topic>.py`` modules are the only relpos modules that
import Streamlit; pages call them, and they call the figure/table builders, which call
the core.
"""

from __future__ import annotations

import math
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import numpy as np
import pandas as pd
import streamlit as st

from relpos.core import skewing
from relpos.lessons import answers, quiz, timing
from relpos.plots import figures
from relpos.state.codec import Schema, StateError
from relpos.state.export import load_scenario, scenario_json
from relpos.tables import frames as tables
from relpos.text.explain import subscript

CONTENT_DIR = Path(__file__).resolve().parents[2] / "content"


@st.cache_data(show_spinner=False)
def _read_content(name: str) -> str:
    return (CONTENT_DIR / f"{name}.md").read_text(encoding="utf-8")


def markdown(name: str) -> None:
    """Show ``content/<name>.md`` (our own prose; never user text)."""
    st.markdown(_read_content(name))


def caption(name: str) -> None:
    """Show ``content/<name>.md`` in small print (help next to controls)."""
    st.caption(_read_content(name))


#: Names for an unnamed index, by how its labels begin: a screen reader announces the
#: index column's header, and an empty one is an accessibility violation (axe: empty-table-header).
_INDEX_NAMES = (("i = ", "query"), ("offset", "offset"), ("key j", "key"), ("q_i", "vector"), ("a^", "table"))


def named_index(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with its index named (for its header cell) when it has no name yet.

    >>> named_index(pd.DataFrame({"j = 1": [1.0]}, index=["i = 1"])).index.name
    'query'
    """
    if frame.index.name is not None or isinstance(frame.index, pd.MultiIndex):
        return frame
    first = str(frame.index[0]) if len(frame.index) else ""
    name = next((name for prefix, name in _INDEX_NAMES if first.startswith(prefix)), "row")
    return frame.rename_axis(name)


def matrix_table(frame: pd.DataFrame, *, decimals: int = 4, caption: str | None = None) -> None:
    """Show a labelled matrix with a fixed number of decimals and true minus signs."""
    frame = named_index(frame)
    st.dataframe(frame.style.format(lambda value: f"{value:.{decimals}f}".replace("-", "−")), width="content")
    if caption:
        st.caption(caption)


# ---------------------------------------------------------------- shared chart helper


def page_links(pages, *, columns: int = 2) -> None:
    """A card per page (link plus its one-line summary), `columns` to a row."""
    for first in range(0, len(pages), columns):
        for column, spec in zip(st.columns(columns), pages[first : first + columns], strict=False):
            with column.container(border=True):
                st.page_link(spec.path, label=spec.title, icon=spec.icon)
                st.caption(spec.summary)


#: Plotly options of every chart: no zoom or pan by drag or wheel, so a swipe or a wheel
#: turn that starts on a chart scrolls the page (a phone's swipe would otherwise be
#: trapped); a tap or hover still shows a cell's text.
CHART_CONFIG = {"displaylogo": False, "scrollZoom": False, "doubleClick": False, "responsive": True}


def chart_name(fig) -> str:
    """A chart's accessible name: its title without HTML tags (``e<sub>ij</sub>`` reads "e ij")."""
    title = fig.layout.title.text or ""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", title)).strip() or "Chart"


def chart(fig, *, key: str | None = None, alt: str | None = None, width="stretch", toolbar: bool = True) -> None:
    """Show a Plotly figure (Plotly's JS ships with Streamlit: no CDN), named for screen readers.

    Dragging never zooms (``dragmode`` off), so touch scrolling passes through the chart.
    """
    fig.update_layout(dragmode=False)
    config = CHART_CONFIG if toolbar else {**CHART_CONFIG, "displayModeBar": False}
    st.plotly_chart(fig, width=width, config=config, key=key, alt=alt or chart_name(fig))


def plotly(fig, *, key: str | None = None) -> None:
    """Show a Plotly figure at the container's width, named by its title."""
    chart(fig, key=key)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&])")


def plain(text: str) -> str:
    """Escape Markdown (and KaTeX ``$``) so text that quotes a learner's input shows literally."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


# ---------------------------------------------------------------- efficiency page

#: Sequence lengths offered for the live timing (the naive gather is skipped past its budget).
TIMING_LENGTHS = (64, 128, 256, 512, 1024, 2048)
_TIMING_KEY = "efficiency_timing"


def skew_walkthrough(length: int, values=None, *, key: str = "skew") -> None:
    """The four skewing steps as labelled grids, two per row."""
    step_figures = figures.skew_step_figures(length, values)
    for first in (0, 2):
        for column, figure_number in zip(st.columns(2), (first, first + 1), strict=True):
            with column:
                plotly(step_figures[figure_number], key=f"{key}_step{figure_number + 1}")


def timing_panel() -> None:
    """Form for n, d, k; runs the three methods and shows times, speed-ups and checks."""
    with st.form("efficiency_timing_form"):
        left, middle, right = st.columns(3)
        n = left.select_slider("sequence length n", options=TIMING_LENGTHS, value=512, key="efficiency_timing_n")
        d = middle.select_slider("feature size d", options=(16, 32, 64), value=64, key="efficiency_timing_d")
        k_choice = right.select_slider(
            "clipping distance k", options=(1, 4, 16, 64, "n − 1"), value=16, key="efficiency_timing_k"
        )
        submitted = st.form_submit_button("Run the timing", type="primary", key="efficiency_run_timing")
    if submitted:
        k = n - 1 if k_choice == "n − 1" else min(int(k_choice), n - 1)
        with st.spinner(f"Timing the three methods at n = {n}…"):
            # kept in the session so other widgets' reruns redraw the result without re-timing
            st.session_state[_TIMING_KEY] = {"n": n, "d": d, "k": k, "timings": timing.time_bias_methods(n, d, k)}
    shown = st.session_state.get(_TIMING_KEY)
    if shown is None:
        st.info("Choose n, d and k, then press **Run the timing**: the three methods run on this server.")
        return
    st.markdown(
        f"**Measured** on this server: n = {shown['n']}, d = {shown['d']}, k = {shown['k']}, "
        "float64, best of 3 rounds in which the methods take turns."
    )
    plotly(figures.timing_figure(shown["timings"]), key="efficiency_timing_chart")
    st.dataframe(named_index(tables.timing_frame(shown["timings"])), width="stretch")


def memory_panel() -> None:
    """Inputs for the memory formula, its table per method, and the growth with n."""
    columns = st.columns(5)
    n = columns[0].number_input(
        "sequence length n", min_value=1, max_value=1_000_000, value=2048, step=256, key="efficiency_memory_n"
    )
    heads = columns[1].number_input("heads H", min_value=1, max_value=128, value=8, key="efficiency_memory_heads")
    d_head = columns[2].number_input(
        "d per head", min_value=1, max_value=1024, value=64, key="efficiency_memory_d_head"
    )
    k = columns[3].number_input(
        "clipping distance k", min_value=0, max_value=1_000_000, value=64, key="efficiency_memory_k"
    )
    dtype = columns[4].selectbox(
        "number format", ("float32 (4 B)", "float16 (2 B)", "float64 (8 B)"), key="efficiency_memory_dtype"
    )
    itemsize = int(dtype.split("(")[1].split(" ")[0])
    n, heads, d_head, k = int(n), int(heads), int(d_head), min(int(k), int(n) - 1)
    d_model = heads * d_head
    footprint = skewing.memory_footprint(n, d_model, k=k, heads=heads, itemsize=itemsize)
    st.dataframe(
        tables.memory_frame(footprint, n=n, d_model=d_model, k=k, heads=heads, itemsize=itemsize), width="stretch"
    )
    st.caption(f"D = H · d_head = {d_model}; b = {itemsize} bytes per number; k is capped at n − 1 = {n - 1}.")
    lengths = np.unique(np.geomspace(16, max(4 * n, 64), 40).astype(int))
    footprints = [
        skewing.memory_footprint(int(m), d_model, k=min(k, int(m) - 1), heads=heads, itemsize=itemsize) for m in lengths
    ]
    mark = (n, footprint.gathered, f"n = {n}: {tables.format_bytes(footprint.gathered)}  ")
    plotly(figures.memory_growth_figure(lengths, footprints, mark=mark), key="efficiency_memory_growth")


def published_memory_check() -> None:
    """Music Transformer's 8.5 GB → 4.2 MB, recomputed from the formulas."""
    length, d_model, itemsize = 2048, 512, 4
    footprint = skewing.memory_footprint(length, d_model, heads=8, itemsize=itemsize)

    def tex_bytes(count: int) -> str:
        return (
            f"{count:,}".replace(",", "{,}")
            + r"\,\text{B} \approx "
            + tables.format_bytes(count).replace(" ", r"\,\text{")
            + "}"
        )

    st.latex(
        rf"{length}^2 \cdot {d_model} \cdot {itemsize}\,\text{{B}} = {tex_bytes(footprint.gathered)}, \qquad"
        rf"{length} \cdot {d_model} \cdot {itemsize}\,\text{{B}} = {tex_bytes(footprint.skew_embeddings)}"
    )
    st.dataframe(
        tables.published_memory_frame(footprint, length=length, d_model=d_model, itemsize=itemsize), width="stretch"
    )
    truncated_gb = math.floor(footprint.gathered / 1e8) / 10  # 8.589... GB -> 8.5
    rounded_mb = round(footprint.skew_embeddings / 1e6, 1)  # 4.194... MB -> 4.2
    if truncated_gb == 8.5 and rounded_mb == 4.2:
        st.success(
            f"The formulas give {footprint.gathered:,} B = {tables.format_bytes(footprint.gathered)} "
            f"(exactly 8 GiB; the paper's “8.5 GB” cuts off the third digit) and "
            f"{footprint.skew_embeddings:,} B = {tables.format_bytes(footprint.skew_embeddings)} ≈ 4.2 MB "
            "(exactly 4 MiB): both published figures are reproduced."
        )
    else:  # only if someone changes the formulas
        st.error(f"The formulas give {truncated_gb} GB and {rounded_mb} MB, not the published 8.5 GB and 4.2 MB.")


# ---------------------------------------------------------------- quiz page

_QUIZ_SEED_KEY = "quiz_seed"


def _fresh_seed() -> int:
    """A new quiz seed from the operating system's entropy (no global random state)."""
    return secrets.randbelow(1_000_000)


def quiz_seed() -> int:
    """The quiz seed from the URL (``?seed=…``); a new one, written to the URL, when absent or unreadable."""
    raw = st.query_params.get("seed")
    if raw is not None:
        try:
            seed = answers.parse_seed(raw)
        except answers.AnswerError as error:
            st.warning(plain(f"The seed in the address could not be used ({error}), so here are new questions."))
        else:
            st.session_state[_QUIZ_SEED_KEY] = seed
            return seed
    seed = st.session_state.get(_QUIZ_SEED_KEY)
    if seed is None:
        seed = _fresh_seed()
        st.session_state[_QUIZ_SEED_KEY] = seed
    st.query_params["seed"] = str(seed)
    return seed


def _answer_key(seed: int, number: int) -> str:
    return f"quiz_answer_{seed}_{number}"


def _outcome_key(seed: int, number: int) -> str:
    return f"quiz_outcome_{seed}_{number}"


def _judge(question, seed: int, number: int, give_up: bool) -> None:
    """Form callback: runs before the page, so the verdict and the page agree in one run."""
    text = st.session_state.get(_answer_key(seed, number), "")
    feedback = quiz.reveal(question) if give_up else quiz.check_answer(question, text)
    st.session_state[_outcome_key(seed, number)] = {"feedback": feedback, "text": text}


def quiz_outcome(seed: int, number: int):
    """The settled or last feedback for question `number`, or None."""
    outcome = st.session_state.get(_outcome_key(seed, number))
    return None if outcome is None else outcome["feedback"]


def _question_numbers(question) -> None:
    """The scenario's q, k and a^K as small tables (positions from 1)."""
    if question.scenario is None:
        return
    st.dataframe(named_index(tables.scenario_frame(question.scenario)), width="content")
    st.dataframe(named_index(tables.offset_row_frame(question.scenario.table)), width="content")


def _worked_solution(question) -> None:
    for line in question.solution:
        st.latex(line)
    st.markdown(question.explanation)


def quiz_question(number: int, question, seed: int) -> None:
    """One question: the numbers, the prompt, an answer form until settled, then the verdict."""
    st.header(f"{number}. {question.title}")
    _question_numbers(question)
    st.markdown(question.prompt)
    outcome = st.session_state.get(_outcome_key(seed, number))
    feedback = None if outcome is None else outcome["feedback"]
    if feedback is None or not feedback.counts:
        with st.form(f"quiz_form_{seed}_{number}"):
            st.text_input(
                "Your prediction",
                key=_answer_key(seed, number),
                placeholder=question.answer_format,
                help=f"Type {question.answer_format}.",
            )
            with st.container(horizontal=True):
                st.form_submit_button(
                    "Check my answer",
                    type="primary",
                    key=f"quiz_check_{seed}_{number}",
                    on_click=_judge,
                    args=(question, seed, number, False),
                )
                st.form_submit_button(
                    "Show me the answer",
                    key=f"quiz_reveal_{seed}_{number}",
                    on_click=_judge,
                    args=(question, seed, number, True),
                )
        if feedback is not None:  # an unreadable answer: say why, keep the question open
            st.warning(plain(feedback.message))
        return
    if feedback.status == "correct":
        st.success(plain(f"✓ {feedback.message}"))
        with st.expander("Worked solution"):
            _worked_solution(question)
        return
    if feedback.status == "wrong":
        st.text(f"Your answer: {outcome['text'].strip()}")
        st.error(plain(f"✗ {feedback.message}"))
    else:
        st.info(plain(feedback.message))
    st.markdown("**Worked solution**")
    _worked_solution(question)


def _new_questions() -> None:
    st.session_state[_QUIZ_SEED_KEY] = _fresh_seed()
    st.query_params["seed"] = str(st.session_state[_QUIZ_SEED_KEY])


def _start_again(seed: int, count: int) -> None:
    for number in range(1, count + 1):
        st.session_state.pop(_outcome_key(seed, number), None)
        st.session_state.pop(_answer_key(seed, number), None)


def quiz_summary(questions, seed: int) -> None:
    """Score so far, one line per question, the shareable seed and restart buttons."""
    statuses = [getattr(quiz_outcome(seed, number), "status", None) for number in range(1, len(questions) + 1)]
    summary = quiz.summarise(statuses)
    st.divider()
    st.header("Your score")
    st.metric("correct answers", f"{summary.correct} / {summary.total}")
    st.markdown(summary.message)
    marks = {"correct": "✓ correct", "wrong": "✗ wrong", "revealed": "revealed", None: "open", "invalid": "open"}
    st.dataframe(
        pd.DataFrame(
            {"question": [q.title for q in questions], "result": [marks[status] for status in statuses]},
            index=pd.RangeIndex(1, len(questions) + 1, name="number"),
        ),
        width="content",
    )
    with st.container(horizontal=True):
        st.button("New questions", key="quiz_new", on_click=_new_questions, type="primary")
        st.button(
            "Start again (same questions)", key="quiz_restart", on_click=_start_again, args=(seed, len(questions))
        )
    markdown("quiz_share")
    st.code(f"{st.context.url or ''}?seed={seed}", language=None)


# --------------------------------------------------------------------------- settings in the URL (issue 5)
# A page's settings live in widget state, are saved each run (Streamlit forgets the
# state of widgets a run did not draw, e.g. while another page was open) and are
# mirrored into the URL, so a teacher can share a link that opens the same view.


def setting_key(page: str, name: str, index: int | None = None) -> str:
    """Widget key of a setting (one key per entry of a list setting)."""
    return f"{page}.{name}" if index is None else f"{page}.{name}.{index}"


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
    problems = st.session_state.pop(f"{page}._problems", [])
    if problems:
        # the messages quote at most a sanitised excerpt of the parameter (see page_settings.sanitise)
        st.warning("Some settings in the link were not usable:\n\n" + "\n".join(f"- {p}" for p in problems))


def save_settings(page: str, settings) -> dict:
    """Remember the current values and write them into the URL; returns them."""
    from relpos.state.settings import encode_settings

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
    frame = named_index(frame)
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


#: Superscript K and V of the plain-text table names (aᴷ₊₂, aⱽ₋₁).
_SUPERSCRIPTS = {"K": "ᴷ", "V": "ⱽ"}


def table_entry_name(side: str, offset: int) -> str:
    """Plain-text name of one table entry, the twin of LaTeX ``a^K_{+2}``: ``aᴷ₊₂``, ``aⱽ₀``.

    Plain text, so a screen reader announces a control as words, never as raw LaTeX.

    >>> table_entry_name("K", 2), table_entry_name("V", -1), table_entry_name("K", 0)
    ('aᴷ₊₂', 'aⱽ₋₁', 'aᴷ₀')
    """
    return f"a{_SUPERSCRIPTS[side]}{subscript(f'{offset:+d}' if offset else '0')}"


def _table_label(side: str, offset: int) -> str:
    """Slider label of one table entry, in plain text (:func:`table_entry_name`)."""
    return table_entry_name(side, offset)


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
    from relpos.core.value_side import ValueExample

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
    number_sliders(page, by_name["v"], [f"v{subscript(j + 1)}" for j in range(n)])
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
        number_sliders(page, by_name["q"], [f"q{subscript(i + 1)}" for i in range(n)])
        number_sliders(page, by_name["kk"], [f"k{subscript(j + 1)}" for j in range(n)])
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
    "t5": (
        "$\\beta$: one learned number per bucket of offsets. T5 itself does not divide $q_i \\cdot k_j$ by "
        "$\\sqrt d$ (its attention uses a scale of 1); this page divides every scheme's dot product by "
        "$\\sqrt d$ so the schemes compare on one scale."
    ),
    "alibi": (
        "$m$: the head's fixed slope, chosen in the sidebar. ALiBi is defined for causal models, "
        "$-m\\,(i-j)$ for keys $j \\le i$; the symmetric $-m\\,\\lvert j-i \\rvert$ used here is an extension "
        "for bidirectional attention."
    ),
    "rope": "$R_i$ turns feature pair $(2t, 2t+1)$ by the angle $i\\,\\theta_t$, $\\theta_t = 10000^{-2t/d}$.",
}


def scheme_settings():
    """The comparison page's settings (all kept in the URL)."""
    from relpos.state.settings import ChoiceSetting, IntSetting

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
    from relpos.core.schemes import alibi_slopes

    page = SCHEME_PAGE
    settings = scheme_settings()
    init_settings(page, settings)
    _check_scheme_link(page)
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


def _check_scheme_link(page: str) -> None:
    """Report settings of the opening link that are valid alone but not together.

    k must stay below n and the head shown cannot exceed the number of heads; the
    sliders then clamp them (see :func:`clamp_setting`), and the learner is told why.
    Runs only on the page's first run in a session, when the link was just read.
    """
    problems = st.session_state.get(f"{page}._problems")
    if problems is None:
        return
    saved = st.session_state[f"{page}._saved"]
    if saved["k"] > saved["n"] - 1:
        problems.append(
            f"Shaw clipping distance k must be at most n − 1 = {saved['n'] - 1} for n = {saved['n']}; "
            f"got {saved['k']} (used {saved['n'] - 1})"
        )
    if saved["head"] > saved["heads"]:
        problems.append(
            f"ALiBi head must be at most the number of heads H = {saved['heads']}; "
            f"got {saved['head']} (used {saved['heads']})"
        )


@st.cache_data(show_spinner=False, max_entries=64)
def cached_scheme_setup(n: int, seed: int, k: int, buckets: int, max_distance: int, slope: float):
    from relpos.core.scheme_comparison import random_scheme_setup

    return random_scheme_setup(n, k=k, num_buckets=buckets, max_distance=max_distance, alibi_slope=slope, seed=seed)


def scheme_slider(name: str, label: str, low: int, high: int, *, help: str | None = None) -> int:
    """A section slider of the comparison page (shift s, trained length L)."""
    clamp_setting(SCHEME_PAGE, name, low, high)
    return st.slider(label, low, high, key=setting_key(SCHEME_PAGE, name), help=help)


def save_scheme_settings() -> None:
    """Write the comparison page's settings into the URL (call at the end of the page)."""
    save_settings(SCHEME_PAGE, scheme_settings())


def scheme_rows(results, position_figures, weight_figures) -> None:
    """One card per scheme: name, parameter count and what to notice next to its formula;
    below them its two heatmaps, each half the card wide so the cell numbers stay legible."""
    from relpos.core.schemes import SCHEMES
    from relpos.tables.frames import constant_diagonals

    for name, result in results.items():
        with st.container(border=True):
            text, formula = st.columns([1, 1.2], vertical_alignment="center")
            with text:
                st.markdown(f"### {SCHEMES[name]}")
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
            with formula:
                st.latex(SCHEME_FORMULAS[name])
                st.caption(SCHEME_SYMBOLS[name])
            position, weights = st.columns(2)
            with position:
                chart(position_figures[name], key=f"schemes.position.{name}")
            with weights:
                chart(weight_figures[name], key=f"schemes.weights.{name}")


def chart_row(figures, *, key_prefix: str) -> None:
    """Figures side by side, one column each."""
    for index, (column, fig) in enumerate(zip(st.columns(len(figures)), figures, strict=True)):
        with column:
            chart(fig, key=f"{key_prefix}.{index}")


def callout(name: str) -> None:
    """Show ``content/<name>.md`` in an info box (a convention the reader must not miss)."""
    st.info(_read_content(name))


#: Always on pages that use :func:`presenter_style`: a formula wider than its column
#: scrolls sideways instead of being cut off, and the walkthrough's invisible
#: Page Up / Page Down buttons (for a presentation clicker) take no room.
ALWAYS_CSS = """
<style>
[data-testid="stMainBlockContainer"] .stLatex { overflow-x: auto; overflow-y: hidden; }
.st-key-clicker { display: none; }
</style>
"""

#: Presenter mode, for a projector (designed for 1280 × 720; tests/test_presenter.py
#: checks every stop): one stop fits one screen, read from the back row. Static CSS only
#: (no user text). Line by line:
#:
#: * the root font size: Streamlit sizes text and widgets in rem, so body text is 22 px;
#:   formulas 1.3 em of that (28.6 px); headings small, the room goes to the lesson;
#: * the header strip and the page's top padding shrink to what the sidebar arrow needs;
#: * Previous / Next (and the pickers) stick under the header while the lesson scrolls
#:   beneath them: always within reach, covering nothing before one scrolls. The sticky
#:   element is the bar's layout wrapper, whose parent spans the whole main area;
#: * on a phone-sized screen presenter mode steps aside: the phone layout (plain sizes,
#:   nothing sticky) is what a student who opened a presenter link needs.
PRESENTER_CSS = """
<style>
@media (min-width: 700px) {
  html { font-size: 22px; }
  [data-testid="stHeader"] { height: 2.6rem; min-height: 2.6rem; }
  [data-testid="stMainBlockContainer"] { padding: 2.4rem 2.2rem 7rem; max-width: none; }
  [data-testid="stMainBlockContainer"] h1 { font-size: 1.3rem; padding: 0.2rem 0 0; }
  [data-testid="stMainBlockContainer"] h2 { font-size: 1.3rem; padding: 0.1rem 0 0.2rem; }
  [data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] :is(p, li) { font-size: 1rem; }
  [data-testid="stMainBlockContainer"] .katex { font-size: 1.3em; }
  [data-testid="stMainBlockContainer"] .katex-display { margin: 0.4em 0; }
  [data-testid="stLayoutWrapper"]:has(> .st-key-lesson-nav) {
    position: sticky; top: 2.6rem; z-index: 999; width: 100%;
    padding: 0.2rem 0; background: #ffffff;
    border-bottom: 1px solid rgba(49, 51, 63, 0.12);
  }
  .st-key-lesson-nav { flex-wrap: wrap; row-gap: 0.3rem; }
  .st-key-lesson-nav button { padding-left: 0.55rem; padding-right: 0.55rem; min-height: 2.1rem; }
  .st-key-lesson-nav [data-testid="stMarkdownContainer"] p { white-space: nowrap; }
}
</style>
"""


def presenter_style(enabled: bool) -> None:
    """Apply presenter mode's CSS (see :data:`PRESENTER_CSS`) and fold the sidebar away.

    The sidebar is only collapsed, not hidden: its arrow brings it back for a live edit.
    :data:`ALWAYS_CSS` applies in both modes.
    """
    st.html(ALWAYS_CSS + PRESENTER_CSS if enabled else ALWAYS_CSS)
    st.set_page_config(initial_sidebar_state="collapsed" if enabled else "auto")


def download_csv(frame: pd.DataFrame, filename: str, *, label: str, key: str) -> None:
    """A download button for `frame` as UTF-8 CSV with a byte-order mark (no index; full precision)."""
    st.download_button(
        label,
        data=frame.to_csv(index=False).encode("utf-8-sig"),  # the BOM tells spreadsheet programs it is UTF-8
        file_name=filename,
        mime="text/csv",
        key=key,
        icon=":material/download:",
    )


# --- Lesson links: a page's whole state in the URL ------------------------------------
# A page keeps its state as one dict in st.session_state[name]. On the page's first run
# in a browser session the dict is decoded from st.query_params (bad values reported
# and replaced by defaults); afterwards widgets change the dict and write_url() mirrors
# it into the address bar, so the URL is always a link to exactly this view.

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$:&=\"'^%@/])")


def escape_markdown(text: str) -> str:
    """Backslash-escape Markdown, LaTeX (``$``) and directive (``:``) syntax in untrusted text.

    >>> escape_markdown("[x](http://e) $1$ :red[a]")
    '\\\\[x\\\\]\\\\(http\\\\:\\\\/\\\\/e\\\\) \\\\$1\\\\$ \\\\:red\\\\[a\\\\]'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def page_state(name: str, schema: Schema) -> dict:
    """The page's state dict, decoded from the URL on the page's first run in this session.

    Problems found in the URL are kept for :func:`show_url_problems`.
    """
    if name not in st.session_state:
        decoded = schema.decode(st.query_params.to_dict())
        st.session_state[name] = decoded.state
        st.session_state[f"{name}:problems"] = decoded.problems
    return st.session_state[name]


def show_url_problems(name: str) -> None:
    """Warn (once) about the parameters of the opening link that could not be used."""
    problems = st.session_state.pop(f"{name}:problems", ())
    if problems:
        lines = "\n".join(f"- {escape_markdown(problem)}" for problem in problems)
        st.warning(f"Parts of this link could not be used; the page shows the defaults instead:\n\n{lines}", icon="⚠️")


def set_page_state(name: str, state: dict, *, widget_prefix: str) -> None:
    """Replace the page's state and forget its widgets' values so they re-seed from it.

    Call from widget callbacks (before widgets are drawn).
    """
    st.session_state[name] = state
    for key in [key for key in st.session_state if isinstance(key, str) and key.startswith(widget_prefix)]:
        del st.session_state[key]


def seed_widget(key: str, value) -> None:
    """Give a keyed widget its value from the page state unless it already has one."""
    if key not in st.session_state:
        st.session_state[key] = value


def write_url(schema: Schema, state: dict) -> None:
    """Mirror the state into st.query_params (only when it changed)."""
    params = schema.encode(state)
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)


def _app_base_url(url_path: str) -> str:
    """The app's address without the page (``http://host:8501``), or "" when unknown."""
    parts = urlsplit(st.context.url or "")
    if parts.scheme not in ("http", "https"):
        return ""
    path = parts.path.rstrip("/")
    if path == f"/{url_path}" or path.endswith(f"/{url_path}"):
        path = path[: -len(url_path) - 1]
    return f"{parts.scheme}://{parts.netloc}{path}"


def lesson_link(schema: Schema, state: dict, url_path: str) -> None:
    """Show the link that reopens exactly this view, ready to copy."""
    st.code(
        f"{_app_base_url(url_path)}/{url_path}?{urlencode(schema.encode(state), safe=',')}",
        language=None,
        wrap_lines=True,
    )
    st.caption("The address bar holds the same link: paste it into a slide or a message to open this exact view.")


# --- Panels ---------------------------------------------------------------------------
def heatmap_panel(fig, caption: str, *, key: str, alt: str) -> None:
    """One heatmap with its "what to notice" caption; `alt` names it for screen readers."""
    chart(fig, key=key, alt=alt, toolbar=False)
    st.caption(caption)


def matrix_tables(matrices: dict[str, object], *, key: str, limit: int = 16, decimals: int = 4) -> None:
    """Every panel's numbers as real HTML tables, in an expander that renders only when open.

    Larger matrices show their top-left ``limit × limit`` corner (the CSV downloads
    hold everything).
    """
    expander = st.expander("Numbers as tables (screen-reader friendly)", key=key, on_change="rerun")
    if not expander.open:
        return
    with expander:
        for title, matrix in matrices.items():
            array = np.asarray(matrix)
            corner = array[:limit, :limit]
            note = (
                ""
                if corner.shape == array.shape
                else f" (top-left {limit} × {limit} of {array.shape[0]} × {array.shape[1]})"
            )
            st.markdown(f"**{title}**{note}")
            frame = named_index(tables.matrix_frame(corner))
            st.table(frame if frame.dtypes.iloc[0].kind in "iu" else frame.round(decimals))


# --- Export and import ------------------------------------------------------------------
@dataclass(frozen=True)
class Download:
    """One download button: label, file name, content (or a function making it), MIME type."""

    label: str
    file_name: str
    data: object
    mime: str = "text/csv"


def matrix_download(matrices: dict[str, object], *, file_prefix: str, key: str) -> None:
    """Pick a matrix, download it as CSV (made only when clicked)."""
    choice_column, button_column = st.columns([2, 1], vertical_alignment="bottom")
    with choice_column:
        name = st.selectbox("Matrix to download", list(matrices), key=key, format_func=lambda m: m.replace("_", " "))
    with button_column:
        st.download_button(
            f"{name.replace('_', ' ')}.csv",
            lambda matrix=matrices[name]: tables.matrix_csv(matrix),
            file_name=f"{file_prefix}_{name}.csv",
            mime="text/csv",
            on_click="ignore",
            key=f"{key}.button",
            icon=":material/download:",
            width="stretch",
        )


def download_buttons(files: list[Download], *, columns: int = 4, key: str) -> None:
    """A grid of download buttons that do not rerun the page when clicked."""
    grid = st.columns(columns)
    for number, file in enumerate(files):
        with grid[number % columns]:
            st.download_button(
                file.label,
                file.data,
                file_name=file.file_name,
                mime=file.mime,
                on_click="ignore",
                key=f"{key}.{number}",
                icon=":material/download:",
                width="stretch",
            )


def export_section(
    *,
    schema: Schema,
    state: dict,
    url_path: str,
    matrices: dict[str, object],
    result,
    computed: dict[str, object],
    snippet: str,
    key: str,
) -> None:
    """Lesson link, CSV/JSON downloads and the NumPy snippet, built only while the expander is open.

    ``result`` is an AttentionResult (for the one-row-per-pair CSV); ``computed`` holds
    the arrays written into the scenario file for the reader.
    """
    section = st.expander(
        "Lesson link, downloads and NumPy code", key=key, on_change="rerun", icon=":material/ios_share:"
    )
    if not section.open:
        return
    prefix = url_path.replace("-", "_")
    scenario = dict(state)  # the page's state dict changes in place on later reruns
    with section:
        lesson_link(schema, state, url_path)
        matrix_column, file_column = st.columns([1, 1], vertical_alignment="bottom")
        with matrix_column:
            matrix_download(matrices, file_prefix=prefix, key=f"{key}.matrix")
        with file_column:
            files = [
                Download(
                    "all pairs (long).csv",
                    f"{prefix}_pairs.csv",
                    lambda: tables.pairs_frame(result).to_csv(index=False),
                ),
                Download(
                    "scenario.json",
                    f"{prefix}_scenario.json",
                    lambda: scenario_json(url_path, schema, scenario, computed),
                    "application/json",
                ),
            ]
            download_buttons(files, key=f"{key}.download", columns=2)
        st.code(snippet, language="python")


def _load_upload(key: str, page: str, schema: Schema, on_loaded) -> None:
    uploaded = st.session_state.get(key)
    if uploaded is None:
        st.session_state.pop(f"{key}:message", None)
        return
    try:
        state = load_scenario(uploaded.getvalue(), page, schema)
    except StateError as error:
        st.session_state[f"{key}:message"] = ("error", error.problems)
        return
    on_loaded(state)
    st.session_state[f"{key}:message"] = ("success", ())


def scenario_upload(page: str, schema: Schema, *, key: str, on_loaded, lazy_key: str | None = None) -> None:
    """Upload a scenario JSON file; valid files call ``on_loaded(state)``, others are explained.

    With `lazy_key` the uploader sits in an expander that is built only while open
    (and stays open while a message about the last file is shown).
    """
    if lazy_key is not None:
        message = st.session_state.get(f"{key}:message")
        if message is not None and not st.session_state.get(lazy_key):
            st.session_state[lazy_key] = True  # keep the result of a load in view
        section = st.expander("Load a scenario file", key=lazy_key, on_change="rerun", icon=":material/upload_file:")
        if not section.open:
            return
        with section:
            _scenario_uploader(page, schema, key=key, on_loaded=on_loaded)
        return
    _scenario_uploader(page, schema, key=key, on_loaded=on_loaded)


def _scenario_uploader(page: str, schema: Schema, *, key: str, on_loaded) -> None:
    st.file_uploader(
        "Load a scenario file",
        type=["json"],
        key=key,
        on_change=_load_upload,
        args=(key, page, schema, on_loaded),
        help="A .json scenario file downloaded from this page.",
    )
    kind, problems = st.session_state.get(f"{key}:message", (None, ()))
    if kind == "error":
        lines = "\n".join(f"- {escape_markdown(problem)}" for problem in problems)
        st.error(f"This file could not be loaded; nothing was changed:\n\n{lines}", icon="🚫")
    elif kind == "success":
        st.success("Scenario loaded.", icon="✅")
