"""Starting values for the Explorer: the textbook example and a few teaching patterns.

Every preset gives, for any length ``n`` and clipping distance ``k``, the first
coordinate of each query, key and table entry (``d = 1``, the numbers the sliders
show) on the slider grid (multiples of 0.05 in ``[-2, 2]``). A second coordinate,
used when ``d = 2``, is drawn from the seed. Values are drawn once for the longest
sequence and sliced, so growing ``n`` or ``k`` keeps the existing values and only
adds new ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relpos.core.checks import as_count
from relpos.core.examples import worked_example

__all__ = [
    "MAX_TOKENS",
    "PRESETS",
    "VALUE_RANGE",
    "VALUE_STEP",
    "ExplorerInputs",
    "explorer_inputs",
    "preset_values",
    "second_coordinates",
]

#: Longest sequence the Explorer draws.
MAX_TOKENS = 512
#: Slider range and step of every value.
VALUE_RANGE = (-2.0, 2.0)
VALUE_STEP = 0.05

#: Preset name -> what it shows (the on-screen label).
PRESETS = {
    "textbook": "Textbook example",
    "locality": "Locality: nearby keys favoured",
    "previous": "Previous token: offset −1 favoured",
    "ahead": "Look ahead: offset +1 favoured",
    "none": "No position: aᴷ = 0",
    "random": "Random (seed)",
}


def _on_grid(values: np.ndarray) -> np.ndarray:
    """Round to the slider step and keep inside the slider range (no −0.0)."""
    rounded = np.round(np.asarray(values, dtype=float) / VALUE_STEP) * VALUE_STEP
    return np.clip(np.round(rounded, 2), *VALUE_RANGE) + 0.0


@dataclass(frozen=True)
class _Draws:
    """Uniform [0, 1) draws for every index a preset may need, from one seed."""

    queries: np.ndarray  # (MAX_TOKENS,)
    keys: np.ndarray  # (MAX_TOKENS,)
    table: np.ndarray  # (2 MAX_TOKENS - 1,), centre = offset 0
    queries2: np.ndarray  # (MAX_TOKENS,)
    keys2: np.ndarray  # (MAX_TOKENS,)
    table2: np.ndarray  # (2 MAX_TOKENS - 1,)


def _draws(seed: int) -> _Draws:
    streams = [np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(6)]
    sizes = (MAX_TOKENS, MAX_TOKENS, 2 * MAX_TOKENS - 1) * 2
    return _Draws(*(stream.random(size) for stream, size in zip(streams, sizes, strict=True)))


def _around(table: np.ndarray, k: int) -> np.ndarray:
    """Entries for offsets -k..+k of a table centred on offset 0."""
    centre = (table.size - 1) // 2
    return table[centre - k : centre + k + 1]


def _textbook(n: int, k: int, draws: _Draws) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    example = worked_example()
    queries = np.concatenate([example.queries, 0.2 + draws.queries[: n - 4]])[:n]
    keys = np.concatenate([example.keys, 0.2 + draws.keys[: n - 4]])[:n]
    # beyond the textbook's k = 2 each side repeats its outermost entry, so a larger
    # table gives exactly the textbook's clipped numbers for the first four tokens
    offsets = np.arange(-k, k + 1)
    table = np.asarray(example.table)[np.clip(offsets, -example.k, example.k) + example.k]
    return queries, keys, table


def _profile(offsets: np.ndarray, preset: str) -> np.ndarray:
    if preset == "locality":
        return np.maximum(1.5 - 0.75 * np.abs(offsets), -1.5)
    favoured = {"previous": -1, "ahead": 1}[preset]
    return np.where(offsets == favoured, 2.0, 0.0)


def preset_values(preset: str, n, k, seed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First coordinates of the queries, keys and table of a preset.

    Parameters
    ----------
    preset : str
        One of :data:`PRESETS`.
    n : int
        Sequence length, 1 .. MAX_TOKENS.
    k : int
        Clipping distance, 0 .. MAX_TOKENS - 1.
    seed : int
        Seed of the random parts (any non-negative integer).

    Returns
    -------
    queries : ndarray of float64, shape (n,)
    keys : ndarray of float64, shape (n,)
    table : ndarray of float64, shape (2k+1,)
        Entry ``r`` is offset ``r - k``. All values are multiples of 0.05 in [-2, 2].

    Notes
    -----
    The structured presets (locality, previous token, look ahead) use positive
    queries: a Shaw bias is :math:`q_i a^K_o`, so a positive table entry favours
    its offset only for queries with a positive sign.

    Examples
    --------
    >>> q, keys, table = preset_values("textbook", 4, 2, seed=0)
    >>> q, keys, table
    (array([1. , 0.5, 0.8, 0.3]), array([0.9, 0.7, 0.4, 1.2]), array([-0.3,  0.4,  0.1, -0.2, -0.5]))
    >>> preset_values("previous", 3, 2, seed=0)[2]
    array([0., 2., 0., 0., 0.])
    """
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}; got {preset!r}")
    n = as_count(n, "n")
    k = as_count(k, "k", minimum=0)
    if n > MAX_TOKENS or k >= MAX_TOKENS:
        raise ValueError(f"n must be at most {MAX_TOKENS} and k at most {MAX_TOKENS - 1}; got n = {n}, k = {k}")
    draws = _draws(as_count(seed, "seed", minimum=0))
    offsets = np.arange(-k, k + 1)
    if preset == "textbook":
        queries, keys, table = _textbook(n, k, draws)
    elif preset in ("locality", "previous", "ahead"):
        queries = 0.6 + 0.4 * draws.queries[:n]  # positive, so a^K > 0 means "favoured"
        keys = -0.6 + 1.2 * draws.keys[:n]
        table = _profile(offsets, preset)
    else:  # "none" and "random": content from the seed
        queries = -1.0 + 2.0 * draws.queries[:n]
        keys = -1.0 + 2.0 * draws.keys[:n]
        table = np.zeros(2 * k + 1) if preset == "none" else -1.0 + 2.0 * _around(draws.table, k)
    return _on_grid(queries), _on_grid(keys), _on_grid(table)


def second_coordinates(preset: str, n, k, seed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Second coordinates of queries, keys and table for ``d = 2``, from the seed.

    Returns arrays of shapes ``(n,)``, ``(n,)`` and ``(2k+1,)`` with values in
    ``[-0.3, 0.3]`` on the 0.05 grid; the table's are 0 for the "none" preset.

    Examples
    --------
    >>> q2, keys2, table2 = second_coordinates("none", 3, 1, seed=7)
    >>> table2
    array([0., 0., 0.])
    >>> bool(np.all(np.abs(q2) <= 0.3))
    True
    """
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}; got {preset!r}")
    n = as_count(n, "n")
    k = as_count(k, "k", minimum=0)
    draws = _draws(as_count(seed, "seed", minimum=0))
    queries2 = -0.3 + 0.6 * draws.queries2[:n]
    keys2 = -0.3 + 0.6 * draws.keys2[:n]
    table2 = np.zeros(2 * k + 1) if preset == "none" else -0.3 + 0.6 * _around(draws.table2, k)
    return _on_grid(queries2), _on_grid(keys2), _on_grid(table2)


@dataclass(frozen=True)
class ExplorerInputs:
    """The arrays the Explorer computes with.

    Attributes
    ----------
    queries, keys : ndarray, shape (n, d)
    table : ndarray, shape (2k+1, d)
        ``a^K``; row ``r`` is offset ``r - k``.
    """

    queries: np.ndarray
    keys: np.ndarray
    table: np.ndarray

    @property
    def n(self) -> int:
        return self.queries.shape[0]

    @property
    def d(self) -> int:
        return self.queries.shape[1]

    @property
    def k(self) -> int:
        return (self.table.shape[0] - 1) // 2


def explorer_inputs(queries, keys, table, *, d: int = 1, preset: str = "textbook", seed: int = 0) -> ExplorerInputs:
    """Stack the slider values (first coordinates) with the seeded second coordinates.

    Parameters
    ----------
    queries, keys : array_like, shape (n,)
        First coordinates (the slider values).
    table : array_like, shape (2k+1,)
        First coordinate of each ``a^K`` entry.
    d : {1, 2}
        Feature size; for 2 the second coordinates come from :func:`second_coordinates`.
    preset, seed :
        Which second coordinates to use.

    Returns
    -------
    inputs : ExplorerInputs
        ``queries``/``keys`` of shape ``(n, d)``, ``table`` of shape ``(2k+1, d)``.

    Examples
    --------
    >>> inputs = explorer_inputs([1.0, 0.5], [0.9, 0.7], [0.4, 0.1, -0.2], d=2, seed=3)
    >>> inputs.queries.shape, inputs.table.shape, inputs.queries[:, 0]
    ((2, 2), (3, 2), array([1. , 0.5]))
    """
    first = [np.asarray(values, dtype=float) for values in (queries, keys, table)]
    if any(values.ndim != 1 for values in first):
        raise ValueError("queries, keys and table must be 1-D arrays of first coordinates")
    if first[0].shape != first[1].shape:
        raise ValueError(f"queries and keys must have the same length n; got {first[0].size} and {first[1].size}")
    if first[2].size % 2 == 0:
        raise ValueError(f"table must have an odd length 2k+1; got {first[2].size}")
    if d == 1:
        return ExplorerInputs(*(values[:, None] for values in first))
    if d != 2:
        raise ValueError(f"d must be 1 or 2; got {d!r}")
    second = second_coordinates(preset, first[0].size, (first[2].size - 1) // 2, seed)
    return ExplorerInputs(*(np.column_stack([a, b]) for a, b in zip(first, second, strict=True)))
