"""The one number formatter and the one escaper (relpos.text.numbers, relpos.text.escape)."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relpos.text.escape import escape_markdown, printable
from relpos.text.numbers import (
    MINUS,
    number,
    offset,
    offset_range,
    offset_subscript,
    scientific,
    subscript,
    tex_number,
    tex_offset,
)

#: Any finite float, from subnormal to huge, the zeros of both signs included.
floats = st.floats(allow_nan=False, allow_infinity=False)
decimals = st.integers(min_value=0, max_value=8)
trims = st.none() | st.integers(min_value=0, max_value=8)
ROOT = Path(__file__).resolve().parent.parent
SIGNED_ZERO = re.compile(r"[−+-]0(\.0*)?$")


def _parsed(text: str) -> float:
    return float(text.replace(MINUS, "-"))


class TestNumber:
    @given(floats, decimals, st.booleans(), trims)
    def test_never_a_signed_zero_and_never_a_hyphen(self, value, places, sign, trim):
        text = number(value, places, sign=sign, trim=trim)
        assert not SIGNED_ZERO.match(text), text
        assert "-" not in text
        assert text.count(MINUS) <= 1 and not text.rstrip("0123456789.").lstrip("+" + MINUS)

    @given(floats, decimals, st.booleans(), trims)
    def test_parses_back_to_the_rounded_value(self, value, places, sign, trim):
        text = number(value, places, sign=sign, trim=trim)
        assert _parsed(text) == round(value, places)

    @given(floats, decimals)
    def test_fixed_mode_prints_exactly_the_decimals(self, value, places):
        fraction = number(value, places).partition(".")[2]
        assert len(fraction) == places

    @given(floats, decimals, trims)
    def test_trim_keeps_at_least_trim_decimals_and_no_extra_zero(self, value, places, trim):
        fraction = number(value, places, trim=trim).partition(".")[2]
        if trim is not None:
            assert len(fraction) >= min(trim, places)
            assert len(fraction) <= max(trim, 0) or not fraction.endswith("0")

    @given(floats, decimals)
    def test_sign_mode_signs_exactly_the_nonzero_values(self, value, places):
        text = number(value, places, sign=True)
        rounded = round(value, places)
        assert text[0] == ("+" if rounded > 0 else MINUS if rounded < 0 else "0123456789"[int(text[0])])

    @pytest.mark.parametrize(
        ("args", "kwargs", "text"),
        [
            ((-0.001,), {}, "0.00"),
            ((-0.0,), {}, "0.00"),
            ((-0.004, 2), {}, "0.00"),
            ((-0.005, 3), {}, "−0.005"),
            ((-0.2,), {}, "−0.20"),
            ((0.5,), {"sign": True}, "+0.50"),
            ((-0.2,), {"sign": True}, "−0.20"),
            ((-0.0001,), {"sign": True}, "0.00"),
            ((-0.4, 0), {}, "0"),
            ((0.0025, 4), {"trim": 2}, "0.0025"),
            ((-0.5, 4), {"trim": 2}, "−0.50"),
            ((3.0, 4), {"trim": 0}, "3"),
        ],
    )
    def test_examples(self, args, kwargs, text):
        assert number(*args, **kwargs) == text

    def test_numpy_scalars(self):
        np = pytest.importorskip("numpy")
        assert number(np.float32(-0.25)) == "−0.25" and offset(np.int64(-3)) == "−3"

    def test_rejects_negative_decimals(self):
        with pytest.raises(ValueError, match="decimals must be >= 0"):
            number(1.0, -1)


class TestScientific:
    @given(floats, st.integers(min_value=1, max_value=6))
    def test_true_minus_no_signed_zero_and_round_trip(self, value, digits):
        text = scientific(value, digits)
        assert "-" not in text and not SIGNED_ZERO.match(text)
        assert _parsed(text) == float(f"{value:.{digits - 1}e}")

    def test_examples(self):
        assert [scientific(v) for v in (2.2e-16, -1.5e7, 0.0, -0.0)] == ["2.2e−16", "−1.5e7", "0", "0"]


class TestTexNumber:
    @given(floats, decimals, st.booleans(), trims)
    def test_same_digits_with_an_ascii_minus(self, value, places, sign, trim):
        assert tex_number(value, places, sign=sign, trim=trim) == number(value, places, sign=sign, trim=trim).replace(
            MINUS, "-"
        )


class TestOffset:
    @given(st.integers(min_value=-(10**6), max_value=10**6))
    def test_one_rule_for_offsets(self, value):
        text = offset(value)
        assert text == ("0" if value == 0 else ("+" if value > 0 else MINUS) + str(abs(value)))
        assert tex_offset(value) == text.replace(MINUS, "-")
        assert subscript(text) == offset_subscript(value)

    @given(st.integers(min_value=0, max_value=10**4))
    def test_offset_range_spans_minus_k_to_plus_k(self, k):
        assert offset_range(k) == (f"{offset(-k)}..{offset(k)}" if k else "0")

    def test_subscripts(self):
        assert [offset_subscript(o) for o in (-2, 0, 1, 12)] == ["₋₂", "₀", "₊₁", "₊₁₂"]
        assert subscript(34) == "₃₄"


def _unescape(escaped: str) -> str:
    """Read `escaped` as CommonMark reads backslash escapes; fail on an unescaped special character."""
    out, chars = [], iter(escaped)
    for char in chars:
        if char == "\\":
            following = next(chars)
            assert following in string.punctuation, f"backslash before {following!r}"
            out.append(following)
        else:
            assert char not in string.punctuation, f"unescaped {char!r} in {escaped!r}"
            out.append(char)
    return "".join(out)


class TestEscapeMarkdown:
    @given(st.text())
    def test_every_special_character_is_escaped_and_the_text_reads_back(self, text):
        escaped = escape_markdown(text)
        assert _unescape(escaped) == printable(text)
        assert "\n" not in escaped and "\r" not in escaped

    @given(st.text(alphabet=string.punctuation + "ab <>&$:\n", max_size=40))
    def test_no_html_tag_entity_or_maths_survives(self, text):
        escaped = escape_markdown(text)
        assert not re.search(r"(?<!\\)[<>&$:*_`\[\]]", escaped)

    @pytest.mark.parametrize(
        "hostile",
        ["<script>alert(1)</script>", "![x](http://e.vil/a.png)", "$\\frac{1}{0}$", ":red[big]", "&lt;b&gt;", "# h"],
    )
    def test_hostile_examples_read_back_literally(self, hostile):
        assert _unescape(escape_markdown(hostile)) == hostile

    def test_limit_cuts_with_an_ellipsis(self):
        assert escape_markdown("x" * 30, limit=5) == "xxxxx…"
        assert escape_markdown("a\nb*$") == r"a\?b\*\$"


class TestOneFormatterOneEscaper:
    """No module formats or escapes on its own."""

    SOURCES = sorted([*ROOT.joinpath("relpos").rglob("*.py"), *ROOT.joinpath("pages").glob("*.py"), ROOT / "app.py"])

    def test_no_hand_made_minus_signs(self):
        pattern = re.compile(r"""\.replace\(\s*['"]-['"]\s*,\s*['"](−|\\u2212|\\N\{MINUS SIGN\})['"]""")
        found = [f"{p.relative_to(ROOT)}:{n}" for p in self.SOURCES for n, line in _lines(p) if pattern.search(line)]
        assert found == []

    def test_no_second_escaper(self):
        pattern = re.compile(r"_MARKDOWN_SPECIAL|def (plain|safe_echo|escape_markdown)\(")
        escaper = ROOT / "relpos" / "text" / "escape.py"
        found = [
            f"{p.relative_to(ROOT)}:{n}"
            for p in self.SOURCES
            if p != escaper
            for n, line in _lines(p)
            if pattern.search(line)
        ]
        assert found == []


def _lines(path: Path):
    return enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
