"""What can go wrong in a live class, each as an exception whose message a page can show.

Every error a store or a model function raises on purpose is a :class:`ClassroomError`;
``str(error)`` (also ``error.message``) is one plain-text sentence for the person at the
screen: what was wrong and what to do. A page catches :class:`ClassroomError` once and
shows the message; it never needs to tell the subclasses apart, though it may (a student
page offers "join again" after :class:`NotJoinedError`).

A store's backend wraps its primitives in :func:`unavailable_as_error`, so a lost
connection or a locked file reaches the page as :class:`StoreUnavailableError`, never raw.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

__all__ = [
    "UNREACHABLE",
    "ClassEndedError",
    "ClassExpiredError",
    "ClassFullError",
    "ClassOverError",
    "ClassroomError",
    "InputError",
    "NotJoinedError",
    "NotTeacherError",
    "QuestionClosedError",
    "RateLimitedError",
    "StoreFaultError",
    "StoreUnavailableError",
    "UnknownClassError",
    "ends_identity",
    "unavailable_as_error",
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
    """The class has as many students as it admits, or the teacher locked it."""


class QuestionClosedError(ClassroomError):
    """An answer to a question that is not open (revealed, replaced, or never asked)."""


class RateLimitedError(ClassroomError):
    """Too many of one thing from one client, or in all (starting classes); wait and try again.

    Attributes
    ----------
    retry_after : float
        Seconds until a new try may succeed.
    """

    def __init__(self, message: str, retry_after: float = 0.0):
        super().__init__(message)
        self.retry_after = retry_after


class StoreUnavailableError(ClassroomError):
    """The store cannot be used just now (Redis down, the SQLite file locked too long).

    Says nothing about the class: it may be there as before once the store answers again,
    so a page keeps who it is and tries again (never :func:`ends_identity`).
    """


class StoreFaultError(StoreUnavailableError):
    """The store's file or disk refuses (read-only, full, not a database): whoever runs the
    server must act; the message says what is wrong and where."""


#: Refusals that say a class, or this browser's part in it, is over for good.
_GONE = (UnknownClassError, ClassOverError, NotTeacherError, NotJoinedError)


def ends_identity(error: ClassroomError) -> bool:
    """Whether `error` means the browser may forget who it is in the class.

    Only a store that answered can say so: a class it does not know, one that is over, a
    credential or token it refuses. A store that cannot be reached, or bad input such as a
    malformed code in a crafted link, says nothing about the class.

    >>> ends_identity(UnknownClassError("x")), ends_identity(StoreUnavailableError("x")), ends_identity(InputError("x"))
    (True, False, False)
    """
    return isinstance(error, _GONE)


UNREACHABLE = "The class server cannot be reached just now; try again in a moment."


def unavailable_as_error(
    *failures: type[Exception],
    faults: tuple[type[Exception], ...] = (),
    fault: Callable[[Exception], StoreFaultError] | None = None,
):
    """Decorate a backend primitive so that `failures` (a lost connection, a locked file)
    reach the page as :class:`~relpos.classroom.errors.StoreUnavailableError`, and `faults`
    (a store that answers but refuses) as what ``fault(error)`` makes of them."""

    def decorate(function):
        @functools.wraps(function)
        def guarded(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except failures as error:
                raise StoreUnavailableError(UNREACHABLE) from error
            except faults as error:
                raise fault(error) from error

        return guarded

    return decorate
