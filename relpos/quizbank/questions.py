"""The quiz's five questions, drawn from small random scenarios (NumPy only).

:func:`make_quiz` turns a seed into five questions (the same seed gives the same
questions, so a class can share one link). Every expected answer is computed by the
relpos core from the scenario's numbers, never typed in; every worked solution
substitutes those numbers into the formula (LaTeX lines for ``st.latex``). Prompts are
Markdown with ``$…$`` math, written by us; learner text is never mixed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from relpos.core.examples import Scenario
from relpos.core.offsets import table_rows
from relpos.quizbank.model import NUMBER_TOLERANCE, Question
from relpos.quizbank.slips import question_tolerance
from relpos.text import numbers
from relpos.text.facts import decimals_adding_up, decimals_showing

__all__ = ["explorer_example", "make_quiz"]

# Short names for the one formatter (relpos.text.numbers): LaTeX gets an ASCII "-",
# Markdown prose a true minus; neither ever prints a signed zero.
_tex = numbers.tex_number
_md = numbers.number
_signed = numbers.tex_offset  # offset label inside LaTeX and answers: -2, 0, +3
_signed_md = numbers.offset


def _factor(value: float, places: int = 1) -> str:
    return f"({_tex(value, places)})"


#: More decimals than this beyond a sum's own are not printed: the terms are said to be rounded instead.
_EXTRA_PLACES = 2


def _sum_tex(terms, total: float, places: int = 2) -> str:
    """``0.224 + 0.226 + … = 1.000`` (LaTeX): a sum that adds up on its printed terms (a learner re-adds
    what the solution shows), with up to two more decimals than `places`; past that the terms at
    `places` with their printed sum, and the unrounded total beside it."""
    decimals = decimals_adding_up(terms, total, places)
    if decimals <= places + _EXTRA_PLACES:
        return numbers.sum_text(terms, decimals, tex=True)
    rounded = numbers.sum_text(terms, places, tex=True)
    return rounded + r"\ \ (\text{rounded terms; unrounded, they add up to }" + f" {_tex(total, places)})"


def _set_tex(items) -> str:
    return r"\{" + r",\ ".join(str(item) for item in sorted(items)) + r"\}"


# ---------------------------------------------------------------- scenarios


def _one_decimal(rng: np.random.Generator, size: int, *, nonzero: bool = False, distinct: bool = False):
    """`size` numbers from −0.9..0.9 in steps of 0.1 (easy to multiply by hand)."""
    choices = np.arange(-9, 10)
    if nonzero:
        choices = choices[choices != 0]
    tenths = rng.choice(choices, size=size, replace=not distinct)
    return tuple(float(t) / 10 for t in tenths)


def _scenario(rng: np.random.Generator, n: int, k: int) -> Scenario:
    """Random d = 1 scenario: nonzero queries, and 2k+1 distinct nonzero table entries
    (so a change of table row always changes a bias)."""
    return Scenario(
        queries=_one_decimal(rng, n, nonzero=True),
        keys=_one_decimal(rng, n),
        table=_one_decimal(rng, 2 * k + 1, nonzero=True, distinct=True),
    )


def _with_table_entry(scenario: Scenario, offset: int, delta: float) -> Scenario:
    """The same scenario with ``a^K_offset`` changed by `delta`."""
    table = list(scenario.table)
    table[offset + scenario.k] = round(table[offset + scenario.k] + delta, 10)
    return Scenario(scenario.queries, scenario.keys, tuple(table))


def _clipped(n: int, k: int) -> np.ndarray:
    """clip(j − i, k) for every pair (0-based)."""
    return table_rows(n, n, k) - k  # (n, n)


def _row_vector_tex(values, places: int = 2) -> str:
    return r"\left(" + r",\ ".join(_tex(v, places) for v in values) + r"\right)"


# ---------------------------------------------------------------- the five questions


def _score_question(rng: np.random.Generator) -> Question:
    n, k = int(rng.integers(4, 6)), 2
    scenario = _scenario(rng, n, k)
    i, j = (int(x) for x in rng.integers(0, n, size=2))
    result = scenario.attention()
    q, key = scenario.queries[i], scenario.keys[j]
    offset, clipped = j - i, int(result.offsets[i, j])
    entry = scenario.table[clipped + k]
    i1, j1 = i + 1, j + 1  # 1-based, as on screen
    return Question(
        kind="score",
        title="Compute a score",
        prompt=(
            f"With the numbers above (d = 1, so there is no $\\sqrt{{d}}$ to divide by) and clipping "
            f"distance $k = {k}$: what is the combined score $e_{{{i1},{j1}}}$ of query position {i1} "
            f"for key position {j1}?"
        ),
        answer_kind="number",
        expected=float(result.scores[i, j]),
        tolerance=NUMBER_TOLERANCE,
        solution=(
            rf"e_{{{i1},{j1}}} = q_{i1}\,k_{j1} + q_{i1}\,a^K_{{\operatorname{{clip}}({j1}-{i1},\;{k})}}",
            rf"\operatorname{{clip}}({j1}-{i1},\;{k}) = \operatorname{{clip}}({offset},\;{k}) = {_signed(clipped)}"
            rf"\;\Rightarrow\; a^K_{{{_signed(clipped)}}} = {_tex(entry, 1)}",
            rf"e_{{{i1},{j1}}} = {_factor(q)}{_factor(key)} + {_factor(q)}{_factor(entry)}"
            rf" = {_sum_tex((result.content[i, j], result.bias[i, j]), result.scores[i, j])}",
        ),
        explanation=(
            f"The content term multiplies the query by the key; the position term multiplies the same query "
            f"by the table entry of the offset j − i = {_signed_md(offset)}"
            + (f", clipped to {_signed_md(clipped)} because it lies beyond k = {k}" if clipped != offset else "")
            + ". The two terms simply add up."
        ),
        n=n,
        k=k,
        scenario=scenario,
        parameters={"i": i1, "j": j1},
    )


def _table_row_question(rng: np.random.Generator) -> Question:
    n, k = int(rng.integers(6, 9)), int(rng.integers(1, 4))
    i, j = (int(x) for x in rng.integers(0, n, size=2))
    offset = j - i
    clipped = int(_clipped(n, k)[i, j])
    i1, j1 = i + 1, j + 1  # 1-based, as on screen
    return Question(
        kind="table_row",
        title="Which table row?",
        prompt=(
            f"A sequence of {n} tokens uses a table $a^K$ with clipping distance $k = {k}$, so the table has "
            f"{2 * k + 1} rows labelled by the offsets $-{k}, \\dots, +{k}$. Which row does the score of "
            f"query position {i1} for key position {j1} use? Type the row's offset label."
        ),
        answer_kind="offset",
        expected=clipped,
        solution=(
            rf"j - i = {j1} - {i1} = {offset}",
            rf"\operatorname{{clip}}({offset},\;{k}) = \max\!\left(-{k},\ \min({k},\ {offset})\right)"
            rf" = {_signed(clipped)}",
            rf"\Rightarrow\ a^K_{{{_signed(clipped)}}}"
            rf"\quad(\text{{row }} {clipped + k + 1} \text{{ of }} {2 * k + 1}\text{{ from the top; index }}"
            rf" {clipped + k} \text{{ in 0-based code}})",
        ),
        explanation=(
            "The offset is key minus query, j − i. "
            + (
                f"It lies beyond the window ±{k}, so it is clipped to the nearest edge: every key this far "
                "away shares one table row."
                if clipped != offset
                else f"It lies inside the window ±{k}, so it keeps its own row."
            )
        ),
        n=n,
        k=k,
        parameters={"i": i1, "j": j1},
    )


def _weight_grows_question(rng: np.random.Generator) -> Question:
    n, k = int(rng.integers(4, 6)), int(rng.integers(1, 3))
    scenario = _scenario(rng, n, k)
    i = int(rng.integers(1, n))  # query 2..n, so offset −1 exists
    delta = float(rng.choice([0.3, 0.5, 0.8, 1.0]))
    before, after = scenario.attention(), _with_table_entry(scenario, -1, delta).attention()
    grew = frozenset(int(j) + 1 for j in np.flatnonzero(after.weights[i] > before.weights[i]))
    places = decimals_showing(before.weights[i], after.weights[i], 2)  # every key's change visible
    users = frozenset(int(j) + 1 for j in np.flatnonzero(before.offsets[i] == -1))
    q, i1 = scenario.queries[i], i + 1
    change = q * delta
    return Question(
        kind="weight_grows",
        title="Whose weight grows?",
        prompt=(
            f"Query position {i1} has $q_{{{i1}}} = {_tex(q, 1)}$ and the clipping distance is $k = {k}$. "
            f"The table entry $a^K_{{-1}}$ grows by {_md(delta, 1)} (from {_md(scenario.table[k - 1], 1)} to "
            f"{_md(scenario.table[k - 1] + delta, 1)}); nothing else changes. Which key positions get a "
            f"**larger** attention weight from query {i1}? List all of them."
        ),
        answer_kind="positions",
        expected=grew,
        solution=(
            rf"\operatorname{{clip}}(j - {i1},\;{k}) = -1 \iff j \in {_set_tex(users)}",
            rf"\Delta e_{{{i1},j}} = q_{i1}\,\Delta a^K_{{-1}} = {_factor(q)}{_factor(delta)} = {_tex(change)}"
            rf"\ \text{{for }} j \in {_set_tex(users)},\quad 0 \text{{ otherwise}}",
            rf"\alpha_{{{i1},\cdot}}:\ {_row_vector_tex(before.weights[i], places)}"
            rf" \;\to\; {_row_vector_tex(after.weights[i], places)}",
            rf"\text{{larger: }} j \in {_set_tex(grew)}",
        ),
        explanation=(
            f"Only the keys at offset −1 from query {i1}"
            + (" (and, with k = 1, every key further left, clipped to −1)" if k == 1 else "")
            + f" use $a^K_{{-1}}$. Their score changes by $q_{{{i1}}}\\,\\Delta a^K_{{-1}}$, which is "
            + ("positive" if change > 0 else "negative")
            + " here because the query is "
            + ("positive" if q > 0 else "negative")
            + ". The weights of a row always add up to 1, so when some keys gain, all the others lose: "
            + (
                "the keys that use $a^K_{-1}$ gain."
                if change > 0
                else "every key that does *not* use $a^K_{-1}$ gains."
            )
        ),
        n=n,
        k=k,
        scenario=scenario,
        parameters={"i": i1, "offset": -1, "delta": delta},
    )


def _weights_sum_variant(shared: dict, setup: str, after, i: int, n: int) -> Question:
    """Row sums of the weights: always 1, whatever the table does."""
    i1 = i + 1
    return Question(
        **shared,
        title="Row sums of the weights",
        prompt=setup + f"After the change, what do the attention weights of query {i1}, "
        f"$\\alpha_{{{i1},1}} + \\dots + \\alpha_{{{i1},{n}}}$, add up to?",
        expected=float(after.weights[i].sum()),
        solution=(
            rf"\sum_j \alpha_{{{i1},j}} = \sum_j"
            rf" \frac{{\exp(e_{{{i1},j}})}}{{\sum_{{j'}} \exp(e_{{{i1},j'}})}} = 1",
            _sum_tex(after.weights[i], after.weights[i].sum()),
        ),
        explanation=(
            "Softmax divides every exponential by their total, so a row of weights always adds up to 1, "
            "whatever the position biases do. A bias only moves weight from some keys to others."
        ),
    )


def _scores_sum_variant(shared: dict, setup: str, before, after, scenario: Scenario, i: int, offset: int) -> Question:
    """Row sums of the scores: the query times the change, once per key that reads the entry."""
    i1, label, n, k = i + 1, _signed(offset), shared["n"], shared["k"]
    delta = shared["parameters"]["delta"]
    users = np.flatnonzero(before.offsets[i] == offset)
    change = float(after.scores[i].sum() - before.scores[i].sum())
    return Question(
        **shared,
        title="Row sums of the scores",
        prompt=setup + f"By how much does the sum of query {i1}'s scores, "
        f"$e_{{{i1},1}} + \\dots + e_{{{i1},{n}}}$, change? (Type a signed number; 0 if it does not change.)",
        expected=change,
        solution=(
            rf"\Delta \sum_j e_{{{i1},j}} = q_{i1}\,\Delta a^K_{{{label}}} \times "
            rf"\#\{{ j : \operatorname{{clip}}(j - {i1},\;{k}) = {label} \}}",
            rf"j \in {_set_tex(users + 1)}\ \Rightarrow\ "
            rf"{_factor(scenario.queries[i])}{_factor(delta)}({len(users)}) = {_tex(change)}",
        ),
        explanation=(
            f"Only the keys whose clipped offset from query {i1} is {_signed_md(offset)} use that table entry; each "
            "of their scores moves by the query times the change. The content terms do not move. (The weights, "
            "by contrast, always add up to 1.)"
        ),
    )


def _row_sum_question(rng: np.random.Generator) -> Question:
    n, k = int(rng.integers(4, 6)), 2
    scenario = _scenario(rng, n, k)
    i, offset = int(rng.integers(0, n)), int(rng.integers(-k, k + 1))
    delta = float(rng.choice([-0.5, 0.4, 0.6, 1.0]))
    before, after = scenario.attention(), _with_table_entry(scenario, offset, delta).attention()
    i1, label = i + 1, _signed(offset)
    setup = (
        f"The table entry $a^K_{{{label}}}$ changes by {_md(delta, 1)} "
        f"(from {_md(scenario.table[offset + k], 1)} to {_md(scenario.table[offset + k] + delta, 1)}); "
        f"k = {k}, and query position {i1} has $q_{{{i1}}} = {_tex(scenario.queries[i], 1)}$. "
    )
    shared = {
        "kind": "row_sum",
        "answer_kind": "number",
        "tolerance": NUMBER_TOLERANCE,
        "n": n,
        "k": k,
        "scenario": scenario,
        "parameters": {"i": i1, "offset": offset, "delta": delta},
    }
    if rng.random() < 0.5:
        shared["parameters"]["variant"] = "weights"
        return _weights_sum_variant(shared, setup, after, i, n)
    shared["parameters"]["variant"] = "scores"
    return _scores_sum_variant(shared, setup, before, after, scenario, i, offset)


def _cells_question(rng: np.random.Generator) -> Question:
    # (n, k_from, k_to): at most 8 changed cells, so the answer stays quick to type
    n, k_from, k_to = ((4, 2, 1), (4, 3, 1), (4, 3, 2), (5, 3, 2), (5, 4, 3))[int(rng.integers(0, 5))]
    scenario = _scenario(rng, n, k_from)
    cropped = Scenario(scenario.queries, scenario.keys, scenario.table[k_from - k_to : k_from + k_to + 1])
    before, after = scenario.attention(), cropped.attention()
    changed = frozenset((int(i) + 1, int(j) + 1) for i, j in np.argwhere(np.abs(after.bias - before.bias) > 1e-12))
    example_i, example_j = min(changed)
    i0, j0 = example_i - 1, example_j - 1
    old_row, new_row = int(before.offsets[i0, j0]), int(after.offsets[i0, j0])
    return Question(
        kind="cells_change",
        title="Which cells change?",
        prompt=(
            f"The clipping distance goes from $k = {k_from}$ to $k = {k_to}$: the table keeps its rows "
            f"$a^K_{{-{k_to}}}, \\dots, a^K_{{+{k_to}}}$ with the same values and loses the outer ones. "
            f"Which cells $(i, j)$ of the {n} × {n} position-bias matrix $q_i\\,a^K_{{\\operatorname{{clip}}(j-i,k)}}$ "
            "change?"
        ),
        answer_kind="cells",
        expected=changed,
        solution=(
            rf"\operatorname{{clip}}(j-i,\;{k_to}) \ne \operatorname{{clip}}(j-i,\;{k_from}) \iff |j - i| > {k_to}",
            r"\text{changed: }" + r",\ ".join(f"({i},{j})" for i, j in sorted(changed)),
            rf"\text{{e.g. }} b_{{{example_i},{example_j}}}:\ q_{example_i}\,a^K_{{{_signed(old_row)}}}"
            rf" = {_factor(scenario.queries[i0])}{_factor(scenario.table[old_row + k_from])}"
            rf" = {_tex(before.bias[i0, j0])} \;\to\; q_{example_i}\,a^K_{{{_signed(new_row)}}}"
            rf" = {_factor(scenario.queries[i0])}{_factor(cropped.table[new_row + k_to])}"
            rf" = {_tex(after.bias[i0, j0])}",
        ),
        explanation=(
            f"Cells within distance {k_to} of the diagonal keep their own table row. Every cell further out "
            f"is now clipped to ±{k_to}, so it reads a different row than before; the queries are nonzero and the "
            "table entries differ, so those biases change. They form the outer diagonals of the matrix, in both "
            "corners."
        ),
        n=n,
        k=k_to,
        scenario=scenario,
        parameters={"k_from": k_from, "k_to": k_to},
    )


_GENERATORS: tuple[Callable[[np.random.Generator], Question], ...] = (
    _score_question,
    _table_row_question,
    _weight_grows_question,
    _row_sum_question,
    _cells_question,
)


def make_quiz(seed: int) -> tuple[Question, ...]:
    """Five questions drawn from ``np.random.default_rng(seed)``.

    Parameters
    ----------
    seed : int
        Non-negative; equal seeds give equal questions.

    Returns
    -------
    questions : tuple of Question
        Compute a score; which table row; whose weight grows; row sums; which cells
        change with k. Each question draws from its own child generator, so changing
        one question's recipe does not change the others.

    Examples
    --------
    >>> quiz = make_quiz(7)
    >>> [q.kind for q in quiz]
    ['score', 'table_row', 'weight_grows', 'row_sum', 'cells_change']
    >>> make_quiz(7) == quiz
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    children = np.random.default_rng(int(seed)).spawn(len(_GENERATORS))
    return tuple(_slip_proof(generate(rng)) for generate, rng in zip(_GENERATORS, children, strict=True))


def _slip_proof(question: Question) -> Question:
    """A numeric question with the tolerance no named slip's value meets (others as drawn)."""
    if question.answer_kind != "number":
        return question
    return replace(question, tolerance=question_tolerance(question))


# ---------------------------------------------------------------- the example in the Explorer


def _change_hint(question: Question, panel: str) -> str:
    """What to do in the Explorer to see a table entry's change: move its slider, watch one row."""
    p, table, k = question.parameters, question.scenario.table, question.k
    entry = f"aᴷ{numbers.offset_subscript(p['offset'])}"
    old = table[p["offset"] + k]
    return (
        f"It opens before the change: move {entry} from {_md(old, 1)} to {_md(old + p['delta'], 1)} "
        f"and watch row {p['i']} of the {panel}."
    )


def explorer_example(question: Question) -> tuple[dict, str]:
    """The question's numbers as the Explorer's state, and what to look at there.

    Returns
    -------
    setting : dict
        Typed Explorer entries: ``n`` and ``k``, and with a scenario its ``q``, ``keys``
        and ``a`` (before any change the question makes). Whether the Explorer can show
        them is the Explorer's schema's call, not this module's.
    hint : str
        One plain sentence: which cells answer the question, or which slider to move.

    Examples
    --------
    >>> setting, hint = explorer_example(make_quiz(42)[0])
    >>> setting["n"], setting["k"], setting["q"]
    (4, 2, [0.8, 0.2, 0.8, -0.6])
    >>> hint
    'Row 1, column 2 of the combined score is e₁₂: the content cell plus the position bias cell.'
    """
    p, scenario = question.parameters, question.scenario
    setting = {"n": question.n, "k": question.k}
    if scenario is not None:
        k = p.get("k_from", question.k)  # which cells change: it opens at the k before the change
        setting.update(k=k, q=list(scenario.queries), keys=list(scenario.keys), a=list(scenario.table))
    if question.kind == "score":
        i, j = p["i"], p["j"]
        cell = f"e{numbers.subscript(i)}{numbers.subscript(j)}"
        hint = f"Row {i}, column {j} of the combined score is {cell}: the content cell plus the position bias cell."
    elif question.kind == "table_row":
        hint = f"The offset map shows the table row every cell reads; this question's is row {p['i']}, column {p['j']}."
    elif question.kind == "weight_grows":
        hint = _change_hint(question, "combined weights")
    elif question.kind == "row_sum":
        hint = _change_hint(question, "combined weights" if p.get("variant") == "weights" else "combined score")
    else:
        hint = (
            f"It opens at k = {p['k_from']}: set the clipping distance k to {p['k_to']} and watch which cells of "
            "the position bias panel change."
        )
    return setting, hint
