"""One plot style: sizes and colours of figures are named in relpos.plots.style only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import relpos.plots
from relpos.plots import style
from relpos.plots.heatmaps import score_heatmap, weight_heatmap

PLOTS = Path(relpos.plots.__file__).parent
#: the figure kit and every topic's figures (figures.py, charts.py, spec.py and *_spec.py)
FIGURE_MODULES = sorted(
    [p for p in PLOTS.glob("*.py") if p.name not in ("style.py", "__init__.py")]
    + [
        p
        for name in ("figures.py", "charts.py", "spec.py", "*_spec.py")
        for p in (PLOTS.parent / "topics").glob(f"*/{name}")
    ]
)

#: A literal colour, a literal margin dict, or a font size written as a number.
LITERALS = {
    "colour": re.compile(r"""["'](#[0-9a-fA-F]{3,8}|rgba?\()"""),
    "margin": re.compile(r"""margin["']?\s*[=:]\s*\{"""),
    "font size": re.compile(r"""(font|textfont|tickfont)["']?\s*[=:]\s*\{["']size["']:\s*\d"""),
    "annotation size": re.compile(r"""font_size\s*=\s*\d"""),
}


class TestOneStyle:
    def test_every_figure_module_is_checked(self):
        names = {str(p.relative_to(PLOTS.parent)) for p in FIGURE_MODULES}
        expected = {"plots/heatmaps.py", "plots/offset_map.py", "plots/panels.py", "topics/explorer/panel_spec.py"}
        topics = {f"topics/{t}/figures.py" for t in ("walkthrough", "efficiency", "value_side", "schemes", "training")}
        assert expected | topics <= names

    @pytest.mark.parametrize("path", FIGURE_MODULES, ids=lambda p: str(p.relative_to(PLOTS.parent)))
    def test_no_literal_colour_margin_or_font_size_outside_the_style_module(self, path):
        source = path.read_text(encoding="utf-8")
        found = [
            f"{kind}: {line.strip()}"
            for line in source.splitlines()
            for kind, pattern in LITERALS.items()
            if pattern.search(line)
        ]
        assert found == [], f"{path.name} writes its own style; name it in relpos/plots/style.py"

    def test_the_checks_catch_a_literal(self):
        for line in ('marker={"color": "#0072B2"}', 'margin={"l": 1}', 'font={"size": 14}', "annotation_font_size=12"):
            assert any(pattern.search(line) for pattern in LITERALS.values()), line


class TestStyleConstants:
    def test_constants_cannot_be_changed_by_a_figure(self):
        with pytest.raises(TypeError):
            style.WEIGHT_COLOURS["combined"] = "red"  # type: ignore[index]
        with pytest.raises(AttributeError):
            style.PANEL_MARGIN.left = 0  # type: ignore[misc]

    def test_helpers_return_fresh_dicts(self):
        first = style.PANEL_MARGIN.plotly()
        first["l"] = 0
        assert style.PANEL_MARGIN.plotly()["l"] == style.PANEL_MARGIN.left != 0
        title = style.axis_title("x")
        title["font"]["size"] = 99
        assert style.axis_title("x")["font"]["size"] == style.AXIS_TITLE_SIZE


class TestHeatmapStyle:
    def test_sizes_reach_the_figure(self):
        look = style.HeatmapStyle(height=333, text_size=17, decimals=1)
        trace = score_heatmap([[0.25, -1.0]], "t", look=look).data[0]
        assert trace.textfont.size == 17 and trace.text == (["0.2", "−1.0"],)
        assert score_heatmap([[1.0]], "t", look=look).layout.height == 333

    def test_panel_style_uses_the_panel_margin_and_a_colour_bar_below(self):
        fig = weight_heatmap([[0.5]], "t", look=style.HeatmapStyle(panel_height=400))
        margin = fig.layout.margin
        assert (margin.l, margin.r, margin.t, margin.b) == tuple(vars(style.PANEL_MARGIN).values())
        assert fig.data[0].colorbar.orientation == "h"

    def test_no_text_means_no_cell_numbers(self):
        trace = score_heatmap([[1.0]], "t", look=style.HeatmapStyle(text=False)).data[0]
        assert trace.text is None and trace.texttemplate is None
