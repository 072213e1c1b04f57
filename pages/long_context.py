"""Go further: RoPE as rotations and the ways to stretch it to a longer context."""

from relpos.server import page_entry
from relpos.topics.long_context import view

page_entry()
view.render()
