"""Input validation shared by the core functions.

Every check raises :class:`ValueError` with a message that names the argument and
says what was expected, so a page can show the message to a learner unchanged.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

_NUMERIC_KINDS = "biuf"  # bool, signed int, unsigned int, float


def as_float_array(value, name: str) -> np.ndarray:
    """Return ``value`` as a finite, non-empty float64 array or raise ValueError."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as error:  # ragged nested lists, odd objects
        raise ValueError(f"{name} must be a numeric array; got {type(value).__name__} ({error})") from None
    if array.dtype.kind == "O":
        # Lists mixing numbers and None/str end up as object arrays.
        if not all(isinstance(item, numbers.Real) for item in array.ravel()):
            raise ValueError(f"{name} must contain only numbers; got non-numeric entries")
        array = array.astype(np.float64)
    if array.dtype.kind not in _NUMERIC_KINDS:
        raise ValueError(f"{name} must contain only real numbers; got dtype {array.dtype}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}")
    array = array.astype(np.float64, copy=False)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must contain only finite numbers; found NaN or infinity")
    return array


def as_matrix(value, name: str) -> np.ndarray:
    """Return a (n, d) float64 matrix; a 1-D input of length n means d = 1."""
    array = as_float_array(value, name)
    if array.ndim == 1:
        return array.reshape(-1, 1)  # (n, 1)
    if array.ndim != 2:
        raise ValueError(f"{name} must be 1-D (n,) or 2-D (n, d); got {array.ndim}-D shape {array.shape}")
    return array


def as_table(value, name: str) -> tuple[np.ndarray, int]:
    """Return a relative-embedding table of shape (2k+1, d) and its clipping distance k."""
    table = as_matrix(value, name)
    n_rows = table.shape[0]
    if n_rows % 2 == 0:
        raise ValueError(f"{name} must have an odd number of rows 2k+1 (offsets -k..+k); got {n_rows} rows")
    return table, (n_rows - 1) // 2


def as_count(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as a Python int >= minimum or raise ValueError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value}")
    return int(value)


def same_width(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    """Raise unless the two (n, d) matrices share the feature size d."""
    if a.shape[1] != b.shape[1]:
        raise ValueError(
            f"{name_b} must have the same feature size d as {name_a}; "
            f"got d = {b.shape[1]} for {name_b} and d = {a.shape[1]} for {name_a}"
        )


def as_offsets(value, name: str) -> np.ndarray:
    """Integer offsets as an int64 array (any shape, not empty)."""
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        if array.dtype.kind == "f" and array.size and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
            array = array.astype(np.int64)
        else:
            raise ValueError(f"{name} must be an integer array (offsets j − i); got dtype {array.dtype}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}")
    return array.astype(np.int64, copy=False)


def as_positive(value, name: str, *, minimum_exclusive: float = 0.0) -> float:
    """A finite real number > minimum_exclusive, as a Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number > {minimum_exclusive:g}; got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number <= minimum_exclusive:
        raise ValueError(f"{name} must be a finite number > {minimum_exclusive:g}; got {value!r}")
    return number


def as_flag(value, name: str) -> bool:
    """True or False (NumPy booleans too), or ValueError naming `name`."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")
    return bool(value)
