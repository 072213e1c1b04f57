"""Go further: Shaw et al.'s relative positions next to five other position schemes."""

from relpos.server import page_entry
from relpos.topics.schemes import view

page_entry()
view.render()
