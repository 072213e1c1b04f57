"""Lesson links and scenario files: a validated codec for a page's state.

A page describes its state once, as a :class:`Schema` of named :class:`Field` specs
(type, range, default). The schema then

* encodes a state dict as URL query parameters (``n=4&q=1,0.5,0.8,0.3``) and decodes
  them leniently: a malformed, out-of-range or hostile value is replaced by the field's
  default and reported in a message, an unknown key is reported and ignored — decoding
  never raises;
* converts the state to and from a typed JSON object strictly: any wrong type, range or
  shape raises :class:`StateError` listing every problem, so an upload either restores
  exactly or changes nothing.

Cross-field rules (``k < n``, one value per token...) are a page's ``reconcile``
function: ``reconcile(state) -> (fixed_state, problems)``. A bound that depends on other
fields (k at most n − 1) is the schema's ``limits(state) -> {name: (low, high)}``, so the
widget that edits the field reads the same bound the link is checked against.

A field may carry what its widget shows (``label``, ``step``) and what a message calls it
(``noun``, the label by default), so a page declares each setting once and draws its widget
from the field. A field that has a name for the learner is named by it in messages, in a
sentence ("sequence length n must be a whole number from 4 to 16; got 99 (kept 8)"); one
without is named by its URL parameter ("n: expected an integer from 2 to 16; got '99'").

Pure Python, no Streamlit, no NumPy: the pages' UI glue lives in :mod:`relpos.ui.url_state`.
Messages are plain text; the UI escapes them before display.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from relpos.text.escape import printable
from relpos.text.numbers import number

__all__ = [
    "MAX_PARAM_CHARS",
    "Decoded",
    "Field",
    "Schema",
    "StateError",
    "bool_field",
    "choice_field",
    "float_field",
    "floats_field",
    "int_field",
    "read_json",
    "shown",
]

#: A query parameter longer than this is refused before it is parsed.
MAX_PARAM_CHARS = 20_000
#: Longest JSON text read (bytes); larger uploads are refused unread.
MAX_JSON_BYTES = 1_000_000
#: How many unknown keys a message names before summarising the rest.
MAX_NAMED = 6

_INTEGER = re.compile(r"[+-]?\d{1,12}")
#: What a chat or mail program glues to the end of a pasted link ("…&a=0.1,0.2." or "(…)"):
#: stripped from a value before it is parsed, so the link still opens its whole view.
_TRAILING_PUNCTUATION = re.compile(r"[.,;:!?)\]}>'\"]+$")
_DECIMAL = re.compile(r"[+-]?(?:\d{1,20}(?:\.\d{0,20})?|\.\d{1,20})(?:[eE][+-]?\d{1,4})?")
#: A value longer than this is called "too long" in a labelled field's message, not quoted.
_LONG_TEXT = 400
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}

Reconcile = Callable[[dict], tuple[dict, list[str]]]


class StateError(ValueError):
    """A scenario could not be loaded; ``problems`` lists every reason."""

    def __init__(self, problems: Sequence[str]):
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))


def unknown_message(names: Sequence[str], quote: Callable[[str], str] | None = None) -> str:
    """The message for URL parameters a page does not know: the first :data:`MAX_NAMED`
    by name (each through `quote`, default :func:`shown`), then a count.

    >>> unknown_message(["zz"])
    "Unknown parameter ignored: 'zz'."
    >>> unknown_message([f"x{i}" for i in range(8)])
    "Unknown parameters ignored: 'x0', 'x1', 'x2', 'x3', 'x4', 'x5' and 2 more."
    """
    quote = quote or shown
    named = ", ".join(quote(name) for name in names[:MAX_NAMED])
    more = f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else ""
    return f"Unknown parameter{'s' if len(names) > 1 else ''} ignored: {named}{more}."


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


def _excerpt(text: str, limit: int = 24) -> str:
    """A short, printable excerpt of untrusted text for a labelled field's message.

    >>> _excerpt("<script>alert(1)</script>"), _excerpt("a\\x00b")
    ('<script>alert(1)</scrip…', 'a?b')
    """
    return printable(text, limit if len(text) <= limit else limit - 1)


def _quoted(text: str) -> str:
    return f"“{_excerpt(text)}”"


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
            return f"{self.called} must be on or off (1 or 0); got {_quoted(text)}"
        if self.kind == "choice":
            return f"{self.called} must be one of {', '.join(self.choices)}; got {_quoted(text)}"
        count = self.max_items if self.min_items == self.max_items else f"{self.min_items} to {self.max_items}"
        expected = f"{self.called} must be {count} numbers from {low} to {high}, separated by commas"
        parts = _TRAILING_PUNCTUATION.sub("", text).split(",")
        if not self.min_items <= len(parts) <= self.max_items:
            return f"{expected}; got {len(parts)} entr{'y' if len(parts) == 1 else 'ies'}"
        for place, part in enumerate(parts, 1):  # the first unusable entry, named by its place
            try:
                _ANY_FLOAT.parse(part)
            except ValueError:
                return f"{expected}; entry {place}: {_quoted(part.strip())} is not a number"
        for place, part in enumerate(parts, 1):
            if not self._in_range(part):
                return f"{expected}; entry {place}: {_excerpt(part.strip())} is outside {low} to {high}"
        return f"{expected}; got {_excerpt(text)}"

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
                raise ValueError(f"expected {self.expected()}; got {_type_name(value)}")
            if not self.low <= value <= self.high:
                raise ValueError(f"expected {self.expected()}; got {_number_shown(value)}")
            return value
        if self.kind == "float":
            return self._check_number(value)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"expected true or false; got {_type_name(value)}")
            return value
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                shown_value = shown(value) if isinstance(value, str) else _type_name(value)
                raise ValueError(f"expected {self.expected()}; got {shown_value}")
            return value
        if not isinstance(value, list):
            raise ValueError(f"expected a list of numbers; got {_type_name(value)}")
        if not self.min_items <= len(value) <= self.max_items:
            raise ValueError(f"expected {self._count_text()} numbers; got {len(value)}")
        return [self._check_number(item, position) for position, item in enumerate(value)]

    def _check_number(self, value: Any, position: int | None = None) -> float:
        where = "" if position is None else f"entry {position + 1}: "
        if not _is_number(value):
            raise ValueError(f"{where}expected a number; got {_type_name(value)}")
        if not _is_finite(value) or not self.low <= value <= self.high:
            raise ValueError(f"{where}expected a number {_range_text(self.low, self.high)}; got {_number_shown(value)}")
        return float(value) + 0.0


def _type_name(value: Any) -> str:
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
        return _quoted(text)
    return _excerpt(text.strip())


@dataclass(frozen=True)
class Decoded:
    """Result of decoding URL parameters: a complete state and what was wrong."""

    state: dict
    problems: tuple[str, ...] = ()


def _no_reconcile(state: dict) -> tuple[dict, list[str]]:
    return state, []


def _no_limits(state: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    return {}


@dataclass(frozen=True)
class Schema:
    """A page's state: named fields plus an optional cross-field ``reconcile``.

    Examples
    --------
    >>> schema = Schema({"n": int_field(4, 2, 16), "q": floats_field(None, -2, 2, 16)})
    >>> schema.encode({"n": 3, "q": [1.0, -0.5, 0.25]})
    {'n': '3', 'q': '1,-0.5,0.25'}
    >>> decoded = schema.decode({"n": "1e9", "zz": "1"})
    >>> decoded.state
    {'n': 4, 'q': None}
    >>> decoded.problems
    ("n: expected an integer from 2 to 16; got '1e9'. Using the default, 4.", "Unknown parameter ignored: 'zz'.")
    """

    fields: Mapping[str, Field]
    reconcile: Reconcile = field(default=_no_reconcile)
    limits: Callable[[Mapping[str, Any]], Mapping[str, tuple[float, float]]] = field(default=_no_limits)

    def bounds(self, name: str, state: Mapping[str, Any]) -> tuple[float, float]:
        """The range field `name` may take in `state`: its own, narrowed by :attr:`limits`.

        >>> schema = Schema({"n": int_field(4, 2, 8), "k": int_field(1, 0, 7)}, limits=lambda s: {"k": (0, s["n"] - 1)})
        >>> schema.bounds("n", {"n": 4, "k": 1}), schema.bounds("k", {"n": 4, "k": 1})
        ((2, 8), (0, 3))
        """
        spec = self.fields[name]
        low, high = self.limits(state).get(name, (spec.low, spec.high))
        return max(low, spec.low), min(high, spec.high)

    def _quote(self, name: str) -> str:
        """An unknown parameter's name in a message, quoted as the schema's fields are named."""
        return _quoted(name) if any(spec.called for spec in self.fields.values()) else shown(name)

    def defaults(self) -> dict:
        """Every field at its default (lists copied)."""
        return {
            name: (list(spec.default) if isinstance(spec.default, list) else spec.default)
            for name, spec in self.fields.items()
        }

    # --- URL ---------------------------------------------------------------------
    def encode(self, state: Mapping[str, Any]) -> dict[str, str]:
        """URL parameters for `state`; entries that are None are left out."""
        return {name: spec.format(state[name]) for name, spec in self.fields.items() if state.get(name) is not None}

    def decode(self, params: Mapping[str, str | Sequence[str]]) -> Decoded:
        """State from URL parameters. Never raises: bad values fall back to defaults.

        Parameters
        ----------
        params : mapping of str to str or list of str
            ``st.query_params.to_dict()`` or a parsed query string; for a repeated
            key the last value counts (as in Streamlit).
        """
        state = self.defaults()
        problems: list[str] = []
        unknown: list[str] = []
        for name, raw in params.items():
            text = raw if isinstance(raw, str) else (list(raw)[-1] if len(raw) else "")
            spec = self.fields.get(name)
            if spec is None:
                unknown.append(name)
                continue
            try:
                state[name] = spec.parse(text)
            except ValueError:
                problems.append(spec.problem(name, text))
        if unknown:
            problems.append(unknown_message(unknown, self._quote))
        state, cross = self.reconcile(state)
        return Decoded(state, tuple(problems + cross))

    # --- JSON --------------------------------------------------------------------
    def to_json(self, state: Mapping[str, Any]) -> dict:
        """Typed JSON object of `state` (None entries left out)."""
        return {name: state[name] for name in self.fields if state.get(name) is not None}

    def from_json(self, obj: Any) -> dict:
        """State from a typed JSON object; StateError listing every problem if invalid.

        Missing entries take their defaults; unknown entries are an error (a typo
        would otherwise be silently ignored).
        """
        if not isinstance(obj, dict):
            raise StateError([f"the state must be a JSON object; got {_type_name(obj)}"])
        state = self.defaults()
        problems = [f"unknown entry {shown(name)}" for name in obj if name not in self.fields][:MAX_NAMED]
        for name, spec in self.fields.items():
            if name not in obj:
                continue
            try:
                state[name] = spec.check(obj[name])
            except ValueError as error:
                problems.append(f"{name}: {error}")
        if problems:
            raise StateError(problems)
        state, cross = self.reconcile(state)
        if cross:
            raise StateError(cross)
        return state


def read_json(data: bytes | str) -> Any:
    """Parse untrusted JSON text; StateError (never another exception) if it is not JSON.

    Rejects more than :data:`MAX_JSON_BYTES`, NaN/Infinity literals and nesting deep
    enough to exhaust the parser.

    >>> read_json('{"n": 4}')
    {'n': 4}
    >>> read_json('{"n": NaN}')
    Traceback (most recent call last):
    ...
    relpos.state.codec.StateError: not valid JSON: NaN and Infinity are not allowed
    """
    if len(data) > MAX_JSON_BYTES:
        raise StateError([f"the file is too large: {len(data)} bytes; a scenario is at most {MAX_JSON_BYTES} bytes"])
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise StateError(["the file is not UTF-8 text; expected a JSON scenario file"]) from None

    def refuse_constant(name: str):
        raise ValueError("NaN and Infinity are not allowed")

    try:
        return json.loads(data, parse_constant=refuse_constant)
    except RecursionError:
        raise StateError(["not valid JSON: nested too deeply"]) from None
    except ValueError as error:  # JSONDecodeError is a ValueError
        raise StateError([f"not valid JSON: {error}"]) from None
