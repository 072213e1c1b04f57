"""One entry of a page's state: a :class:`Field` spec and its constructors.

A field knows its kind (integer, number, on/off, choice, list of numbers), its default and
allowed values; it reads its URL text leniently (:meth:`Field.parse`, with the message for a
refused value, :meth:`Field.problem`), writes it back (:meth:`Field.format`) and checks a
typed JSON value strictly (:meth:`Field.check`). A :class:`relpos.state.codec.Schema` names
a page's fields and does the rest.

Build fields with :func:`int_field`, :func:`float_field`, :func:`bool_field`,
:func:`choice_field` and :func:`floats_field`. The helpers that render untrusted input for a
message (:func:`shown`, :func:`quoted`, :func:`excerpt`, :func:`type_name`) live here too, so
the schema's messages read the same as the fields'.

Pure Python, no Streamlit, no NumPy. Messages are plain text; the UI escapes them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from relpos.text.escape import printable
from relpos.text.numbers import number

__all__ = [
    "MAX_PARAM_CHARS",
    "Field",
    "bool_field",
    "choice_field",
    "excerpt",
    "float_field",
    "floats_field",
    "int_field",
    "quoted",
    "shown",
    "type_name",
]

#: A query parameter longer than this is refused before it is parsed.
MAX_PARAM_CHARS = 20_000

_INTEGER = re.compile(r"[+-]?\d{1,12}")
#: What a chat or mail program glues to the end of a pasted link ("…&a=0.1,0.2." or "(…)"):
#: stripped from a value before it is parsed, so the link still opens its whole view.
_TRAILING_PUNCTUATION = re.compile(r"[.,;:!?)\]}>'\"]+$")
_DECIMAL = re.compile(r"[+-]?(?:\d{1,20}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][+-]?\d{1,4})?")
#: A value longer than this is called "too long" in a labelled field's message, not quoted.
_LONG_TEXT = 400
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def shown(value: object, limit: int = 40) -> str:
    """A short, printable rendering of untrusted input for a message.

    Control and other non-printable characters become ``?`` and long values are cut,
    so a 100 kB or binary parameter cannot flood or garble the page.

    >>> shown("1e9")
    "'1e9'"
    >>> shown("a\\x00b" + "x" * 100)
    "'a?bxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (103 characters)"
    """
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        return f"'{printable(text, limit)}' ({len(text)} characters)"
    return f"'{printable(text)}'"


def excerpt(text: str, limit: int = 24) -> str:
    """A short, printable excerpt of untrusted text for a labelled field's message.

    >>> excerpt("<script>alert(1)</script>"), excerpt("a\\x00b")
    ('<script>alert(1)</scrip…', 'a?b')
    """
    return printable(text, limit if len(text) <= limit else limit - 1)


def quoted(text: str) -> str:
    return f"“{excerpt(text)}”"


def _number_text(value: float) -> str:
    """Shortest exact-enough text for a number: 0.5, -0.3, 2, 1e-07."""
    if value == 0:
        return "0"
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _range_text(low, high) -> str:
    return f"from {_number_text(low)} to {_number_text(high)}"


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_finite(value: int | float) -> bool:
    """Finite, without converting a huge JSON integer to float (which raises OverflowError)."""
    return isinstance(value, int) or math.isfinite(value)


def _number_shown(value: int | float, limit: int = 24) -> str:
    """A number from untrusted JSON for a message: whole when short, else its start and length.

    >>> _number_shown(10**30)
    '100000000000… (31 digits)'
    """
    text = repr(value)
    return text if len(text) <= limit else f"{text[:12]}… ({len(text)} digits)"


@dataclass(frozen=True)
class Field:
    """Spec of one state entry: its kind, default and allowed values.

    Use the constructors :func:`int_field`, :func:`float_field`, :func:`bool_field`,
    :func:`choice_field` and :func:`floats_field`. A default of ``None`` means "not
    set": the entry is then left out of the URL.

    ``label`` and ``step`` are what the field's widget shows and steps by; ``noun`` is
    what messages call the field (the label when not given); ``instead`` is what a message
    says the page uses for a refused value when the field has no default (the quiz's
    "new questions").
    """

    kind: str  # "int" | "float" | "bool" | "choice" | "floats"
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    max_items: int = 0
    min_items: int = 1
    label: str = ""
    noun: str = ""
    step: float | None = None
    instead: str = ""

    @property
    def called(self) -> str:
        """What a message calls the field ("" when it has no name for the learner)."""
        return self.noun or self.label

    def expected(self) -> str:
        """What a valid value looks like, for messages."""
        if self.kind == "int":
            return f"an integer {_range_text(self.low, self.high)}"
        if self.kind == "float":
            return f"a number {_range_text(self.low, self.high)}"
        if self.kind == "bool":
            return "on or off (1 or 0)"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        return f"{self._count_text()} comma-separated numbers {_range_text(self.low, self.high)}"

    def _count_text(self) -> str:
        """How many items a list field holds: ``1 to 16`` or ``exactly 4``."""
        if self.min_items == self.max_items:
            return f"exactly {self.max_items}"
        return f"{self.min_items} to {self.max_items}"

    # --- URL text -> value -------------------------------------------------------
    def _parse_number(self, text: str) -> float:
        text = text.strip().replace("−", "-")
        if not _DECIMAL.fullmatch(text):
            raise ValueError
        number = float(text)
        if not math.isfinite(number) or not self.low <= number <= self.high:
            raise ValueError
        return number + 0.0  # no -0.0

    def parse(self, text: str) -> Any:
        """Value of a URL parameter; ValueError when it is not :meth:`expected`."""
        if len(text) > MAX_PARAM_CHARS:
            raise ValueError
        text = _TRAILING_PUNCTUATION.sub("", text)
        if self.kind == "int":
            stripped = text.strip()
            if not _INTEGER.fullmatch(stripped) or not self.low <= int(stripped) <= self.high:
                raise ValueError
            return int(stripped)
        if self.kind == "float":
            return self._parse_number(text)
        if self.kind == "bool":
            word = text.strip().lower()
            if word not in _TRUE | _FALSE:
                raise ValueError
            return word in _TRUE
        if self.kind == "choice":
            word = text.strip()
            if word in self.choices:
                return word
            if word.lower() not in self.choices:
                raise ValueError
            return word.lower()
        items = text.split(",")
        if not self.min_items <= len(items) <= self.max_items:
            raise ValueError
        return [self._parse_number(item) for item in items]

    def problem(self, name: str, text: str) -> str:
        """The message for URL text `text` of parameter `name` that :meth:`parse` refused.

        >>> int_field(8, 4, 16).problem("n", "99")
        "n: expected an integer from 4 to 16; got '99'. Using the default, 8."
        >>> int_field(8, 4, 16, label="sequence length n").problem("n", "99")
        'sequence length n must be a whole number from 4 to 16; got 99 (kept 8)'
        >>> int_field(None, 0, 9, noun="seed", instead="new questions").problem("seed", "x")
        'seed must be a whole number from 0 to 9; got “x” (new questions instead)'
        """
        if not self.called:
            fallback = "Using the default" + (f", {self.format(self.default)}." if self.default is not None else ".")
            return f"{name}: expected {self.expected()}; got {shown(text)}. {fallback}"
        if self.default is not None:
            return f"{self._sentence(text)} (kept {self.format(self.default)})"
        return self._sentence(text) + (f" ({self.instead} instead)" if self.instead else "")

    def _sentence(self, text: str) -> str:
        """What was wrong with `text`, naming the field as the learner sees it."""
        if len(text) > _LONG_TEXT:
            return f"{self.called} is too long ({len(text)} characters)"
        low, high = (number(bound, 6, trim=0) for bound in (self.low, self.high)) if self.low is not None else ("", "")
        if self.kind == "int":
            return f"{self.called} must be a whole number from {low} to {high}; got {_as_typed(text, _ANY_INT)}"
        if self.kind == "float":
            return f"{self.called} must be a number from {low} to {high}; got {_as_typed(text, _ANY_FLOAT)}"
        if self.kind == "bool":
            return f"{self.called} must be on or off (1 or 0); got {quoted(text)}"
        if self.kind == "choice":
            return f"{self.called} must be one of {', '.join(self.choices)}; got {quoted(text)}"
        count = self.max_items if self.min_items == self.max_items else f"{self.min_items} to {self.max_items}"
        expected = f"{self.called} must be {count} numbers from {low} to {high}, separated by commas"
        parts = _TRAILING_PUNCTUATION.sub("", text).split(",")
        if not self.min_items <= len(parts) <= self.max_items:
            return f"{expected}; got {len(parts)} entr{'y' if len(parts) == 1 else 'ies'}"
        for place, part in enumerate(parts, 1):  # the first unusable entry, named by its place
            try:
                _ANY_FLOAT.parse(part)
            except ValueError:
                return f"{expected}; entry {place}: {quoted(part.strip())} is not a number"
        for place, part in enumerate(parts, 1):
            if not self._in_range(part):
                return f"{expected}; entry {place}: {excerpt(part.strip())} is outside {low} to {high}"
        return f"{expected}; got {excerpt(text)}"

    def _in_range(self, text: str) -> bool:
        try:
            self._parse_number(text)
        except ValueError:
            return False
        return True

    # --- value -> URL text -------------------------------------------------------
    def format(self, value: Any) -> str:
        """URL text of a valid value (the inverse of :meth:`parse`)."""
        if self.kind == "bool":
            return "1" if value else "0"
        if self.kind == "floats":
            return ",".join(_number_text(item) for item in value)
        if self.kind == "float":
            return _number_text(value)
        return str(value)

    # --- typed (JSON) value -> value ---------------------------------------------
    def check(self, value: Any) -> Any:
        """A typed value (from JSON) if valid; ValueError saying what was expected."""
        if self.kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"expected {self.expected()}; got {type_name(value)}")
            if not self.low <= value <= self.high:
                raise ValueError(f"expected {self.expected()}; got {_number_shown(value)}")
            return value
        if self.kind == "float":
            return self._check_number(value)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"expected true or false; got {type_name(value)}")
            return value
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                shown_value = shown(value) if isinstance(value, str) else type_name(value)
                raise ValueError(f"expected {self.expected()}; got {shown_value}")
            return value
        if not isinstance(value, list):
            raise ValueError(f"expected a list of numbers; got {type_name(value)}")
        if not self.min_items <= len(value) <= self.max_items:
            raise ValueError(f"expected {self._count_text()} numbers; got {len(value)}")
        return [self._check_number(item, position) for position, item in enumerate(value)]

    def _check_number(self, value: Any, position: int | None = None) -> float:
        where = "" if position is None else f"entry {position + 1}: "
        if not _is_number(value):
            raise ValueError(f"{where}expected a number; got {type_name(value)}")
        if not _is_finite(value) or not self.low <= value <= self.high:
            raise ValueError(f"{where}expected a number {_range_text(self.low, self.high)}; got {_number_shown(value)}")
        return float(value) + 0.0


def type_name(value: Any) -> str:
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }
    if value is None:
        return "null"
    return names.get(type(value), type(value).__name__)


def int_field(
    default: int | None, low: int, high: int, *, label: str = "", noun: str = "", step: int = 1, instead: str = ""
) -> Field:
    """An integer in ``[low, high]``."""
    return Field("int", default, low, high, label=label, noun=noun, step=step, instead=instead)


def float_field(
    default: float | None, low: float, high: float, *, label: str = "", noun: str = "", step: float | None = None
) -> Field:
    """A finite number in ``[low, high]``."""
    return Field("float", default, low, high, label=label, noun=noun, step=step)


def bool_field(default: bool, *, label: str = "", noun: str = "") -> Field:
    """On or off (``1``/``0`` in the URL, ``true``/``false`` in JSON)."""
    return Field("bool", default, label=label, noun=noun)


def choice_field(default: str, choices: Iterable[str], *, label: str = "", noun: str = "") -> Field:
    """One of a fixed set of lowercase words."""
    options = tuple(choices)
    if default not in options:
        raise ValueError(f"default must be one of {options}; got {default!r}")
    return Field("choice", default, choices=options, label=label, noun=noun)


def floats_field(
    default: list[float] | None,
    low: float,
    high: float,
    max_items: int,
    *,
    min_items: int = 1,
    noun: str = "",
    step: float | None = None,
) -> Field:
    """A list of min_items .. max_items finite numbers in ``[low, high]`` (comma-separated in the URL).

    Each entry has a widget of its own, labelled by the page; `noun` names the whole list
    in messages.

    >>> floats_field(None, -1, 1, 4, min_items=4).expected()
    'exactly 4 comma-separated numbers from -1 to 1'
    """
    if not 1 <= min_items <= max_items:
        raise ValueError(f"need 1 <= min_items <= max_items; got {min_items} and {max_items}")
    return Field("floats", default, low, high, max_items=max_items, min_items=min_items, noun=noun, step=step)


#: Fields that read any number the codec can: to tell "out of range" from "not a number".
_ANY_INT = int_field(0, -(10**12), 10**12)
_ANY_FLOAT = float_field(0.0, -math.inf, math.inf)


def _as_typed(text: str, readable: Field) -> str:
    """Text the codec reads as a number is shown as typed (``17``), anything else quoted (“abc”)."""
    try:
        readable.parse(text)
    except ValueError:
        return quoted(text)
    return excerpt(text.strip())
