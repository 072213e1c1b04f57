"""The app's entry point and start page, rendered headless with Streamlit's AppTest."""

from __future__ import annotations

import numpy as np

import relpos
from relpos.ui.navigation import PAGES
from tests.support.apptest import open_app as run_app


class TestOverviewPage:
    def test_renders_without_exception(self):
        at = run_app()
        assert not at.exception
        assert at.title[0].value == "Relative position encoding in self-attention"

    def test_shows_the_worked_example_scores(self):
        at = run_app()
        scores = at.dataframe[0].value  # the first table is the combined-score matrix
        assert scores.shape == (4, 4)
        np.testing.assert_allclose(scores.to_numpy(), relpos.worked_example().attention().scores)
        np.testing.assert_allclose(scores.iloc[0].to_numpy(), [1.0, 0.5, -0.1, 0.7])
        assert list(scores.index) == ["i = 1", "i = 2", "i = 3", "i = 4"]

    def test_formula_is_latex(self):
        at = run_app()
        assert any("clip" in element.value for element in at.latex)

    def test_links_to_every_other_page(self):
        at = run_app()
        links = at.get("page_link")
        assert len(links) == len(PAGES) - 1
        assert all(spec.summary for spec in PAGES[1:]), "every linked page has a one-line summary"

    def test_diagonal_caption_is_computed(self):
        at = run_app()
        offset_zero = ", ".join(f"{v:.2f}" for v in relpos.worked_example().attention().bias.diagonal())
        assert any(offset_zero in caption.value for caption in at.caption)
