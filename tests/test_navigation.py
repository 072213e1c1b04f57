"""The page list: every declared page exists and its URL is its file name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from relpos.ui.navigation import PAGES

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

    @pytest.mark.parametrize("spec", PAGES, ids=lambda spec: spec.url_path)
    def test_page_runs_through_app_first(self, spec):
        """Each page's first statement after its imports is relpos.server.page_entry()
        (a fresh server's first direct link must rerun through app.py before anything is drawn)."""
        tree = ast.parse((ROOT / spec.path).read_text(encoding="utf-8"))
        body = [node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom)]
        body = body[1:] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else body
        first = body[0]
        assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Call), ast.dump(first)
        assert ast.unparse(first.value.func).endswith("page_entry")

    def test_every_page_file_is_declared(self):
        declared = {spec.path for spec in PAGES}
        assert {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")} == declared

    def test_unique_urls(self):
        assert len({spec.url_path for spec in PAGES}) == len(PAGES)
