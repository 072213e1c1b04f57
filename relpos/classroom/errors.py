"""What can go wrong in a live class, each as an exception whose message a page can show.

Every error a store or a model function raises on purpose is a :class:`ClassroomError`;
``str(error)`` (also ``error.message``) is one plain-text sentence for the person at the
screen: what was wrong and what to do. A page catches :class:`ClassroomError` once and
shows the message; it never needs to tell the subclasses apart, though it may (a student
page offers "join again" after :class:`NotJoinedError`).
"""

from __future__ import annotations

__all__ = [
    "ClassEndedError",
    "ClassExpiredError",
    "ClassFullError",
    "ClassOverError",
    "ClassroomError",
    "InputError",
    "NotJoinedError",
    "NotTeacherError",
    "QuestionClosedError",
    "StoreUnavailableError",
    "UnknownClassError",
]


class ClassroomError(Exception):
    """A refusal with a human message (the base of every error here)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class InputError(ClassroomError, ValueError):
    """Typed input that is not allowed (a code, nickname, answer, prompt or stop)."""


class UnknownClassError(ClassroomError, LookupError):
    """No class has this code (never created, or deleted after it expired)."""


class ClassOverError(ClassroomError):
    """The class exists but admits nobody any more."""


class ClassEndedError(ClassOverError):
    """The teacher ended the class."""


class ClassExpiredError(ClassOverError):
    """The class outlived its lifetime (12 hours)."""


class NotTeacherError(ClassroomError, PermissionError):
    """A teacher action with a missing, forged or wrong credential."""


class NotJoinedError(ClassroomError, LookupError):
    """A student token the class does not know (the student must join again)."""


class ClassFullError(ClassroomError):
    """The class has as many students as it admits."""


class QuestionClosedError(ClassroomError):
    """An answer to a question that is not open (revealed, replaced, or never asked)."""


class StoreUnavailableError(ClassroomError):
    """The store cannot be reached (Redis down, the SQLite file locked too long); try again."""
