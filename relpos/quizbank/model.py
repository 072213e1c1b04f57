"""The quiz's data: a question with its answer and worked solution, and the verdict on an answer.

NumPy only (no Streamlit, no pandas). Questions are made by :mod:`relpos.quizbank.questions`
and judged by :mod:`relpos.quizbank.checking`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from relpos.core.examples import Scenario
from relpos.text import numbers

__all__ = [
    "ANSWER_FORMATS",
    "MAX_TRIES",
    "NUMBER_TOLERANCE",
    "Feedback",
    "Progress",
    "Question",
    "answer_text",
    "cells_text",
]

#: Numeric answers within this absolute distance of the exact value count as right.
NUMBER_TOLERANCE = 0.01

#: Tries per question: a wrong first answer names the slip and leaves one more.
MAX_TRIES = 2

#: What each kind of answer looks like, shown under the text box.
ANSWER_FORMATS = {
    "number": "a number, e.g. 0.25, -1.5 or .5 (within ±{tolerance} counts)",
    "offset": "the offset label, a whole number like -1, 0 or +2",
    "positions": "key positions numbered from 1, separated by commas, e.g. 2 or 1, 3",
    "cells": "(query, key) pairs numbered from 1, e.g. (1,4), (4,1), or none",
}


@dataclass(frozen=True)
class Question:
    """One quiz question with its answer and worked solution.

    Attributes
    ----------
    kind : str
        ``score``, ``table_row``, ``weight_grows``, ``row_sum`` or ``cells_change``.
    title : str
        Short heading.
    prompt : str
        The question, Markdown with ``$…$`` math.
    answer_kind : str
        ``number``, ``offset``, ``positions`` or ``cells``: how the answer is read.
    expected : float, int or frozenset
        The right answer, computed from the scenario.
    solution : tuple of str
        Worked solution, one LaTeX line each, with the numbers substituted.
    explanation : str
        Why, in Markdown.
    n : int
        Sequence length (positions run 1..n).
    k : int
        Clipping distance the question is about.
    scenario : Scenario or None
        The q, k and a^K numbers to show with the question (None when not needed).
    tolerance : float
        Accepted absolute error for numeric answers.
    parameters : dict
        What the question asks about, positions numbered from 1: e.g. ``i``, ``j``,
        ``offset``, ``delta``, ``k_from`` (for tests and for drawing the question).
    """

    kind: str
    title: str
    prompt: str
    answer_kind: str
    expected: float | int | frozenset
    solution: tuple[str, ...]
    explanation: str
    n: int
    k: int
    scenario: Scenario | None = None
    tolerance: float = 0.0
    parameters: dict = field(default_factory=dict)

    @property
    def answer_format(self) -> str:
        """How to type the answer (shown next to the text box), with this question's tolerance.

        >>> Question("score", "", "", "number", 0.07, (), "", 4, 2, tolerance=0.005).answer_format
        'a number, e.g. 0.25, -1.5 or .5 (within ±0.005 counts)'
        """
        return ANSWER_FORMATS[self.answer_kind].format(tolerance=numbers.as_written(self.tolerance))

    @property
    def answer_text(self) -> str:
        """The expected answer as a learner would type it."""
        return answer_text(self.answer_kind, self.expected)


@dataclass(frozen=True)
class Feedback:
    """The verdict on one typed answer.

    Attributes
    ----------
    status : str
        ``correct``, ``wrong``, ``invalid`` (could not be read; not counted),
        ``retry`` (wrong, with a try left: the message names the slip but not the answer)
        or ``revealed`` (the learner asked for the answer).
    message : str
        Plain text for the learner.
    attempt : int
        Which try this verdict is on (1 or 2): a ``correct`` with attempt 2 is right on
        the second try.
    """

    status: str
    message: str
    attempt: int = 1

    @property
    def counts(self) -> bool:
        """Whether this feedback settles the question (an unreadable answer and a first wrong one do not)."""
        return self.status not in ("invalid", "retry")


@dataclass(frozen=True)
class Progress:
    """One question's answers so far: the tries counted and the last verdict.

    Attributes
    ----------
    tries : tuple of str
        Every counted answer, as typed (stripped), first try first; unreadable answers
        and a repeated wrong answer are not counted.
    feedback : Feedback or None
        The verdict on the last answer (None before the first).
    """

    tries: tuple[str, ...] = ()
    feedback: Feedback | None = None

    @property
    def settled(self) -> bool:
        """Whether the question is over: right, wrong on the last try, or revealed."""
        return self.feedback is not None and self.feedback.counts


def cells_text(cells) -> str:
    """Cells as a learner types them: ``(1,4), (4,1)``, or ``none``."""
    return ", ".join(f"({i},{j})" for i, j in sorted(cells)) or "none"


def answer_text(answer_kind: str, expected) -> str:
    """An expected answer as a learner would type it: a number with every decimal it has (up to 6).

    >>> answer_text("number", -0.28000000000000003), answer_text("number", 0.275), answer_text("offset", -1)
    ('−0.28', '0.275', '−1')
    """
    if answer_kind == "number":
        return numbers.number(expected, 6, trim=2)
    if answer_kind == "offset":
        return numbers.offset(expected)
    if answer_kind == "positions":
        return ", ".join(str(p) for p in sorted(expected))
    return cells_text(expected)
