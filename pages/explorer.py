"""Explorer: content scores, position biases and weights under sliders, side by side."""

from relpos.server import page_entry
from relpos.topics.explorer import view

page_entry()
view.render()
