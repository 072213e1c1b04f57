"""Start page: what relative position encoding is, and the worked example's scores."""

from relpos.server import page_entry
from relpos.topics.overview import view

page_entry()
view.render()
