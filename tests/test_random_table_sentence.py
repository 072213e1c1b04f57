"""Position effects, random table: what the sentence says about preferred offsets holds.

"A random table has no preferred offset" was fixed text. At the default settings and
seed 6 all six queries score the row of offset −1 highest, because the shared direction
in X makes the queries alike. The sentence is now computed; each claim is re-derived here
with a plain loop, over seeds, sizes, k (0 and ≥ n included), d_k = 1, and the shared
direction from 0 (queries point every which way) to 3 (queries nearly aligned).
"""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.text.numbers import number, offset
from relpos.topics.position_effects import model as position_effects_model
from relpos.topics.position_effects import schema as position_effects_schema
from relpos.topics.position_effects import text as position_effects_text


def read_rows(n: int, k: int) -> list[int]:
    """Offsets of the table rows an n × n grid reads: clip(j − i, k) for every pair."""
    return sorted({max(-k, min(k, j - i)) for i in range(n) for j in range(n)})


def favourites(queries, table) -> list[set[int]]:
    """Plain loop: per query, the read rows it scores highest, ties as printed (2 decimals)."""
    queries, table = np.asarray(queries, float), np.asarray(table, float)
    k = (table.shape[0] - 1) // 2
    d = queries.shape[1]
    rows = read_rows(queries.shape[0], k)
    sets = []
    for q in queries:
        printed = {o: number(float(q @ table[o + k]) / np.sqrt(d)) for o in rows}
        best = max(float(q @ table[o + k]) / np.sqrt(d) for o in rows)
        sets.append({o for o, text in printed.items() if text == number(best)})
    return sets


def summary(n, k, seed, *, dk=8, shared=1.0, dmodel=16):
    inputs = position_effects_model.position_effects_inputs(
        n, k, d_model=dmodel, d_k=dk, seed=seed, pattern="random", shared=shared
    )
    result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    sentences = position_effects_text.position_effects_summary(inputs.queries, result, (), table=inputs.table)
    return inputs, sentences


def test_seed_6_at_the_default_settings():
    state = dict(position_effects_schema.POSITION_EFFECTS.decode({}).state, preset="random", seed=6)
    inputs = position_effects_schema.state_inputs(state)
    result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    text = " ".join(position_effects_text.position_effects_summary(inputs.queries, result, (), table=inputs.table))
    assert "no preferred offset" not in text
    assert f"all {state['n']} queries score the row of offset {offset(-1)} highest" in text
    assert all(sets == {-1} for sets in favourites(inputs.queries, inputs.table))


def test_a_seed_where_the_queries_disagree():
    inputs, sentences = summary(6, 3, 2)
    sets = favourites(inputs.queries, inputs.table)
    assert not set.intersection(*sets)
    assert any("do not agree" in sentence for sentence in sentences)


@settings(max_examples=120, deadline=None)
@given(
    n=st.sampled_from([2, 3, 6, 12]),
    k=st.sampled_from([0, 1, 2, 3, 5, 13]),
    seed=st.integers(0, 500),
    dk=st.sampled_from([1, 2, 8]),
    shared=st.sampled_from([0.0, 1.0, 3.0]),
)
def test_every_claim_holds(n, k, seed, dk, shared):
    inputs, sentences = summary(n, k, seed, dk=dk, shared=shared)
    text = " ".join(sentences)
    assert "no preferred offset" not in text
    sets = favourites(inputs.queries, inputs.table)
    everyone = set.intersection(*sets)
    unanimous = re.search(r"(?:all (\d+)|(both)) queries score the rows? of offsets? (.+?) highest", text)
    if unanimous:
        assert (int(unanimous.group(1)) if unanimous.group(1) else 2) == n
        named = {int(o.replace("−", "-").replace("+", "")) for o in re.findall(r"[−+]?\d+", unanimous.group(3))}
        assert named == everyone, (text, sets)
    majority = re.search(r"(\d+) of (\d+) queries score the row of offset ([−+]?\d+) highest", text)
    if majority:
        count, total = int(majority.group(1)), int(majority.group(2))
        favourite = int(majority.group(3).replace("−", "-").replace("+", ""))
        assert total == n and count == sum(favourite in s for s in sets) and n / 2 < count < n
    if "do not agree" in text:
        assert not everyone and max(sum(o in s for s in sets) for o in read_rows(n, k)) <= n / 2
    if k > 0 and np.ptp(inputs.table) > 0:  # a table that tells offsets apart gets one of the three verdicts
        assert unanimous or majority or "do not agree" in text, text
