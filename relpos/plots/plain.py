"""A figure as plain JSON for plotly.js in the browser (no Streamlit)."""

from __future__ import annotations

import json

import plotly.io as pio

__all__ = ["plain_figure"]


def plain_figure(fig) -> dict:
    """`fig`'s ``data`` and ``layout`` as plain JSON (NumPy arrays as lists, no validation).

    >>> import plotly.graph_objects as go
    >>> plain_figure(go.Figure(go.Bar(y=[1, 2])))["data"][0]["y"]
    [1, 2]
    """
    plain = json.loads(pio.to_json(fig, validate=False))
    return {"data": plain["data"], "layout": plain["layout"]}
