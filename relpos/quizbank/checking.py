"""Self-check quiz: predict-then-reveal questions built from small random scenarios.

:func:`make_quiz` turns a seed into five questions (the same seed gives the same
questions, so a class can share one link); :func:`check_answer` reads a typed answer
and returns :class:`Feedback`, never an exception. Every expected answer is computed
by the relpos core from the scenario's numbers, never typed in; every worked solution
substitutes those numbers into the formula (LaTeX lines for ``st.latex``).

The questions are drawn in :mod:`relpos.quizbank.questions` and the data they are
made of lives in :mod:`relpos.quizbank.model`; both are re-exported here. NumPy only
(no Streamlit, no pandas).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from relpos.quizbank import slips
from relpos.quizbank.model import (
    MAX_TRIES,
    NUMBER_TOLERANCE,
    Feedback,
    Progress,
    Question,
    answer_text,
    cells_text,
)
from relpos.quizbank.questions import explorer_example, make_quiz
from relpos.quizbank.slips import question_slips
from relpos.text import numbers
from relpos.text.answers import AnswerError, parse_cells, parse_number, parse_offset, parse_positions
from relpos.text.facts import distance

__all__ = [
    "MAX_TRIES",
    "NUMBER_TOLERANCE",
    "Feedback",
    "Progress",
    "Question",
    "QuizSummary",
    "check_answer",
    "check_try",
    "diagnose",
    "explorer_example",
    "give_up",
    "make_quiz",
    "offset_hints",
    "question_slips",
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


def offset_hints(expected: int, given: int, k: int, raw: int | None = None) -> list[str]:
    """What a wrong offset label is, most likely slip first (the sign flip i − j); `raw` is the
    unclipped ``j − i`` (without it, the slips of clipping are not considered).

    >>> offset_hints(-1, 1, 1)[0]
    'You used i − j (query minus key): the offset is j − i, key minus query, so the sign flips.'
    >>> len(offset_hints(-1, 1, 1))  # +1 also counts the 3 rows from the top
    2
    """
    return [slip.sentence for slip in slips.matching(slips.offset_slips(expected, k, raw), given, expected)]


def diagnose(question: Question, given) -> tuple[slips.Slip, ...]:
    """The named slips that give the read answer `given` (none when it is right or fits no slip).

    >>> question = make_quiz(42)[0]
    >>> [slip.name for slip in diagnose(question, -0.24)]
    ['you left out the position term']
    """
    return slips.matching(question_slips(question), given, question.expected, question.tolerance)


def _with_slips(message: str, question: Question, given) -> str:
    named = slips.slips_text(diagnose(question, given))
    return f"{message} {named}" if named else message


def _wrong_message(question: Question, given, *, with_answer: bool = True) -> str:
    """The verdict on a wrong answer; without the answer (`with_answer` False) on a first try,
    saying only what was typed and what is wrong with it."""
    answer = question.answer_text
    if question.answer_kind == "number":
        if with_answer:
            return f"Not quite: the answer is {answer} ({_rule(question, given)})."
        return f"Not quite: you typed {_typed(given)}."
    if question.answer_kind == "offset":
        row = f", the row is aᴷ{numbers.subscript(answer)}" if with_answer else ""
        return f"Not quite: you typed {numbers.offset(given)}{row}."
    if question.answer_kind == "positions":
        grow = f"; the weights that grow are at key position(s) {answer}" if with_answer else ""
        return f"Not quite: you chose {', '.join(str(p) for p in sorted(given))}{grow}."
    missing, extra = question.expected - given, given - question.expected
    if not extra:
        listed = f": {cells_text(missing)}" if with_answer else ""
        return f"Not quite: the cells you listed do change, but some are missing{listed}."
    parts = [f"Not quite: {len(given & question.expected)} of the {len(given)} cell(s) you listed change."]
    if missing:
        parts.append(f"Missing: {cells_text(missing)}." if with_answer else "Some cells that change are missing.")
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
    return Feedback("wrong", _with_slips(_wrong_message(question, given), question, given))


def _same_answer(question: Question, given, earlier: str) -> bool:
    """Whether `given` is the answer read from the earlier try `earlier` (0.5 and .5 are the same)."""
    before = _parse(question, earlier)
    return distance(given, before) == 0 if question.answer_kind == "number" else given == before


#: A question before its first answer.
NOT_ANSWERED = Progress()


def check_try(question: Question, text, progress: Progress = NOT_ANSWERED) -> Progress:
    """Judge the next try at `question`: a wrong first answer names its slip and leaves one more try.

    An unreadable answer is no try (the question stays open with a message saying why), and
    neither is typing the last wrong answer again. A right answer settles the question on
    either try; a wrong one on the last try settles it with the answer and the slip named.

    >>> question = make_quiz(42)[0]
    >>> first = check_try(question, "-0.24")
    >>> first.feedback.status, first.feedback.message[:72]
    ('retry', 'Not quite: you typed −0.24. You left out the position term: −0.24 is the')
    >>> second = check_try(question, "0.48", first)
    >>> second.feedback.status, second.feedback.attempt, second.tries
    ('correct', 2, ('-0.24', '0.48'))
    """
    if progress.settled:
        return progress
    feedback = check_answer(question, text)
    if feedback.status == "invalid":
        return replace(progress, feedback=feedback)
    tries = (*progress.tries, (text or "").strip())
    if feedback.status == "correct":
        if len(tries) > 1:
            feedback = replace(feedback, message=feedback.message.replace("Correct:", "Correct on the second try:", 1))
        return Progress(tries, replace(feedback, attempt=len(tries)))
    given = _parse(question, text)
    if progress.tries and _same_answer(question, given, progress.tries[-1]):
        shown = answer_text(question.answer_kind, given)
        again = f"That is your answer from before ({shown}): change it and check again, or show the answer."
        return replace(progress, feedback=Feedback("retry", again, attempt=len(progress.tries)))
    if len(tries) < MAX_TRIES:
        verdict = _with_slips(_wrong_message(question, given, with_answer=False), question, given)
        message = f"{verdict} You have one more try."
        return Progress(tries, Feedback("retry", message, attempt=len(tries)))
    return Progress(tries, replace(feedback, attempt=len(tries)))


def give_up(question: Question, progress: Progress = NOT_ANSWERED) -> Progress:
    """The answer revealed at the learner's request, after any number of tries (counts as not correct)."""
    if progress.settled:
        return progress
    return Progress(progress.tries, replace(reveal(question), attempt=len(progress.tries)))


def reveal(question: Question) -> Feedback:
    """The answer for a learner who gives up (counts as not correct)."""
    return Feedback("revealed", f"The answer is {question.answer_text}.")


@dataclass(frozen=True)
class QuizSummary:
    """How a learner did: counts of each outcome.

    A question answered right on the second try counts as correct (the score is the
    number of questions answered right) and is counted again in ``second_try``, so the
    summary says how many needed it.
    """

    correct: int
    wrong: int
    revealed: int
    unanswered: int
    second_try: int = 0

    @property
    def total(self) -> int:
        return self.correct + self.wrong + self.revealed + self.unanswered

    @property
    def message(self) -> str:
        done = self.total - self.unanswered
        text = f"{self.correct} of {self.total} correct"
        details = [f"{self.second_try} of them on the second try"] if self.second_try else []
        details += [f"{self.wrong} wrong"] if self.wrong else []
        details += [f"{self.revealed} revealed"] if self.revealed else []
        details += [f"{self.unanswered} not answered yet"] if self.unanswered else []
        if done == self.total and self.correct == self.total:
            details.append("all right, well done")
        return text + (f" ({', '.join(details)})" if details else "")


def summarise(outcomes: Sequence[Feedback | str | None]) -> QuizSummary:
    """Count outcomes, each a Feedback or its status; None, ``invalid`` or ``retry`` means the
    question is still open.

    >>> summarise(["correct", "wrong", None, "revealed", "correct"]).message
    '2 of 5 correct (1 wrong, 1 revealed, 1 not answered yet)'
    >>> summarise([Feedback("correct", "", attempt=2), Feedback("retry", ""), "correct"]).message
    '2 of 3 correct (1 of them on the second try, 1 not answered yet)'
    """
    statuses = [getattr(outcome, "status", outcome) for outcome in outcomes]
    return QuizSummary(
        correct=statuses.count("correct"),
        wrong=statuses.count("wrong"),
        revealed=statuses.count("revealed"),
        unanswered=sum(status not in ("correct", "wrong", "revealed") for status in statuses),
        second_try=sum(getattr(outcome, "status", None) == "correct" and outcome.attempt > 1 for outcome in outcomes),
    )
