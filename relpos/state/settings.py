"""Page settings that travel in the URL (lesson links), parsed and checked without Streamlit.

A page declares its settings once (an integer in a range, one of a few choices, or a
fixed-length list of numbers); :func:`read_settings` turns query parameters into
values, replacing anything malformed by the default with a message that says what was
expected. Each setting parses and writes its text through the one codec's field
(:mod:`relpos.state.codec`), so ``?seed=1_000`` means the same on every page. The
messages are plain text that repeats at most a short, printable excerpt of the
offending text; the page escapes them before showing them as Markdown.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from relpos.state.codec import Field, choice_field, float_field, floats_field, int_field, unknown_message
from relpos.text.escape import printable
from relpos.text.numbers import number

__all__ = ["ChoiceSetting", "FloatsSetting", "IntSetting", "encode_settings", "read_settings", "sanitise"]

_MAX_PARAMETER_LENGTH = 400  # longer values are rejected before parsing


#: Fields that accept any number the codec can read: to tell "out of range" from "not a number".
_ANY_INT = int_field(0, -(10**12), 10**12)
_ANY_FLOAT = float_field(0.0, -math.inf, math.inf)


def _quoted_unless_number(text: str, field: Field) -> str:
    """A number the codec reads is shown as typed (``17``), anything else quoted (“abc”)."""
    try:
        field.parse(text)
    except ValueError:
        return f"“{sanitise(text)}”"
    return sanitise(text.strip())


def sanitise(text: str, limit: int = 24) -> str:
    """A short, printable excerpt of user text for an error message: at most `limit` characters.

    Messages are plain text; the page escapes them (``relpos.text.escape``) when it shows them.

    >>> sanitise("<script>alert(1)</script>"), sanitise("a\\x00b")
    ('<script>alert(1)</scrip…', 'a?b')
    """
    text = str(text)
    return printable(text, limit if len(text) <= limit else limit - 1)


@dataclass(frozen=True)
class IntSetting:
    """An integer from `low` to `high` (inclusive)."""

    name: str
    label: str
    default: int
    low: int
    high: int

    def field(self) -> Field:
        """The codec's field: one parsing rule for every page's integers."""
        return int_field(self.default, self.low, self.high)

    def parse(self, text: str) -> int:
        """The integer in `text`, or ValueError saying what was expected.

        >>> IntSetting("k", "clipping distance k", 2, 0, 3).parse("3")
        3
        """
        try:
            return self.field().parse(text)
        except ValueError:
            expected = f"{self.label} must be a whole number from {self.low} to {self.high}"
            raise ValueError(f"{expected}; got {_quoted_unless_number(text, _ANY_INT)}") from None

    def encode(self, value: int) -> str:
        return str(int(value))


@dataclass(frozen=True)
class ChoiceSetting:
    """One of a few fixed strings."""

    name: str
    label: str
    default: str
    choices: tuple[str, ...]

    def field(self) -> Field:
        """The codec's field: one parsing rule for every page's choices."""
        return choice_field(self.default, self.choices)

    def parse(self, text: str) -> str:
        """`text` if it is one of the choices.

        >>> ChoiceSetting("mode", "mode", "a", ("a", "b")).parse("b")
        'b'
        """
        try:
            return self.field().parse(text)
        except ValueError:
            raise ValueError(f"{self.label} must be one of {', '.join(self.choices)}; got “{sanitise(text)}”") from None

    def encode(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class FloatsSetting:
    """A comma-separated list of exactly ``len(default)`` finite numbers in [low, high]."""

    name: str
    label: str
    default: tuple[float, ...]
    low: float
    high: float

    def field(self) -> Field:
        """The codec's field: one parsing rule for every page's lists of numbers."""
        count = len(self.default)
        return floats_field(list(self.default), self.low, self.high, count, min_items=count)

    def parse(self, text: str) -> tuple[float, ...]:
        """The numbers in `text`.

        >>> FloatsSetting("v", "values v", (0.0, 0.0), -2, 2).parse("0.5,-1")
        (0.5, -1.0)
        """
        count = len(self.default)
        low, high = (number(bound, 6, trim=0) for bound in (self.low, self.high))
        expected = f"{self.label} must be {count} numbers from {low} to {high}, separated by commas"
        parts = text.split(",")
        if len(parts) != count:
            raise ValueError(f"{expected}; got {len(parts)} entr{'y' if len(parts) == 1 else 'ies'}")
        for place, part in enumerate(parts, 1):  # the first unusable entry, named by its place
            try:
                _ANY_FLOAT.parse(part)
            except ValueError:
                raise ValueError(f"{expected}; entry {place}: “{sanitise(part.strip())}” is not a number") from None
            if not self.low <= _ANY_FLOAT.parse(part) <= self.high:
                raise ValueError(f"{expected}; entry {place}: {sanitise(part.strip())} is outside {low} to {high}")
        return tuple(self.field().parse(text))

    def encode(self, value: Sequence[float]) -> str:
        return self.field().format([float(v) for v in value])


Setting = IntSetting | ChoiceSetting | FloatsSetting


def read_settings(settings: Sequence[Setting], params: Mapping[str, str]) -> tuple[dict, list[str]]:
    """Values for `settings` from query parameters, defaults where missing or malformed.

    Parameters
    ----------
    settings : sequence of settings
    params : mapping of str to str
        The URL's query parameters; keys that name no setting are ignored (and reported).

    Returns
    -------
    values : dict
        Setting name to value.
    problems : list of str
        One message per malformed parameter (its default was used instead), and one
        naming the unknown parameters, if any.

    Examples
    --------
    >>> values, problems = read_settings([IntSetting("n", "n", 8, 2, 16)], {"n": "99"})
    >>> values, problems
    ({'n': 8}, ['n must be a whole number from 2 to 16; got 99 (kept 8)'])
    """
    values, problems = {}, []
    unknown = [name for name in params if name not in {setting.name for setting in settings}]
    for setting in settings:
        values[setting.name] = setting.default
        if setting.name not in params:
            continue
        text = str(params[setting.name])
        try:
            if len(text) > _MAX_PARAMETER_LENGTH:
                raise ValueError(f"{setting.label} is too long ({len(text)} characters)")
            values[setting.name] = setting.parse(text)
        except ValueError as error:
            default = setting.encode(setting.default)
            problems.append(f"{error} (kept {default})")
    if unknown:
        problems.append(unknown_message(unknown, quote=lambda name: f"“{sanitise(name)}”"))
    return values, problems


def encode_settings(settings: Sequence[Setting], values: Mapping) -> dict[str, str]:
    """Query parameters for `values`.

    >>> encode_settings([FloatsSetting("v", "v", (0.0,), -1, 1)], {"v": (0.25,)})
    {'v': '0.25'}
    """
    return {setting.name: setting.encode(values[setting.name]) for setting in settings}
