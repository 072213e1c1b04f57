"""Reading a learner's typed answers: numbers, offsets, positions, cells and seeds.

Every parser takes the raw text from a text box and either returns a value or raises
:class:`AnswerError`, whose message says what was wrong and what is allowed, ready to
show on the page. Pure Python; nothing here raises anything else for a ``str`` input.

Accepted forms (also documented on the quiz page):

* number: ``0.5``, `` .5 ``, ``-0.1``, ``−0.1`` (unicode minus), ``+2``, ``1e-2``,
  ``0,5`` (decimal comma), ``1/4``;
* offset: a whole number with an optional sign, ``-1``, ``+2``, ``0``; the forms
  ``a^K_{-1}`` and ``a(-1)`` are read too;
* positions: ``2`` or ``1, 3`` (commas, semicolons or spaces; brackets optional);
* cells: ``(query, key)`` pairs, ``(1,4), (4,1)``; brackets may be ``()`` or ``[]``,
  or pairs may be written ``1,4; 4,1``; ``none`` for no cell.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "MAX_ANSWER_LENGTH",
    "MAX_SEED",
    "AnswerError",
    "normalise",
    "parse_cells",
    "parse_number",
    "parse_offset",
    "parse_positions",
]

#: Longer input is refused before any parsing (a cell list for n = 5 needs < 200).
MAX_ANSWER_LENGTH = 300
#: Seeds are integers 0 .. MAX_SEED (what fits an unsigned 32-bit word), on every page: each
#: page's seed field and ``seed=`` parameter, the quiz's and a live class's quiz seed.
MAX_SEED = 2**32 - 1

# Dashes people type, or that keyboards and word processors substitute, for "minus".
_MINUS_SIGNS = str.maketrans(dict.fromkeys("\u2212\u2012\u2013\u2014\ufe63\uff0d", "-"))
_DECIMAL = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(rf"[+-]?{_DECIMAL}")
_FRACTION = re.compile(rf"([+-]?{_DECIMAL})\s*/\s*([+-]?{_DECIMAL})")
_OFFSET = re.compile(r"(?:a\s*(?:\^\s*\{?\s*k\s*\}?)?\s*_?\s*)?[({]?\s*([+-]?\s*\d+)\s*[)}]?", re.IGNORECASE)
_NOT_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_NONE_WORDS = {"none", "no cells", "nothing", "-", "{}", "∅", "no", "no cell"}
_PAIR_IN_BRACKETS = re.compile(r"[(\[]\s*([+-]?\d+)\s*[,;\s]\s*([+-]?\d+)\s*[)\]]")
_PAIR_BARE = re.compile(r"([+-]?\d+)\s*[,\s]\s*([+-]?\d+)")


class AnswerError(ValueError):
    """A typed answer that cannot be read; the message is meant for the learner."""


def normalise(text) -> str:
    """Strip the text, turn typographic minus signs into ``-`` and check its length.

    >>> normalise("  −0.1 ")
    '-0.1'
    """
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise AnswerError(f"the answer must be text; got {type(text).__name__}")
    if len(text) > MAX_ANSWER_LENGTH:
        raise AnswerError(f"that answer is {len(text):,} characters long; answers here are at most {MAX_ANSWER_LENGTH}")
    text = text.translate(_MINUS_SIGNS).strip()
    if not text:
        raise AnswerError("the answer is empty; type your prediction first")
    return text


def _finite(value: float, text: str) -> float:
    if not math.isfinite(value):
        raise AnswerError(f"{text!r} is too large to be an answer here; type an ordinary number like 0.25")
    return value


def parse_number(text) -> float:
    """Read a decimal number (see the module notes for the accepted forms).

    >>> [parse_number(t) for t in ("0.5", " .5 ", "-0.1", "−0.1", "1/4", "0,5")]
    [0.5, 0.5, -0.1, -0.1, 0.25, 0.5]
    """
    text = normalise(text)
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")  # decimal comma
    if _NOT_FINITE.fullmatch(text):
        raise AnswerError(f"{text!r} is not a finite number; type a number like 0.25 or -1.5")
    if _NUMBER.fullmatch(text):
        return _finite(float(text), text)
    fraction = _FRACTION.fullmatch(text)
    if fraction:
        numerator, denominator = (_finite(float(part), text) for part in fraction.groups())
        if denominator == 0:
            raise AnswerError(f"{text!r} divides by zero; type a number like 0.25")
        return _finite(numerator / denominator, text)
    raise AnswerError(f"{_shorten(text)!r} is not a number; type a decimal like 0.25, -1.5 or .5 (or a fraction 1/4)")


def parse_offset(text) -> int:
    """Read a table offset: a signed whole number, also written ``a^K_{-1}`` or ``a(-1)``.

    >>> [parse_offset(t) for t in ("-1", "+2", "−2", "0", "a^K_{-1}", "a(+1)")]
    [-1, 2, -2, 0, -1, 1]
    """
    text = normalise(text)
    match = _OFFSET.fullmatch(text)
    if match:
        return int(match.group(1).replace(" ", ""))
    if _NUMBER.fullmatch(text):
        raise AnswerError(f"{text!r} is not a whole number; an offset is a whole number like -1, 0 or +2")
    raise AnswerError(f"{_shorten(text)!r} is not an offset; type a whole number like -1, 0 or +2")


def _position(token: str, n: int) -> int:
    value = int(token)
    if not 1 <= value <= n:
        raise AnswerError(f"position {value} does not exist; positions run from 1 to {n}")
    return value


def parse_positions(text, n: int) -> frozenset[int]:
    """Read a set of positions ``1..n``: ``2`` or ``1, 3`` (brackets and ``and`` allowed).

    >>> sorted(parse_positions("{1, 3}", 4)), sorted(parse_positions("2 and 4", 4))
    ([1, 3], [2, 4])
    """
    text = normalise(text)
    cleaned = re.sub(r"\band\b", ",", text.strip("[]{}() "), flags=re.IGNORECASE)
    tokens = [token for token in re.split(r"[,;\s]+", cleaned) if token]
    if not tokens or not all(re.fullmatch(r"[+-]?\d+", token) for token in tokens):
        raise AnswerError(f"{_shorten(text)!r} is not a list of positions; type numbers from 1 to {n}, e.g. 2 or 1, 3")
    return frozenset(_position(token, n) for token in tokens)


def parse_cells(text, n: int) -> frozenset[tuple[int, int]]:
    """Read ``(query, key)`` cells, numbered from 1: ``(1,4), (4,1)`` or ``1,4; 4,1``.

    ``none`` (or ``-``) means no cell at all.

    >>> sorted(parse_cells("(1,4), (4,1)", 4))
    [(1, 4), (4, 1)]
    >>> sorted(parse_cells("[2, 4] [4, 2]", 4)), sorted(parse_cells("1,3; 3,1", 4)), parse_cells("none", 4)
    ([(2, 4), (4, 2)], [(1, 3), (3, 1)], frozenset())
    """
    text = normalise(text)
    if text.lower() in _NONE_WORDS:
        return frozenset()
    if re.search(r"[(\[]", text):
        pairs, rest = _PAIR_IN_BRACKETS.findall(text), _PAIR_IN_BRACKETS.sub(" ", text)
    else:
        matches = [_PAIR_BARE.fullmatch(part.strip()) for part in text.split(";") if part.strip()]
        pairs, rest = ([m.groups() for m in matches], "") if all(matches) else ([], text)
    if not pairs or re.sub(r"[\s,;]|\band\b", "", rest, flags=re.IGNORECASE):
        raise AnswerError(
            f"{_shorten(text)!r} is not a list of cells; write (query, key) pairs numbered from 1, "
            "e.g. (1,4), (4,1), or type none"
        )
    return frozenset((_position(i, n), _position(j, n)) for i, j in pairs)


def _shorten(text: str, limit: int = 40) -> str:
    """The start of a long answer, so an error message stays one line."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
