"""What a live class accepts from the people in it: nicknames, prompts, stops and lessons.

Each ``validate_*`` returns the value as stored, or raises
:class:`~relpos.classroom.errors.InputError` saying what was wrong and what is allowed.
A nickname is letters of any script a reader can see (:func:`validate_nickname`); two
students never share one (:func:`distinct_nickname`).
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from relpos.classroom.errors import InputError
from relpos.classroom.model import MAX_NICKNAME, MAX_PROMPT, MAX_STATE, MAX_STEP, Pace

__all__ = [
    "distinct_nickname",
    "nickname_key",
    "plain_text",
    "shown",
    "validate_lesson",
    "validate_nickname",
    "validate_pace",
    "validate_prompt",
]

_NICKNAME_PUNCTUATION = frozenset(" -_.'")
_STEP = re.compile(r"[A-Za-z0-9_.:-]*")
_LESSON = re.compile(r"[a-z][a-z0-9_-]{0,39}")


def shown(text: str, limit: int = 24) -> str:
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

    Letters of any script, digits, spaces and ``- _ . '``, at most :data:`~relpos.classroom.model.MAX_NICKNAME`
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


def plain_text(text, what: str, limit: int) -> str:
    if not isinstance(text, str):
        raise InputError(f"The {what} must be text.")
    text = " ".join(text.split())
    if not text or len(text) > limit:
        raise InputError(f"The {what} must have 1 to {limit} characters; it has {len(text):,}.")
    if not text.isprintable():
        raise InputError(f"The {what} may not contain control characters.")
    return text


def validate_prompt(text) -> str:
    """A question's prompt: plain printable text, 1 to :data:`~relpos.classroom.model.MAX_PROMPT` characters."""
    return plain_text(text, "question", MAX_PROMPT)


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
