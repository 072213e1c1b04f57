"""The stored form of a class's data: one JSON text per record, the same in every store.

:func:`dump` writes a :class:`~relpos.classroom.model.Class`, ``Student``, ``Question`` or
``Answer`` as compact JSON; the ``load_*`` functions read it back into the frozen
dataclass (tuples where the dataclass has tuples). A record that does not read raises
``ValueError`` (a store treats that as corrupt data, never as user input).
"""

from __future__ import annotations

import json
from dataclasses import asdict

from relpos.classroom.model import Answer, Class, Pace, Question, Student

__all__ = ["dump", "load_answer", "load_class", "load_question", "load_student"]


def dump(record: Class | Student | Question | Answer) -> str:
    """`record` as compact JSON (non-ASCII kept, so a nickname's bytes stay as typed).

    >>> dump(Student("t", 3, None, 1.5))
    '{"token":"t","number":3,"nickname":null,"joined_at":1.5}'
    """
    return json.dumps(asdict(record), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def load_student(text: str) -> Student:
    return Student(**json.loads(text))


def load_answer(text: str) -> Answer:
    return Answer(**json.loads(text))


def load_question(text: str) -> Question:
    return _question(json.loads(text))


def load_class(text: str) -> Class:
    fields = json.loads(text)
    question = fields.pop("question")
    pace, removed = Pace(**fields.pop("pace")), tuple(fields.pop("removed", ()))
    return Class(**fields, pace=pace, removed=removed, question=None if question is None else _question(question))


def _question(fields: dict) -> Question:
    quiz = fields.pop("quiz")
    choices = tuple(fields.pop("choices"))
    return Question(**fields, choices=choices, quiz=None if quiz is None else tuple(quiz))
