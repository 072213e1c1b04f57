"""The quiz's state, its seed: one URL parameter, ``?seed=``. Pure."""

from __future__ import annotations

from relpos.state.codec import Schema, int_field
from relpos.text import answers

#: The quiz's seed, read by the same codec as every other page's. Not set by default: a
#: link without one (or with one the codec refuses) gets new questions from a fresh seed.
QUIZ_SEED = int_field(None, 0, answers.MAX_SEED, noun="seed", instead="new questions")

#: The quiz's page state, ``?seed=42``.
QUIZ = Schema({"seed": QUIZ_SEED})
