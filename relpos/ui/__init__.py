"""The widget kit: the Streamlit pieces every topic's view is built from.

A view imports the kit once, ``from relpos import ui``, and calls its pieces by name:
``ui.markdown("overview")``, ``ui.chart(fig)``, ``ui.PageState(page, schema)``. The names
below are the kit, each from the module of its job (the kit's modules import one another
by module, never through this face):

* :mod:`~relpos.ui.prose`: the app's Markdown content, and sentences computed from the numbers;
* :mod:`~relpos.ui.charts`: Plotly figures, named for screen readers, never zoomed by a drag;
* :mod:`~relpos.ui.tables`: matrices and tables by the one number formatter, and charts as tables;
* :mod:`~relpos.ui.layout`: a phone's screen or a wide one, page cards, the container a page opens at;
* :mod:`~relpos.ui.presenter`: presenter mode, its toggle and its "Copy link" button;
* :mod:`~relpos.ui.fields`: ``PageState``, the one page-state API of every lesson: the page's state
  dict read from the URL once and mirrored into it, widgets bound to its fields, every change of
  the state and every widget value the app sets (its ``set_widget``);
* :mod:`~relpos.ui.url_state`: the lesson links underneath (decoding, the warning, the URL, a link to copy);
* :mod:`~relpos.ui.downloads`: CSV and scenario downloads, the export section, the scenario upload;

Beside the kit, a few views import a module by name: ``explorer_panel`` (the Explorer panel),
``classroom``, ``class_events``, ``class_follow`` and ``class_roster`` (a live class);
app.py imports ``navigation``/``page_list`` (the page list) and ``theme``.
Every custom component (the Explorer panel, a live class's, the theme's) is registered once,
in :mod:`~relpos.ui.components`.

Every run goes through the server harness (:mod:`relpos.server`), which also starts every
figure from the app's lean Plotly template (:func:`relpos.plots.template.use_lean_default`);
widget and session keys are built by :mod:`relpos.state.keys`. Each lesson's view lives in
its topic folder (``relpos/topics/<topic>/view.py``). May import everything below it:
``relpos.class_routes``, ``relpos.server``, ``relpos.plots``, ``relpos.tables``,
``relpos.state``, ``relpos.text``, ``relpos.core``.
"""

from relpos.ui.charts import chart, chart_name, chart_row, heatmap_panel, plotly
from relpos.ui.downloads import Download, download_buttons, download_csv, export_section, scenario_upload
from relpos.ui.fields import PageState
from relpos.ui.layout import land_on, page_links, phone_screen
from relpos.ui.presenter import ALWAYS_CSS, PRESENTER_CSS, presenter_heading, presenter_style, presenter_toggle
from relpos.ui.prose import bullets, callout, caption, markdown
from relpos.ui.tables import (
    BOX_INSET_PX,
    chart_tables,
    labelled_table,
    matrix_table,
    matrix_tables,
    named_index,
    scenario_tables,
)
from relpos.ui.url_state import app_url, lesson_link

__all__ = [
    "ALWAYS_CSS", "BOX_INSET_PX", "PRESENTER_CSS", "Download", "PageState",
    "app_url", "bullets", "callout", "caption", "chart", "chart_name", "chart_row", "chart_tables",
    "download_buttons", "download_csv", "export_section", "heatmap_panel", "labelled_table", "land_on",
    "lesson_link", "markdown", "matrix_table", "matrix_tables", "named_index", "page_links",
    "phone_screen", "plotly", "presenter_heading", "presenter_style", "presenter_toggle", "scenario_tables",
    "scenario_upload",
]  # fmt: skip
