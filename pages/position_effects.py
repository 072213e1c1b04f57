"""Position effects: random embeddings and projections, a shaped a^K table, four panels."""

from relpos.server import page_entry
from relpos.topics.position_effects import view

page_entry()
view.render()
