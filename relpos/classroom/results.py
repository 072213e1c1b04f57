"""What a class answered: the distribution with the true value marked, the correct share, CSV.

Pure functions over :mod:`relpos.classroom.model` data. A numeric question is summed up as a
histogram (:func:`histogram`: "nice" bin widths, every answer in exactly one bin, the true
value in exactly one bin, far-off answers in the open end bins); a choice or non-numeric
quiz question as counts per answer (:func:`tally`). :func:`results_csv` writes every
question's answers for a spreadsheet (standard library ``csv``, no pandas).
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from relpos.classroom.model import Answer, Question, Student, anonymous_label
from relpos.classroom.questions import question_text, stop_label
from relpos.text import numbers

__all__ = ["Bin", "Count", "Results", "aggregate", "histogram", "results_csv", "tally"]

#: About this many bins in a histogram (a nice width gives 7 to 12).
TARGET_BINS = 8
#: Answers this far from the true value and the bulk still count, in the end bins, but do not
#: stretch the bins (one joker typing 1e300 must not squash everyone else's bar).
FAR = 1e6
#: Narrowest bin (answers are compared at 9 decimals; this keeps the bin count finite).
MIN_WIDTH = 1e-6


@dataclass(frozen=True)
class Bin:
    """One bar of a histogram: answers in ``[low, high)``.

    ``open_low`` (``open_high``): the first (last) bin also holds every answer below (above) it.
    """

    low: float
    high: float
    count: int
    holds_truth: bool
    open_low: bool = False
    open_high: bool = False

    @property
    def label(self) -> str:
        """``0.5 to 1``; ``below 1`` and ``0.5 and above`` for open ends."""
        low, high = numbers.as_written(self.low), numbers.as_written(self.high)
        if self.open_low and self.open_high:
            return "any"
        if self.open_low:
            return f"below {high}"
        return f"{low} and above" if self.open_high else f"{low} to {high}"


@dataclass(frozen=True)
class Count:
    """How many chose one answer (a choice, or a quiz answer as written)."""

    label: str
    count: int
    correct: bool


@dataclass(frozen=True)
class Results:
    """One question's results.

    Attributes
    ----------
    question : Question
    students : int
        Students in the class when the results were read.
    answers : tuple of Answer
        The answers that count, first submitted first.
    labels : tuple of str
        Who gave each answer (nickname or ``anonymous 7``), in the order of `answers`.
    bins : tuple of Bin
        The histogram of a numeric question (empty otherwise).
    counts : tuple of Count
        The counts of a choice or non-numeric question (empty otherwise).
    """

    question: Question
    students: int
    answers: tuple[Answer, ...]
    labels: tuple[str, ...]
    bins: tuple[Bin, ...] = ()
    counts: tuple[Count, ...] = ()

    @property
    def answered(self) -> int:
        return len(self.answers)

    @property
    def correct(self) -> int:
        return sum(answer.correct for answer in self.answers)

    @property
    def correct_share(self) -> float | None:
        """Correct answers over answers (None before the first answer)."""
        return self.correct / self.answered if self.answers else None

    @property
    def progress(self) -> str:
        """``3 of 25 answered``, for the projector."""
        return f"{self.answered} of {self.students} answered"


def aggregate(question: Question, answers: Iterable[Answer], students: Sequence[Student]) -> Results:
    """Results of `question` from its answers and the class's students."""
    ordered = tuple(sorted(answers, key=lambda answer: (answer.first_at, answer.student)))
    names = {student.number: student.label for student in students}
    labels = tuple(names.get(answer.student, anonymous_label(answer.student)) for answer in ordered)
    truth = question.truth
    if isinstance(truth, float):
        bins = histogram([answer.value for answer in ordered], truth)
        return Results(question, len(students), ordered, labels, bins=bins)
    options = question.choices or (truth,)
    return Results(question, len(students), ordered, labels, counts=tally([a.text for a in ordered], options, truth))


def tally(texts: Sequence[str], options: Sequence[str], correct: str) -> tuple[Count, ...]:
    """Counts per option in the options' order (zeros too), then other answers, most given first.

    >>> [(c.label, c.count, c.correct) for c in tally(["b", "x", "b"], ["a", "b"], "b")]
    [('a', 0, False), ('b', 2, True), ('x', 1, False)]
    """
    seen = Counter(texts)
    others = sorted((text for text in seen if text not in options), key=lambda text: (-seen[text], text))
    return tuple(Count(label, seen[label], label == correct) for label in (*options, *others))


def histogram(values: Sequence[float], truth: float, bins: int = TARGET_BINS) -> tuple[Bin, ...]:
    """Bars of equal, nice width (1, 2, 2.5 or 5 × 10ⁿ) covering the answers and the true value.

    Every value falls in exactly one bin and so does `truth`; values beyond :data:`FAR` of the
    others land in the open end bins.

    >>> [(b.label, b.count, b.holds_truth) for b in histogram([0.1, 0.2, 0.9], 0.5, bins=2)]
    [('0 to 0.5', 2, False), ('0.5 to 1', 1, True)]
    """
    low, high = _span(values, truth)
    width = _nice_width(max((high - low) / bins, MIN_WIDTH))
    start = math.floor(low / width) * width
    size = _index(high, start, width) + 1
    counts = [0] * size
    for value in values:
        counts[min(max(_index(value, start, width), 0), size - 1)] += 1
    below, above = any(v < start for v in values), any(v >= start + size * width for v in values)
    hit = _index(truth, start, width)
    return tuple(
        Bin(
            _round(start + i * width),
            _round(start + (i + 1) * width),
            counts[i],
            i == hit,
            i == 0 and below,
            i == size - 1 and above,
        )
        for i in range(size)
    )


def _span(values: Sequence[float], truth: float) -> tuple[float, float]:
    """The range the bins cover: the answers near the true value, and the true value.

    At least 0.4 × max(|truth|, 1) wide, so a class that all answered alike still sees bars
    around the true value rather than one block.
    """
    near = [v for v in values if abs(v - truth) <= FAR]
    low, high = min([truth, *near]), max([truth, *near])
    least = 0.4 * max(abs(truth), 1.0)
    if high - low < least:
        middle = (low + high) / 2
        low, high = middle - least / 2, middle + least / 2
    return low, high


def _index(value: float, start: float, width: float) -> int:
    # bins are half-open [low, high): rounding first so 0.3 / 0.1 lands in bin 3, not 2
    clipped = min(max(value, start - width), start + (2 * FAR) + width)
    return math.floor(round((clipped - start) / width, 9))


def _nice_width(raw: float) -> float:
    """The smallest of 1, 2, 2.5, 5 (× 10ⁿ) at least `raw`."""
    exponent = math.floor(math.log10(raw))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if step * 10.0**exponent >= raw * (1 - 1e-12):
            return _round(step * 10.0**exponent)
    raise AssertionError("unreachable: 10 × 10ⁿ ≥ raw")


def _round(value: float) -> float:
    return round(value, 12) + 0.0


# ---------------------------------------------------------------- CSV

CSV_COLUMNS = (
    "question",
    "asked_at",
    "stop",
    "kind",
    "prompt",
    "correct_answer",
    "student",
    "answer",
    "correct",
    "changes",
    "answered_at",
    "answered",
    "students",
    "correct_share",
    "student_answered",
    "student_correct",
    "time_zone",
)


def results_csv(results: Iterable[Results], zone: str | None = None) -> str:
    """Every answer of every question, one row each (a question nobody answered gets one row).

    Ready for a spreadsheet: numbers as plain decimals (``0.48``, never the float noise
    ``0.4800000000000001``), times in the teacher's time zone `zone` (an IANA name such as
    ``Europe/Berlin``; UTC when unknown) as ``2026-12-05 09:41:07``, a quiz question's whole
    text, stops named as on screen (``pair (1, 4)``). Each row repeats its question's
    ``answered``, ``students`` and ``correct_share`` and its student's ``student_answered``
    and ``student_correct`` over every question, so a spreadsheet filter on one question or
    one student shows its summary. Cells a spreadsheet would run as a formula are prefixed
    with ``'``. (The page's download adds a UTF-8 byte order mark for Excel.)

    >>> from relpos.classroom.questions import number_question
    >>> question = number_question("Predict e₁₂", 0.1 + 0.38, stop="r1j2")
    >>> (row,) = csv.DictReader(io.StringIO(results_csv([aggregate(question, [], [])])))
    >>> row["stop"], row["correct_answer"], row["time_zone"]
    ('pair (1, 2)', '0.48', 'UTC')
    """
    results = list(results)
    tz = _zone(zone)
    totals: Counter = Counter()
    right: Counter = Counter()
    for result in results:
        for answer, label in zip(result.answers, result.labels, strict=True):
            totals[label] += 1
            right[label] += bool(answer.correct)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for result in results:
        for row in _rows(result, tz):
            label = row[6]
            student = (totals[label], right[label]) if label else ("", "")
            writer.writerow([_cell(value) for value in (*row, *student, tz.key if hasattr(tz, "key") else "UTC")])
    return out.getvalue()


def _zone(name: str | None):
    """The time zone called `name`, or UTC (unknown, missing or malformed)."""
    if not name:
        return UTC
    try:
        return ZoneInfo(str(name))
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _rows(result: Results, tz=UTC) -> list[tuple]:
    question = result.question
    share = "" if result.correct_share is None else f"{result.correct_share:.3f}"
    when = _time(question.asked_at, tz)
    head = (question.id, when, stop_label(question.stop), question.kind, question_text(question), _truth(question))
    tail = (result.answered, result.students, share)
    if not result.answers:
        return [(*head, "", "", "", "", "", *tail)]
    return [
        (
            *head,
            label,
            _plain(answer),
            "yes" if answer.correct else "no",
            answer.changes,
            _time(answer.submitted_at, tz),
            *tail,
        )
        for answer, label in zip(result.answers, result.labels, strict=True)
    ]


def _decimal(value: float) -> str:
    """A number as a spreadsheet reads it: ``0.48`` (ten significant digits, no float noise)."""
    return f"{value:.10g}"


def _truth(question: Question) -> str:
    truth = question.truth
    return _decimal(truth) if isinstance(truth, float) else str(truth)


def _plain(answer: Answer) -> str:
    # a spreadsheet reads -0.25 as a number, the page's −0.25 (true minus) as text
    return _decimal(answer.value) if answer.value is not None else answer.text


def _time(seconds: float, tz=UTC) -> str:
    return datetime.fromtimestamp(seconds, tz).strftime("%Y-%m-%d %H:%M:%S")


def _cell(value) -> str:
    text = str(value)
    if text[:1] in ("=", "+", "@", "\t", "\r") or (text[:1] == "-" and not _is_number(text)):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
