"""Streamlit's frontend build as the app serves it, and the install step that compresses it.

The page weight middleware (:mod:`relpos.static.weight`) serves a folder of files and knows
nothing of Streamlit. Here is where Streamlit keeps its build and which of its files the app
serves changed (:func:`app_transforms`), from the private names of
:mod:`relpos.server.internals`. ``python -m relpos.server.frontend`` compresses every file
once into the disk cache (the Makefile at install, the Dockerfile at image build).
"""

from __future__ import annotations

from relpos.server import internals
from relpos.static import icon_font, plotly_trim
from relpos.static.compression import CompressedStore, digest_of
from relpos.static.static_folder import StaticFolder, Transform, precompress, with_head

__all__ = ["app_transforms"]


def app_transforms(head: str = "") -> dict[str, Transform]:
    """The files of Streamlit's build that relpos serves changed: the Plotly chunk with
    only the plotly.js the app draws with (:mod:`relpos.static.plotly_trim`), the icon
    font with only the icons a page can show (:mod:`relpos.static.icon_font`), and
    ``index.html`` with `head` in its head (:func:`relpos.static.static_folder.with_head`)."""
    transforms = {
        internals.PLOTLY_CHUNK_GLOB: Transform(plotly_trim.trim_bytes, plotly_trim.key()),
        internals.ICON_FONT_GLOB: icon_font.transform(internals.static_dir(), internals.ICON_NAME_PREFIX),
    }
    if head:
        transforms["index.html"] = Transform(lambda page: with_head(page, head), f"head {digest_of(head.encode())}")
    return transforms


if __name__ == "__main__":  # python -m relpos.server.frontend: fill the disk cache (install, image build)
    import sys
    import time

    began = time.perf_counter()
    store = CompressedStore()
    folder = StaticFolder(internals.static_dir(), transforms=app_transforms(), cache_dir=store.cache_dir)
    written, present = precompress(folder, store)
    print(f"{written} variants written, {present} present, in {store.cache_dir} ({time.perf_counter() - began:.1f} s)")
    sys.exit(0)
