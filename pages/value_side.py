"""Go further: Shaw et al.'s value-side embeddings a^V, and how the output splits."""

from relpos.server import page_entry
from relpos.topics.value_side import view

page_entry()
view.render()
