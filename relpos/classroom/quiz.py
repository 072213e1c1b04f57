"""The live class's one door to the quiz bank: the seeded questions and how they are graded.

A class asks questions of the seeded quiz (:func:`relpos.classroom.questions.quiz_question`)
and grades them as the quiz page does; every other module of the live class reaches the
quiz bank (:mod:`relpos.quizbank`) through this one, and so do the class's routes and
pages. NumPy only.
"""

from __future__ import annotations

from functools import lru_cache

from relpos.quizbank.checking import check_answer, make_quiz
from relpos.quizbank.model import NUMBER_TOLERANCE, answer_text
from relpos.quizbank.model import Question as QuizQuestion
from relpos.quizbank.slips import flips_sign

__all__ = [
    "NUMBER_TOLERANCE",
    "QuizQuestion",
    "answer_text",
    "check_answer",
    "flips_sign",
    "quiz_of",
    "quiz_questions",
]

#: The questions of the quiz seeded `seed` (``make_quiz(seed)``), cached: grading a class's
#: answers re-reads one quiz often.
quiz_questions = lru_cache(maxsize=64)(make_quiz)


def quiz_of(seed_index: tuple[int, int]) -> QuizQuestion:
    """Question ``index`` (0-based) of the quiz seeded ``seed``, for ``(seed, index)``."""
    seed, index = seed_index
    return quiz_questions(seed)[index]
