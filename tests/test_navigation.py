"""The page list: every declared page exists and its URL is its file name."""

from __future__ import annotations

from pathlib import Path

import pytest

from relpos.navigation import PAGES

ROOT = Path(__file__).resolve().parents[1]


class TestPages:
    @pytest.mark.parametrize("spec", PAGES, ids=lambda spec: spec.url_path)
    def test_script_exists(self, spec):
        assert (ROOT / spec.path).is_file()

    @pytest.mark.parametrize("spec", PAGES, ids=lambda spec: spec.url_path)
    def test_url_is_the_file_name(self, spec):
        """Streamlit identifies a page by its url_path; folder routing (a fresh server's
        first direct link) derives it from the file name, so the two must agree."""
        assert spec.url_path == Path(spec.path).stem

    def test_every_page_file_is_declared(self):
        declared = {spec.path for spec in PAGES}
        assert {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")} == declared

    def test_unique_urls(self):
        assert len({spec.url_path for spec in PAGES}) == len(PAGES)
