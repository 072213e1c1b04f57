"""The walkthrough's words and formulas: each pair's arithmetic in LaTeX and in a
sentence, the offset map's note, the softmax line and the takeaway of a row.

Pure functions over the steps of :mod:`relpos.topics.walkthrough.model`; every number they
print comes from those steps, formatted by :mod:`relpos.text.numbers`.
"""

from __future__ import annotations

from relpos.text import explain, facts, numbers
from relpos.text.explain import weight_shift_cause, weight_shift_reason
from relpos.text.facts import VISIBLE_CHANGE, WEIGHT_DECIMALS, decimals_adding_up
from relpos.topics.walkthrough.model import PairStep, RowShift

__all__ = [
    "offset_map_note",
    "pair_latex",
    "pair_sentence",
    "short_number",
    "signed",
    "softmax_latex",
    "takeaway",
    "takeaway_derivation",
]


def _key_label(step: PairStep) -> str:
    """``Key 4 (offset +3, clipped to +2)`` in plain text."""
    where = f"offset {signed(step.offset, 0)}"
    if step.is_clipped:
        where += f", clipped to {signed(step.clipped, 0)}"
    return f"Key {step.j + 1} ({where})"


def takeaway(shift: RowShift, row_steps: tuple[PairStep, ...] | list[PairStep]) -> list[str]:
    """The softmax step's conclusions for one row, as plain sentences built from the row's facts.

    Parameters
    ----------
    shift : RowShift
        From :func:`row_shift`; its facts decide every claim (ties at 3 decimals).
    row_steps : sequence of PairStep, length n
        The row's pairs (key order), for offsets and position terms.

    Returns
    -------
    sentences : list of str
        Markdown-safe text (numbers and fixed words only).

    Examples
    --------
    >>> from relpos.core.examples import worked_example
    >>> from relpos.topics.walkthrough.model import pair_steps, row_shift
    >>> example = worked_example()
    >>> steps = pair_steps(example)
    >>> print(takeaway(row_shift(example.attention(), 0), steps[:4])[0])
    Key 1 (offset 0) gained the most weight: 0.265 → 0.373 (+0.108), because its position term 0.10
    is above the row's log-mean-exp.
    """
    if len(row_steps) != len(shift.weights):
        raise ValueError(f"row_steps must hold one PairStep per key ({len(shift.weights)}); got {len(row_steps)}")
    facts = shift.facts
    if facts.still:
        return [_still_sentence(shift, row_steps)]
    sentences = []
    positions = [step.position for step in row_steps]
    for keys, verb in ((facts.gainers, "gained"), (facts.losers, "lost")):
        for index in keys:
            tied = [j for j in keys if j != index]
            tie = f", tied with {explain.keys_text(tied)}" if tied else ""
            cause = weight_shift_cause(shift.content_weights, positions, index, term="position term")
            change = explain.change_text(shift.content_weights[index], shift.weights[index], facts.decimals)
            sentences.append(f"{_key_label(row_steps[index])} {verb} the most weight{tie}: {change}, because {cause}.")
    sentences.append(_favourite_sentence(shift))
    return sentences


def takeaway_derivation(shift: RowShift, row_steps: tuple[PairStep, ...] | list[PairStep]) -> list[str]:
    """The arithmetic behind the takeaway's "because" clauses, for the page to show on request:
    for each key that gained or lost the most, the row's log-mean-exp T and the factor
    e^(bⱼ − T) its weight was multiplied by; when nothing moved visibly but the terms
    differ, the row's T (empty when the row's terms are all alike).

    >>> from relpos.core.examples import worked_example
    >>> from relpos.topics.walkthrough.model import pair_steps, row_shift
    >>> example = worked_example()
    >>> print(takeaway_derivation(row_shift(example.attention(), 0), pair_steps(example)[:4])[1])
    Key 4 (offset +3, clipped to +2): its position term −0.50 is below the row's content-weighted
    log-mean-exp T = log Σₗ wₗ·e^(bₗ) = −0.2425, so its weight is multiplied by e^(bⱼ − T) = 0.773.
    """
    facts = shift.facts
    positions = [step.position for step in row_steps]
    if facts.still == "constant":
        return []
    if facts.still:
        threshold = explain.row_log_mean_exp(shift.content_weights, positions)
        return [
            f"Here T = log Σₗ wₗ·e^(bₗ) = {explain.number(threshold)}, and each weight wⱼ changes by "
            "wⱼ·(e^(bⱼ − T) − 1)."
        ]
    return [
        f"{_key_label(row_steps[index])}: "
        f"{weight_shift_reason(shift.content_weights, positions, index, term='position term')}."
        for keys in (facts.gainers, facts.losers)
        for index in keys
    ]


def _weight(value: float, decimals: int = WEIGHT_DECIMALS) -> str:
    return numbers.number(value, decimals)


def _still_sentence(shift: RowShift, row_steps) -> str:
    """Why no weight of the row moved visibly: one bias for all, a tiny spread, or saturated content."""
    facts = shift.facts
    span = numbers.readable(facts.spread)
    if facts.still == "constant":
        return (
            f"No weight changed: every key of this row got the same position term "
            f"({signed(row_steps[0].position)}), and adding one number to a whole row leaves "
            "the softmax unchanged. Only differences between the position terms of a row matter."
        )
    if facts.still == "small":
        return (
            f"No weight changed visibly: the position terms of this row span only {span}, and a spread that small "
            f"moves no weight by 0.0005 or more whatever the content (at most tanh(spread/4) = "
            f"{numbers.scientific_below(facts.reach, VISIBLE_CHANGE)})."
        )
    # below 0.0005: E notation, with the digits that show it below
    largest = numbers.scientific_below(facts.largest_change, VISIBLE_CHANGE)
    if facts.still == "saturated":
        return (
            f"No weight changed visibly, though the position terms of this row span {span}: content saturates "
            f"this softmax. With content alone {explain.keys_text(facts.content_top)} already holds "
            f"{_weight(max(shift.content_weights))} of the weight and every other key 0.000, and weights pinned at "
            f"0 and 1 barely move: here by at most {largest}. "
            f"With other content these terms could move a weight by up to {numbers.readable(facts.reach)}."
        )
    return (
        f"No weight changed visibly, though the position terms of this row span {span}: with this row's content "
        f"weights no change reaches 0.0005 (at most {largest})."
    )


def _favourite_sentence(shift: RowShift) -> str:
    """Which key(s) get the most weight with content alone and with the position term, ties named."""
    facts, n = shift.facts, len(shift.weights)
    before, after = facts.content_top, facts.top
    then, now = _weight(shift.content_weights[before[0]]), _weight(shift.weights[after[0]])
    if before == after:
        if len(before) == n > 1:
            return f"Every key gets the same weight with and without the position term ({then}, then {now})."
        if len(before) == 1:
            return f"Key {before[0] + 1} gets the most weight with and without the position term ({then} → {now})."
        return (
            f"{explain.keys_text(before).capitalize()} tie for the most weight with and without the position term "
            f"({then} each → {now} each)."
        )
    return f"{_top_clause('content', before, n, then)}; {_top_clause('combined', after, n, now)}."


#: How a favourite is said with content alone and with the position term: every key, one key, a tie.
_CLAUSES = {
    "content": (
        "Content alone gives every key the same weight",
        "Content alone would attend most to {keys}",
        "Content alone ties {keys} for the most weight",
    ),
    "combined": (
        "with the position term every key gets the same weight",
        "with the position term, {keys} gets the most weight",
        "with the position term, {keys} tie for the most weight",
    ),
}


def _top_clause(which: str, keys: tuple[int, ...], n: int, value: str) -> str:
    """``Content alone ties keys 1 and 4 for the most weight (0.327 each)`` and its two siblings."""
    every, one, tie = _CLAUSES[which]
    if len(keys) == n:
        return f"{every} ({value})"
    text = (one if len(keys) == 1 else tie).format(keys=explain.keys_text(keys))
    return f"{text} ({value}{' each' if len(keys) > 1 else ''})"


# ---------------------------------------------------------------------------
# Numbers as text and LaTeX
# ---------------------------------------------------------------------------


def short_number(value: float, decimals: int = 4) -> str:
    """Round to `decimals`, drop trailing zeros but keep one decimal; ASCII minus.

    >>> [short_number(v) for v in (1.0, -0.1, 0.32000000000000006, -0.0, 0.2515)]
    ['1.0', '-0.1', '0.32', '0.0', '0.2515']
    """
    return numbers.tex_number(value, decimals, trim=1)


def signed(value: float, decimals: int = 4, *, fixed: bool = False) -> str:
    """A number with an explicit sign and a true minus, ``0`` unsigned: ``+0.1``, ``−0.5``.

    >>> signed(-0.5), signed(3, 0), signed(0.0), signed(0.10789, 3, fixed=True)
    ('−0.5', '+3', '0', '+0.108')
    """
    return numbers.number(value, decimals, sign=True, trim=None if fixed else 0)


def _factor(value: float) -> str:
    """A LaTeX factor: negative numbers in parentheses."""
    text = short_number(value)
    return f"({text})" if text.startswith("-") else text


_offset_tex = numbers.tex_offset


#: Under the score matrix.
SCORES_CAPTION = "Rows are queries i, columns keys j; grey cells are not computed yet. Colour: blue < 0 < red."
#: What the stage says while the class predicts which key gains most (the takeaway answers it).
GAINS_ASKED = "The takeaway and the combined weights appear when the answers are revealed."
#: What stands for the step table while a question is open (it holds every score and weight).
TABLE_ASKED = "The table of every pair's numbers appears when the answers are revealed."
#: A value a question asks for, while it is open.
ASKED_TEX = r"\;?"


def pair_latex(step: PairStep, *, hide_score: bool = False) -> str:
    """The pair's arithmetic, one line per stage, with the numbers substituted.

    offset j − i → clipped offset → table row and entry → content term → position
    term → score. `hide_score`: the class is asked to predict the score, so the three
    terms' values are question marks until the reveal.

    >>> from relpos.core.examples import worked_example

    >>> from relpos.topics.walkthrough.model import pair_steps
    >>> "= 1.2 + (-0.5) = 0.7" in pair_latex(pair_steps(worked_example())[3])
    True
    >>> "0.7" in pair_latex(pair_steps(worked_example())[3], hide_score=True)
    False
    """
    i, j = step.i + 1, step.j + 1
    content, position, score = (
        (ASKED_TEX,) * 3 if hide_score else (short_number(step.content), short_number(step.position), None)
    )
    entry = f"a^K_{{{_offset_tex(step.clipped)}}}"
    distance = abs(step.offset)
    if step.is_clipped:
        clip_note = rf"&\quad\text{{since }} \lvert j - i \rvert = {distance} > k = {step.k}\text{{: clipped}}"
    else:
        clip_note = rf"&\quad\text{{since }} \lvert j - i \rvert = {distance} \le k = {step.k}\text{{: kept}}"
    lines = [
        rf"\text{{offset}} &= j - i = {j} - {i} = {_offset_tex(step.offset)}",
        rf"\text{{clipped offset}} &= \operatorname{{clip}}({_offset_tex(step.offset)},\, {step.k})"
        rf" = {_offset_tex(step.clipped)}",
        clip_note,
        rf"\text{{table row}} &= \text{{clipped}} + k = {_offset_tex(step.clipped)} + {step.k} = {step.table_row}",
        rf"\text{{table entry}} &= {entry} = {short_number(step.embedding)}",
        rf"\text{{content term}} &= q_{{{i}}} \cdot k_{{{j}}} = {_factor(step.query)} \times {_factor(step.key)}"
        rf" = {content}",
        rf"\text{{position term}} &= q_{{{i}}} \cdot {entry} = {_factor(step.query)} \times {_factor(step.embedding)}"
        rf" = {position}",
        (
            rf"\text{{score}}\; e_{{{i},{j}}} &= \text{{content}} + \text{{position}} = {score}"
            if hide_score
            else rf"\text{{score}}\; e_{{{i},{j}}} &= {_score_sum(step)}"
        ),
    ]
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


#: A pair's score line prints at most this many decimals; past them its total is added from the printed terms.
_MOST_DECIMALS = 6


def _score_sum(step: PairStep) -> str:
    """``1.2 + (-0.5) = 0.7``: the two terms and the score at 4 decimals, or as many more (up to 6) as
    make the printed terms add up to the printed score (values typed with 3 decimals have 6-decimal products).

    >>> from relpos.core.examples import Scenario
    >>> from relpos.topics.walkthrough.model import pair_steps
    >>> _score_sum(pair_steps(Scenario((0.123,), (0.456,), (0.789,)))[0])
    '0.0561 + 0.097 = 0.1531'
    >>> _score_sum(pair_steps(Scenario((0.123,), (0.451,), (0.781,)))[0])  # 0.0555 + 0.0961 is not 0.1515
    '0.055473 + 0.096063 = 0.151536'
    """
    places = min(decimals_adding_up((step.content, step.position), step.score, 4), _MOST_DECIMALS)
    content, position = (numbers.tex_number(value, places, trim=1) for value in (step.content, step.position))
    total = facts.printed(step.content, places) + facts.printed(step.position, places)  # what the reader adds
    position = f"({position})" if position.startswith("-") else position
    return f"{content} + {position} = {numbers.tex_number(total, places, trim=1)}"


def pair_sentence(step: PairStep) -> str:
    """One plain sentence on where the key sits and which table entry it reads.

    >>> from relpos.core.examples import worked_example

    >>> from relpos.topics.walkthrough.model import pair_steps
    >>> print(pair_sentence(pair_steps(worked_example())[3]))
    Key 4 is 3 positions after query 1, farther than k = 2, so it reuses the entry of offset +2.
    """
    i, j, distance = step.i + 1, step.j + 1, abs(step.offset)
    if step.offset == 0:
        return f"Key {j} is at offset 0 from query {i}, so it reads the entry of offset 0."
    side = "after" if step.offset > 0 else "before"
    where = f"Key {j} is {distance} position{'s' if distance > 1 else ''} {side} query {i}"
    entry = signed(step.clipped, 0)
    if step.is_clipped:
        return f"{where}, farther than k = {step.k}, so it reuses the entry of offset {entry}."
    return f"{where}, so it reads the entry of offset {entry}."


def offset_map_note(steps: tuple[PairStep, ...] | list[PairStep]) -> str:
    """What to read in the offset map, with this scenario's k and clipped cells (Markdown).

    >>> from relpos.core.examples import worked_example

    >>> from relpos.topics.walkthrough.model import pair_steps
    >>> print(offset_map_note(pair_steps(worked_example())))  # doctest: +ELLIPSIS
    Each **diagonal** ... The 2 cells marked ✕ are more than k = 2 apart ... such as +3→+2 ...
    """
    if not steps:
        raise ValueError("steps must hold at least one PairStep; got none")
    k, n = steps[0].k, max(s.i for s in steps) + 1
    note = (
        "Each **diagonal** of the offset map (top left to bottom right) is one offset j − i and reads one table entry."
    )
    clipped = [s for s in steps if s.is_clipped]
    if not clipped:
        return f"{note} With k = {k} no two of these {n} tokens are more than k apart, so nothing is clipped."
    farthest = max(clipped, key=lambda s: (s.offset, -s.i))
    label = f"{numbers.offset(farthest.offset)}→{numbers.offset(farthest.clipped)}"
    return (
        f"{note} The {len(clipped)} cells marked ✕ are more than k = {k} apart and reuse the edge entry; "
        f"a label such as {label} shows the true and the clipped offset. The entry is shared along a "
        r"diagonal, but the position term $q_i \cdot a^K$ is not: each row multiplies it by its own query."
    )


def softmax_latex(
    row_steps: tuple[PairStep, ...] | list[PairStep], *, compact: bool = False, combined: bool = True
) -> str:
    """Both softmaxes of one row with the numbers substituted (weights to 3 decimals).

    ``compact`` (presenter mode) leaves out the definition of α and puts each label on a
    line of its own: a narrower formula, for a column next to two figures. Without
    `combined` (the class is asked which key gains most) the combined weights are a
    question mark.

    >>> from relpos.core.examples import worked_example

    >>> from relpos.topics.walkthrough.model import pair_steps
    >>> r"\\operatorname{softmax}(1.0,\\ 0.5,\\ -0.1,\\ 0.7)" in softmax_latex(pair_steps(worked_example())[:4])
    True
    """
    if not row_steps:
        raise ValueError("row_steps must hold the pairs of one query row; got none")
    i = row_steps[0].i + 1

    def vector(values, formatter):
        return r",\ ".join(formatter(v) for v in values)

    def weights(values):
        return vector(values, lambda w: numbers.tex_number(w, 3))

    content = vector((s.content for s in row_steps), short_number)
    scores = vector((s.score for s in row_steps), short_number)
    combined_weights = f"({weights(s.weight for s in row_steps)})" if combined else ASKED_TEX
    if compact:
        lines = [
            r"&\text{content only:}",
            rf"&\operatorname{{softmax}}({content})",
            rf"&= ({weights(s.content_weight for s in row_steps)})",
            r"&\text{combined:}",
            rf"&\operatorname{{softmax}}({scores})",
            rf"&= {combined_weights}",
        ]
        return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"
    lines = [
        rf"\alpha_{{{i},j}} &= \frac{{\exp(e_{{{i},j}})}}{{\sum_{{j'}} \exp(e_{{{i},j'}})}}",
        rf"\text{{content only:}}\quad &\operatorname{{softmax}}({content})",
        rf"&= ({weights(s.content_weight for s in row_steps)})",
        rf"\text{{combined:}}\quad &\operatorname{{softmax}}({scores})",
        rf"&= {combined_weights}",
    ]
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"
