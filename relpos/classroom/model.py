"""A live class as data: its pace, questions, students and answers, and the rule of resubmits.

Frozen dataclasses and pure functions only (no I/O, no clock of its own): every rule a
store applies lives in this package once, so the SQLite and Redis stores cannot disagree.
The rules sit beside the data, each in a module of its own:

* **codes and secrets** (:mod:`relpos.classroom.codes`): join codes, the teacher
  credential and student tokens;
* **validation** (:mod:`relpos.classroom.validation`): nicknames, prompts, stops and
  lessons, refused with :class:`~relpos.classroom.errors.InputError` saying what was wrong
  and what is allowed;
* **questions and grading** (:mod:`relpos.classroom.questions`): the questions a teacher
  asks and how an answer is judged (a quiz question as the quiz judges it,
  through :mod:`relpos.classroom.quiz`);
* **resubmits** (here): :func:`decide` says whether a new answer replaces a student's
  previous one (latest counts, at most :data:`MAX_CHANGES` changes, one per
  :data:`RESUBMIT_SECONDS`).

Times are seconds since the epoch, as the store's clock gives them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from relpos.classroom.errors import ClassEndedError, ClassExpiredError
from relpos.classroom.quiz import NUMBER_TOLERANCE, quiz_of

__all__ = [
    "CLASS_LIFETIME",
    "ENDED_KEEP",
    "MAX_CHANGES",
    "MAX_NICKNAME",
    "MAX_STUDENTS",
    "RESUBMIT_SECONDS",
    "Ack",
    "Answer",
    "Class",
    "Grade",
    "Pace",
    "Question",
    "Student",
    "anonymous_label",
    "decide",
]

#: A class lasts this long from its start (seconds).
CLASS_LIFETIME = 12 * 3600.0
#: After the teacher ends a class its results stay downloadable (by the teacher) this long.
ENDED_KEEP = 3600.0
#: Longest nickname, in characters.
MAX_NICKNAME = 24
#: Most students one class admits (a flood of joins stops here).
MAX_STUDENTS = 300
#: How often a student may change an answer to one question, after the first.
MAX_CHANGES = 5
#: Shortest time between two accepted answers of one student to one question (seconds).
RESUBMIT_SECONDS = 1.0
#: Limits of what the teacher sets (a prompt, a choice, a stop's id and URL state).
MAX_PROMPT, MAX_CHOICE, MAX_CHOICES, MAX_STEP, MAX_STATE = 300, 24, 12, 40, 4000


# ---------------------------------------------------------------- the data


@dataclass(frozen=True)
class Pace:
    """Where the teacher is, and whether students follow.

    Attributes
    ----------
    paced : bool
        True: students follow the teacher's stop; False: released to their own pace.
    index : int
        The stop's position in the lesson (0-based), e.g. ``stop_index`` of the walkthrough.
    step : str
        The stop's identifier, e.g. ``"r1s2"`` or ``"quiz-3"`` (letters, digits, ``_.:-``).
    state : str
        The lesson's URL-state string, so a student's page shows the teacher's numbers.
    """

    paced: bool = True
    index: int = 0
    step: str = ""
    state: str = ""


@dataclass(frozen=True)
class Question:
    """One predict-then-reveal question.

    Attributes
    ----------
    kind : str
        ``number`` (predict a number such as e_ij), ``choice`` (pick one of `choices`,
        e.g. the key that gains the most weight) or ``quiz`` (a question of the seeded quiz).
    prompt : str
        Plain text shown with the question.
    expected : float, str or None
        The true value (a number, or the correct choice); None for ``quiz`` (the quiz knows).
    choices : tuple of str
        The options of a ``choice`` question.
    tolerance : float
        Accepted absolute error of a ``number`` answer.
    quiz : tuple of int or None
        ``(seed, index)`` of a ``quiz`` question in ``make_quiz(seed)``.
    stop : str
        The stop the question was asked at.
    id : int
        1, 2, … in the order asked (0 until a store asks it).
    asked_at : float
    status : str
        ``open`` (taking answers), ``revealed`` (closed, results shown) or ``hidden``
        (closed, results hidden).
    """

    kind: str
    prompt: str
    expected: float | str | None = None
    choices: tuple[str, ...] = ()
    tolerance: float = NUMBER_TOLERANCE
    quiz: tuple[int, int] | None = None
    stop: str = ""
    id: int = 0
    asked_at: float = 0.0
    status: str = "open"

    @property
    def is_open(self) -> bool:
        """Whether answers are taken."""
        return self.status == "open"

    @property
    def revealed(self) -> bool:
        """Whether the results (and the true value) are shown."""
        return self.status == "revealed"

    @property
    def truth(self) -> float | str:
        """The true value: the number, the correct choice, or the quiz's answer as typed."""
        if self.kind != "quiz":
            return self.expected
        quiz = quiz_of(self.quiz)
        return float(quiz.expected) if quiz.answer_kind == "number" else quiz.answer_text


@dataclass(frozen=True)
class Class:
    """A live class: the teacher's state, as every student sees it.

    Attributes
    ----------
    code : str
        The join code.
    teacher_hash : str
        Hash of the teacher credential (never the credential).
    lesson : str
        Which lesson it runs, e.g. ``walkthrough`` or ``quiz``.
    created_at, expires_at : float
    pace : Pace
    question : Question or None
        The question asked last (open, revealed or hidden).
    ended_at : float or None
        When the teacher ended it.
    locked : bool
        The teacher admits nobody new (those who joined come back with their token).
    version : int
        Counts changes of what students follow (pace, question, end, a removed student).
    removed : tuple of str
        The seats the teacher took back, by :func:`relpos.classroom.presence.seat_tag` (the
        last :data:`MAX_STUDENTS`): a removed student's page learns it from the class's view.
    """

    code: str
    teacher_hash: str = field(repr=False)
    lesson: str
    created_at: float
    expires_at: float
    pace: Pace = Pace()
    question: Question | None = None
    ended_at: float | None = None
    version: int = 0
    locked: bool = False
    removed: tuple[str, ...] = ()

    def check_admits(self, now: float) -> None:
        """Raise :class:`ClassEndedError` or :class:`ClassExpiredError` unless the class admits students."""
        if self.ended_at is not None:
            raise ClassEndedError(f"Class {self.code} has ended; ask your teacher for a new code.")
        if now >= self.expires_at:
            raise ClassExpiredError(
                f"Class {self.code} has expired (a class lasts {CLASS_LIFETIME / 3600:g} hours); "
                "the teacher can start a new one."
            )

    @property
    def gone_at(self) -> float:
        """When nothing of it need be kept any more: at expiry, or :data:`ENDED_KEEP` after the end."""
        return self.expires_at if self.ended_at is None else min(self.expires_at, self.ended_at + ENDED_KEEP)


@dataclass(frozen=True)
class Student:
    """One student of a class.

    Attributes
    ----------
    token : str
        The student's secret: what their page sends with each answer.
    number : int
        1, 2, … in the order they joined.
    nickname : str or None
        As validated by :func:`validate_nickname`; None for anonymous.
    joined_at : float
    """

    token: str = field(repr=False)
    number: int
    nickname: str | None
    joined_at: float

    @property
    def label(self) -> str:
        """The nickname, or ``anonymous 7``."""
        return self.nickname or anonymous_label(self.number)


@dataclass(frozen=True)
class Answer:
    """The answer of one student to one question that counts (the latest accepted).

    Attributes
    ----------
    question_id : int
    token : str
    student : int
        The student's number.
    text : str
        The answer as read (canonical: ``−0.25``, a choice, a quiz answer as the quiz writes it).
    value : float or None
        The number, for numeric answers.
    correct : bool
    first_at, submitted_at : float
        When the first and the counting answer came.
    changes : int
        How often the student changed it.
    """

    question_id: int
    token: str = field(repr=False)
    student: int
    text: str
    value: float | None
    correct: bool
    first_at: float
    submitted_at: float
    changes: int = 0


@dataclass(frozen=True)
class Ack:
    """A store's reply to a submitted answer.

    Attributes
    ----------
    status : str
        ``accepted`` (first answer), ``changed`` (replaced the previous one), ``unchanged``
        (the same answer again), ``throttled`` (too soon after the last) or ``limit`` (no
        more changes allowed).
    answer : Answer
        The answer that counts now.
    message : str
        A sentence for the student.
    retry_after : float
        Seconds until a change would be accepted (0 when it would be now).
    """

    status: str
    answer: Answer
    message: str
    retry_after: float = 0.0

    @property
    def stored(self) -> bool:
        """Whether this submission became the answer that counts."""
        return self.status in ("accepted", "changed")


@dataclass(frozen=True)
class Grade:
    """The verdict on one typed answer.

    Attributes
    ----------
    text : str
        The answer as read (canonical).
    value : float or None
    correct : bool
    message : str
        For the student: right, or how far off (and a flipped sign, when that is the slip).
    """

    text: str
    value: float | None
    correct: bool
    message: str


def anonymous_label(number: int) -> str:
    """How a student without a nickname is named: ``anonymous 7``."""
    return f"anonymous {number}"


# ---------------------------------------------------------------- resubmits


def decide(previous: Answer | None, candidate: Answer, now: float) -> tuple[Answer | None, Ack]:
    """Whether `candidate` replaces `previous`: the answer to store (None: keep) and the reply.

    The latest accepted answer counts. The same answer again changes nothing; a different one
    within :data:`RESUBMIT_SECONDS` of the last is throttled; after :data:`MAX_CHANGES`
    changes the answer stands. So a client sending 1,000 answers a second changes at most
    one answer, once a second, five times.
    """
    if previous is None:
        return candidate, Ack("accepted", candidate, f"Your answer {candidate.text} is in.")
    if previous.text == candidate.text:
        return None, Ack("unchanged", previous, f"Your answer {previous.text} is in.")
    wait = previous.submitted_at + RESUBMIT_SECONDS - now
    if wait > 0:
        return None, Ack("throttled", previous, f"Too fast: your answer {previous.text} stands.", wait)
    if previous.changes >= MAX_CHANGES:
        message = f"You have changed this answer {MAX_CHANGES} times; your answer {previous.text} stands."
        return None, Ack("limit", previous, message)
    changed = replace(candidate, first_at=previous.first_at, changes=previous.changes + 1)
    return changed, Ack("changed", changed, f"Changed: your answer is now {changed.text}.")
