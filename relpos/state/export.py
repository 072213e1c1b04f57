"""Scenario files for the pages with lesson links (each topic writes its own reproduction snippet).

A scenario file is JSON: a small envelope naming the page, the page's state (as its
:class:`relpos.state.codec.Schema` types it) and, for the reader's convenience, the arrays
that state produces. Uploading the file restores the state; the arrays are
recomputed, never read back. No Streamlit.
"""

from __future__ import annotations

import json

import numpy as np

from relpos.state.codec import Schema, StateError, read_json

__all__ = [
    "FORMAT",
    "VERSION",
    "load_scenario",
    "scenario_json",
]

FORMAT = "relpos-scenario"
VERSION = 1
_PAGE_NAMES = {"explorer": "Explorer", "position_effects": "Position effects", "walkthrough": "Walkthrough"}
#: A page's name in files saved before it was renamed -> its name now (relpos.ui.navigation's renamed_from).
_PAGE_RENAMED_FROM = {"worked_example": "walkthrough"}


def scenario_json(page: str, schema: Schema, state: dict, computed: dict | None = None) -> str:
    """JSON text of a page's scenario.

    Parameters
    ----------
    page : str
        The page's url_path, e.g. ``"explorer"``.
    schema : Schema
        The page's state schema.
    state : dict
        A valid state of that schema.
    computed : dict of str to array_like, optional
        Arrays derived from the state, written for the reader and ignored on upload.

    Examples
    --------
    >>> from relpos.topics.explorer.schema import EXPLORER
    >>> text = scenario_json("explorer", EXPLORER, EXPLORER.decode({}).state)
    >>> json.loads(text)["state"]["q"]
    [1.0, 0.5, 0.8, 0.3]
    """
    document = {"format": FORMAT, "version": VERSION, "page": page, "state": schema.to_json(state)}
    if computed:
        document["computed (read-only, recomputed on upload)"] = {
            name: np.round(np.asarray(values, dtype=float), 6).tolist() for name, values in computed.items()
        }
    return json.dumps(document, indent=1, ensure_ascii=False)


def load_scenario(data: bytes | str, page: str, schema: Schema) -> dict:
    """State from an uploaded scenario file; StateError listing every problem otherwise.

    Examples
    --------
    >>> from relpos.topics.explorer.schema import EXPLORER
    >>> load_scenario(scenario_json("explorer", EXPLORER, EXPLORER.decode({"n": "3"}).state), "explorer", EXPLORER)["n"]
    3
    >>> load_scenario('{"format": "relpos-scenario", "version": 1, "page": "explorer", "state": {"n": "4"}}',
    ...               "explorer", EXPLORER)
    Traceback (most recent call last):
    ...
    relpos.state.codec.StateError: n: expected an integer from 2 to 512; got a string
    """
    document = read_json(data)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise StateError([f'not a relpos scenario file: expected a JSON object with "format": "{FORMAT}"'])
    if document.get("version") != VERSION:
        raise StateError(
            [f"unsupported scenario version {document.get('version')!r}; this app reads version {VERSION}"]
        )
    named = document.get("page")
    named = _PAGE_RENAMED_FROM.get(named, named) if isinstance(named, str) else named
    if named != page:
        other = _PAGE_NAMES.get(named)
        where = f"the {other} page" if other else "another page"
        raise StateError([f"this scenario belongs to {where}; open that page to load it"])
    if "state" not in document:
        raise StateError(['the file has no "state" object'])
    return schema.from_json(document["state"])
