"""The self-check quiz's widgets: the seed in the URL, questions, answers, the score."""

from __future__ import annotations

import functools
import secrets

import pandas as pd
import streamlit as st

from relpos import ui
from relpos.quizbank import checking as quiz
from relpos.state.keys import state_key, widget_key
from relpos.text.escape import escape_markdown
from relpos.topics.explorer.link_view import explorer_link
from relpos.topics.quiz.schema import QUIZ

# ---------------------------------------------------------------- quiz page

STATE = ui.PageState("quiz", QUIZ)  # the quiz's seed; its widgets are "quiz.<name>"
#: Keys of the buttons under the questions.
NEW_QUESTIONS, START_AGAIN = widget_key("quiz", "new"), widget_key("quiz", "restart")


def _fresh_seed() -> int:
    """A new quiz seed from the operating system's entropy (no global random state)."""
    return secrets.randbelow(1_000_000)


def quiz_seed() -> int:
    """The quiz seed from the link (``?seed=…``); a new one when the link has none or one the
    codec refuses (:meth:`~relpos.ui.fields.PageState.show_problems` says so). Written to the URL."""
    STATE.show_problems()
    if STATE.state()["seed"] is None:
        STATE.update(seed=_fresh_seed())
    return STATE.write_url()["seed"]


def answer_key(seed: int, number: int) -> str:
    """Key of the answer field of question `number` (from 1) of the quiz drawn from `seed`.

    A number answer's key starts ``quiz.answer.`` (relpos.state.keys.NUMBER_FIELDS: a phone
    opens its decimal keyboard); an offset, positions or cells answer ("(1,4), (4,1)") is
    ``quiz.typed.…``, which keeps the full keyboard for its signs, commas and brackets.
    """
    kind = _quiz_of(seed)[number - 1].answer_kind
    return widget_key("quiz", "answer" if kind == "number" else "typed", seed, number)


@functools.lru_cache(maxsize=64)
def _quiz_of(seed: int):
    return quiz.make_quiz(seed)


def button_key(action: str, seed: int, number: int) -> str:
    """Key of a question's button: `action` ``check``, ``reveal`` or ``explorer`` (the link
    that opens the question's example in the Explorer)."""
    return widget_key("quiz", action, seed, number)


def _progress_key(seed: int, number: int) -> str:
    return state_key("quiz", f"progress.{seed}.{number}")


def _progress(seed: int, number: int) -> quiz.Progress:
    return st.session_state.get(_progress_key(seed, number), quiz.Progress())


def _judge(question, seed: int, number: int, give_up: bool) -> None:
    """Form callback: runs before the page, so the verdict and the page agree in one run."""
    progress = _progress(seed, number)
    if give_up:
        progress = quiz.give_up(question, progress)
    else:
        progress = quiz.check_try(question, st.session_state.get(answer_key(seed, number), ""), progress)
    st.session_state[_progress_key(seed, number)] = progress


def quiz_outcome(seed: int, number: int):
    """The last feedback for question `number` (settled, a first wrong try, or unreadable), or None."""
    return _progress(seed, number).feedback


def _question_numbers(question) -> None:
    """The scenario's q, k and a^K as small tables (positions from 1)."""
    if question.scenario is None:
        return
    ui.scenario_tables(question.scenario)


def _worked_solution(question) -> None:
    for line in question.solution:
        st.latex(line)
    st.markdown(question.explanation)


def _answer_form(number: int, question, seed: int) -> None:
    with st.form(widget_key("quiz", "form", seed, number)):
        st.text_input(
            "Your prediction",
            key=answer_key(seed, number),
            placeholder=question.answer_format,
            help=f"Type {question.answer_format}.",
        )
        with st.container(horizontal=True):
            st.form_submit_button(
                "Check my answer",
                type="primary",
                key=button_key("check", seed, number),
                on_click=_judge,
                args=(question, seed, number, False),
            )
            st.form_submit_button(
                "Show me the answer",
                key=button_key("reveal", seed, number),
                on_click=_judge,
                args=(question, seed, number, True),
            )


def _explorer_example(number: int, question, seed: int) -> None:
    """The question's numbers in the Explorer, when the Explorer can show them."""
    setting, hint = quiz.explorer_example(question)
    label = "Open this example in the Explorer"
    if explorer_link(setting, here="quiz", label=label, key=button_key("explorer", seed, number)):
        st.caption(escape_markdown(hint))


def _your_answers(tries) -> str:
    return ("Your answer: " if len(tries) == 1 else "Your answers: ") + ", then ".join(tries)


def quiz_question(number: int, question, seed: int) -> None:
    """One question: the numbers, the prompt, an answer form until settled, then the verdict.

    A wrong first answer names its slip and keeps the form for one more try; the worked
    solution and the link into the Explorer come once the question is settled.
    """
    st.header(f"{number}. {question.title}")
    _question_numbers(question)
    st.markdown(question.prompt)
    progress = _progress(seed, number)
    feedback = progress.feedback
    if not progress.settled:
        _answer_form(number, question, seed)
        if feedback is None:
            return
        if feedback.status == "retry":  # a wrong first try: the slip named, not the answer
            st.error(escape_markdown(f"✗ {feedback.message}"))
        else:  # an unreadable answer: say why, keep the question open
            st.warning(escape_markdown(feedback.message))
        return
    if feedback.status == "correct":
        st.success(escape_markdown(f"✓ {feedback.message}"))
        with st.expander("Worked solution"):
            _worked_solution(question)
    else:
        if progress.tries:
            st.text(_your_answers(progress.tries))
        if feedback.status == "wrong":
            st.error(escape_markdown(f"✗ {feedback.message}"))
        else:
            st.info(escape_markdown(feedback.message))
        st.markdown("**Worked solution**")
        _worked_solution(question)
    _explorer_example(number, question, seed)


def _new_questions() -> None:
    STATE.update(seed=_fresh_seed())


def _start_again(seed: int, count: int) -> None:
    for number in range(1, count + 1):
        st.session_state.pop(_progress_key(seed, number), None)
        st.session_state.pop(answer_key(seed, number), None)


#: A question's line in the score table, by the status of its last feedback.
MARKS = {"correct": "✓ correct", "wrong": "✗ wrong", "revealed": "revealed", "retry": "open: one more try"}


def _mark(feedback) -> str:
    if feedback is not None and feedback.status == "correct" and feedback.attempt > 1:
        return "✓ right on the second try"
    return MARKS.get(getattr(feedback, "status", None), "open")


def quiz_summary(questions, seed: int) -> None:
    """Score so far, one line per question, the shareable seed and restart buttons.

    A question answered right on the second try counts as correct and says so.
    """
    outcomes = [quiz_outcome(seed, number) for number in range(1, len(questions) + 1)]
    summary = quiz.summarise(outcomes)
    st.divider()
    st.header("Your score")
    st.metric("correct answers", f"{summary.correct} / {summary.total}")
    st.markdown(summary.message)
    st.dataframe(
        pd.DataFrame(
            {"question": [q.title for q in questions], "result": [_mark(outcome) for outcome in outcomes]},
            index=pd.RangeIndex(1, len(questions) + 1, name="number"),
        ),
        width="content",
    )
    with st.container(horizontal=True):
        st.button("New questions", key=NEW_QUESTIONS, on_click=_new_questions, type="primary")
        st.button("Start again (same questions)", key=START_AGAIN, on_click=_start_again, args=(seed, len(questions)))
    ui.markdown("quiz_share")
    # plain text: a code block would load Streamlit's code highlighter (0.4 MB) for one line
    st.text(ui.app_url("quiz", QUIZ.encode({"seed": seed})))


def render() -> None:
    """The whole page: five predict-then-reveal questions from a seeded random scenario."""
    st.title("Self-check quiz")
    ui.markdown("quiz_intro")
    with st.expander("How to type answers", expanded=False):
        ui.markdown("quiz_formats")

    seed = quiz_seed()
    questions = quiz.make_quiz(seed)
    for number, question in enumerate(questions, start=1):
        quiz_question(number, question, seed)
    quiz_summary(questions, seed)
