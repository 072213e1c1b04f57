"""The "position effects" experiment: random token embeddings through W_q and W_k.

Token embeddings ``X`` (``n × d_model``) and projections ``W_q``, ``W_k``
(``d_model × d_k``) come from a seeded generator; the key-side table ``a^K``
(``(2k+1) × d_k``) is either random, an illustrative hand-made table (a 0/1
profile over the offsets times the queries' mean direction) that favours one or two
tokens back, one or two forward, or a local window, or a *trained* preset: the profile
a tiny head learned (:mod:`relpos.core.trained_presets`) times the same direction.
The hand-made tables were not trained.

Each ingredient has its own random stream, so changing ``d_k`` keeps ``X``, and
embeddings are drawn for :data:`MAX_TOKENS` tokens and sliced, so growing ``n``
adds tokens without reshuffling the first ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relpos.core.checks import as_count
from relpos.core.offsets import clip_offsets
from relpos.core.trained_presets import TRAINED_PRESETS, profile_favoured

__all__ = [
    "MAX_TOKENS",
    "PRESET_LABELS",
    "TABLE_PATTERNS",
    "PositionEffectsInputs",
    "clipping_leaks",
    "favoured_offsets",
    "is_trained",
    "leak_free_k",
    "pattern_profile",
    "position_effects_inputs",
]

#: Longest sequence of the experiment.
MAX_TOKENS = 64

#: Pattern name -> (on-screen label, offsets j − i the table favours; None = random).
TABLE_PATTERNS: dict[str, tuple[str, tuple[int, ...] | None]] = {
    "back": ("Attend 1–2 back", (-2, -1)),
    "forward": ("Attend 1–2 forward", (1, 2)),
    "local": ("Local window (±1)", (-1, 0, 1)),
    "random": ("Random table", None),
}

#: Every preset of the page, key -> on-screen label: the hand-made ones, then the trained ones.
PRESET_LABELS: dict[str, str] = {
    **{name: label for name, (label, _) in TABLE_PATTERNS.items()},
    **{name: label for name, (label, _) in TRAINED_PRESETS.items()},
}


def is_trained(pattern: str) -> bool:
    """Whether a preset's profile was learned by a trained head (it then needs that profile)."""
    return pattern in TRAINED_PRESETS


def favoured_offsets(pattern: str, profile=None) -> tuple[int, ...]:
    """Offsets a pattern favours (empty for "random"); a trained preset reads them off its profile.

    >>> favoured_offsets("back")
    (-2, -1)
    >>> favoured_offsets("trained_previous", [0.0, 1.0, -0.5, 0.0, 0.0])
    (-1,)
    """
    if is_trained(pattern):
        if profile is None:
            raise ValueError(f"the trained preset {pattern!r} needs its learned profile")
        return profile_favoured(profile)
    if pattern not in TABLE_PATTERNS:
        raise ValueError(f"pattern must be one of {sorted(PRESET_LABELS)}; got {pattern!r}")
    return TABLE_PATTERNS[pattern][1] or ()


def clipping_leaks(favoured, n: int, k: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Which favoured table rows a non-favoured key reads through clipping, and those keys' offsets.

    A key further than k reads the edge row ±k; that row carries a bonus when a favoured offset
    clips to it, and the bonus leaks when one of those farther keys is not favoured itself.

    Returns
    -------
    rows : tuple of int
        The edge rows (±k) that carry a bonus and are read by a non-favoured offset.
    offsets : tuple of int
        The non-favoured offsets ``j − i`` (``|j − i| ≤ n − 1``) that read them.

    Examples
    --------
    >>> clipping_leaks((-2, -1), 6, 1)  # −3..−5 read the bonus row −1
    ((-1,), (-5, -4, -3))
    >>> clipping_leaks((-2, -1), 3, 1)  # at n = 3 the only farther key, −2, is favoured itself
    ((), ())
    """
    chosen = set(favoured)
    offsets = np.arange(-(n - 1), n)
    rows = clip_offsets(offsets, k)
    bonus = {int(row) for o, row in zip(offsets, rows, strict=True) if int(o) in chosen}
    leaked = [int(o) for o, row in zip(offsets, rows, strict=True) if int(row) in bonus and int(o) not in chosen]
    return tuple(sorted({int(clip_offsets(np.array([o]), k)[0]) for o in leaked})), tuple(leaked)


def leak_free_k(favoured, n: int, k: int) -> int:
    """The smallest k above `k` at which no bonus leaks: at most n − 1, the slider's end, where nothing clips.

    >>> leak_free_k((-2, -1), 6, 1), leak_free_k((-2, -1), 3, 0), leak_free_k((1, 2), 3, 0)
    (3, 1, 1)
    """
    return next((better for better in range(k + 1, n) if not clipping_leaks(favoured, n, better)[1]), n - 1)


def pattern_profile(pattern: str, k) -> np.ndarray:
    """1 for every table row a favoured offset uses after clipping, else 0.

    Parameters
    ----------
    pattern : str
        A structured pattern of :data:`TABLE_PATTERNS` (not "random").
    k : int
        Clipping distance, at least 0.

    Returns
    -------
    profile : ndarray of float64, shape (2k+1,)
        Row ``r`` is offset ``r - k``.

    Notes
    -----
    A favoured offset beyond the window marks the edge row: with ``k = 1``,
    "two back" clips to ``-1``, and every key further back shares that row too.

    Examples
    --------
    >>> pattern_profile("back", 3)
    array([0., 1., 1., 0., 0., 0., 0.])
    >>> pattern_profile("back", 1)
    array([1., 0., 0.])
    """
    k = as_count(k, "k", minimum=0)
    offsets = favoured_offsets(pattern)
    if not offsets:
        raise ValueError("the random pattern has no profile; it draws its table from the seed")
    profile = np.zeros(2 * k + 1)
    profile[clip_offsets(np.array(offsets), k) + k] = 1.0
    return profile


@dataclass(frozen=True)
class PositionEffectsInputs:
    """Everything the experiment draws or derives.

    Attributes
    ----------
    X : ndarray, shape (n, d_model)
        Token embeddings.
    W_q, W_k : ndarray, shape (d_model, d_k)
        Query and key projections.
    queries, keys : ndarray, shape (n, d_k)
        ``X W_q`` and ``X W_k``.
    table : ndarray, shape (2k+1, d_k)
        ``a^K``; row ``r`` is offset ``r - k``.
    direction : ndarray, shape (d_k,) or None
        Unit vector the structured table points along (the queries' mean direction).
    """

    X: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    queries: np.ndarray
    keys: np.ndarray
    table: np.ndarray
    direction: np.ndarray | None

    @property
    def k(self) -> int:
        return (self.table.shape[0] - 1) // 2


def _streams(seed: int) -> list[np.random.Generator]:
    return [np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(5)]


def position_effects_inputs(
    n, k, *, d_model=16, d_k=8, seed=0, pattern="back", strength=2.0, shared=1.0, profile=None
) -> PositionEffectsInputs:
    """Draw the experiment's embeddings, projections and relative table.

    Parameters
    ----------
    n : int
        Tokens, 1 .. MAX_TOKENS.
    k : int
        Clipping distance, 0 .. MAX_TOKENS - 1.
    d_model, d_k : int
        Embedding and query/key sizes, at least 1.
    seed : int
        Seed of every random draw.
    pattern : str
        Key of :data:`PRESET_LABELS`: a hand-made pattern, "random", or a trained preset.
    strength : float
        Structured patterns: the average bias a favoured offset adds to a query's
        scores. Random pattern: the standard deviation of the table entries.
    shared : float
        Size of a direction every embedding shares (0: pure noise). Real token
        embeddings share one; without it the queries point every which way and one
        table cannot favour the same offset for all of them.
    profile : array_like, shape (2k+1,), optional
        Trained presets only (and required there): the learned profile over offsets
        ``−k .. +k``, :func:`relpos.core.trained_presets.preset_profile`.

    Returns
    -------
    inputs : PositionEffectsInputs

    Notes
    -----
    .. math::
        X = E + s\\,\\mathbf{1}\\mu^\\top, \\quad Q = X W_q, \\quad K = X W_k, \\quad
        a^K_o = p_o \\, g \\, \\hat u, \\quad
        g = \\frac{\\sigma \\sqrt{d_k}}{\\lVert \\bar q \\rVert}

    with :math:`E, W` standard normal (``W`` divided by :math:`\\sqrt{d_{model}}`),
    :math:`\\hat u = \\bar q / \\lVert \\bar q \\rVert` the queries' mean direction,
    :math:`p_o` the pattern's profile (0/1 for a hand-made pattern, the learned one for a
    trained preset) and :math:`\\sigma` the strength, so the mean
    over queries of :math:`q_i \\cdot a^K_o / \\sqrt{d_k}` is :math:`\\sigma p_o`.

    Examples
    --------
    >>> inputs = position_effects_inputs(6, 3, seed=0)
    >>> inputs.X.shape, inputs.queries.shape, inputs.table.shape
    ((6, 16), (6, 8), (7, 8))
    >>> bias = inputs.queries @ inputs.table.T / np.sqrt(8)
    >>> float(bias.mean(axis=0)[2].round(6))  # offset -1 is favoured: mean bias = strength
    2.0
    """
    n = as_count(n, "n")
    k = as_count(k, "k", minimum=0)
    d_model = as_count(d_model, "d_model")
    d_k = as_count(d_k, "d_k")
    if n > MAX_TOKENS or k >= MAX_TOKENS:
        raise ValueError(f"n must be at most {MAX_TOKENS} and k at most {MAX_TOKENS - 1}; got n = {n}, k = {k}")
    for name, value in (("strength", strength), ("shared", shared)):
        if not np.isfinite(value):
            raise ValueError(f"{name} must be a finite number; got {value!r}")
    profile = _profile(pattern, k, profile)
    noise, mean, query_proj, key_proj, table_draw = _streams(as_count(seed, "seed", minimum=0))
    # X = E + s mu: noise plus one direction every token shares
    X = noise.standard_normal((MAX_TOKENS, d_model))[:n] + shared * mean.standard_normal(d_model)  # (n, d_model)
    W_q = query_proj.standard_normal((d_model, d_k)) / np.sqrt(d_model)  # (d_model, d_k)
    W_k = key_proj.standard_normal((d_model, d_k)) / np.sqrt(d_model)  # (d_model, d_k)
    # q_i = x_i W_q, k_j = x_j W_k
    queries = X @ W_q  # (n, d_k)
    keys = X @ W_k  # (n, d_k)
    if profile is None:  # the random pattern
        centre = MAX_TOKENS - 1
        table = strength * table_draw.standard_normal((2 * MAX_TOKENS - 1, d_k))[centre - k : centre + k + 1]
        return PositionEffectsInputs(X, W_q, W_k, queries, keys, table, None)
    mean_query = queries.mean(axis=0)  # (d_k,)
    length = float(np.linalg.norm(mean_query))
    direction = mean_query / length if length > 1e-12 else np.eye(d_k)[0]  # (d_k,)
    # g so that the mean over queries of q_i · (g u) / sqrt(d_k) equals the strength
    gain = strength * np.sqrt(d_k) / max(length, 1e-12)
    # a^K_o = p_o g u
    table = np.outer(profile, gain * direction)  # (2k+1, d_k)
    return PositionEffectsInputs(X, W_q, W_k, queries, keys, table, direction)


def _profile(pattern: str, k: int, profile) -> np.ndarray | None:
    """The profile the table follows: hand-made 0/1, the given learned one, or None (random)."""
    if pattern not in PRESET_LABELS:
        raise ValueError(f"pattern must be one of {sorted(PRESET_LABELS)}; got {pattern!r}")
    if not is_trained(pattern):
        if profile is not None:
            raise ValueError(f"only a trained preset takes a learned profile; {pattern!r} is hand-made or random")
        return None if pattern == "random" else pattern_profile(pattern, k)
    if profile is None:
        raise ValueError(f"the trained preset {pattern!r} needs its learned profile (2k + 1 values)")
    profile = np.asarray(profile, dtype=float)
    if profile.shape != (2 * k + 1,) or not np.all(np.isfinite(profile)):
        raise ValueError(f"profile must hold 2k + 1 = {2 * k + 1} finite values; got shape {profile.shape}")
    return profile
