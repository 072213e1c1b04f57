"""Hover arithmetic for the heatmap panels, as Plotly ``customdata`` plus one template.

A single ``hovertemplate`` per panel spells out the arithmetic (the positions i and j
are the panel's 1-based coordinates ``%{y}`` and ``%{x}``), e.g.
``q₂·a^K₊₁ = 0.50·(−0.20) = −0.10``, and Plotly fills it in on hover from the cell's
``customdata`` of shape ``(n_q, n_k, fields)``. Up to :data:`TEXT_CELLS` cells those
fields are strings formatted here, with true minus signs; larger panels send one binary
float32 array that Plotly formats (a hyphen-minus), a fraction of the cost of strings,
so every panel up to 64 × 64 keeps its arithmetic. The labels a learner sees are checked
as plotly.js draws them, in Chromium (``tests/support/plotly_hover.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from relpos.core.attention import AttentionResult
from relpos.core.offsets import relative_offsets
from relpos.text import numbers
from relpos.text.facts import decimals_adding_up, printed

__all__ = [
    "TEXT_CELLS",
    "Hover",
    "format_cells",
    "position_effects_hover",
    "scheme_score_hover",
    "scheme_weight_hover",
    "score_hover",
    "translation_hover",
    "weight_hovers",
]


@dataclass(frozen=True)
class Hover:
    """``customdata`` of shape (n_q, n_k, fields) and the template that reads it.

    ``fields`` names what each customdata column holds, as ``(name, format)`` (the
    Explorer panel recomputes them in the browser); ``as_text`` says whether they
    travel as formatted strings or as numbers Plotly formats.
    """

    customdata: np.ndarray | None
    template: str
    fields: tuple[tuple[str, str], ...] = ()
    as_text: bool = True

    def trace_args(self) -> dict:
        """The heatmap trace properties that carry this hover (a recipe, without
        ``customdata``, carries only its template)."""
        if self.customdata is None:
            return {"hovertemplate": self.template}
        return {"customdata": self.customdata, "hovertemplate": self.template}


#: Up to this many cells (a 12 × 12 panel) a panel's hover numbers travel as strings
#: formatted here, with true minus signs; above it as float32 that Plotly formats in the
#: browser (with a hyphen-minus), which keeps hover affordable up to 64 × 64.
TEXT_CELLS = 144


class _Fields:
    """Collects named per-cell arrays and writes template references to them.

    Only the fields a template references are sent, in the order first referenced. With
    ``cells=False`` only the recipe is kept (template, fields): no per-cell array is formatted.
    """

    def __init__(self, shape: tuple[int, int], cells: bool = True):
        self.shape = shape
        self.cells = cells
        self.as_text = shape[0] * shape[1] <= TEXT_CELLS
        self.values: dict[str, np.ndarray] = {}
        self.arrays: list[np.ndarray] = []
        self.index: dict[tuple[str, str], int] = {}

    def add(self, name: str, values) -> None:
        if not self.cells:  # a recipe never reads the values
            return
        dtype = np.float64 if self.as_text else np.float32
        self.values[name] = np.broadcast_to(np.asarray(values, dtype=dtype), self.shape)

    def __call__(self, name: str, fmt: str = "") -> str:
        key = (name, fmt if self.as_text else "")  # text fields are formatted once per format
        if key not in self.index:
            self.index[key] = len(self.index)
            if self.cells:  # a recipe needs the field's name and format, not its n² strings
                values = self.values[name]
                self.arrays.append(format_cells(values, fmt) if self.as_text else values)
        reference = f"customdata[{self.index[key]}]"
        return f"%{{{reference}:{fmt}}}" if fmt and not self.as_text else f"%{{{reference}}}"

    def sum(self, left: str, right: str, total: str, words: tuple[str, str, str] = ("", "", "")) -> str:
        """``left + (right) = total`` as a reader checks it: at the fewest decimals (at least 2)
        at which the printed terms add up to the printed total, cell by cell
        (:func:`sum_text`); `words` go before each number. Panels too large for text keep 2
        decimals (Plotly formats their numbers)."""
        a, b, c = words
        if not self.as_text:
            return f"{a}{self(left, '.2f')} + {b}({self(right, '.2f')}) = {c}{self(total, '.2f')}"
        key = (f"{left}+{right}={total}", "sum" if words == ("", "", "") else "sum:" + "|".join(words))
        if key not in self.index:
            self.index[key] = len(self.index)
            if self.cells:
                terms = (self.values[name] for name in (left, right, total))
                self.arrays.append(np.vectorize(lambda x, y, z: sum_text(x, y, z, words), otypes=[object])(*terms))
        return f"%{{customdata[{self.index[key]}]}}"

    def value(self, values, fmt: str) -> str:
        """The panel's own value (its z), `values` of shape (n_q, n_k), formatted with `fmt`."""
        if not self.as_text:
            return f"%{{z:{fmt}}}"
        self.add("z", values)
        return self("z", fmt)

    def hover(self, template: str) -> Hover:
        customdata = np.stack(self.arrays, axis=-1) if self.cells else None
        return Hover(customdata, template + "<extra></extra>", tuple(self.index), self.as_text)


def sum_text(left: float, right: float, total: float, words: tuple[str, str, str] = ("", "", "")) -> str:
    """``left + (right) = total`` printed so that it adds up as printed: 2 decimals, or as
    many more as it takes (the Explorer's browser writes the same, attention.js ``sumText``).

    >>> sum_text(0.125, 0.125, 0.25), sum_text(0.2, -0.1, 0.1)
    ('0.125 + (0.125) = 0.250', '0.20 + (−0.10) = 0.10')
    """
    places = decimals_adding_up((left, right), total, 2)
    a, b, c = words
    shown = (numbers.number(float(value), places) for value in (left, right, total))
    x, y, z = shown
    return f"{a}{x} + {b}({y}) = {c}{z}"


def format_cells(values, fmt: str) -> np.ndarray:
    """`values` as strings, as Plotly would format them but with a true minus sign.

    For the formats the templates and cell numbers use (``.2f``, ``+.4f``, ``+d``, none).
    A value that rounds to zero is unsigned: ``0.00``, and ``0`` for an offset
    (:func:`relpos.text.numbers.number` does the formatting).

    >>> format_cells([[-0.2, -0.001], [3.0, 0.5]], ".2f").tolist()
    [['−0.20', '0.00'], ['3.00', '0.50']]
    >>> format_cells([-2, 0, 1], "+d").tolist()
    ['−2', '0', '+1']
    >>> format_cells([0.5, -0.0001], "+.2f").tolist()
    ['+0.50', '0.00']
    """
    values = np.asarray(values, dtype=float)
    texts = [_number(value, fmt) for value in values.ravel().tolist()]  # Python floats format faster
    return np.array(texts, dtype=object).reshape(values.shape)


#: The d3 formats the templates use: an optional ``+``, optional ``.N``, then ``f`` or ``d``.
_FORMAT = re.compile(r"(?P<sign>\+)?(?:\.(?P<decimals>\d+))?(?P<kind>[fd]?)")


def _number(value: float, fmt: str) -> str:
    """One cell as :func:`relpos.text.numbers.number` writes it, for a d3 format `fmt`."""
    spec = _FORMAT.fullmatch(fmt)
    if spec is None:
        raise ValueError(f"format must look like '.2f', '+.4f', '+d' or ''; got {fmt!r}")
    sign = bool(spec["sign"])
    if spec["kind"] == "d" or (not fmt and value.is_integer()):
        return numbers.number(value, 0, sign=sign)
    if spec["kind"] == "f":
        return numbers.number(value, int(spec["decimals"] or 6), sign=sign)
    return numbers.number(value, 12, sign=sign, trim=0)  # no format: the shortest text of the value


class _PanelFields(_Fields):
    """Panels place cell (i, j) at x = j + 1, y = i + 1: the positions come free as %{x}, %{y}."""

    def __call__(self, name: str, fmt: str = "") -> str:
        if name in ("i", "j"):
            return "%{y}" if name == "i" else "%{x}"
        return super().__call__(name, fmt)


def _cells(result: AttentionResult, *, offsets: bool = True, cells: bool = True) -> _Fields:
    """Fields the panels share: (for scores) the offset and the clipped offset."""
    n_q, n_k = result.scores.shape
    fields = _PanelFields((n_q, n_k), cells)
    if offsets:
        fields.add("offset", relative_offsets(n_q, n_k))
        fields.add("clipped", result.offsets)
    return fields


def _where(f: _Fields, table: str = "a<sup>K</sup>") -> str:
    """The cell's pair, its offset and the table entry it uses (``b`` for a query-independent bias)."""
    row = f"{table}<sub>{f('clipped', '+d')}</sub>"
    return f"query i = {f('i')}, key j = {f('j')}: offset j − i = {f('offset', '+d')}, uses {row}"


def _dot(f: _Fields, left: str, left_sub: str, right: str, right_sub: str, d: int) -> str:
    """``q<sub>i</sub>·k<sub>j</sub> = 0.50·(0.40)`` or the sum over d features divided by √d.

    The right factor is always in parentheses: Plotly's template cannot add them only
    for negative numbers, and ``0.50·-0.20`` reads badly.
    """
    terms = " + ".join(f"{f(f'{left}{c}', '.2f')}·({f(f'{right}{c}', '.2f')})" for c in range(d))
    name = f"{left}<sub>{left_sub}</sub>·{right}<sub>{right_sub}</sub>"
    return f"{name} = {terms}" if d == 1 else f"{name} = ({terms})/√{d}"


def score_hover(queries, keys, table, result: AttentionResult, *, scalar: bool = False, cells: bool = True) -> Hover:
    """Arithmetic of every score cell: content term, position term and their sum.

    Parameters
    ----------
    queries, keys : array_like, shape (n, d) or (n,)
    table : array_like, shape (2k+1, d) or (2k+1,)
        ``a^K``, or with ``scalar=True`` the per-offset scalars in column 0.
    result : AttentionResult
        Computed from these inputs.
    scalar : bool
        The bias is one number per offset instead of ``q_i·a^K``.
    cells : bool
        False: only the recipe (template, fields), ``customdata`` None; the Explorer's
        browser fills the cells itself, so formatting n² strings would be wasted.

    Returns
    -------
    hover : Hover
        For the content, bias and combined panels alike.

    Examples
    --------
    >>> import relpos
    >>> example = relpos.worked_example()
    >>> result = example.attention()
    >>> hover = score_hover(example.queries, example.keys, example.table, result)
    >>> hover.customdata[1, 2].tolist()  # plotly.js shows, for query 2 and key 3: score 0.20 + (−0.10) = 0.10
    ['+1', '+1', '0.50', '0.40', '0.20', '−0.20', '−0.10', '0.20 + (−0.10) = 0.10']
    >>> hover.template.split("<br>")[-1]
    'score %{customdata[7]}<extra></extra>'
    """
    Q, K, A = (_columns(x) for x in (queries, keys, table))
    d = Q.shape[1]
    f = _cells(result, cells=cells)
    rows = result.offsets + result.k  # (n_q, n_k) table row of each cell
    for c in range(d):
        f.add(f"q{c}", Q[:, c][:, None])
        f.add(f"k{c}", K[:, c][None, :])
        f.add(f"a{c}", A[rows, c])
    for name in ("content", "bias", "scores"):
        f.add(name, getattr(result, name))
    lines = [
        _where(f, "b" if scalar else "a<sup>K</sup>"),
        f"{_dot(f, 'q', f('i'), 'k', f('j'), d)} = {f('content', '.2f')}",
    ]
    if scalar:
        lines.append(f"b<sub>{f('clipped', '+d')}</sub> = {f('bias', '.2f')} (the same for every query)")
    else:
        product = _dot(f, "q", f("i"), "a", f("clipped", "+d"), d).replace("a<sub>", "a<sup>K</sup><sub>", 1)
        lines.append(f"{product} = {f('bias', '.2f')}")
    lines.append(f"score {f.sum('content', 'bias', 'scores')}")
    return f.hover("<br>".join(lines))


def weight_hovers(result: AttentionResult, *, cells: bool = True) -> tuple[Hover, Hover, Hover]:
    """Arithmetic of the content-only weights, the combined weights and their difference.

    A weight is ``exp(e_ij) / Σ_j exp(e_ij)`` of its row; rows with scores above 50
    show the stable form ``exp(e − max)``. ``cells=False``: recipes only (see :func:`score_hover`).

    Examples
    --------
    >>> import relpos
    >>> result = relpos.worked_example().attention()
    >>> content, combined, change = weight_hovers(result)
    >>> combined.customdata[0, 0].tolist()  # α₁,₁ = exp(1.00) / Σⱼ exp(e₁ⱼ) = 2.718 / 7.286 = 0.3731
    ['1.00', '2.718', '7.286', '0.3731']
    >>> change.customdata[0, 3].tolist()  # with positions 0.2764 − content only 0.3576 = −0.0812
    ['0.2764', '0.3576', '−0.0812']
    """
    hovers = [
        _softmax_hover(_cells(result, offsets=False, cells=cells), logits, symbol, letter)
        for logits, symbol, letter in ((result.content, "α<sup>(c)</sup>", "c"), (result.scores, "α", "e"))
    ]
    f = _cells(result, offsets=False, cells=cells)
    f.add("content_weight", result.content_weights)
    f.add("weight", result.weights)
    if cells:  # a recipe's browser computes the change itself
        f.add("change", _shown_change(result.content_weights, result.weights, 4))
    hovers.append(
        f.hover(
            f"query i = {f('i')}, key j = {f('j')}<br>with positions {f('weight', '.4f')} − content only "
            f"{f('content_weight', '.4f')} = {f('change', '.4f')}"
        )
    )
    return hovers[0], hovers[1], hovers[2]


def _shown_change(before, after, decimals: int) -> np.ndarray:
    """``after − before`` of the values as printed at `decimals`: a reader subtracts what the hover shows
    (the Explorer's browser computes the same, relpos/ui/explorer_panel_assets/attention.js)."""
    shown = np.vectorize(lambda value: printed(value, decimals), otypes=[float])
    return shown(after) - shown(before)


def _softmax_hover(f: _Fields, logits: np.ndarray, symbol: str, letter: str) -> Hover:
    """``α_i,j = exp(e) / Σ_j exp(e_ij) = … = weight``; the stable form ``exp(e − max)`` above 50."""
    top = logits.max(axis=1, keepdims=True)  # (n_q, 1)
    stable = bool(np.abs(top).max() > 50)  # exp() of the raw scores would be unreadable
    exps = np.exp(logits - (top if stable else 0.0))  # (n_q, n_k)
    f.add("logit", logits)
    if stable:
        f.add("max", top)
    f.add("exp", exps)
    f.add("total", exps.sum(axis=1, keepdims=True))
    weights = exps / exps.sum(axis=1, keepdims=True)  # (n_q, n_k), the panel's z
    shift = f" − {f('max', '.2f')}" if stable else ""
    return f.hover(
        f"query i = {f('i')}, key j = {f('j')}<br>{symbol}<sub>{f('i')},{f('j')}</sub> = "
        f"exp({f('logit', '.2f')}{shift}) / Σ<sub>j</sub> exp({letter}<sub>{f('i')}j</sub>{shift}) = "
        f"{f('exp', '.3f')} / {f('total', '.3f')} = {f.value(weights, '.4f')}"
    )


def _positions(shape: tuple[int, int]) -> _Fields:
    """Fields for panels whose axes count from 0: the 1-based positions travel as data."""
    f = _Fields(shape)
    rows, columns = np.indices(shape) + 1  # (n_q, n_k) each
    f.add("i", rows)
    f.add("j", columns)
    f.add("offset", columns - rows)
    return f


def scheme_score_hover(content, scores, *, baseline: bool = False) -> Hover:
    """Hover of a scheme's position-part panel (``scores − content``), or with
    ``baseline=True`` of the "no positions" panel, which shows `content` itself.

    Parameters
    ----------
    content : array_like, shape (n_q, n_k)
        Scores of the same tokens without positions, ``q_i·k_j/√d``.
    scores : array_like, shape (n_q, n_k)
        The scheme's combined scores.

    Examples
    --------
    >>> import numpy as np
    >>> content, scores = np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([[0.7, -0.5], [0.2, 0.3]])
    >>> scheme_score_hover(content, scores).customdata[0, 1].tolist()  # i, j, j − i, score, without, part
    ['1', '2', '+1', '−0.5000', '−0.2000', '−0.3000']
    """
    content, scores = np.asarray(content, dtype=float), np.asarray(scores, dtype=float)
    f = _positions(content.shape)
    where = f"query i = {f('i')}, key j = {f('j')} (offset j − i = {f('offset', '+d')})"
    if baseline:
        return f.hover(f"{where}<br>no positions: q<sub>i</sub>·k<sub>j</sub>/√d = {f.value(content, '.4f')}")
    f.add("content", content)
    f.add("scores", scores)
    return f.hover(
        f"{where}<br>position part = score {f('scores', '.4f')} − without positions ({f('content', '.4f')}) "
        f"= {f.value(scores - content, '.4f')}"
    )


def scheme_weight_hover(scores) -> Hover:
    """Hover of a scheme's weights panel: the softmax of its scores, cell by cell."""
    scores = np.asarray(scores, dtype=float)
    return _softmax_hover(_positions(scores.shape), scores, "α", "e")


def translation_hover(before, change, shift: int) -> Hover:
    """Hover of a translation panel: ``score after the shift − score before = change``.

    Examples
    --------
    >>> import numpy as np
    >>> hover = translation_hover(np.array([[0.5]]), np.array([[-0.25]]), 3)
    >>> hover.customdata[0, 0].tolist()  # i, j, j − i, after, before, change
    ['1', '1', '0', '0.2500', '0.5000', '−0.2500']
    """
    before, change = np.asarray(before, dtype=float), np.asarray(change, dtype=float)
    f = _positions(before.shape)
    f.add("after", before + change)
    f.add("before", before)
    where = f"query i = {f('i')}, key j = {f('j')} (offset j − i = {f('offset', '+d')})"
    return f.hover(
        f"{where}<br>moved {int(shift)} places: {f('after', '.4f')} − before ({f('before', '.4f')}) "
        f"= {f.value(change, '.4f')}"
    )


def position_effects_hover(result: AttentionResult) -> tuple[Hover, Hover]:
    """Hover of the Position effects panels: each score's two terms, each weight's change.

    Returns
    -------
    scores, weights : Hover
        For the content and bias panels, and for both weight panels.

    Examples
    --------
    >>> import relpos
    >>> result = relpos.worked_example().attention()
    >>> scores, weights = position_effects_hover(result)
    >>> scores.customdata[0, 3].tolist()  # content 1.20 + position (−0.50) = score 0.70
    ['+2', '+3', 'content 1.20 + position (−0.50) = score 0.70']
    """
    f = _cells(result)
    for name in ("content", "bias", "scores"):
        f.add(name, getattr(result, name))
    scores = f.hover(f"{_where(f)}<br>{f.sum('content', 'bias', 'scores', ('content ', 'position ', 'score '))}")
    f = _cells(result, offsets=False)
    f.add("content_weight", result.content_weights)
    f.add("weight", result.weights)
    f.add("change", _shown_change(result.content_weights, result.weights, 4))
    weights = f.hover(
        f"query i = {f('i')}, key j = {f('j')}<br>content only {f('content_weight', '.4f')} → with positions "
        f"{f('weight', '.4f')} ({f('change', '+.4f')})"
    )
    return scores, weights


def _columns(values) -> np.ndarray:
    """(n, d) float array; a 1-D input means d = 1."""
    array = np.asarray(values, dtype=float)
    return array.reshape(-1, 1) if array.ndim == 1 else array
