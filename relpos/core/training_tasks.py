"""Copying tasks for the tiny trained attention head (NumPy only).

Every task shows the model a sequence of tokens drawn uniformly at random from a
vocabulary of size V and asks it, at each position ``i``, for a token it has already
seen. The token to copy is fixed by position alone, so a head solves a task only if
it can find the right position:

* ``"previous"``: the token one back, ``x_{i-1}``; scored at ``i = 1 .. n − 1``;
* ``"two_back"``: the token two back, ``x_{i-2}``; scored at ``i = 2 .. n − 1``;
* ``"first"``: the first token of the sequence, ``x_0``; scored at ``i = 1 .. n − 1``
  (at ``i = 0`` the answer is the query's own token, which needs no position).

A position is scored exactly when its target is another, earlier position of the
same sequence. Positions are 0-based.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from relpos.core.checks import as_count

__all__ = ["TRAINING_TASKS", "TaskBatch", "task_sequences"]

#: The tasks, in display order: key -> on-screen description.
TRAINING_TASKS = {
    "previous": "copy the previous token",
    "two_back": "copy the token two back",
    "first": "copy the first token",
}

#: How far back each task's target lies (None: always position 0).
_LOOK_BACK = {"previous": 1, "two_back": 2, "first": None}


def check_task(task) -> str:
    """Return `task` if it names a task, else raise ValueError listing the allowed ones."""
    if not isinstance(task, str) or task not in TRAINING_TASKS:
        raise ValueError(f"task must be one of {', '.join(map(repr, TRAINING_TASKS))}; got {task!r}")
    return task


@dataclass(frozen=True)
class TaskBatch:
    """A batch of sequences with the token each position must predict.

    Attributes
    ----------
    tokens : ndarray of int64, shape (batch, n)
        The input sequences, values in ``0 .. V − 1``.
    targets : ndarray of int64, shape (batch, n)
        The token to predict at each position (0 where the position is not scored).
    scored : ndarray of bool, shape (n,)
        Which positions count in the loss and the accuracy (the same for every sequence).
    """

    tokens: np.ndarray
    targets: np.ndarray
    scored: np.ndarray

    def __post_init__(self):
        for value in (self.tokens, self.targets, self.scored):
            value.setflags(write=False)


def check_length(task: str, length, name: str = "length") -> int:
    """Return `length` if the task scores at least one position at it, else raise ValueError."""
    back = _LOOK_BACK[check_task(task)]
    minimum = 2 if back is None else back + 1
    if isinstance(length, (bool, np.bool_)) or not isinstance(length, numbers.Integral) or length < minimum:
        raise ValueError(
            f"{name} must be an integer >= {minimum} for task {task!r} "
            f"(a shorter sequence has no position to score); got {length!r}"
        )
    return int(length)


def scored_positions(task: str, length: int) -> np.ndarray:
    """Boolean mask of the positions whose target is an earlier position, shape (length,)."""
    back = _LOOK_BACK[check_task(task)]
    positions = np.arange(length)
    # i is scored when its source position i - back (or 0 for "first") exists and is earlier
    return positions >= (1 if back is None else back)  # (n,)


def targets_for(task: str, tokens: np.ndarray) -> np.ndarray:
    """The token each position must predict (0 at positions that are not scored)."""
    back = _LOOK_BACK[check_task(task)]
    targets = np.zeros_like(tokens)  # (batch, n)
    if back is None:
        # "first": y_i = x_0
        targets[:, 1:] = tokens[:, :1]
    else:
        # y_i = x_{i - back}
        targets[:, back:] = tokens[:, :-back]
    return targets


def random_batch(task: str, batch: int, length: int, vocab: int, rng: np.random.Generator) -> TaskBatch:
    """Draw `batch` sequences of `length` uniform tokens from `rng` (no validation)."""
    tokens = rng.integers(0, vocab, size=(batch, length))  # (batch, n)
    return TaskBatch(tokens=tokens, targets=targets_for(task, tokens), scored=scored_positions(task, length))


def task_sequences(task, length, *, samples=1, vocab=16, seed=0) -> TaskBatch:
    """Fresh sequences for `task` from ``np.random.default_rng(seed)``.

    Parameters
    ----------
    task : {"previous", "two_back", "first"}
        What each position must predict (see the module docstring).
    length : int
        Tokens per sequence n, at least 2 (one scored position at least for
        "previous" and "first"; "two_back" needs 3).
    samples : int, default 1
        Number of sequences, at least 1.
    vocab : int, default 16
        Vocabulary size V, at least 2.
    seed : int, default 0
        Seed of the generator, at least 0.

    Returns
    -------
    batch : TaskBatch
        ``tokens`` and ``targets`` of shape (samples, length), ``scored`` of shape (length,).

    Notes
    -----
    .. math::
        x_i \\sim \\mathrm{Uniform}\\{0, \\dots, V - 1\\}, \\quad
        y_i = x_{i-1} \\text{ (previous)}, \\; x_{i-2} \\text{ (two back)}, \\; x_0 \\text{ (first)}

    Examples
    --------
    >>> batch = task_sequences("previous", 5, seed=3)
    >>> batch.tokens
    array([[12,  1,  2,  3,  2]])
    >>> batch.targets
    array([[ 0, 12,  1,  2,  3]])
    >>> batch.scored
    array([False,  True,  True,  True,  True])
    """
    task = check_task(task)
    length = check_length(task, length)
    samples = as_count(samples, "samples")
    vocab = as_count(vocab, "vocab", minimum=2)
    seed = as_count(seed, "seed", minimum=0)
    return random_batch(task, samples, length, vocab, np.random.default_rng(seed))
