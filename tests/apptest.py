"""Helpers for AppTest-based page tests (shared by every page's test module)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def open_app(page: str | None = None, *, query: dict[str, str] | None = None, timeout: float = 60) -> AppTest:
    """Run app.py (optionally switched to ``pages/<page>.py``) and return the AppTest."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(f"pages/{page}.py").run()
    return at


def plotly_specs(at: AppTest) -> list[dict]:
    """Every Plotly chart on the page as its decoded figure JSON."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


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
    """All Markdown, caption, info and warning text on the page, joined (for searching)."""
    parts = [
        element.value
        for kind in ("markdown", "caption", "info", "warning", "error", "success")
        for element in getattr(at, kind)
    ]
    return "\n".join(parts)
