"""Helpers for AppTest-based page tests (shared by every page's test module)."""

from __future__ import annotations

import functools
import json
import re
from contextlib import contextmanager
from pathlib import Path
from unittest.mock import patch

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.support import oracle

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


@functools.cache
def _components():
    """The app's custom components, found once per process (see :func:`new_app_test`)."""
    from streamlit.components.v2.component_manager import BidiComponentManager

    manager = BidiComponentManager()
    manager.discover_and_register_components(start_file_watching=False)
    return manager


def new_app_test(path: str = APP, *, timeout: float = 60) -> AppTest:
    """``AppTest.from_file`` sharing one registry of custom components with every other
    AppTest of the process, as a server's sessions share theirs. AppTest otherwise fills
    a new registry for each instance by reading every installed package's metadata for
    component manifests: about 0.1 s a session (a third of a simple page's), the same
    answer every time. (The registry is an AppTest attribute Streamlit keeps private.)"""
    at = AppTest.from_file(path, default_timeout=timeout)
    at._bidi_component_manager = _components()
    return at


def open_app(page: str | None = None, *, query: dict[str, str] | None = None, timeout: float = 60) -> AppTest:
    """Run app.py (optionally switched to ``pages/<page>.py``) and return the AppTest."""
    at = new_app_test(timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(f"pages/{page}.py").run()
    return at


def panel_specs(at: AppTest) -> list[dict]:
    """The data of every Explorer panel on the page (relpos.topics.explorer.panel_spec.release_spec)."""
    specs = [json.loads(element.proto.json) for element in at.get("bidi_component") if element.proto.json]
    return [spec for spec in specs if isinstance(spec, dict) and "figures" in spec]


def panel_figures(spec: dict) -> dict[str, dict]:
    """The figures an Explorer panel draws from its spec: each skeleton with the cells the browser fills in.

    The spec sends no cells (relpos.topics.explorer.panel_spec.skeleton); here they come from the Python
    builders run on the spec's own inputs, which tests/explorer/test_explorer_panel.py shows equal the
    browser's, array for array.
    """
    import relpos
    from relpos.topics.explorer import panel_spec

    queries, keys, table = (np.array(spec[name], dtype=float) for name in ("queries", "keys", "table"))
    if spec["scalar"]:
        result = relpos.scalar_bias_attention(queries, keys, table[:, 0])
    else:
        result = relpos.relative_attention(queries, keys, A_K=table)
    built = oracle.explorer_panels(queries, keys, table, result, scalar=spec["scalar"])
    figures = {}
    for name in spec["figures"]:
        figure = panel_skeleton(spec, name)
        cells = oracle.figure_json(built[name])["data"][0]
        first = {**figure["data"][0], **{key: cells[key] for key in panel_spec.CELL_FIELDS if key in cells}}
        figures[name] = {**figure, "data": [first, *figure["data"][1:]]}
    return figures


def panel_skeleton(spec: dict, name: str) -> dict:
    """A panel spec's figure with the layout and trace properties all seven share put back (explorer_panel.js)."""
    figure = spec["figures"][name]
    first, *others = figure["data"]
    return {**figure, "layout": {**spec["layout"], **figure["layout"]}, "data": [{**spec["trace"], **first}, *others]}


def plotly_specs(at: AppTest) -> list[dict]:
    """Every Plotly chart on the page as its decoded figure JSON (Explorer panels' figures, cells filled, included)."""
    charts = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return charts + [figure for spec in panel_specs(at) for figure in panel_figures(spec).values()]


def panel_release(at: AppTest, *, bias: str | None = None, **changes: dict[int, float]) -> AppTest:
    """Let go of the Explorer panel's sliders as a browser does: hand back its values and rerun.

    ``changes`` maps a group (``a``, ``q``, ``keys``) to ``{index: value}``; the other
    values are the ones the panel shows now.
    """
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    (element,) = [e for e in at.get("bidi_component") if e.proto.json and "figures" in json.loads(e.proto.json)]
    spec = json.loads(element.proto.json)
    message = {"seq": spec["seq"] + 1, "bias": bias or ("scalar" if spec["scalar"] else "shaw")}
    for group in spec["groups"]:
        if group["values"]:
            values = list(group["values"])
            for index, value in changes.get(group["name"], {}).items():
                values[index] = value
            message[group["name"]] = values
    states = at._tree.get_widget_states()
    state = WidgetState(id=element.proto.id, json_value=json.dumps({"values": message}))
    states.widgets.append(state)
    return at._run(states)


def decode_z(trace: dict) -> np.ndarray:
    """A heatmap trace's z matrix, whether plain lists or plotly's typed-array ``bdata``."""
    z = trace["z"]
    if isinstance(z, dict) and "bdata" in z:
        import base64

        array = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        shape = z.get("shape")
        if isinstance(shape, str):
            shape = tuple(int(part) for part in shape.split(","))
        return array.reshape(shape) if shape else array
    return np.asarray(z, dtype=float)


def decode_array(value) -> np.ndarray:
    """Any figure array field (x, y, z, ...), whether a plain list or plotly's typed-array ``bdata``."""
    return decode_z({"z": value})


def figures_titled(at: AppTest, title: str) -> list[dict]:
    """Decoded Plotly figures whose layout title text equals `title`."""
    return [spec for spec in plotly_specs(at) if spec.get("layout", {}).get("title", {}).get("text") == title]


def heatmap_z(spec: dict) -> np.ndarray:
    """The z matrix of the first heatmap trace of a decoded figure."""
    trace = next(t for t in spec["data"] if t.get("type") == "heatmap")
    return decode_z(trace)


def trace_values(trace: dict, axis: str = "y") -> np.ndarray:
    """A trace's x or y data, whether plain lists or plotly's typed arrays."""
    return decode_z({"z": trace[axis]})


@contextmanager
def captured_downloads():
    """Record the bytes behind every ``st.download_button`` while AppTest runs.

    AppTest keeps downloads in a mock runtime that is dropped after each run, so the
    bytes are caught as they are stored; look them up with :func:`download_bytes`.
    """
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        if isinstance(path_or_data, bytes):
            files[file_id] = path_or_data
        return file_id

    with patch.object(MemoryMediaFileStorage, "load_and_get_id", recording):
        yield files


def download_bytes(at: AppTest, files: dict[str, bytes], key: str) -> bytes:
    """The file offered by the download button `key` (needs :func:`captured_downloads`)."""
    button = at.download_button(key=key)
    file_id = Path(button.proto.url).stem
    return files[file_id]


def heatmap_panels(at: AppTest) -> dict[str, dict]:
    """Every chart's first trace, keyed by its title with HTML tags removed."""
    import re

    panels = {}
    for spec in plotly_specs(at):
        title = spec.get("layout", {}).get("title", {}).get("text", "")
        panels[re.sub(r"<[^>]+>", "", title)] = spec["data"][0]
    return panels


def panel_z(at: AppTest, prefix: str) -> np.ndarray:
    """The z matrix of the one chart whose title starts with `prefix`."""
    matches = [trace for title, trace in heatmap_panels(at).items() if title.startswith(prefix)]
    if len(matches) != 1:
        raise AssertionError(f"expected one chart titled {prefix!r}…; found {len(matches)}: {list(heatmap_panels(at))}")
    return decode_z(matches[0])


def texts(at: AppTest) -> str:
    """All Markdown, caption, info and warning text on the page, joined (for searching).

    Explorer panels' captions and slider notes count: the browser shows them as text.
    """
    parts = [
        element.value
        for kind in ("markdown", "caption", "info", "warning", "error", "success")
        for element in getattr(at, kind)
    ]
    for spec in panel_specs(at):
        parts += [*spec["captions"].values(), *(group["note"] for group in spec["groups"])]
    return "\n".join(parts)


def shown_text(markdown: str) -> str:
    """What a reader sees of `markdown` as far as escapes go: every backslash escape read as its character.

    The pages escape user text (relpos.text.escape), so a message's raw Markdown holds ``\\,`` for ``,``.
    """
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def by_label(elements, label: str):
    """The one element of a list (``at.slider``, ``at.button`` …) with this label: tests find
    widgets as a learner does, not by their keys."""
    found = [element for element in elements if element.label == label]
    if len(found) != 1:
        raise LookupError(f"{len(found)} elements labelled {label!r}; labels: {[e.label for e in elements]}")
    return found[0]
