"""Position effects presets learned by a head trained live, next to the hand-made ones.

A tiny causal head (:func:`relpos.train_head`, scheme ``"shaw"``) learns a copying task
("previous", "two_back" or "first") with fixed settings: sequence length
:data:`TRAINING_LENGTH`, the trainer's default :data:`TRAINING_STEPS` steps, seed
:data:`TRAINING_SEED`, clipping distance the page's ``k`` (at most ``L − 1``, the farthest
offset a training sequence holds). Same settings, same head: the run is deterministic.

**The projection.** The learned ``a^K`` has shape ``(2k+1, d)`` with ``d = 16``, in the
head's own query space; the page's queries live in a ``d_k``-dimensional space made by
seeded random projections, so no vector of one space corresponds to a vector of the
other. What carries over is what the table *does*: its mean bias per offset

.. math:: \\bar b_o = \\frac{\\bar q \\cdot a^K_{\\mathrm{clip}(o, k)}}{\\sqrt{d}}, \\quad
    \\bar q = \\frac{1}{V} \\sum_v E_v W_q

(:func:`relpos.offset_biases`). That profile is centred on its mean over the trained
rows (a shift of every offset's bias changes no softmax weight of the causal head) and
divided by its largest value, so the most favoured offset gets 1, like a hand-made 0/1
profile; :func:`relpos.topics.position_effects.model.position_effects_inputs` then turns it into a
table exactly as it does the hand-made profiles (profile × the page queries' mean
direction, scaled so that the favoured offset's mean bias is the preset strength). The
part of ``a^K`` that depends on the query beyond its mean is not carried over: the
preset keeps the *shape* of the learned profile over the offsets, not its size.

**Offsets the head never trained.** The head is causal: a key after its query
(``j > i``) is masked, so the rows of positive offsets never receive a gradient and
hold their random initial values. Those rows are set to the trained rows' average
(0 after centring): neither favoured nor penalised. With ``k ≥ L`` the page's rows
beyond ``−(L − 1)`` reuse the farthest trained row.
"""

from __future__ import annotations

import numpy as np

from relpos.core.checks import as_count
from relpos.core.training import TrainedHead, check_head, train_head
from relpos.core.training_eval import offset_biases

__all__ = [
    "TRAINED_PRESETS",
    "TRAINING_LENGTH",
    "TRAINING_SEED",
    "TRAINING_STEPS",
    "TRAINING_WIDTH",
    "learned_biases",
    "preset_profile",
    "preset_task",
    "profile_favoured",
    "profile_from_biases",
    "train_preset_head",
    "training_k",
]

#: Preset key -> (on-screen label, training task).
TRAINED_PRESETS: dict[str, tuple[str, str]] = {
    "trained_previous": ("trained: previous token", "previous"),
    "trained_two_back": ("trained: two back", "two_back"),
    "trained_first": ("trained: first token", "first"),
}
#: Training sequence length L, steps, seed and width d of every preset's head (the trainer's defaults).
TRAINING_LENGTH = 16
TRAINING_STEPS = 400
TRAINING_SEED = 0
TRAINING_WIDTH = 16

#: A centred profile whose largest value is below this (relative to its spread) is flat.
_FLAT = 1e-9


def preset_task(pattern: str) -> str:
    """The training task of a trained preset.

    >>> preset_task("trained_two_back")
    'two_back'
    """
    if pattern not in TRAINED_PRESETS:
        raise ValueError(f"trained preset must be one of {sorted(TRAINED_PRESETS)}; got {pattern!r}")
    return TRAINED_PRESETS[pattern][1]


def training_k(k) -> int:
    """Clipping distance the preset's head trains with: the page's k, at most L − 1.

    >>> training_k(3), training_k(40)
    (3, 15)
    """
    return min(as_count(k, "k", minimum=0), TRAINING_LENGTH - 1)


def train_preset_head(pattern: str, k) -> TrainedHead:
    """Train the head of a trained preset (Shaw, fixed length, steps and seed; about a second).

    Examples
    --------
    >>> head = train_preset_head("trained_previous", 2)
    >>> head.settings.scheme, head.settings.k, head.params["A_K"].shape
    ('shaw', 2, (5, 16))
    """
    return train_head(
        preset_task(pattern),
        "shaw",
        length=TRAINING_LENGTH,
        steps=TRAINING_STEPS,
        seed=TRAINING_SEED,
        k=training_k(k),
        d=TRAINING_WIDTH,
    )


def learned_biases(head) -> np.ndarray:
    """The head's mean bias per trained offset ``−k .. 0`` (farthest first), as :func:`relpos.offset_biases`.

    Returns
    -------
    biases : ndarray of float64, shape (k+1,)
        Entry ``m`` is offset ``m − k``; offsets after the query are not included (never trained).
    """
    head = check_head(head)
    if head.settings.scheme != "shaw":
        raise ValueError(f"a trained preset needs a head with scheme 'shaw'; got {head.settings.scheme!r}")
    k = min(head.settings.k, head.settings.length - 1)
    return offset_biases(head, k + 1)[1]  # (k+1,)


def profile_from_biases(biases, k) -> np.ndarray:
    """The page's profile over offsets ``−k .. +k`` from a head's mean biases over ``−k_t .. 0``.

    Parameters
    ----------
    biases : array_like, shape (k_t+1,)
        Learned mean bias of offsets ``−k_t .. 0`` (:func:`learned_biases`).
    k : int
        The page's clipping distance.

    Returns
    -------
    profile : ndarray of float64, shape (2k+1,)
        Row ``r`` is offset ``r − k``; the most favoured offset holds 1, the trained rows'
        average 0, and offsets after the query 0 (never trained). All zeros for a flat profile.

    Notes
    -----
    .. math::
        p_o = \\frac{\\bar b_{\\max(o, -k_t)} - m}{\\max_{o'} \\bar b_{o'} - m} \\; (o \\le 0), \\qquad
        p_o = 0 \\; (o > 0), \\qquad m = \\mathrm{mean}_{o'} \\bar b_{o'}

    Examples
    --------
    >>> profile_from_biases([-1.0, 5.0, -1.0], 2)
    array([-0.5,  1. , -0.5,  0. ,  0. ])
    """
    biases = np.asarray(biases, dtype=float)
    k = as_count(k, "k", minimum=0)
    if biases.ndim != 1 or biases.size < 1 or not np.all(np.isfinite(biases)):
        raise ValueError(f"biases must be a non-empty 1-D array of finite numbers; got shape {biases.shape}")
    k_trained = biases.size - 1
    # centre: a common shift of all biases changes no weight of the causal head
    centred = biases - biases.mean()  # (k_t+1,)
    top = centred.max()
    profile = np.zeros(2 * k + 1)  # (2k+1,); offsets after the query stay 0
    if top <= _FLAT * max(np.abs(biases).max(), 1.0):
        return profile
    # offsets −k .. 0 read trained offset max(o, −k_t), i.e. entry max(o, −k_t) + k_t
    offsets = np.arange(-k, 1)  # (k+1,)
    profile[: k + 1] = centred[np.maximum(offsets, -k_trained) + k_trained] / top
    return profile


def preset_profile(head, k) -> np.ndarray:
    """:func:`profile_from_biases` of a trained head, for the page's k; shape (2k+1,)."""
    return profile_from_biases(learned_biases(head), k)


def profile_favoured(profile) -> tuple[int, ...]:
    """Offsets ``j − i`` whose profile entry is the largest, 1 (empty for a flat profile).

    >>> profile_favoured([-0.25, 1.0, -0.25, 0.0, 0.0])
    (-1,)
    """
    profile = np.asarray(profile, dtype=float)
    k = (profile.size - 1) // 2
    if profile.size % 2 != 1 or not np.any(profile == 1.0):
        return ()
    return tuple(int(r) - k for r in np.flatnonzero(profile == 1.0))
