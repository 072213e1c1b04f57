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

The fields and their constructors (``int_field``, ``floats_field`` …) are
:mod:`relpos.state.field`, re-exported here. A field may carry what its widget shows
(``label``, ``step``) and what a message calls it (``noun``, the label by default), so a page
declares each setting once and draws its widget from the field. A field that has a name for
the learner is named by it in messages, in a sentence ("sequence length n must be a whole
number from 4 to 16; got 99 (kept 8)"); one without is named by its URL parameter
("n: expected an integer from 2 to 16; got '99'").

Pure Python, no Streamlit, no NumPy: the pages' UI glue lives in :mod:`relpos.ui.url_state`.
Messages are plain text; the UI escapes them before display.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from relpos.state.field import (
    MAX_PARAM_CHARS,
    Field,
    bool_field,
    choice_field,
    float_field,
    floats_field,
    int_field,
    quoted,
    shown,
    type_name,
)

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

#: Longest JSON text read (bytes); larger uploads are refused unread.
MAX_JSON_BYTES = 1_000_000
#: How many unknown keys a message names before summarising the rest.
MAX_NAMED = 6

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
        return quoted(name) if any(spec.called for spec in self.fields.values()) else shown(name)

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
            raise StateError([f"the state must be a JSON object; got {type_name(obj)}"])
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
