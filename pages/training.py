"""Go further: train a tiny attention head live, watch a^K learn, and test it on longer sequences."""

from relpos.server import page_entry
from relpos.topics.training import view

page_entry()
view.render()
