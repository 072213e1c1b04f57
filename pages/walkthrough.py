"""Classroom walkthrough: the textbook example computed one (query, key) pair at a time."""

from relpos.server import page_entry
from relpos.topics.walkthrough import view

page_entry()
view.render()
