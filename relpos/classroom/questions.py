"""The questions a teacher asks and how a student's answer is graded.

:func:`number_question` (predict a number), :func:`choice_question` (pick one option) and
:func:`quiz_question` (a question of the seeded quiz) make a
:class:`~relpos.classroom.model.Question`; :func:`validate_question` makes a hand-built one
again, so it meets the same limits. :func:`grade_prediction` reads a typed number with the
quiz's parser (:mod:`relpos.text.answers`) and judges it with the quiz's tolerance rule;
:func:`grade` judges an answer to any question.
"""

from __future__ import annotations

import math
import re

from relpos.classroom.errors import InputError
from relpos.classroom.model import MAX_CHOICE, MAX_CHOICES, MAX_PROMPT, Grade, Pace, Question
from relpos.classroom.quiz import NUMBER_TOLERANCE, answer_text, check_answer, flips_sign, quiz_of, quiz_questions
from relpos.classroom.validation import plain_text, shown, validate_pace, validate_prompt
from relpos.text import answers, numbers
from relpos.text.facts import distance

__all__ = [
    "choice_question",
    "grade",
    "grade_prediction",
    "number_question",
    "question_label",
    "question_text",
    "quiz_question",
    "stop_label",
    "validate_question",
]


def number_question(prompt: str, expected: float, *, tolerance: float = NUMBER_TOLERANCE, stop: str = "") -> Question:
    """A question whose answer is a number (e.g. "predict e_ij"), right within `tolerance`.

    >>> number_question("Predict e₁₂", -0.25).truth
    -0.25
    """
    try:
        expected, tolerance = float(expected), float(tolerance)
    except (TypeError, ValueError):
        expected = math.nan  # refused just below, with the one message
    if not math.isfinite(expected) or not (math.isfinite(tolerance) and tolerance >= 0):
        raise InputError("A number question needs a finite true value and a tolerance of 0 or more.")
    return Question("number", validate_prompt(prompt), expected, tolerance=tolerance, stop=_step(stop))


def choice_question(prompt: str, choices, correct: str, *, stop: str = "") -> Question:
    """A question with 2 to 12 options, e.g. "which key gains the most weight" over the keys.

    >>> choice_question("Which key gains most?", ["key 1", "key 2"], "key 2").choices
    ('key 1', 'key 2')
    """
    options = tuple(plain_text(choice, "choice", MAX_CHOICE) for choice in choices)
    if not 2 <= len(options) <= MAX_CHOICES or len(set(options)) != len(options):
        raise InputError(f"A choice question needs 2 to {MAX_CHOICES} different options.")
    if correct not in options:
        raise InputError(f"The correct choice {shown(str(correct))!r} is not one of the options.")
    return Question("choice", validate_prompt(prompt), correct, choices=options, stop=_step(stop))


def quiz_question(seed: int, index: int, *, stop: str = "") -> Question:
    """Question `index` (0-based) of the seeded quiz ``make_quiz(seed)``, graded as the quiz grades it.

    >>> quiz_question(7, 0).prompt.startswith("Question 1: ")
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= answers.MAX_SEED:
        raise InputError(f"The quiz seed must be a whole number from 0 to {answers.MAX_SEED:,}.")
    questions = quiz_questions(seed)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(questions):
        raise InputError(f"The quiz has questions 0 to {len(questions) - 1}; got {index!r}.")
    title = f"Question {index + 1}: {questions[index].title}"
    return Question(
        "quiz", title[:MAX_PROMPT], quiz=(int(seed), index), tolerance=questions[index].tolerance, stop=_step(stop)
    )


_STOP_ID = re.compile(r"r(\d+)(?:j(\d+)|(softmax))")


def stop_label(stop: str) -> str:
    """A stop's name as the lesson shows it: ``r1j4`` is ``pair (1, 4)``, ``r2softmax`` is
    ``row 2, softmax``; any other stop as it is.

    >>> stop_label("r1j4"), stop_label("r2softmax"), stop_label("quiz-3")
    ('pair (1, 4)', 'row 2, softmax', 'quiz-3')
    """
    match = _STOP_ID.fullmatch(stop or "")
    if match is None:
        return stop
    return f"row {match[1]}, softmax" if match[3] else f"pair ({match[1]}, {match[2]})"


def question_text(question: Question) -> str:
    """A question's whole text: its prompt, and for a quiz question the quiz's own text (plain,
    its LaTeX dollar signs dropped), which its prompt only names.

    >>> question_text(quiz_question(42, 0)).startswith("Question 1: Compute a score. With the numbers above")
    True
    """
    if question.kind != "quiz":
        return question.prompt
    return f"{question.prompt}. " + quiz_of(question.quiz).prompt.replace("$", "")


def question_label(question: Question) -> str:
    """A question's heading on the projector and on every student's screen: the class's
    count and the prompt, or for a quiz question its place in the quiz (its prompt is
    already "Question 1: …", which after the class's count read "Question 3: Question 1: …").

    >>> from dataclasses import replace
    >>> question_label(replace(number_question("Predict e12.", 0.5), id=3))
    'Question 3: Predict e12.'
    >>> question_label(replace(quiz_question(42, 0), id=3)).startswith("Quiz question 1: ")
    True
    """
    if question.kind == "quiz" and question.quiz is not None:
        return f"Quiz question {question.quiz[1] + 1}: {quiz_of(question.quiz).title}"
    return f"Question {question.id}: {question.prompt}"


def validate_question(question: Question) -> Question:
    """`question` made again by its constructor, so a hand-built one meets the same limits."""
    if not isinstance(question, Question) or question.kind not in ("number", "choice", "quiz"):
        raise InputError("Ask a question made by number_question, choice_question or quiz_question.")
    if question.kind == "number":
        return number_question(question.prompt, question.expected, tolerance=question.tolerance, stop=question.stop)
    if question.kind == "choice":
        return choice_question(question.prompt, question.choices, question.expected, stop=question.stop)
    if not (isinstance(question.quiz, tuple) and len(question.quiz) == 2):
        raise InputError("A quiz question needs its (seed, index).")
    return quiz_question(*question.quiz, stop=question.stop)


def _step(stop: str) -> str:
    return validate_pace(Pace(step=stop)).step


# ---------------------------------------------------------------- grading


def grade_prediction(text, expected: float, tolerance: float = NUMBER_TOLERANCE) -> Grade:
    """Judge a typed number as the quiz does: read by ``parse_number``, right within `tolerance`.

    Raises :class:`~relpos.classroom.errors.InputError` (the quiz parser's message) for text
    that is not a number. A wrong answer that is the true value with its sign flipped says so.

    >>> grade_prediction("−0.25", -0.25).correct, grade_prediction(".255", -0.25).message
    (True, 'Not quite: the sign is flipped (you typed 0.255; the value is −0.25).')
    """
    value = _read(answers.parse_number, text)
    shown = numbers.as_written(value)
    gap = distance(value, expected)
    if gap <= tolerance:
        within = f"within {_tolerance_text(tolerance)} of" if tolerance > 0 else "exactly"
        return Grade(shown, value, True, f"Right: {shown} is {within} {numbers.as_written(expected)}.")
    if flips_sign(value, expected, tolerance):
        message = f"Not quite: the sign is flipped (you typed {shown}; the value is {numbers.as_written(expected)})."
        return Grade(shown, value, False, message)
    message = f"Not quite: you typed {shown}, {numbers.as_written(gap)} from the value {numbers.as_written(expected)}."
    return Grade(shown, value, False, message)


def _tolerance_text(tolerance: float) -> str:
    """A tolerance as a reader writes it: ``0.01``, ``0.00005`` (never ``5e-05``).

    >>> _tolerance_text(0.01), _tolerance_text(5e-05)
    ('0.01', '0.00005')
    """
    return f"{tolerance:.12f}".rstrip("0").rstrip(".")


def grade(question: Question, text) -> Grade:
    """Judge `text` as an answer to `question` (raises InputError when it cannot be read)."""
    if question.kind == "number":
        return grade_prediction(text, question.expected, question.tolerance)
    if question.kind == "choice":
        return _grade_choice(question, text)
    return _grade_quiz(question, text)


def _grade_choice(question: Question, text) -> Grade:
    wanted = " ".join(text.split()).casefold() if isinstance(text, str) else None
    for choice in question.choices:
        if choice.casefold() == wanted:
            right = choice == question.expected
            return Grade(choice, None, right, "Right." if right else f"Not quite: it is {question.expected}.")
    raise InputError("Choose one of: " + ", ".join(question.choices) + ".")


_QUIZ_PARSERS = {
    "number": lambda text, n: answers.parse_number(text),
    "offset": lambda text, n: answers.parse_offset(text),
    "positions": answers.parse_positions,
    "cells": answers.parse_cells,
}


def _grade_quiz(question: Question, text) -> Grade:
    quiz = quiz_of(question.quiz)
    given = _read(lambda typed: _QUIZ_PARSERS[quiz.answer_kind](typed, quiz.n), text)
    feedback = check_answer(quiz, text)
    value = float(given) if quiz.answer_kind == "number" else None
    canonical = numbers.as_written(value) if value is not None else answer_text(quiz.answer_kind, given)
    return Grade(canonical, value, feedback.status == "correct", feedback.message)


def _read(parse, text):
    try:
        return parse(text)
    except answers.AnswerError as error:
        raise InputError(f"Could not read that answer: {error}.") from error
