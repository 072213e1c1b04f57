"""Self-check quiz: predict-then-reveal questions built from small random scenarios.

:func:`make_quiz` turns a seed into five questions (the same seed gives the same
questions, so a class can share one link); :func:`check_answer` reads a typed answer
and returns :class:`Feedback`, never an exception. Every expected answer is computed
by the relpos core from the scenario's numbers, never typed in; every worked solution
substitutes those numbers into the formula (LaTeX lines for ``st.latex``).

The questions are drawn in :mod:`relpos.topics.quiz.questions` and the data they are
made of lives in :mod:`relpos.topics.quiz.model`; both are re-exported here. NumPy only
(no Streamlit, no pandas).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from relpos.text import numbers
from relpos.text.answers import AnswerError, parse_cells, parse_number, parse_offset, parse_positions
from relpos.text.facts import distance
from relpos.topics.quiz.model import NUMBER_TOLERANCE, Feedback, Question, cells_text
from relpos.topics.quiz.questions import make_quiz

__all__ = [
    "NUMBER_TOLERANCE",
    "Feedback",
    "Question",
    "QuizSummary",
    "check_answer",
    "make_quiz",
    "offset_hints",
    "reveal",
    "summarise",
]

# ---------------------------------------------------------------- checking


def _parse(question: Question, text):
    if question.answer_kind == "number":
        return parse_number(text)
    if question.answer_kind == "offset":
        return parse_offset(text)
    if question.answer_kind == "positions":
        return parse_positions(text, question.n)
    return parse_cells(text, question.n)


def _is_right(question: Question, given) -> bool:
    if question.answer_kind == "number":
        # the distance the message prints, so the verdict and the numbers shown agree
        return distance(given, question.expected) <= question.tolerance
    return given == question.expected


def _typed(value: float) -> str:
    """A typed number as typed (up to 10 decimals), with a true minus sign: −0.2691, not −0.27
    (E notation from a million up, so 1e308 is not 309 digits).

    >>> _typed(-0.2691), _typed(0.5), _typed(1e308)
    ('−0.2691', '0.50', '1.00e308')
    """
    return numbers.readable(value, 10)


def _rule(question: Question, given: float) -> str:
    """The tolerance rule as applied: ``you typed −0.2691, 0.0109 from it; within 0.01 counts``."""
    gap = distance(given, question.expected)
    return f"you typed {_typed(given)}, {_typed(gap)} from it; an answer within {_typed(question.tolerance)} counts"


def offset_hints(expected: int, given: int, k: int) -> list[str]:
    """What a wrong offset label is, most likely slip first (the sign flip i − j).

    >>> offset_hints(-1, 1, 1)[0]
    'That is i − j (query minus key); the offset is j − i, key minus query, so the sign flips.'
    >>> len(offset_hints(-1, 1, 1))  # +1 also counts the 3 rows from the top
    2
    """
    hints = []
    if expected != 0 and given == -expected:
        hints.append("That is i − j (query minus key); the offset is j − i, key minus query, so the sign flips.")
    if given == expected + k:
        hints.append("That is the row's 0-based index in code; the question asks for its offset label.")
    if given == expected + k + 1:
        hints.append("That counts the rows from the top; the question asks for the row's offset label.")
    return hints


def _wrong_message(question: Question, given) -> str:
    answer = question.answer_text
    if question.answer_kind == "number":
        return f"Not quite: the answer is {answer} ({_rule(question, given)})."
    if question.answer_kind == "offset":
        hints = offset_hints(question.expected, given, question.k)
        if len(hints) > 1:  # one typed number, several slips that give it: name them all
            hints = [hints[0], "Or: " + hints[1][0].lower() + hints[1][1:]]
        hint = "".join(" " + text for text in hints)
        return f"Not quite: you typed {numbers.offset(given)}, the row is aᴷ{numbers.subscript(answer)}.{hint}"
    if question.answer_kind == "positions":
        chosen = ", ".join(str(p) for p in sorted(given))
        return f"Not quite: you chose {chosen}; the weights that grow are at key position(s) {answer}."
    missing, extra = question.expected - given, given - question.expected
    if not extra:
        return f"Not quite: the cells you listed do change, but some are missing: {cells_text(missing)}."
    parts = [f"Not quite: {len(given & question.expected)} of the {len(given)} cell(s) you listed change."]
    if missing:
        parts.append(f"Missing: {cells_text(missing)}.")
    parts.append(f"These do not change: {cells_text(extra)}.")
    return " ".join(parts)


def check_answer(question: Question, text) -> Feedback:
    """Judge a typed answer; unreadable input gives ``invalid`` feedback, never an error.

    Parameters
    ----------
    question : Question
    text : str
        What the learner typed (None counts as empty).

    Returns
    -------
    feedback : Feedback

    Examples
    --------
    >>> question = make_quiz(1)[0]
    >>> check_answer(question, question.answer_text).status
    'correct'
    >>> check_answer(question, "seven").status
    'invalid'
    """
    try:
        given = _parse(question, text)
    except AnswerError as error:
        return Feedback("invalid", f"Could not read that answer: {error}.")
    if _is_right(question, given):
        rule = f" ({_rule(question, given)})" if question.answer_kind == "number" else ""
        return Feedback("correct", f"Correct: {question.answer_text}{rule}.")
    return Feedback("wrong", _wrong_message(question, given))


def reveal(question: Question) -> Feedback:
    """The answer for a learner who gives up (counts as not correct)."""
    return Feedback("revealed", f"The answer is {question.answer_text}.")


@dataclass(frozen=True)
class QuizSummary:
    """How a learner did: counts of each outcome."""

    correct: int
    wrong: int
    revealed: int
    unanswered: int

    @property
    def total(self) -> int:
        return self.correct + self.wrong + self.revealed + self.unanswered

    @property
    def message(self) -> str:
        done = self.total - self.unanswered
        text = f"{self.correct} of {self.total} correct"
        details = [f"{self.wrong} wrong"] if self.wrong else []
        details += [f"{self.revealed} revealed"] if self.revealed else []
        details += [f"{self.unanswered} not answered yet"] if self.unanswered else []
        if done == self.total and self.correct == self.total:
            details.append("all right, well done")
        return text + (f" ({', '.join(details)})" if details else "")


def summarise(statuses: Sequence[str | None]) -> QuizSummary:
    """Count outcomes; None (or ``invalid``) means the question is still open.

    >>> summarise(["correct", "wrong", None, "revealed", "correct"]).message
    '2 of 5 correct (1 wrong, 1 revealed, 1 not answered yet)'
    """
    statuses = list(statuses)
    return QuizSummary(
        correct=statuses.count("correct"),
        wrong=statuses.count("wrong"),
        revealed=statuses.count("revealed"),
        unanswered=sum(status not in ("correct", "wrong", "revealed") for status in statuses),
    )
