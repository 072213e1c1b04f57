"""The one number formatter: every number the app prints as text goes through here.

Rules, for captions, hovers, tables, cell text and figure labels alike:

* a negative number carries a true minus sign ``−`` (U+2212), never a hyphen;
* a value that rounds to zero prints unsigned: never ``−0``, ``−0.0`` or ``−0.00``;
* explicit-sign mode prints ``+0.50`` and ``−0.20``, and zero still unsigned (``0.00``);
* offsets ``j − i`` print ``+2``, ``0``, ``−1`` (:func:`offset`), as subscripts ``₊₂``,
  ``₀``, ``₋₁`` (:func:`offset_subscript`).

LaTeX source is the one exception: :func:`tex_number` writes the same digits with an
ASCII ``-``, which LaTeX typesets as a minus (and which is also what a learner types
into an editable number field).
"""

from __future__ import annotations

from relpos.text.precision import printed

__all__ = [
    "MINUS",
    "as_written",
    "difference",
    "number",
    "offset",
    "offset_range",
    "offset_subscript",
    "percent",
    "readable",
    "scientific",
    "scientific_below",
    "subscript",
    "sum_text",
    "tex_number",
    "tex_offset",
]

#: The true minus sign (U+2212).
MINUS = "\N{MINUS SIGN}"

_SUBSCRIPTS = str.maketrans("0123456789+-" + MINUS, "₀₁₂₃₄₅₆₇₈₉₊₋₋")


def _format(value: float, decimals: int, sign: bool, trim: int | None, minus: str) -> str:
    """`value` rounded to `decimals`, trailing zeros trimmed down to `trim` decimals."""
    if decimals < 0:
        raise ValueError(f"decimals must be >= 0; got {decimals}")
    text = f"{float(value):.{decimals}f}"  # rounds half to even on the exact binary value
    digits = text.removeprefix("-")
    if trim is not None and "." in digits:
        whole, _, fraction = digits.partition(".")
        fraction = fraction.rstrip("0").ljust(max(trim, 0), "0")
        digits = f"{whole}.{fraction}" if fraction else whole
    zero = digits.strip("0.") == ""  # rounds to zero: unsigned
    if text.startswith("-") and not zero:
        return minus + digits
    return ("+" if sign and not zero else "") + digits


def number(value: float, decimals: int = 2, *, sign: bool = False, trim: int | None = None) -> str:
    """`value` as text: `decimals` places, a true minus sign, never a signed zero.

    Parameters
    ----------
    value : float
        The number (NumPy scalars and ints too).
    decimals : int
        Places after the decimal point (rounded half to even, as Python's ``round``).
    sign : bool
        Explicit-sign mode: positive numbers get ``+``; zero stays unsigned.
    trim : int, optional
        Drop trailing zeros, keeping at least `trim` decimals (0 drops the point too).
        ``None`` keeps all `decimals` (fixed mode).

    Returns
    -------
    text : str
        Parsing it back (``−`` read as ``-``) gives ``round(value, decimals)``.

    Examples
    --------
    >>> number(0.5), number(-0.2), number(-0.001), number(-0.004, 3)
    ('0.50', '−0.20', '0.00', '−0.004')
    >>> number(0.5, sign=True), number(-0.2, sign=True), number(-0.001, sign=True)
    ('+0.50', '−0.20', '0.00')
    >>> number(0.25, 4, trim=2), number(1 / 3, 4, trim=2), number(3.0, 4, trim=1), number(-0.0, 4, trim=0)
    ('0.25', '0.3333', '3.0', '0')
    """
    return _format(value, decimals, sign, trim, MINUS)


def tex_number(value: float, decimals: int = 2, *, sign: bool = False, trim: int | None = None) -> str:
    """:func:`number` with an ASCII ``-``: for LaTeX source and editable number fields.

    >>> tex_number(-0.25), tex_number(-0.001), tex_number(0.1, 4, trim=1)
    ('-0.25', '0.00', '0.1')
    """
    return _format(value, decimals, sign, trim, "-")


def scientific(value: float, digits: int = 2) -> str:
    """`value` in E notation with `digits` significant digits and true minus signs.

    A value that rounds to zero prints ``0``; the exponent has no ``+`` and no leading zeros.

    >>> scientific(2.2e-16), scientific(-12345678.0, 3), scientific(0.0), scientific(-0.0)
    ('2.2e−16', '−1.23e7', '0', '0')
    """
    if digits < 1:
        raise ValueError(f"digits must be >= 1; got {digits}")
    mantissa, _, exponent = f"{float(value):.{digits - 1}e}".partition("e")
    if float(mantissa) == 0 or not exponent:  # zero, or inf / nan (no exponent)
        return number(float(mantissa), 0) if float(mantissa) == 0 else number(value)
    return f"{number(float(mantissa), digits - 1)}e{number(int(exponent), 0)}"


def scientific_below(value: float, bound: float, digits: int = 3) -> str:
    """`value` (below `bound`) in E notation with the fewest digits (at least `digits`) that print it below
    `bound`: a bound stated beside its threshold never reads as equal to it.

    >>> scientific_below(4.99996e-4, 5e-4), scientific_below(4.9e-4, 5e-4)
    ('4.99996e−4', '4.90e−4')
    """
    for shown in range(digits, 18):
        text = scientific(value, shown)
        if float(text.replace(MINUS, "-")) < bound:
            return text
    return scientific(value, 17)


def readable(value: float, decimals: int = 4, *, trim: int | None = 2) -> str:
    """:func:`number`, or :func:`scientific` where fixed decimals would not be read: from a
    million up (a factor ``e^(bⱼ − T)`` can have 87 digits), or a non-zero value that would print as 0.

    >>> readable(1.4085), readable(6.0), readable(7.2e86), readable(0.0001), readable(2e-5), readable(0.0)
    ('1.4085', '6.00', '7.20e86', '0.0001', '2.00e−5', '0.00')
    """
    magnitude = abs(float(value))
    if magnitude >= 1e6 or 0 < magnitude < 0.5 * 10.0**-decimals:
        return scientific(value, 3)
    return number(value, decimals, trim=trim)


def as_written(value: float) -> str:
    """A given number (a quiz's q, k or aᴷ, a tolerance) with the places it has, up to six:
    :func:`readable` with its trailing zeros dropped.

    >>> as_written(0.8), as_written(-0.6), as_written(0.25), as_written(0.005), as_written(1.0)
    ('0.8', '−0.6', '0.25', '0.005', '1')
    """
    return readable(float(value), 6, trim=0)


def offset(value: int) -> str:
    """An offset ``j − i`` (or any signed count): ``+2``, ``0``, ``−1``.

    >>> [offset(o) for o in (-2, 0, 1)]
    ['−2', '0', '+1']
    """
    return number(value, 0, sign=True)


def offset_range(k: int, separator: str = "..") -> str:
    """The offsets ``−k`` to ``+k`` of a clipping distance: ``−2..+2``, or ``0`` when k = 0.

    >>> offset_range(2), offset_range(1, " … "), offset_range(0)
    ('−2..+2', '−1 … +1', '0')
    """
    return f"{offset(-k)}{separator}{offset(k)}" if k else offset(0)


def tex_offset(value: int) -> str:
    """:func:`offset` for LaTeX source: ``+2``, ``0``, ``-1``.

    >>> [tex_offset(o) for o in (-2, 0, 1)]
    ['-2', '0', '+1']
    """
    return tex_number(value, 0, sign=True)


def subscript(text: object) -> str:
    """Unicode subscript of digits and signs: ``subscript(12) == '₁₂'``.

    >>> subscript("+1") + subscript(-2) + subscript("−3")
    '₊₁₋₂₋₃'
    """
    return str(text).translate(_SUBSCRIPTS)


def offset_subscript(value: int) -> str:
    """An offset as a subscript: ``₊₂``, ``₀``, ``₋₁``.

    >>> offset_subscript(2), offset_subscript(0), offset_subscript(-1)
    ('₊₂', '₀', '₋₁')
    """
    return subscript(offset(value))


def percent(value: float) -> str:
    """A fraction as a whole percentage, as the pages' tables show it.

    >>> percent(0.996), percent(0.0), percent(0.5049)
    ('100%', '0%', '50%')
    """
    return f"{round(100 * float(value))}%"


# ---------------------------------------------------------------- printed arithmetic
# A reader re-adds what is shown: a change or a total is computed from the printed operands, so
# an equation holds on its printed numbers (relpos.text.facts.decimals_adding_up picks decimals
# at which that printed result is also the true one rounded).


def difference(before: float, after: float, decimals: int, *, tex: bool = False) -> str:
    """The signed change ``after − before`` as the printed numbers give it (``+0.108``, ``−0.082``).

    >>> difference(0.3577, 0.2763, 3), difference(0.3577, 0.2763, 4), difference(0.5, 0.5, 2)
    ('−0.082', '−0.0814', '0.00')
    """
    change = printed(after, decimals) - printed(before, decimals)
    return (tex_number if tex else number)(change, decimals, sign=True)


def sum_text(terms, decimals: int, *, tex: bool = False) -> str:
    """``0.224 + 0.226 − 0.134 = 0.316``: each term printed, and their total added from the printed terms.

    >>> sum_text([0.224, 0.226, 0.134, 0.272, 0.144], 3), sum_text([0.3, -0.05], 2, tex=True)
    ('0.224 + 0.226 + 0.134 + 0.272 + 0.144 = 1.000', '0.30 - 0.05 = 0.25')
    """
    values = [float(term) for term in terms]
    write = tex_number if tex else number
    minus = "-" if tex else MINUS
    parts = [write(values[0], decimals)]
    for value in values[1:]:
        text = write(value, decimals)
        parts.append(f"{minus} {text[1:]}" if text.startswith(minus) else f"+ {text}")
    total = sum(printed(value, decimals) for value in values)
    return " ".join(parts) + f" = {write(total, decimals)}"
