"""The quiz's one URL parameter, its seed. Pure."""

from __future__ import annotations

from relpos.state.codec import int_field, shown
from relpos.text import answers

#: The quiz's one URL parameter, ``?seed=``: read by the same codec as every other page's.
QUIZ_SEED = int_field(None, 0, answers.MAX_SEED)


def read_quiz_seed(text: str) -> int:
    """The quiz seed in a link's ``seed=`` text, or ValueError saying what a seed is.

    >>> read_quiz_seed(" 42 ")
    42
    >>> read_quiz_seed("1_000")
    Traceback (most recent call last):
    ...
    ValueError: the seed must be a whole number from 0 to 4294967295; got '1_000'
    """
    try:
        return QUIZ_SEED.parse(text)
    except ValueError:
        raise ValueError(f"the seed must be a whole number from 0 to {answers.MAX_SEED}; got {shown(text)}") from None
