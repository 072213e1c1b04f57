"""Explorer: content scores, position biases and weights under sliders, side by side.

The widgets and layout live in :mod:`relpos.ui.explorer`; the heatmaps follow the value
sliders while they move (:mod:`relpos.ui.live`).
"""

from relpos.ui import explorer
from relpos.ui.routing import require_app_entry

require_app_entry()

explorer.render()
