"""Who is in the room now: presence leases, and the roster a teacher reads.

A student is *here* while their browser holds the class's event stream open. The server
process that holds the stream keeps a lease on the student's seat in the store (one row per
seat and process, the *holder*): it writes the lease when the stream opens, renews it every
:data:`RENEW` seconds while the stream stays open, and drops it a moment after the last
stream of the seat closes (a closed tab). A lease not renewed for :data:`LEASE` seconds has
lapsed (a server that died without saying so). A seat is here while any of its leases
holds, so a student whose two tabs sit on two replicas stays here when one closes.

A student who has just joined is here for :data:`JOIN_GRACE` seconds before any stream
(their page is still opening one), so the roster does not show them as gone for a moment.

The store keeps the leases (:meth:`relpos.classroom.store.ClassStore.note_presence`) and
bumps the class's activity counter only when the set of students here changes, so a
renewal wakes nobody; :class:`Attendance` is what the teacher's roster and counts read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from relpos.classroom import codes, model
from relpos.classroom.errors import InputError
from relpos.classroom.model import Student

__all__ = [
    "JOINED",
    "JOIN_GRACE",
    "LEASE",
    "MAX_LEASES",
    "RENEW",
    "Attendance",
    "Lease",
    "join_lease",
    "lease_tokens",
    "present",
    "renewed",
    "seat_tag",
    "valid_holder",
]

#: Seconds a lease holds after it was written.
LEASE = 30.0
#: Seconds between two renewals of the leases a process holds (well inside LEASE).
RENEW = 10.0
#: Seconds a student who has just joined counts as here before their stream arrives.
JOIN_GRACE = 8.0
#: The holder of the lease a join writes (a process's holder is :func:`valid_holder`-shaped hex).
JOINED = "joined"
#: Leases one call of :meth:`relpos.classroom.store.ClassStore.note_presence` may name (each
#: student in two tabs).
MAX_LEASES = 2 * model.MAX_STUDENTS
_HOLDER = re.compile(r"[A-Za-z0-9_-]{1,64}")

Lease = tuple[str, str]  # (token, holder)


def valid_holder(holder) -> bool:
    """Whether `holder` may name a lease: 1 to 64 URL-safe characters.

    >>> valid_holder("3fa9c2"), valid_holder(""), valid_holder("a:b")
    (True, False, False)
    """
    return isinstance(holder, str) and _HOLDER.fullmatch(holder) is not None


def lease_tokens(tokens) -> list[str]:
    """`tokens` as a list, checked: at most :data:`MAX_LEASES`, each shaped like a token."""
    tokens = list(tokens)
    if len(tokens) > MAX_LEASES or not all(codes.secret_shaped(token) for token in tokens):
        raise InputError(f"Name at most {MAX_LEASES} seats, each by its token.")
    return tokens


def join_lease(student: Student) -> float:
    """When a join's lease counts as written: it lapses :data:`JOIN_GRACE` seconds after the join."""
    return student.joined_at - LEASE + JOIN_GRACE


def seat_tag(token: str) -> str:
    """A public name of the seat `token` holds: the class's view lists removed seats by it,
    and only the browser that holds the token knows which tag is its own.

    >>> len(seat_tag("abc")), seat_tag("abc") == seat_tag("abc"), seat_tag("abc") == seat_tag("abd")
    (16, True, False)
    """
    return hashlib.sha256(f"relpos-seat\0{token}".encode()).hexdigest()[:16]


def present(leases: Mapping[Lease, float], fresh: float) -> frozenset[str]:
    """The tokens with a lease written after `fresh` (a time: now minus :data:`LEASE`).

    >>> sorted(present({("a", "p1"): 10.0, ("a", "p2"): 1.0, ("b", "p1"): 2.0}, fresh=5.0))
    ['a']
    """
    return frozenset(token for (token, _), seen in leases.items() if seen > fresh)


def renewed(
    leases: Mapping[Lease, float], holder: str, here: Iterable[str], gone: Iterable[str], now: float
) -> dict[Lease, float]:
    """`leases` after `holder` renews the leases of `here` and drops those of `gone` at `now`,
    lapsed leases left out; a seat's first lease from a stream ends its join's (:data:`JOINED`).

    >>> renewed({("a", "p"): 1.0, ("b", "p"): 90.0, ("c", "q"): 95.0}, "p", ["d"], ["b"], now=100.0)
    {('c', 'q'): 95.0, ('d', 'p'): 100.0}
    >>> renewed({("a", JOINED): 99.0}, "p", ["a"], [], now=100.0)
    {('a', 'p'): 100.0}
    """
    kept = {lease: seen for lease, seen in leases.items() if seen > now - LEASE}
    for token, owner in [*((token, holder) for token in gone), *((token, JOINED) for token in here)]:
        kept.pop((token, owner), None)
    kept.update({(token, holder): now for token in here})
    return kept


@dataclass(frozen=True)
class Attendance:
    """Who joined a class, who is here now, and who answered its current question.

    Attributes
    ----------
    students : tuple of Student
        Every student, in the order they joined.
    here : frozenset of int
        The numbers of the students here now.
    answered : frozenset of int
        The numbers of the students whose answer to the current question counts (those who
        left since included: their answers stay in the results).
    """

    students: tuple[Student, ...] = ()
    here: frozenset[int] = frozenset()
    answered: frozenset[int] = frozenset()

    @property
    def present(self) -> tuple[Student, ...]:
        return tuple(student for student in self.students if student.number in self.here)

    @property
    def away(self) -> tuple[Student, ...]:
        """Students who joined and are not here now (their tab closed)."""
        return tuple(student for student in self.students if student.number not in self.here)

    def headcount(self) -> str:
        """How many are here, and how many left.

        >>> Attendance(_students(3), frozenset({1, 2})).headcount()
        '2 students here · 1 left'
        >>> Attendance(_students(1), frozenset({1})).headcount()
        '1 student here'
        """
        here = len(self.present)
        line = f"{here} student{'' if here == 1 else 's'} here"
        return line + (f" · {len(self.away)} left" if self.away else "")

    def progress(self, *, away: bool = True) -> str:
        """How many of those here answered the current question; with `away`, how many left,
        and how many of them answered (their answers still count).

        >>> Attendance(_students(4), frozenset({1, 2, 3}), frozenset({1, 4})).progress()
        '1 of 3 here answered · 1 left (1 of them answered)'
        >>> Attendance(_students(3), frozenset({1, 2}), frozenset({2})).progress()
        '1 of 2 here answered · 1 left'
        >>> Attendance(_students(3), frozenset({1, 2}), frozenset({2})).progress(away=False)
        '1 of 2 here answered'
        """
        answered_here = len(self.here & self.answered)
        line = f"{answered_here} of {len(self.present)} here answered"
        if not (away and self.away):
            return line
        line += f" · {len(self.away)} left"
        answered_away = sum(student.number in self.answered for student in self.away)
        return line + (f" ({answered_away} of them answered)" if answered_away else "")


def _students(count: int) -> tuple[Student, ...]:
    """`count` anonymous students numbered from 1 (for the examples above)."""
    return tuple(Student(f"t{number}", number, None, 0.0) for number in range(1, count + 1))
