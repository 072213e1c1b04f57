"""The live-class store: one abstraction (:class:`ClassStore`), two backends, one factory.

:class:`ClassStore` implements every rule once, on top of a few atomic primitives that a
backend provides (read or change one class record, add a student,
change one answer, read the rest). :mod:`relpos.classroom.sqlite_store` keeps a class in
a file (one machine, survives a restart); :mod:`relpos.classroom.redis_store` keeps it in
Redis (several replicas share it). :func:`relpos.classroom.stores.open_store` picks one from
``RELPOS_CLASS_STORE``.

Who may do what:

* the **teacher** (anyone holding the credential :meth:`ClassStore.create_class` returned)
  moves the stop, paces or releases the class, asks, reveals, hides and resets questions,
  locks the class or takes a student's seat back, reads every result and ends the class;
  a wrong credential raises
  :class:`~relpos.classroom.errors.NotTeacherError`;
* a **student** (anyone holding a token :meth:`ClassStore.join` returned) answers the open
  question; the latest answer counts (see :func:`relpos.classroom.model.decide`);
* **anyone** with the code reads the class (pace, question), the number of students and of
  answers, and the results of a revealed question;
* the **server** that holds a student's event stream keeps a lease on their seat
  (:meth:`ClassStore.note_presence`), so the teacher's roster says who is here now
  (:meth:`ClassStore.attendance`; :mod:`relpos.classroom.presence`).

Unknown, ended and expired codes raise :class:`~relpos.classroom.errors.UnknownClassError`,
:class:`~relpos.classroom.errors.ClassEndedError` and :class:`~relpos.classroom.errors.ClassExpiredError`.

Limits, all kept here whatever a page lets through: every input's (validation.validate_*), one
seat per token (a token the class does not know joins nobody), classes started per client
and in all, unknown codes looked up per client (:meth:`ClassStore.look_up`; the limits are
:class:`relpos.classroom.limits.StoreLimits`). Classes that
are over are purged on schedule (:meth:`ClassStore.purge_if_due`). A store that cannot be
used raises :class:`~relpos.classroom.errors.StoreUnavailableError`, never a raw error.

Change counters (what a page polls or waits on to learn that a class changed) are
:class:`relpos.classroom.counters.ChangeCounters`, which :class:`ClassStore` extends.
"""

from __future__ import annotations

import math
import threading
import time
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from relpos.classroom import codes, model, questions, validation
from relpos.classroom.counters import ChangeCounters, Watch
from relpos.classroom.errors import (
    ClassFullError,
    InputError,
    NotJoinedError,
    NotTeacherError,
    QuestionClosedError,
    UnknownClassError,
)
from relpos.classroom.limits import StoreLimits
from relpos.classroom.model import Ack, Answer, Class, Pace, Question, Student
from relpos.classroom.notifier import Notifier
from relpos.classroom.presence import JOINED, LEASE, Attendance, Lease, lease_tokens, present, seat_tag, valid_holder
from relpos.classroom.results import Results, aggregate, results_csv

__all__ = ["ClassStore", "Watch"]

T = TypeVar("T")


class ClassStore(ChangeCounters):
    """A live-class store: what the pages need (see the module notes for who may do what),
    every rule of it once, over a backend's atomic primitives.

    Parameters
    ----------
    clock : callable, optional
        Seconds since the epoch (``time.time``); tests pass a fake one to expire classes
        without sleeping.
    rng : random.Random, optional
        Where codes come from (the operating system's randomness by default).
    notifier : Notifier, optional
        Shared by the stores of one process that see the same data.
    """

    #: How often (s) at most :meth:`purge_if_due` deletes the classes that are over.
    purge_seconds = 60.0
    #: How long (s) a class that is over is kept before the purge deletes it: for that long a
    #: student who opens it still reads that it ended or expired, not that it is unknown.
    purge_grace = 300.0

    def __init__(self, *, clock: Callable[[], float] = time.time, rng=None, notifier: Notifier | None = None):
        self._clock = clock
        self._rng = rng
        self._notifier = notifier or Notifier()
        self._purged_at = -math.inf  # by this store's clock: the last purge of classes that are over
        #: Classes started, unknown codes looked up and new seats taken, per client and class.
        self.limits = StoreLimits(clock)
        self._purge_lock = threading.Lock()

    # ------------------------------------------------------------ backend primitives

    @abstractmethod
    def _insert_class(self, record: Class) -> bool:
        """Store a new class; False if its code is taken."""

    @abstractmethod
    def _load_class(self, code: str) -> Class | None: ...

    @abstractmethod
    def _count_kept(self, now: float) -> int:
        """How many classes are kept at `now` (not yet gone)."""

    @abstractmethod
    def _update_class(self, code: str, change: Callable[[Class], Class]) -> Class:
        """Atomically replace the class record by ``change(record)`` (when it differs),
        archive its question, and wake waiters; the new record."""

    @abstractmethod
    def _add_student(self, code: str, token: str, make: Callable[[int, Callable[[str], bool]], Student]) -> Student:
        """Atomically take the next student number n and store ``make(n, taken)`` for `token`;
        ``taken(nickname)`` says whether another student of the class has that nickname
        (:func:`~relpos.classroom.validation.nickname_key`), and may claim it for `token` when not."""

    @abstractmethod
    def _load_student(self, code: str, token: str) -> Student | None: ...

    @abstractmethod
    def _delete_student(self, code: str, student: Student) -> None:
        """Delete `student`, their answers and their nickname's claim; wake waiters."""

    @abstractmethod
    def _load_students(self, code: str) -> list[Student]: ...

    @abstractmethod
    def _count_students(self, code: str) -> int: ...

    @abstractmethod
    def _load_questions(self, code: str) -> list[Question]: ...

    @abstractmethod
    def _seated(self, code: str, tokens: list[str]) -> set[str]:
        """Which of `tokens` hold a seat in the class."""

    @abstractmethod
    def _load_presence(self, code: str) -> dict[Lease, float]:
        """Every lease of the class: (token, holder) → when written."""

    @abstractmethod
    def _update_presence(self, code: str, holder: str, here: list[str], gone: list[str], now: float) -> None:
        """Atomically apply :func:`relpos.classroom.presence.renewed`; when who is here
        changes (:func:`~relpos.classroom.presence.present`), move the activity counter and wake waiters."""

    @abstractmethod
    def _update_answer(
        self, code: str, question_id: int, token: str, change: Callable[[Class, Answer | None], tuple[Answer | None, T]]
    ) -> T:
        """Atomically read the class and the student's answer, store the answer `change`
        returns (None: keep), and hand back the rest of its result."""

    @abstractmethod
    def _load_answer(self, code: str, question_id: int, token: str) -> Answer | None: ...

    @abstractmethod
    def _load_answers(self, code: str, question_id: int) -> list[Answer]: ...

    @abstractmethod
    def _delete_gone(self, now: float) -> int:
        """Delete every class whose ``gone_at`` has passed."""

    @abstractmethod
    def check(self) -> None:
        """Raise :class:`~relpos.classroom.errors.StoreUnavailableError` (or its StoreFaultError)
        unless the store can be read and written now (the server's health check asks)."""

    @abstractmethod
    def close(self) -> None:
        """Release connections and threads."""

    # ------------------------------------------------------------ classes

    def create_class(
        self, lesson: str = "walkthrough", pace: Pace | None = None, *, client: str | None = None
    ) -> tuple[Class, str]:
        """Start a class; returns it and the teacher credential (shown to the teacher only, once).
        `client` (the address of whoever starts it) is rate-limited; None: not limited (a script of the server's)."""
        lesson, pace = validation.validate_lesson(lesson), validation.validate_pace(pace or Pace())
        now = self._clock()
        self.expire()  # a code freed by an old class may be drawn again
        self.limits.check_start(self._count_kept(now), client)
        credential = codes.new_credential()
        for _ in range(20):
            code = codes.make_code(self._rng)
            record = Class(code, codes.credential_hash(code, credential), lesson, now, now + model.CLASS_LIFETIME, pace)
            if self._insert_class(record):
                return record, credential
        raise RuntimeError("no free class code after 20 draws")  # 31⁶ codes: only a broken rng gets here

    def get_class(self, code: str) -> Class:
        """The class as students see it (raises for unknown, ended and expired codes)."""
        record = self._existing(code)
        record.check_admits(self._clock())
        return record

    def look_up(self, code: str, client: str | None = None) -> Class:
        """:meth:`get_class` for `client`, which waits (RateLimitedError) once it has looked up
        WRONG_CODES_PER_CLIENT unknown codes in WRONG_CODES_WINDOW seconds, known codes too
        (else a waiting guesser would still tell them apart); None: not throttled."""
        self.limits.check_guesses(client)
        try:
            return self.get_class(code)
        except UnknownClassError:
            self.limits.wrong_code(client)
            raise

    def check_teacher(self, code: str, credential: str) -> Class:
        """The class, if `credential` is its teacher's (a private teacher link resumes with this)."""
        record = self._existing(code)
        if not codes.credential_matches(record.code, credential, record.teacher_hash):
            raise NotTeacherError(
                f"That teacher link or credential is not valid for class {record.code}; "
                "open your private teacher link again, or start a new class."
            )
        return record

    def _existing(self, code: str) -> Class:
        """The stored class, ended or not, while it is kept (see ``Class.gone_at``)."""
        code = codes.normalise_code(code)
        self.purge_if_due()
        record = self._load_class(code)
        if record is None:
            raise UnknownClassError(f"There is no class with the code {code}; check the code on the projector.")
        if record.gone_at <= self._clock():
            record.check_admits(self._clock())  # gone means ended or expired: this raises which
        return record

    def _teach(self, code: str, credential: str, change: Callable[[Class], Class]) -> Class:
        """Apply a teacher's change to a live class, checking credential and liveness on the stored record."""
        self.check_teacher(code, credential)

        def checked(record: Class) -> Class:
            record.check_admits(self._clock())
            changed = change(record)
            return record if changed == record else replace(changed, version=record.version + 1)

        return self._update_class(codes.normalise_code(code), checked)

    def set_stop(self, code: str, credential: str, *, index: int, step: str = "", state: str = "") -> Class:
        """Move the class to the teacher's stop."""

        def move(record: Class) -> Class:
            return replace(
                record, pace=validation.validate_pace(replace(record.pace, index=index, step=step, state=state))
            )

        return self._teach(code, credential, move)

    def set_paced(self, code: str, credential: str, paced: bool) -> Class:
        """Release the class to its own pace (False) or bring everyone back (True)."""
        if not isinstance(paced, bool):
            raise InputError("paced must be true or false.")
        return self._teach(code, credential, lambda record: replace(record, pace=replace(record.pace, paced=paced)))

    def end(self, code: str, credential: str) -> Class:
        """End the class: nobody can join or answer; the teacher reads results for an hour more."""
        return self._teach(code, credential, lambda record: replace(record, ended_at=self._clock()))

    def set_locked(self, code: str, credential: str, locked: bool) -> Class:
        """Admit nobody new (True) or open the class again (False); who joined stays."""
        if not isinstance(locked, bool):
            raise InputError("locked must be true or false.")
        return self._teach(code, credential, lambda record: replace(record, locked=locked))

    def expire(self) -> int:
        """Delete the classes that are over; how many."""
        return self._delete_gone(self._clock())

    def purge_if_due(self) -> int:
        """Delete the classes over for :attr:`purge_grace` seconds, when the last purge of this
        store is :attr:`purge_seconds` old; how many.

        Called on the way into every read of a class and by the server's health check and
        purge task (relpos.class_routes.events), so a class's students, nicknames and answers
        are deleted within six minutes of its end (or expiry) even when nobody starts a class.
        """
        now = self._clock()
        if now - self._purged_at < self.purge_seconds or not self._purge_lock.acquire(blocking=False):
            return 0  # not due, or another thread purges right now
        try:
            self._purged_at = now
            return self._delete_gone(now - self.purge_grace)
        finally:
            self._purge_lock.release()

    # ------------------------------------------------------------ questions

    def ask(self, code: str, credential: str, question: Question) -> Question:
        """Ask a question (from ``questions.number_question`` & co); the previous one closes."""
        question = questions.validate_question(question)

        def asked(record: Class) -> Class:
            number = record.question.id + 1 if record.question else 1
            fresh = replace(
                question, id=number, asked_at=self._clock(), status="open", stop=question.stop or record.pace.step
            )
            return replace(record, question=fresh)

        return self._teach(code, credential, asked).question

    def _current(self, record: Class) -> Question:
        if record.question is None:
            raise QuestionClosedError("No question has been asked yet.")
        return record.question

    def _set_status(self, code: str, credential: str, status: str) -> Question:
        def changed(record: Class) -> Class:
            return replace(record, question=replace(self._current(record), status=status))

        return self._teach(code, credential, changed).question

    def reveal(self, code: str, credential: str) -> Question:
        """Close the current question and show its results."""
        return self._set_status(code, credential, "revealed")

    def hide(self, code: str, credential: str) -> Question:
        """Hide the current question's results (it stays closed)."""
        return self._set_status(code, credential, "hidden")

    def reset(self, code: str, credential: str) -> Question:
        """Ask the current question again, as a new question with no answers."""
        record = self.check_teacher(code, credential)
        return self.ask(code, credential, self._current(record))

    # ------------------------------------------------------------ students

    def join(
        self, code: str, nickname: str | None = None, *, token: str | None = None, client: str | None = None
    ) -> Student:
        """A new seat, or with `token` the seat it holds: a token the class does not know
        raises NotJoinedError, so a made-up one never takes a seat (one browser, one seat).
        `client` (an address) is throttled after too many wrong codes (:meth:`look_up`), and
        its new seats are rate-limited (:attr:`limits`) before anything is read or written."""
        if token is None:
            self.limits.check_joins(code, client)
        record = self.look_up(code, client)
        if token is not None:
            return self._joined(record, token)
        name, now, fresh = validation.validate_nickname(nickname), self._clock(), codes.new_token()

        def make(number: int, taken: Callable[[str], bool]) -> Student:
            stored = self._load_class(record.code) or record
            if stored.locked:  # read again: the teacher may have locked it since
                raise ClassFullError(f"Class {record.code} is locked: the teacher admits nobody new.")
            if number > model.MAX_STUDENTS:
                raise ClassFullError(f"Class {record.code} is full ({model.MAX_STUDENTS} students).")
            return Student(fresh, number, validation.distinct_nickname(name, taken), now)  # "Ada", "Ada (2)"

        return self._add_student(record.code, fresh, make)

    def remove_student(self, code: str, credential: str, number: int) -> Student:
        """Take student `number`'s seat back, with their answers; their token joins no more,
        and their page learns it from the class's view (``Class.removed``)."""
        record = self.check_teacher(code, credential)
        for student in self._load_students(record.code):
            if student.number == number:
                self._delete_student(record.code, student)
                self._update_class(record.code, _marked_removed(seat_tag(student.token)))
                return student
        raise InputError(f"Class {record.code} has no student {number}.")

    def _find_student(self, code: str, token) -> Student | None:
        if not codes.secret_shaped(token):
            return None
        return self._load_student(code, token)

    def student(self, code: str, token: str) -> Student:
        """The student holding `token` (raises NotJoinedError)."""
        return self._joined(self.get_class(code), token)

    def _joined(self, record: Class, token) -> Student:
        known = self._find_student(record.code, token)
        if known is None and codes.secret_shaped(token) and seat_tag(token) in record.removed:
            raise NotJoinedError(
                f"Your teacher removed you from class {record.code}. Join again with the code on the projector "
                "if your teacher asks you to."
            )
        if known is None:
            raise NotJoinedError(f"You are not in class {record.code} (yet); join with the code on the projector.")
        return known

    def students(self, code: str, credential: str) -> tuple[Student, ...]:
        """Every student, in the order they joined (teacher only)."""
        record = self.check_teacher(code, credential)
        return tuple(sorted(self._load_students(record.code), key=lambda student: student.number))

    def students_count(self, code: str) -> int:
        """How many students have joined."""
        return self._count_students(self._existing(code).code)

    # ------------------------------------------------------------ who is here

    def note_presence(self, code: str, holder: str, here=(), gone=()) -> frozenset[str]:
        """A server process's leases (see :mod:`relpos.classroom.presence`): renew those of
        `here`, drop those of `gone`. A token that holds no seat gets no lease; they are
        handed back, so the process stops renewing them. One write for all of them."""
        if not valid_holder(holder) or holder == JOINED:
            raise InputError("A lease's holder is 1 to 64 URL-safe characters.")
        here, gone = lease_tokens(here), lease_tokens(gone)
        record = self._existing(code)
        seated = self._seated(record.code, here) if here else set()
        if seated or gone:
            self._update_presence(record.code, holder, sorted(seated), gone, self._clock())
        return frozenset(here) - seated

    def attendance(self, code: str, credential: str) -> Attendance:
        """Who joined, who is here now, who answered the current question (teacher only)."""
        record = self.check_teacher(code, credential)
        students = tuple(sorted(self._load_students(record.code), key=lambda student: student.number))
        tokens = present(self._load_presence(record.code), self._clock() - LEASE)
        answers = self._load_answers(record.code, record.question.id) if record.question else []
        return Attendance(
            students,
            frozenset(student.number for student in students if student.token in tokens),
            frozenset(answer.student for answer in answers),
        )

    # ------------------------------------------------------------ answers

    def submit_answer(self, code: str, token: str, question_id: int, text: str) -> Ack:
        """A student's answer to the open question (idempotent, rate-limited)."""
        record = self.get_class(code)
        joined = self._joined(record, token)
        question = self._open(record, question_id)
        graded = questions.grade(question, text)  # before any write: bad input costs nothing

        def change(stored: Class, previous: Answer | None) -> tuple[Answer | None, Ack]:
            now = self._clock()
            stored.check_admits(now)
            self._open(stored, question.id)
            candidate = Answer(
                question.id, joined.token, joined.number, graded.text, graded.value, graded.correct, now, now
            )
            return model.decide(previous, candidate, now)  # says nothing of right or wrong before the reveal

        return self._update_answer(record.code, question.id, joined.token, change)

    def _open(self, record: Class, question_id) -> Question:
        question = record.question
        if question is None or type(question_id) is not int or question.id != question_id or not question.is_open:
            raise QuestionClosedError("That question is closed; answer the one on your screen now.")
        return question

    def my_answer(self, code: str, token: str, question_id: int) -> Answer | None:
        """The student's answer that counts, if any."""
        record = self.get_class(code)
        return self._load_answer(record.code, question_id, self._joined(record, token).token)

    def answered_count(self, code: str) -> int:
        """How many answered the current question (0 when none is asked)."""
        record = self._existing(code)
        return len(self._load_answers(record.code, record.question.id)) if record.question else 0

    def results(self, code: str, question_id: int | None = None, *, credential: str | None = None) -> Results:
        """One question's results (the current one by default); without the credential, revealed only."""
        record = self._existing(code) if credential is None else self.check_teacher(code, credential)
        question = self._question(record, question_id)
        if credential is None and not question.revealed:
            raise NotTeacherError("The results are not revealed yet; the teacher reveals them on the projector.")
        return self._results(record.code, question)

    def _question(self, record: Class, question_id: int | None) -> Question:
        if question_id is None or (record.question and record.question.id == question_id):
            return self._current(record)
        for question in self._load_questions(record.code):
            if question.id == question_id:
                return question
        raise QuestionClosedError(f"Class {record.code} has no question {question_id}.")

    def _results(self, code: str, question: Question) -> Results:
        return aggregate(question, self._load_answers(code, question.id), self._load_students(code))

    def all_results(self, code: str, credential: str) -> tuple[Results, ...]:
        """Every question's results, in the order asked (teacher only)."""
        record = self.check_teacher(code, credential)
        asked = sorted(self._load_questions(record.code), key=lambda question: question.id)
        return tuple(self._results(record.code, question) for question in asked)

    def export_csv(self, code: str, credential: str, zone: str | None = None) -> str:
        """:func:`relpos.classroom.results.results_csv` of every question, times in `zone` (teacher only)."""
        return results_csv(self.all_results(code, credential), zone)


def _marked_removed(tag: str) -> Callable[[Class], Class]:
    """The class record's change when the teacher removes seat `tag` (students' views learn it)."""

    def mark(record: Class) -> Class:
        removed = (*record.removed, tag)[-model.MAX_STUDENTS :]
        return replace(record, removed=removed, version=record.version + 1)

    return mark
