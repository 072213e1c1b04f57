"""The textbook scenario every page starts from.

The numbers are the four-token worked example of the textbook chapter the app teaches
alongside: q, k and a^K as :func:`worked_example` returns them, the only numbers typed in.
Everything derived from them is computed by :func:`relpos.relative_attention`; the
chapter's own matrices, copied into ``tests/walkthrough/test_worked_example.py``, are what
it must reproduce.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relpos.core.attention import AttentionResult, relative_attention

__all__ = ["Scenario", "worked_example"]


@dataclass(frozen=True)
class Scenario:
    """Queries, keys and a key-side table for a d = 1 attention example.

    Attributes
    ----------
    queries : tuple of float, length n
        ``q_1 .. q_n`` (shown 1-based; index 0 in code).
    keys : tuple of float, length n
        ``k_1 .. k_n``.
    table : tuple of float, length 2k+1
        ``a^K`` for offsets ``-k .. +k`` (entry ``r`` is offset ``r - k``).
    """

    queries: tuple[float, ...]
    keys: tuple[float, ...]
    table: tuple[float, ...]

    @property
    def n(self) -> int:
        """Sequence length."""
        return len(self.queries)

    @property
    def k(self) -> int:
        """Clipping distance, from the table size ``2k + 1``."""
        return (len(self.table) - 1) // 2

    @property
    def d(self) -> int:
        """Feature size (1: every vector is a single number)."""
        return 1

    def table_offsets(self) -> np.ndarray:
        """Offset of each table entry, ``-k .. +k``."""
        return np.arange(-self.k, self.k + 1)  # (2k+1,)

    def attention(self, *, causal: bool = False) -> AttentionResult:
        """Run :func:`relpos.relative_attention` on this scenario."""
        return relative_attention(np.array(self.queries), np.array(self.keys), A_K=np.array(self.table), causal=causal)


def worked_example() -> Scenario:
    """The chapter's worked example: four tokens, d = 1, clipping distance k = 2.

    Returns
    -------
    scenario : Scenario
        ``q = (1.0, 0.5, 0.8, 0.3)``, ``k = (0.9, 0.7, 0.4, 1.2)`` and
        ``a^K = (-0.3, 0.4, 0.1, -0.2, -0.5)`` for offsets ``-2 .. +2``.

    Notes
    -----
    .. math:: e_{ij} = q_i k_j + q_i a^K_{\\mathrm{clip}(j-i, 2)}

    With d = 1 the scale ``1/\\sqrt{d}`` is 1.

    Examples
    --------
    >>> example = worked_example()
    >>> example.n, example.k
    (4, 2)
    >>> example.attention().scores[0]
    array([ 1. ,  0.5, -0.1,  0.7])
    """
    return Scenario(
        queries=(1.0, 0.5, 0.8, 0.3),
        keys=(0.9, 0.7, 0.4, 1.2),
        table=(-0.3, 0.4, 0.1, -0.2, -0.5),
    )
