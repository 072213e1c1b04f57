"""Streamlit helpers shared by every page: page chrome, Markdown content, tables.

This is the only relpos module that imports Streamlit; pages call it, and it calls
the figure/table builders, which call the core.
"""

from __future__ import annotations

import math
import re
import secrets
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from relpos import answers, figures, quiz, skewing, tables, timing

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


# ---------------------------------------------------------------- shared chart helper


def plotly(fig, *, key: str | None = None) -> None:
    """Show a Plotly figure at the container's width (Plotly's JS ships with Streamlit: no CDN)."""
    st.plotly_chart(fig, width="stretch", config={"displaylogo": False}, key=key)


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
    st.dataframe(tables.timing_frame(shown["timings"]), width="stretch")


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
    st.dataframe(tables.scenario_frame(question.scenario), width="content")
    st.dataframe(tables.offset_row_frame(question.scenario.table), width="content")


def _worked_solution(question) -> None:
    for line in question.solution:
        st.latex(line)
    st.markdown(question.explanation)


def quiz_question(number: int, question, seed: int) -> None:
    """One question: the numbers, the prompt, an answer form until settled, then the verdict."""
    st.subheader(f"{number}. {question.title}")
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
            index=range(1, len(questions) + 1),
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
