"""Efficient computation: the naive (n, n, d) gather, Q A_Kᵀ + placement, and skewing."""

from relpos.server import page_entry
from relpos.topics.efficiency import view

page_entry()
view.render()
