"""A live class as data: its code, credential, pace, questions, students and answers.

Frozen dataclasses and pure functions only (no I/O, no clock of its own): every rule a
store applies lives here once, so the SQLite and Redis stores cannot disagree.

* **codes**: :func:`make_code` draws from :data:`CODE_ALPHABET` (no 0/O, 1/I/L);
  :func:`normalise_code` reads what a student typed (case and spaces do not matter);
* **the teacher credential**: :func:`new_credential` makes a random secret that only its
  hash (:func:`credential_hash`) is stored; :func:`credential_matches` compares hashes
  in constant time;
* **validation**: :func:`validate_nickname`, :func:`validate_prompt` and the rest raise
  :class:`~relpos.classroom.errors.InputError` saying what was wrong and what is allowed;
* **grading**: :func:`grade_prediction` reads a typed number with the quiz's parser
  (:mod:`relpos.text.answers`) and judges it with the quiz's tolerance rule;
  :func:`grade` judges an answer to any :class:`Question`;
* **resubmits**: :func:`decide` says whether a new answer replaces a student's previous one
  (latest counts, at most :data:`MAX_CHANGES` changes, one per :data:`RESUBMIT_SECONDS`).

Times are seconds since the epoch, as the store's clock gives them.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import math
import re
import secrets
import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from relpos.classroom.errors import ClassEndedError, ClassExpiredError, InputError
from relpos.text import answers, numbers
from relpos.text.facts import distance
from relpos.topics.quiz.checking import check_answer, make_quiz
from relpos.topics.quiz.model import NUMBER_TOLERANCE, answer_text
from relpos.topics.quiz.model import Question as QuizQuestion
from relpos.topics.quiz.slips import flips_sign

__all__ = [
    "CLASS_LIFETIME",
    "CODE_ALPHABET",
    "CODE_LENGTH",
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
    "choice_question",
    "credential_hash",
    "credential_matches",
    "decide",
    "distinct_nickname",
    "grade",
    "grade_prediction",
    "join_link",
    "make_code",
    "new_credential",
    "new_token",
    "nickname_key",
    "normalise_code",
    "number_question",
    "question_label",
    "quiz_question",
    "secret_shaped",
    "validate_lesson",
    "validate_nickname",
    "validate_pace",
    "validate_prompt",
    "validate_question",
]

#: Code characters: capitals and digits that cannot be misread (no 0/O, 1/I/L).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#: Length of a new code (31⁶ ≈ 9 × 10⁸ codes); typed codes may be 4 to 8 characters.
CODE_LENGTH = 6
MIN_CODE_LENGTH, MAX_CODE_LENGTH = 4, 8
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
#: Longest credential or token a store even hashes (a real one is 32 or 22 characters).
MAX_SECRET = 128

_NICKNAME_PUNCTUATION = frozenset(" -_.'")
_SECRET = re.compile(r"[A-Za-z0-9_-]+")
_STEP = re.compile(r"[A-Za-z0-9_.:-]*")
_LESSON = re.compile(r"[a-z][a-z0-9_-]{0,39}")


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
        quiz = _quiz(self)
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


# ---------------------------------------------------------------- codes and secrets


def make_code(rng=None, length: int = CODE_LENGTH) -> str:
    """A join code of `length` characters of :data:`CODE_ALPHABET`.

    Parameters
    ----------
    rng : random.Random or secrets.SystemRandom, optional
        Anything with ``choice``; the operating system's randomness by default.
    length : int
        4 to 8.

    Examples
    --------
    >>> import random
    >>> make_code(random.Random(1)) == make_code(random.Random(1)), len(make_code(length=4))
    (True, 4)
    """
    if not MIN_CODE_LENGTH <= length <= MAX_CODE_LENGTH:
        raise ValueError(f"a code has {MIN_CODE_LENGTH} to {MAX_CODE_LENGTH} characters; got {length}")
    rng = rng or secrets.SystemRandom()
    return "".join(rng.choice(CODE_ALPHABET) for _ in range(length))


def normalise_code(text) -> str:
    """A typed or linked code as stored: capitals, spaces and dashes dropped.

    >>> normalise_code(" ab-c 234 ")
    'ABC234'
    """
    if not isinstance(text, str):
        raise InputError("Type the class code shown on the projector.")
    code = re.sub(r"[\s-]", "", text[: 4 * MAX_CODE_LENGTH]).upper()
    if not code:
        raise InputError("Type the class code shown on the projector.")
    if not MIN_CODE_LENGTH <= len(code) <= MAX_CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        raise InputError(
            f"{_shown(code, 12)!r} is not a class code: a code has {MIN_CODE_LENGTH} to {MAX_CODE_LENGTH} "
            "characters, capital letters and digits 2–9, never 0, O, 1, I or L."
        )
    return code


def new_credential() -> str:
    """A fresh teacher credential: 32 URL-safe characters from the operating system's randomness."""
    return secrets.token_urlsafe(24)


def new_token() -> str:
    """A fresh student token (22 URL-safe characters)."""
    return secrets.token_urlsafe(16)


def credential_hash(code: str, credential: str) -> str:
    """The stored form of a teacher credential, bound to its class.

    A credential is 192 random bits, so a plain SHA-256 is as strong as a slow hash here; the
    code is mixed in so one class's credential never opens another.
    """
    return hashlib.sha256(f"relpos-classroom\0{code}\0{credential}".encode()).hexdigest()


def credential_matches(code: str, credential, stored_hash: str) -> bool:
    """Whether `credential` is the one `stored_hash` was made from (constant-time comparison).

    >>> secret = new_credential()
    >>> credential_matches("ABCD", secret, credential_hash("ABCD", secret)), credential_matches("ABCD", None, "")
    (True, False)
    """
    if not secret_shaped(credential):
        return False
    return hmac.compare_digest(credential_hash(code, credential), stored_hash)


def secret_shaped(text) -> bool:
    """Whether `text` could be a credential or token at all (URL-safe, 1 to 128 characters);
    anything else is refused before it reaches a hash or a database.

    >>> secret_shaped(new_token()), secret_shaped("<b>"), secret_shaped("x" * 200)
    (True, False, False)
    """
    return isinstance(text, str) and len(text) <= MAX_SECRET and _SECRET.fullmatch(text) is not None


def join_link(base_url: str, code: str) -> str:
    """The link a student opens: `base_url` with ``class=CODE`` added to its query.

    >>> join_link("https://relpos.example/walkthrough?n=3", "ABC234")
    'https://relpos.example/walkthrough?n=3&class=ABC234'
    """
    return _with_query(base_url, {"class": code})


def _with_query(base_url: str, extra: dict[str, str]) -> str:
    parts = urlsplit(base_url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in extra]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode([*query, *extra.items()]), parts.fragment))


def anonymous_label(number: int) -> str:
    """How a student without a nickname is named: ``anonymous 7``."""
    return f"anonymous {number}"


# ---------------------------------------------------------------- validation


def _shown(text: str, limit: int = 24) -> str:
    """The start of `text`, non-printable characters as ``?``, for an error message."""
    cut = "".join(char if char.isprintable() else "?" for char in text[:limit])
    return cut + ("…" if len(text) > limit else "")


def _nickname_char(char: str) -> bool:
    # letters and marks of every script (names in Arabic, Hindi, …), digits, a little punctuation
    return char in _NICKNAME_PUNCTUATION or unicodedata.category(char)[0] in "LM" or unicodedata.category(char) == "Nd"


#: Characters that draw nothing (Unicode's Default_Ignorable_Code_Point, which Python's
#: unicodedata does not list): a name of Hangul fillers is invisible, and a zero-width
#: space or a variation selector makes "Ada" look like another student's "Ada".
_INVISIBLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
#: Scripts one word may mix (Japanese writes kanji with kana; Korean, hangul with hanja).
_SCRIPTS_TOGETHER = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO"})
#: Combining marks one letter may carry (Vietnamese, Hebrew points, Indic vowel signs);
#: more is a "zalgo" name that spills over its neighbours' lines.
_MOST_MARKS = 3


def _invisible(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in _INVISIBLE)


def _script(char: str) -> str | None:
    """A letter's script, from its Unicode name ("LATIN", "CYRILLIC", "CJK" …); None otherwise."""
    if unicodedata.category(char)[0] != "L":
        return None
    script = unicodedata.name(char, "UNKNOWN").split()[0]
    return "CJK" if script in _SCRIPTS_TOGETHER else script


def _mixed_word(name: str) -> str | None:
    """The first word of `name` whose letters come from two scripts (a look-alike such as
    "Аda", Cyrillic А and Latin "da"), or None. Each word may have its own script."""
    for word in name.split():
        if len({script for char in word if (script := _script(char))}) > 1:
            return word
    return None


def _longest_marks(name: str) -> int:
    longest = run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char)[0] == "M" else 0
        longest = max(longest, run)
    return longest


def _refuse_unseen(name: str) -> None:
    """Refuse a nickname one cannot see, or cannot tell from another."""
    hidden = sorted({char for char in name if _invisible(char)})
    if hidden:
        shown = ", ".join(f"U+{ord(char):04X}" for char in hidden[:5])
        raise InputError(f"A nickname may not contain invisible characters ({shown}); type letters you can see.")
    if not any(unicodedata.category(char)[0] == "L" or unicodedata.category(char) == "Nd" for char in name):
        raise InputError("A nickname needs at least one letter or digit.")
    if _longest_marks(name) > _MOST_MARKS:
        raise InputError(f"A nickname may put at most {_MOST_MARKS} accents or marks on one letter.")
    word = _mixed_word(name)
    if word is not None:
        raise InputError(
            f"The nickname word {word!r} mixes letters of two alphabets (a look-alike of another name); "
            "write each word in one alphabet."
        )


def validate_nickname(text) -> str | None:
    """A nickname as stored, or None for anonymous (empty input).

    Letters of any script, digits, spaces and ``- _ . '``, at most :data:`MAX_NICKNAME`
    characters; so no HTML, Markdown, control or direction-changing character can reach a
    page (a page still escapes it). NFKC-normalised (a full-width "Ａｄａ" is "Ada"); refused
    when it cannot be seen or told apart: invisible characters (a Hangul filler, a zero-width
    space), no letter or digit at all, a pile of marks on one letter, or a word mixing two
    alphabets ("Аda" with a Cyrillic А). Two students may still type the same name: the store
    tells them apart (:func:`distinct_nickname`).

    >>> validate_nickname("  Ada   L. "), validate_nickname("Ａｄａ"), validate_nickname(""), validate_nickname(None)
    ('Ada L.', 'Ada', None, None)
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise InputError("A nickname must be text.")
    if len(text) > 4 * MAX_NICKNAME:
        raise InputError(f"That nickname is {len(text):,} characters long; a nickname has at most {MAX_NICKNAME}.")
    name = " ".join(unicodedata.normalize("NFKC", text).split())
    if not name:
        return None
    if len(name) > MAX_NICKNAME:
        raise InputError(f"That nickname is {len(name)} characters long; a nickname has at most {MAX_NICKNAME}.")
    refused = sorted({char for char in name if not _nickname_char(char) and not _invisible(char)})
    if refused:
        shown = ", ".join(repr(char) if char.isprintable() else f"U+{ord(char):04X}" for char in refused[:5])
        raise InputError(f"A nickname may use letters, digits, spaces and - _ . ' only; not {shown}.")
    _refuse_unseen(name)
    return name


def nickname_key(name: str) -> str:
    """What makes two nicknames the same to a reader: case does not count.

    >>> nickname_key("ADA") == nickname_key("ada")
    True
    """
    return name.casefold()


def distinct_nickname(name: str | None, taken) -> str | None:
    """`name`, or ``name (2)``, ``name (3)`` … : the first one ``taken(candidate)`` says is free.

    Parentheses cannot be typed in a nickname, so a suffix never meets a typed name.

    >>> distinct_nickname("Ada", {"Ada", "Ada (2)"}.__contains__)
    'Ada (3)'
    """
    if name is None:
        return None
    candidates = (name if number == 1 else f"{name} ({number})" for number in itertools.count(1))
    return next(candidate for candidate in candidates if not taken(candidate))


def _plain_text(text, what: str, limit: int) -> str:
    if not isinstance(text, str):
        raise InputError(f"The {what} must be text.")
    text = " ".join(text.split())
    if not text or len(text) > limit:
        raise InputError(f"The {what} must have 1 to {limit} characters; it has {len(text):,}.")
    if not text.isprintable():
        raise InputError(f"The {what} may not contain control characters.")
    return text


def validate_prompt(text) -> str:
    """A question's prompt: plain printable text, 1 to :data:`MAX_PROMPT` characters."""
    return _plain_text(text, "question", MAX_PROMPT)


def validate_pace(pace: Pace) -> Pace:
    """`pace` checked: a step id of letters, digits and ``_.:-`` and a printable URL state."""
    if not isinstance(pace.paced, bool) or isinstance(pace.index, bool) or not isinstance(pace.index, int):
        raise InputError("A stop needs paced (true or false) and a whole-number index.")
    if not 0 <= pace.index <= 10_000:
        raise InputError(f"A stop index runs from 0 to 10,000; got {pace.index}.")
    if not isinstance(pace.step, str) or len(pace.step) > MAX_STEP or not _STEP.fullmatch(pace.step):
        raise InputError(f"A step id has at most {MAX_STEP} letters, digits and _ . : - characters.")
    if not isinstance(pace.state, str) or len(pace.state) > MAX_STATE or not pace.state.isprintable():
        raise InputError(f"The lesson state must be printable text of at most {MAX_STATE:,} characters.")
    return pace


def validate_lesson(lesson) -> str:
    """A lesson name: lowercase letters, digits, ``_`` and ``-``, starting with a letter."""
    if not isinstance(lesson, str) or not _LESSON.fullmatch(lesson):
        raise InputError("A lesson name is 1 to 40 lowercase letters, digits, _ or -, starting with a letter.")
    return lesson


# ---------------------------------------------------------------- questions


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
    options = tuple(_plain_text(choice, "choice", MAX_CHOICE) for choice in choices)
    if not 2 <= len(options) <= MAX_CHOICES or len(set(options)) != len(options):
        raise InputError(f"A choice question needs 2 to {MAX_CHOICES} different options.")
    if correct not in options:
        raise InputError(f"The correct choice {_shown(str(correct))!r} is not one of the options.")
    return Question("choice", validate_prompt(prompt), correct, choices=options, stop=_step(stop))


def quiz_question(seed: int, index: int, *, stop: str = "") -> Question:
    """Question `index` (0-based) of the seeded quiz ``make_quiz(seed)``, graded as the quiz grades it.

    >>> quiz_question(7, 0).prompt.startswith("Question 1: ")
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= answers.MAX_SEED:
        raise InputError(f"The quiz seed must be a whole number from 0 to {answers.MAX_SEED:,}.")
    questions = _quiz_for(seed)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(questions):
        raise InputError(f"The quiz has questions 0 to {len(questions) - 1}; got {index!r}.")
    title = f"Question {index + 1}: {questions[index].title}"
    return Question(
        "quiz", title[:MAX_PROMPT], quiz=(int(seed), index), tolerance=questions[index].tolerance, stop=_step(stop)
    )


_quiz_for = lru_cache(maxsize=64)(make_quiz)  # grading a class's answers re-reads one quiz often


def question_label(question: Question) -> str:
    """A question's heading on the projector and on every student's screen: the class's
    count and the prompt, or for a quiz question its place in the quiz (its prompt is
    already "Question 1: …", which after the class's count read "Question 3: Question 1: …").

    >>> question_label(replace(number_question("Predict e12.", 0.5), id=3))
    'Question 3: Predict e12.'
    >>> question_label(replace(quiz_question(42, 0), id=3)).startswith("Quiz question 1: ")
    True
    """
    if question.kind == "quiz" and question.quiz is not None:
        return f"Quiz question {question.quiz[1] + 1}: {_quiz(question).title}"
    return f"Question {question.id}: {question.prompt}"


def _quiz(question: Question) -> QuizQuestion:
    seed, index = question.quiz
    return _quiz_for(seed)[index]


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
    return f"{question.prompt}. " + _quiz(question).prompt.replace("$", "")


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
    shown = _number_text(value)
    gap = distance(value, expected)
    if gap <= tolerance:
        within = f"within {_tolerance_text(tolerance)} of" if tolerance > 0 else "exactly"
        return Grade(shown, value, True, f"Right: {shown} is {within} {_number_text(expected)}.")
    if flips_sign(value, expected, tolerance):
        message = f"Not quite: the sign is flipped (you typed {shown}; the value is {_number_text(expected)})."
        return Grade(shown, value, False, message)
    message = f"Not quite: you typed {shown}, {_number_text(gap)} from the value {_number_text(expected)}."
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
    quiz = _quiz(question)
    given = _read(lambda typed: _QUIZ_PARSERS[quiz.answer_kind](typed, quiz.n), text)
    feedback = check_answer(quiz, text)
    value = float(given) if quiz.answer_kind == "number" else None
    canonical = _number_text(value) if value is not None else answer_text(quiz.answer_kind, given)
    return Grade(canonical, value, feedback.status == "correct", feedback.message)


def _read(parse, text):
    try:
        return parse(text)
    except answers.AnswerError as error:
        raise InputError(f"Could not read that answer: {error}.") from error


def _number_text(value: float) -> str:
    return numbers.readable(value, 6, trim=0)


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
