"""Train a tiny head: its URL schema. Pure."""

from __future__ import annotations

from relpos.core.training_model import TRAINING_SCHEMES
from relpos.core.training_tasks import TRAINING_TASKS
from relpos.state.codec import Schema, choice_field, int_field
from relpos.text.answers import MAX_SEED

#: Training steps offered on the page (any 50..1000 is accepted from a link).
TRAINING_STEP_CHOICES = (50, 100, 200, 400, 600, 800, 1000)
#: "all" trains every scheme at once (the same runs as the "train short, test long" table).
ALL_SCHEMES = "all"

#: The training page's settings: task, scheme (or all), training length L, Shaw's k,
#: steps and seed. Ranges keep the largest "train short, test long" table (7 schemes,
#: 1000 steps at L = 32, tests up to 4L = 128) within a few tens of seconds.
TRAINING = Schema(
    {
        "task": choice_field("previous", TRAINING_TASKS),
        "scheme": choice_field("shaw", (*TRAINING_SCHEMES, ALL_SCHEMES)),
        "L": int_field(16, 4, 32),
        "k": int_field(4, 0, 16),
        "steps": int_field(400, min(TRAINING_STEP_CHOICES), max(TRAINING_STEP_CHOICES)),
        "seed": int_field(0, 0, MAX_SEED),
    }
)
