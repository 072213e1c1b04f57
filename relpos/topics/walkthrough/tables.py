"""The walkthrough's step table: every (query, key) pair with its whole arithmetic."""

from __future__ import annotations

import pandas as pd

from relpos.topics.walkthrough.model import STEP_COLUMNS, PairStep

__all__ = ["STEP_COLUMNS", "step_frame"]


def step_frame(steps: tuple[PairStep, ...] | list[PairStep]) -> pd.DataFrame:
    """One row per (query, key) pair with its whole arithmetic; positions from 1.

    Parameters
    ----------
    steps : sequence of PairStep
        From :func:`relpos.topics.walkthrough.model.pair_steps` (d = 1, so ``q_i·k_j`` needs no scale).

    Returns
    -------
    frame : DataFrame, shape (len(steps), 12)
        Columns :data:`STEP_COLUMNS`; full precision (round for display only).

    Examples
    --------
    >>> from relpos import worked_example
    >>> from relpos.topics.walkthrough.model import pair_steps
    >>> frame = step_frame(pair_steps(worked_example()))
    >>> frame[["i", "j", "offset j−i", "clipped offset"]].iloc[3].tolist(), float(frame["score"].iloc[3])
    ([1, 4, 3, 2], 0.7)
    """
    if not steps:
        raise ValueError("steps must hold at least one PairStep; got none")
    records = [
        {column: getattr(step, field) + (1 if field in ("i", "j") else 0) for column, field in STEP_COLUMNS.items()}
        for step in steps
    ]
    return pd.DataFrame.from_records(records, columns=list(STEP_COLUMNS))
