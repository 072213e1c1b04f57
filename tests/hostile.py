"""Hostile input for the fuzz tests: a starter corpus and the per-page input discovery.

The corpus is a starting point (issue 6 asks for ≥ 200 cases once the pages with inputs
are merged); every value is a string, as text fields and URL parameters deliver them.
"""

from __future__ import annotations

import json
import math

#: Values a text field or a URL parameter may receive, with a name for the test id.
TEXT_CORPUS: dict[str, str] = {
    "empty": "",
    "spaces": "   ",
    "word": "abc",
    "nan": "nan",
    "NaN": "NaN",
    "inf": "inf",
    "minus inf": "-inf",
    "1e308": "1e308",
    "1e309 overflow": "1e309",
    "minus zero": "-0",
    "huge int": "9" * 40,
    "minus huge int": "-" + "9" * 40,
    "n = 10^9": "1000000000",
    "negative": "-3",
    "fraction": "2.5",
    "comma decimal": "0,5",
    "unicode": "q₁ = ½ → ∞ 😀",
    "control chars": "\x00\x01\x1b[31m\r\n\t",
    "rtl override": "\u202eevil",
    "100 kB": "x" * 100_000,
    "html": "<b>bold</b><img src=x onerror=alert(1)>",
    "script": "<script>alert('x')</script>",
    "markdown link": "[click](javascript:alert(1))",
    "latex": r"\def\x{\x}\x",
    "json wrong shape": json.dumps({"q": [[1, 2], [3]], "k": "x"}),
    "json wrong type": json.dumps([1, "two", None, True]),
    "json deep": "[" * 5000 + "]" * 5000,
}

#: Number fields are clamped by the browser; these reach them anyway (URLs, edited state).
NUMBER_CORPUS: dict[str, float] = {
    "minus zero": -0.0,
    "tiny": 5e-324,
    "1e308": 1e308,
    "minus 1e308": -1e308,
    "2^53": float(2**53),
    "nan": math.nan,
    "inf": math.inf,
}

#: Substrings that would mean user text reached the page as live HTML.
HTML_MARKERS = ("<script", "onerror=", "<img", "javascript:")


def discovered_inputs(at) -> dict[str, list]:
    """The page's fuzzable inputs in a rendered AppTest: text/number fields and URL keys."""
    return {
        "text_input": list(at.text_input) + list(at.text_area),
        "number_input": list(at.number_input),
        "query_params": sorted(at.query_params),
    }
