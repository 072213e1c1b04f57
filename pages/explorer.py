"""Explorer: content scores, position biases and weights under sliders, side by side.

The widgets and layout live in :mod:`relpos.ui.explorer`; the heatmaps follow the value
sliders while they move (:mod:`relpos.ui.live`).
"""

from relpos.server import page_entry
from relpos.ui import explorer

page_entry()

explorer.render()
