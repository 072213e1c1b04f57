"""Train short, test long with RoPE: a head trained at length L, read at f·L with its
frequencies stretched at inference only (NumPy only).

The head is :func:`relpos.train_head`'s tiny causal head with scheme ``"rope"`` (width
d = 16, base 10000). Nothing is retrained: at a test length ``n = f L`` each method of
:func:`relpos.rope_frequencies` gets the scale factor ``s = f`` (and ``L₀ = L``), and the
queries and keys are rotated by its angles instead of the trained ones. At ``f = 1`` every
method gives back the trained angles, so the first column is the same for all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relpos.core.rope_scaling import ROPE_SCALINGS, RopeFrequencies, rope_frequencies, rope_rotation
from relpos.core.training import TrainedHead, check_head, train_head
from relpos.core.training_eval import LengthTable, _as_tokens, _check_factors, _correct_count
from relpos.core.training_model import forward
from relpos.core.training_tasks import check_length, check_task, task_sequences

__all__ = ["EXTENSION_METHODS", "ExtensionTable", "extension_accuracy", "extension_pattern", "rope_extension_table"]

#: The methods the experiment applies at inference, in row order (keys of ROPE_SCALINGS).
EXTENSION_METHODS = ("none", "linear", "ntk", "yarn")


def _rope_head(head) -> TrainedHead:
    head = check_head(head)
    if head.settings.scheme != "rope":
        raise ValueError(f"head must be trained with scheme 'rope'; got {head.settings.scheme!r}")
    return head


def extension_frequencies(head: TrainedHead, method: str, length: int) -> RopeFrequencies:
    """The frequencies `method` uses at test length `length`: s = length / L, L₀ = L (s >= 1)."""
    if method not in ROPE_SCALINGS:
        raise ValueError(f"method must be one of {', '.join(map(repr, ROPE_SCALINGS))}; got {method!r}")
    trained = head.settings.length
    factor = max(1.0, length / trained)
    return rope_frequencies(
        head.settings.d, scaling=method, factor=factor, original_length=trained, seq_len=max(length, trained)
    )


def extension_accuracy(head, length, method, *, seed=0, samples=256) -> float:
    """Next-token accuracy of a RoPE head at `length` with `method`'s frequencies.

    Parameters
    ----------
    head : TrainedHead
        Trained with scheme "rope".
    length : int
        Test sequence length n (at least 2; 3 for "two_back").
    method : str
        A key of :data:`ROPE_SCALINGS`; its factor is ``s = max(1, n / L)``.
    seed, samples
        As in :func:`relpos.accuracy` (the same test sequences).

    Returns
    -------
    accuracy : float

    Notes
    -----
    .. math::
        \\mathrm{acc} = \\frac{1}{N} \\sum_{(b, i)\\ \\mathrm{scored}}
            [\\arg\\max_v \\mathrm{logits}_{b,i,v} = y_{b,i}], \\quad
        q_i, k_j \\text{ rotated by } a\\,R(i\\,\\theta'), a\\,R(j\\,\\theta')

    Examples
    --------
    >>> head = train_head("previous", "rope", length=4, steps=2)
    >>> from relpos.core.training_eval import accuracy
    >>> extension_accuracy(head, 4, "yarn", samples=8) == accuracy(head, 4, samples=8)  # s = 1
    True
    """
    head = _rope_head(head)
    task = head.settings.task
    n = check_length(task, length)
    data = task_sequences(task, n, samples=samples, vocab=head.settings.vocab, seed=seed)
    rotation = rope_rotation(extension_frequencies(head, method, n), n)
    return _correct_count(head, data, rotation) / (data.tokens.shape[0] * int(data.scored.sum()))


def extension_pattern(head, tokens, method) -> np.ndarray:
    """Attention weights of a RoPE head on one sequence with `method`'s frequencies, shape (n, n).

    Examples
    --------
    >>> head = train_head("previous", "rope", length=4, steps=1)
    >>> extension_pattern(head, [1, 2, 3, 4, 5, 6, 7, 8], "linear").sum(axis=1).round(12).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
    head = _rope_head(head)
    batch = _as_tokens(tokens, head.settings.vocab)  # (1, n)
    n = batch.shape[1]
    rotation = rope_rotation(extension_frequencies(head, method, n), n)
    return forward(head.params, batch, "rope", rotation=rotation).weights[0]  # (n, n)


@dataclass(frozen=True)
class ExtensionTable(LengthTable):
    """Accuracy of one RoPE head at several lengths under several methods: a
    :class:`LengthTable` whose rows are methods (keys of :data:`ROPE_SCALINGS`) and whose
    ``heads`` hold the one head, trained once at L; ``accuracy[m, t]`` is method m at
    ``lengths[t]``."""

    @property
    def methods(self) -> tuple:
        """Row order: keys of :data:`ROPE_SCALINGS`."""
        return self.schemes

    @property
    def head(self) -> TrainedHead:
        """The head, trained once at L."""
        return self.heads[0]


def rope_extension_table(
    task,
    *,
    length=16,
    factors=(1, 2, 4, 8),
    methods=EXTENSION_METHODS,
    steps=400,
    seed=0,
    samples=256,
    progress=None,
) -> ExtensionTable:
    """Train a RoPE head at L once, then test it at f·L under each method.

    Parameters
    ----------
    task : {"previous", "two_back", "first"}
    length : int, default 16
        Training length L.
    factors : sequence of int, default (1, 2, 4, 8)
        Test lengths as multiples of L.
    methods : sequence of str
        Keys of :data:`ROPE_SCALINGS`, applied at inference only.
    steps, seed
        As in :func:`relpos.train_head` (vocabulary 16, width 16); `seed` also draws the
        test sequences.
    samples : int, default 256
        Test sequences per length.
    progress : callable, optional
        Called as ``progress(done, total)`` after training (done = 0) and after each length.

    Returns
    -------
    table : ExtensionTable

    Examples
    --------
    >>> table = rope_extension_table("previous", length=4, factors=(1, 2), steps=2, samples=4)
    >>> table.methods, table.lengths.tolist(), table.accuracy.shape
    (('none', 'linear', 'ntk', 'yarn'), [4, 8], (4, 2))
    """
    chosen = tuple(methods)
    for method in chosen:
        if method not in ROPE_SCALINGS:
            raise ValueError(f"methods must be keys of {', '.join(map(repr, ROPE_SCALINGS))}; got {method!r}")
    lengths = np.array([check_length(task, length) * f for f in _check_factors(factors)], dtype=np.int64)
    head = train_head(task, "rope", length=length, steps=steps, seed=seed)
    if progress is not None:
        progress(0, len(lengths))
    columns = []
    for done, n in enumerate(lengths, start=1):
        columns.append([extension_accuracy(head, int(n), m, seed=seed, samples=samples) for m in chosen])
        if progress is not None:
            progress(done, len(lengths))
    return ExtensionTable(check_task(task), chosen, lengths, np.array(columns).T.copy(), (head,))
