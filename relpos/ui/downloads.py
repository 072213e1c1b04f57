"""Downloads and the upload that reads one back: CSV files, the scenario file, the export
section (lesson link, downloads and NumPy code) and the scenario upload."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from relpos.state.codec import Schema, StateError
from relpos.state.export import load_scenario, scenario_json
from relpos.tables import frames
from relpos.text.escape import escape_markdown
from relpos.ui.url_state import lesson_link

__all__ = ["Download", "download_buttons", "download_csv", "export_section", "matrix_download", "scenario_upload"]


def download_csv(frame: pd.DataFrame, filename: str, *, label: str, key: str) -> None:
    """A download button for `frame` as UTF-8 CSV with a byte-order mark (no index; full precision)."""
    st.download_button(
        label,
        data=frame.to_csv(index=False).encode("utf-8-sig"),  # the BOM tells spreadsheet programs it is UTF-8
        file_name=filename,
        mime="text/csv",
        key=key,
        icon=":material/download:",
    )


@dataclass(frozen=True)
class Download:
    """One download button: label, file name, content (or a function making it), MIME type."""

    label: str
    file_name: str
    data: object
    mime: str = "text/csv"


def matrix_download(matrices: dict[str, object], *, file_prefix: str, key: str) -> None:
    """Pick a matrix, download it as CSV (made only when clicked)."""
    choice_column, button_column = st.columns([2, 1], vertical_alignment="bottom")
    with choice_column:
        name = st.selectbox("Matrix to download", list(matrices), key=key, format_func=lambda m: m.replace("_", " "))
    with button_column:
        st.download_button(
            f"{name.replace('_', ' ')}.csv",
            lambda matrix=matrices[name]: frames.matrix_csv(matrix),
            file_name=f"{file_prefix}_{name}.csv",
            mime="text/csv",
            on_click="ignore",
            key=f"{key}.button",
            icon=":material/download:",
            width="stretch",
        )


def download_buttons(files: list[Download], *, columns: int = 4, key: str) -> None:
    """A grid of download buttons that do not rerun the page when clicked."""
    grid = st.columns(columns)
    for number, file in enumerate(files):
        with grid[number % columns]:
            st.download_button(
                file.label,
                file.data,
                file_name=file.file_name,
                mime=file.mime,
                on_click="ignore",
                key=f"{key}.{number}",
                icon=":material/download:",
                width="stretch",
            )


def export_section(
    *,
    schema: Schema,
    state: dict,
    url_path: str,
    matrices: dict[str, object],
    result,
    computed: dict[str, object],
    snippet: str,
    key: str,
) -> None:
    """Lesson link, CSV/JSON downloads and the NumPy snippet, built only while the expander is open.

    ``result`` is an AttentionResult (for the one-row-per-pair CSV); ``computed`` holds
    the arrays written into the scenario file for the reader.
    """
    section = st.expander(
        "Lesson link, downloads and NumPy code", key=key, on_change="rerun", icon=":material/ios_share:"
    )
    if not section.open:
        return
    prefix = url_path.replace("-", "_")
    scenario = dict(state)  # the page's state dict changes in place on later reruns
    with section:
        lesson_link(schema, state, url_path)
        matrix_column, file_column = st.columns([1, 1], vertical_alignment="bottom")
        with matrix_column:
            matrix_download(matrices, file_prefix=prefix, key=f"{key}.matrix")
        with file_column:
            files = [
                Download(
                    "all pairs (long).csv",
                    f"{prefix}_pairs.csv",
                    lambda: frames.pairs_frame(result).to_csv(index=False),
                ),
                Download(
                    "scenario.json",
                    f"{prefix}_scenario.json",
                    lambda: scenario_json(url_path, schema, scenario, computed),
                    "application/json",
                ),
            ]
            download_buttons(files, key=f"{key}.download", columns=2)
        st.code(snippet, language="python")


def _load_upload(key: str, page: str, schema: Schema, on_loaded) -> None:
    uploaded = st.session_state.get(key)
    if uploaded is None:
        st.session_state.pop(f"{key}:message", None)
        return
    try:
        state = load_scenario(uploaded.getvalue(), page, schema)
    except StateError as error:
        st.session_state[f"{key}:message"] = ("error", error.problems)
        return
    on_loaded(state)
    st.session_state[f"{key}:message"] = ("success", ())


def scenario_upload(page: str, schema: Schema, *, key: str, on_loaded, lazy_key: str | None = None) -> None:
    """Upload a scenario JSON file; valid files call ``on_loaded(state)``, others are explained.

    With `lazy_key` the uploader sits in an expander that is built only while open
    (and stays open while a message about the last file is shown).
    """
    if lazy_key is not None:
        message = st.session_state.get(f"{key}:message")
        if message is not None and not st.session_state.get(lazy_key):
            st.session_state[lazy_key] = True  # keep the result of a load in view
        section = st.expander("Load a scenario file", key=lazy_key, on_change="rerun", icon=":material/upload_file:")
        if not section.open:
            return
        with section:
            _scenario_uploader(page, schema, key=key, on_loaded=on_loaded)
        return
    _scenario_uploader(page, schema, key=key, on_loaded=on_loaded)


def _scenario_uploader(page: str, schema: Schema, *, key: str, on_loaded) -> None:
    st.file_uploader(
        "Load a scenario file",
        type=["json"],
        key=key,
        on_change=_load_upload,
        args=(key, page, schema, on_loaded),
        help="A .json scenario file downloaded from this page.",
    )
    kind, problems = st.session_state.get(f"{key}:message", (None, ()))
    if kind == "error":
        lines = "\n".join(f"- {escape_markdown(problem)}" for problem in problems)
        st.error(f"This file could not be loaded; nothing was changed:\n\n{lines}", icon=":material/block:")
    elif kind == "success":
        st.success("Scenario loaded.", icon=":material/check_circle:")
