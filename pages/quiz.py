"""Self-check quiz: five predict-then-reveal questions from a seeded random scenario."""

from relpos.server import page_entry
from relpos.topics.quiz import view

page_entry()
view.render()
