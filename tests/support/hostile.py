"""Hostile input for tests/test_hostile_input.py: the corpus, each page's inputs, the checks.

The corpus is chosen per input type:

* :data:`TEXT_CORPUS` — what a text field or a URL parameter can receive (strings):
  non-numbers, empty strings, NaN, ±inf, 1e308, −0, huge and negative integers,
  n = 10⁹, unicode and control characters, 100 kB strings, HTML/script snippets,
  Markdown links, LaTeX, wrong JSON. :data:`ALWAYS_INVALID` names the values no
  numeric, choice or list input of any page may accept.
* :data:`NUMBER_CORPUS` — values a number field's widget state can hold. A browser
  keeps a number field within its bounds; a hand-made WebSocket message does not, and
  Streamlit resets such a value to the field's default before the page runs. NaN and
  ±inf are not here: Streamlit's integer ``number_input`` cannot hold them at all (it
  raises "cannot convert float NaN to integer" before the page runs, and a browser cannot
  send them); they reach the pages through URL parameters and text fields instead.
* :func:`upload_corpus` — scenario files: wrong JSON shapes and types, huge files,
  non-UTF-8 bytes, deep nesting, out-of-range and overflowing numbers, one bad value
  per field of the page's schema.

Which page has which inputs is in :data:`URL_PAGES`, :data:`UPLOAD_PAGES` and
:data:`TEXT_PAGES`; the tests check these against what the pages actually render, so a
page that gains an input fails loudly instead of going unfuzzed.

Every case must pass :func:`assert_case`: no exception, the page still drawn, no user
text rendered as HTML or as a live Markdown link, messages of bounded length, and
the process's peak memory during the run within :data:`MEMORY_BOUND` (see
:class:`PeakMemory`).
"""

from __future__ import annotations

import json
import re
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from streamlit.testing.v1 import AppTest

from relpos.server.links import GUARD_HTML
from relpos.server.page_helpers import script_tag
from relpos.state.codec import MAX_JSON_BYTES, Schema
from relpos.state.export import FORMAT, VERSION
from relpos.text import answers
from relpos.topics.explorer.schema import EXPLORER
from relpos.topics.long_context.schema import LONG_CONTEXT
from relpos.topics.position_effects.schema import POSITION_EFFECTS
from relpos.topics.quiz.schema import QUIZ
from relpos.topics.schemes.schema import SCHEMES
from relpos.topics.training.schema import TRAINING
from relpos.topics.value_side.schema import VALUE_SIDE
from relpos.topics.walkthrough import controls_view
from relpos.topics.walkthrough.schema import WALKTHROUGH
from relpos.ui import presenter
from tests.support.apptest import new_app_test

# ---------------------------------------------------------------------------------------
# The corpus

#: Values a text field or a URL parameter may receive, by name (the name shows in failures).
TEXT_CORPUS: dict[str, str] = {
    "empty": "",
    "spaces": "   ",
    "word": "abc",
    "nan": "nan",
    "NaN": "NaN",
    "inf": "inf",
    "+Infinity": "+Infinity",
    "minus inf": "-inf",
    "1e308": "1e308",
    "minus 1e308": "-1e308",
    "1e309 overflow": "1e309",
    "minus zero": "-0",
    "minus zero float": "-0.0",
    "huge int": "9" * 40,
    "minus huge int": "-" + "9" * 40,
    "2^63": str(2**63),
    "n = 10^9": "1000000000",
    "negative": "-3",
    "fraction": "2.5",
    "comma decimal": "0,5",
    "hex": "0x10",
    "arabic-indic digit": "٣",
    "unicode": "q₁ = ½ → ∞ 😀",
    "control chars": "\x00\x01\x1b[31m\r\n\t",
    "null byte after digit": "1\x00",
    "zero-width space": "1\u200b",
    "rtl override": "\u202eevil",
    "100 kB": "x" * 100_000,
    "100 kB of digits": "1" * 100_000,
    "many commas": "," * 10_000,
    "list of nans": "nan,nan,nan,nan",
    "html": "<b>bold</b><img src=x onerror=alert(1)>",
    "script": "<script>alert('x')</script>",
    "markdown link": "[click](javascript:alert(1))",
    "markdown image": "![x](http://example.invalid/x.png)",
    "latex": r"$\def\x{\x}\x$",
    "streamlit directive": ":red[warning] :material/home:",
    "format string": "{0.__class__}%s%n",
    "path": "../../etc/passwd",
    "json wrong shape": json.dumps({"q": [[1, 2], [3]], "k": "x"}),
    "json wrong type": json.dumps([1, "two", None, True]),
    "json deep": "[" * 5000 + "]" * 5000,
}

#: Corpus entries that no number, choice or list input of any page may accept.
ALWAYS_INVALID = frozenset(TEXT_CORPUS) - {
    "minus zero",  # integer 0 or number 0
    "minus zero float",
    "n = 10^9",  # a valid seed
    "negative",  # a valid number in [-10, 10] or [-2, 2]
    "fraction",
    "comma decimal",  # two numbers, or one with a decimal comma
    "arabic-indic digit",  # Python reads it as 3
}

#: Values a number field's widget state may hold (no NaN/inf: see the module docstring).
NUMBER_CORPUS: dict[str, float | int] = {
    "minus zero": -0.0,
    "zero": 0,
    "minus one": -1,
    "fraction": 2.5,
    "tiny": 5e-324,
    "n = 10^9": 10**9,
    "minus 10^9": -(10**9),
    "2^63": 2**63,
    "1e308": 1e308,
    "minus 1e308": -1e308,
}

#: Largest rise of the process's peak memory during one case.
MEMORY_BOUND = 200 * 2**20
#: Longest line of a message (a message quotes at most an excerpt of the input).
MESSAGE_LINE_BOUND = 400

#: Markup in user text: HTML tags, Markdown links and images, Streamlit directives,
#: LaTeX. Escaped before display (``\\<img``, ``\\]\\(``, ``\\:red\\[``, ``\\$``), none of
#: them may appear verbatim in text that Streamlit renders as Markdown.
MARKUP = re.compile(r"<\s*\w+[^>]*>?|\]\([^)\s]*\)?|:\w+\[|\$[^$]+\$")


# ---------------------------------------------------------------------------------------
# Each page's inputs and oracles


@dataclass(frozen=True)
class UrlInputs:
    """A page's URL parameters and what its own parser accepts.

    ``accepts(param, text)``: the page's parser accepts the value on its own (cross-field
    rules aside). ``marker(param)``: how the message line about that parameter begins.
    """

    params: tuple[str, ...]
    accepts: Callable[[str, str], bool]
    marker: Callable[[str], str]


def _schema_inputs(schema: Schema) -> UrlInputs:
    def accepts(name: str, text: str) -> bool:
        try:
            schema.fields[name].parse(text)
        except ValueError:
            return False
        return True

    def marker(name: str) -> str:
        """A field with a name for the learner is named by it; one without by its parameter."""
        called = schema.fields[name].called
        return f"{called} " if called else f"{name}: expected"

    return UrlInputs(tuple(schema.fields), accepts, marker)


#: url_path -> URL parameters of the page (every page whose state travels in its URL).
URL_PAGES: dict[str, UrlInputs] = {
    "walkthrough": _schema_inputs(WALKTHROUGH),
    "explorer": _schema_inputs(EXPLORER),
    "position_effects": _schema_inputs(POSITION_EFFECTS),
    "value_side": _schema_inputs(VALUE_SIDE),
    "schemes": _schema_inputs(SCHEMES),
    "quiz": _schema_inputs(QUIZ),
    "training": _schema_inputs(TRAINING),
    "long_context": _schema_inputs(LONG_CONTEXT),
}

#: Links that are only wrong as a whole (k > n, too many values, unknown keys …) or that
#: ask for the largest valid sizes: (url_path, query, texts the warning must contain;
#: an empty tuple means the link is valid and no warning may appear).
URL_SPECIAL_CASES: tuple[tuple[str, dict[str, str | list[str]], tuple[str, ...]], ...] = (
    ("explorer", {"n": "4", "k": "10"}, ("k: must be at most n − 1 = 3; got 10. Using 2.",)),
    ("explorer", {"n": "2", "k": "1000000000"}, ("k: expected an integer from 0 to 511",)),
    ("explorer", {"n": "1000000000", "k": "999999999"}, ("n: expected", "k: expected")),
    ("explorer", {"n": "20", "q": "1,2"}, ("q: single values are used only up to n = 16 (here n = 20)",)),
    ("explorer", {"n": "16", "q": "1,2"}, ("q: expected 16 values for n = 16; got 2",)),
    ("explorer", {"k": "17", "n": "40", "a": "0.5"}, ("a: single values are used only up to k = 16",)),
    ("explorer", {"a": ",".join(["0.5"] * 40)}, ("a: expected 1 to 33 comma-separated numbers",)),
    ("explorer", {"q": "1,,2,3"}, ("q: expected",)),
    ("explorer", {"q": "0.5,nan,1,1"}, ("q: expected",)),
    ("explorer", {"q": "0.5,1e308,1,1"}, ("q: expected",)),
    ("explorer", {"n": ["5", "1e9"]}, ("n: expected",)),  # a repeated key: the last one counts
    ("explorer", {"zz": "1", "<script>alert(1)</script>": "x"}, ("Unknown parameters ignored",)),
    ("explorer", {f"key{i}": "1" for i in range(200)}, ("and 194 more",)),
    ("explorer", {"n": "4", "k": "-0", "seed": "-0"}, ()),
    ("explorer", {"n": "512", "k": "511", "d": "2", "preset": "random", "seed": "999999"}, ()),
    ("explorer", {"n": "16", "k": "15", "bias": "scalar", "preset": "locality"}, ()),
    ("position_effects", {"n": "6", "k": "50"}, ("k: must be at most n − 1 = 5; got 50. Using 3.",)),
    ("position_effects", {"dk": "0", "strength": "5.0001", "shared": "-0.1"}, ("dk: expected", "strength: expected")),
    ("position_effects", {"n": "64", "k": "63", "dk": "64", "dmodel": "128", "seed": "999999"}, ()),
    ("position_effects", {"n": "2", "k": "0", "dk": "1", "dmodel": "1", "strength": "0", "shared": "0"}, ()),
    ("position_effects", {"zz": "1"}, ("Unknown parameter ignored",)),
    # trained presets: the largest sizes, the degenerate ones, and a key that is not a preset
    ("position_effects", {"preset": "trained_first", "n": "64", "k": "63", "dk": "64", "dmodel": "128"}, ()),
    ("position_effects", {"preset": "trained_previous", "n": "2", "k": "0", "dk": "1", "strength": "0"}, ()),
    ("position_effects", {"preset": "trained_", "k": "1"}, ("preset: expected",)),
    ("value_side", {"v": "1,2"}, ("values v must be 4 numbers",)),
    ("value_side", {"k": "4", "query": "0"}, ("clipping distance k must be", "query must be")),
    ("value_side", {"k": "3", "query": "4", "variant": "neither"}, ()),
    ("schemes", {"n": "4", "k": "15"}, ("Shaw clipping distance k must be at most n − 1 = 3",)),
    ("schemes", {"heads": "2", "head": "16"}, ("ALiBi head must be at most the number of heads H = 2",)),
    ("schemes", {"n": "16", "k": "15", "heads": "16", "head": "16", "shift": "32", "L": "32"}, ()),
    ("walkthrough", {"k": "3", "a": "1,2"}, ("a: expected 7 values for k = 3", "Using the textbook's values")),
    ("walkthrough", {"k": "0", "a": "1,2,3"}, ("a: expected 1 value for k = 0",)),
    ("walkthrough", {"i": "1000000000", "j": "-0"}, ("i: expected", "j: expected")),
    ("walkthrough", {"q": "1,2,3"}, ("q: expected",)),
    ("walkthrough", {"zz": "1"}, ("Unknown parameter ignored",)),
    ("walkthrough", {"i": "4", "j": "softmax", "k": "3", "presenter": "1", "a": "10,-10,0,-0,1,2,3"}, ()),
    ("walkthrough", {"k": "-0", "a": "-0"}, ()),
    ("quiz", {"seed": str(answers.MAX_SEED + 1)}, ("seed must be a whole number", "(new questions instead)")),
    ("quiz", {"seed": str(answers.MAX_SEED)}, ()),
    ("training", {"L": "3", "k": "17", "steps": "49"}, ("L: expected", "k: expected", "steps: expected")),
    ("training", {"scheme": "ALL", "task": "Two_Back"}, ()),  # choices are read case-insensitively
    ("training", {"task": "first", "scheme": "all", "L": "32", "k": "16", "steps": "1000", "seed": "999999"}, ()),
    ("training", {"task": "two_back", "L": "4", "k": "0", "steps": "55", "seed": "-0"}, ()),
    ("training", {"zz": "1"}, ("Unknown parameter ignored",)),
    # Streamlit itself drops a query string longer than 524288 characters (and logs it):
    # the page opens with its defaults, and cannot know there was a link.
    ("explorer", dict.fromkeys(EXPLORER.fields, "x" * 100_000), ()),
)

#: Streamlit ignores a longer query string altogether (streamlit.runtime.app_session).
STREAMLIT_QUERY_LIMIT = 524_288


@dataclass(frozen=True)
class UploadInputs:
    """A page's scenario upload: the expander that holds it and the state it restores."""

    lazy_key: str  # session key of the (lazy) expander around the uploader
    schema: Schema


#: url_path -> the page's scenario upload.
UPLOAD_PAGES: dict[str, UploadInputs] = {
    "walkthrough": UploadInputs(controls_view.LOAD, WALKTHROUGH),
    "explorer": UploadInputs("explorer:load", EXPLORER),
    "position_effects": UploadInputs("position_effects:load", POSITION_EFFECTS),
}

#: url_path -> number of text fields on the page's first load (all of them are fuzzed).
TEXT_PAGES: dict[str, int] = {
    "walkthrough": 13,  # q₁..q₄, k₁..k₄ and a^K for offsets −2..+2
    "quiz": 5,  # one answer per question
    "overview": 2,  # "Join a class": the code and a nickname
}


# ---------------------------------------------------------------------------------------
# Scenario files


@dataclass(frozen=True)
class Upload:
    """One scenario file: its bytes and texts the error must contain (error None: it must load)."""

    name: str
    data: bytes
    error: str | None
    detail: str = ""


def _document(page: str, state) -> dict:
    return {"format": FORMAT, "version": VERSION, "page": page, "state": state}


def _encode(document) -> bytes:
    return json.dumps(document).encode()


#: Bad values per field kind: (name, value, a text of the error, which starts "<field>: ").
_BAD_VALUES: dict[str, tuple[tuple[str, object, str], ...]] = {
    "int": (
        ("a string", "4", "expected an integer"),
        ("a float", 4.0, "got a number"),
        ("a boolean", True, "got a boolean"),
        ("null", None, "got null"),
        ("a list", [4], "got a list"),
        ("10^10", 10**10, "got 10000000000"),  # above every int field (the largest, a seed, is below 2^32)
        ("negative", -1, "got -1"),
        ("400 digits", 10**400, "expected an integer"),
    ),
    "float": (
        ("a string", "2", "expected a number"),
        ("a boolean", False, "got a boolean"),
        ("null", None, "got null"),
        ("infinite", float("inf"), "expected a number"),
        ("minus 1e308", -1e308, "expected a number"),
        ("400 digits", 10**400, "expected a number"),
    ),
    "choice": (
        ("a number", 3, "expected one of"),
        ("html", "<script>alert(1)</script>", "expected one of"),
        ("empty", "", "expected one of"),
        ("100 kB", "x" * 100_000, "(100000 characters)"),
        ("an object", {"a": 1}, "got an object"),
    ),
    "floats": (
        ("a string", "1,2", "expected a list of numbers"),
        ("mixed", [1, "x", None], "entry 2: expected a number; got a string"),
        ("infinite", [float("inf")], "entry 1: expected a number"),
        ("400 digits", [10**400], "entry 1: expected a number"),
        ("100000 numbers", [0.5] * 100_000, "got 100000"),
        ("empty", [], "got 0"),
        ("nested", [[1]], "entry 1: expected a number; got a list"),
        ("booleans", [True], "entry 1: expected a number; got a boolean"),
    ),
}


def _json_with_infinity(document) -> bytes:
    """JSON whose infinite floats are written as 1e999 (valid JSON; Python reads it as inf)."""
    return json.dumps(document).replace("Infinity", "1e999").encode()


def _cross_field_uploads(page: str, good: dict) -> list[Upload]:
    """Files whose every value is fine alone but not with the others."""
    if page == "walkthrough":  # the table must hold 2k + 1 entries
        return [
            Upload(
                "table too short for k", _encode(_document(page, {**good, "k": 3})), "a: expected 7 values for k = 3"
            ),
            Upload("table for k = 0", _encode(_document(page, {**good, "k": 0})), "a: expected 1 value for k = 0"),
        ]
    return [Upload("k > n", _encode(_document(page, {**good, "n": 4, "k": 10})), "k: must be at most n − 1 = 3")]


def upload_corpus(page: str, schema: Schema) -> list[Upload]:
    """Scenario files for the page: broken envelopes, then one bad value per field."""
    good = schema.to_json(schema.decode({}).state)
    valid = _document(page, good)
    other_page = "position_effects" if page == "explorer" else "explorer"
    cases = [
        Upload("good file", _encode(valid), None),
        Upload("not JSON", b"{not json", "not valid JSON"),
        Upload("empty file", b"", "not valid JSON"),
        Upload("only spaces", b"   \n", "not valid JSON"),
        Upload("binary", bytes(range(256)), "not UTF-8"),
        Upload("UTF-16", json.dumps(valid).encode("utf-16"), "not UTF-8"),
        Upload("latin-1 text", b'{"format": "relpos-scenario", "note": "caf\xe9"}', "not UTF-8"),
        Upload("2 MB", b" " * 2_000_000 + _encode(valid), "the file is too large"),
        Upload("just over the limit", _encode(valid).ljust(MAX_JSON_BYTES + 1), "the file is too large"),
        Upload("deep nesting", b"[" * 200_000 + b"]" * 200_000, "not valid JSON"),
        Upload("5000-digit integer", b'{"n": 1' + b"0" * 5000 + b"}", "not valid JSON"),
        Upload("NaN literal", _encode(valid).replace(b'"state": {', b'"state": {"x": NaN, '), "NaN and Infinity"),
        Upload("a list", b"[]", "not a relpos scenario file"),
        Upload("a string", b'"hello"', "not a relpos scenario file"),
        Upload("a number", b"1e999", "not a relpos scenario file"),
        Upload("null", b"null", "not a relpos scenario file"),
        Upload("empty object", b"{}", "not a relpos scenario file"),
        Upload("wrong format", _encode({**valid, "format": "relpos"}), "not a relpos scenario file"),
        Upload("format as number", _encode({**valid, "format": 1}), "not a relpos scenario file"),
        Upload("version 2", _encode({**valid, "version": 2}), "unsupported scenario version 2"),
        Upload("version as string", _encode({**valid, "version": "1"}), "unsupported scenario version '1'"),
        Upload("no version", _encode({k: v for k, v in valid.items() if k != "version"}), "unsupported scenario"),
        Upload("other page", _encode({**valid, "page": other_page}), "this scenario belongs to the"),
        Upload("html page", _encode({**valid, "page": "<script>alert(1)</script>"}), "belongs to another page"),
        Upload("no page", _encode({k: v for k, v in valid.items() if k != "page"}), "belongs to another page"),
        Upload("no state", _encode({k: v for k, v in valid.items() if k != "state"}), 'the file has no "state"'),
        Upload("state is a list", _encode(_document(page, [1, 2])), "the state must be a JSON object; got a list"),
        Upload("state is a string", _encode(_document(page, "n=4")), "the state must be a JSON object; got a string"),
        Upload("state is null", _encode(_document(page, None)), "the state must be a JSON object; got null"),
        Upload("unknown entry", _encode(_document(page, {**good, "zzz": 1})), "unknown entry 'zzz'"),
        Upload("100 unknown entries", _encode(_document(page, {f"x{i}": i for i in range(100)})), "unknown entry 'x5'"),
        Upload("unicode entry", _encode(_document(page, {"ñ\u202e\x00": 1})), "unknown entry"),
        Upload("html entry", _encode(_document(page, {"<img src=x onerror=alert(1)>": 1})), "unknown entry"),
        Upload("duplicate key, last bad", _encode(valid)[:-2] + b', "k": "x"}}', "k: expected an integer"),
        Upload("computed part ignored", _encode({**valid, "computed": "<script>alert(1)</script>"}), None),
        *_cross_field_uploads(page, good),
    ]
    for name, spec in schema.fields.items():
        for label, value, error in _BAD_VALUES.get(spec.kind, ()):
            if error.startswith("entry"):  # a bad entry in a list of the right length
                value = value + [0.5] * (spec.min_items - len(value))
            document = _document(page, {**good, name: value})
            data = _json_with_infinity(document) if "infinite" in label else _encode(document)
            cases.append(Upload(f"{name} {label}", data, f"{name}: ", error))
    return cases


# ---------------------------------------------------------------------------------------
# Running pages


def open_page(url_path: str, query: dict[str, str | list[str]] | None = None) -> AppTest:
    """One fresh session of app.py on the page, in a single run (url_path = the file's stem)."""
    at = new_app_test(timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.switch_page(f"pages/{url_path}.py")
    return at.run()


def _status_kib(key: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class PeakMemory:
    """How much the process's peak memory rose during a ``with`` block (bytes: ``.rise``).

    On Linux, the kernel's peak resident size (VmHWM) is reset at the start, which costs
    nothing while the block runs; elsewhere tracemalloc traces Python and NumPy
    allocations (slower).
    """

    def __init__(self) -> None:
        self.rise = 0
        self._traced = False
        self._start = 0

    def __enter__(self) -> PeakMemory:
        try:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
                clear.write("5")  # reset VmHWM to the current resident size
            self._start = _status_kib("VmRSS") * 1024
        except (OSError, TypeError):
            self._traced = True
            tracemalloc.start()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._traced:
            self.rise = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        else:
            self.rise = _status_kib("VmHWM") * 1024 - self._start


# ---------------------------------------------------------------------------------------
# Checks


#: The HTML elements the app itself writes, constant text: the link guard (relpos.server.links)
#: and the page helpers (relpos.server.page_helpers).
APP_HTML = frozenset(
    html.strip()  # as Streamlit sends it
    for html in {
        GUARD_HTML,
        script_tag(),
        # the app's own style sheets and its Copy link button: static, no user text
        presenter.ALWAYS_CSS,
        presenter.ALWAYS_CSS + presenter.PRESENTER_CSS,
        presenter.COPY_LINK_HTML,
    }
)


def _walk(node) -> Iterator:
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def elements(at: AppTest) -> list:
    """Every element and block of the rendered page (main area and sidebar)."""
    return list(_walk(at._tree))


def _markdown_bodies(at: AppTest) -> Iterator[tuple[object, str, bool]]:
    """(element, text, rendered as HTML?) of every element whose text Streamlit renders as Markdown or HTML."""
    for element in elements(at):
        proto = getattr(element, "proto", None)
        kind = getattr(element, "type", "")
        if kind == "html":
            if proto.body.strip() in APP_HTML:  # the app's own static scripts: no user text
                continue
            yield element, proto.body, True
        elif kind in ("markdown", "caption", "latex", "title", "header", "subheader"):
            yield element, proto.body, bool(getattr(proto, "allow_html", False))
        elif kind in ("warning", "error", "info", "success", "exception"):
            yield element, getattr(proto, "body", "") or getattr(proto, "message", ""), False


def messages(at: AppTest) -> list[str]:
    """Warnings, errors and infos on the page, Markdown escapes removed."""
    return [alert.value.replace("\\", "") for kind in ("warning", "error", "info") for alert in getattr(at, kind)]


def message_lines(at: AppTest) -> list[str]:
    """Each line of every message, without a leading list bullet."""
    return [line.strip().removeprefix("- ") for text in messages(at) for line in text.splitlines()]


def assert_case(at: AppTest, values: list[str], memory: PeakMemory, case: str) -> None:
    """What every hostile case must satisfy (see the module docstring)."""
    assert not at.exception, f"{case}: {[element.value for element in at.exception]}"
    assert at.title, f"{case}: the page is no longer drawn"
    assert memory.rise < MEMORY_BOUND, f"{case}: peak memory rose by {memory.rise / 2**20:.0f} MiB"
    distinctive = [value for value in values if len(value.strip()) >= 4]
    markup = {token for value in values for token in MARKUP.findall(value[:1000])}
    for element, text, as_html in _markdown_bodies(at):
        for token in markup:
            assert token not in text, f"{case}: user markup {token!r} live in a {element.type}: {text[:200]!r}"
        if as_html:
            for value in distinctive:
                assert value[:200] not in text, f"{case}: user text rendered as HTML in a {element.type}"
    for line in message_lines(at):
        assert len(line) <= MESSAGE_LINE_BOUND, f"{case}: a {len(line)}-character message line: {line[:120]!r}…"
