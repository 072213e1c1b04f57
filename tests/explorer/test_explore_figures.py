"""Figure builders, panel sets, hover templates and computed captions of the Explore pages."""

from __future__ import annotations

import json
import re

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

import relpos
from relpos.plots import heatmaps, panels
from relpos.plots.offset_map import offset_map_figure
from relpos.plots.style import HeatmapStyle
from relpos.text import explain, hover
from relpos.topics.explorer import panel_spec
from relpos.topics.explorer import schema as explorer_schema
from relpos.topics.explorer.schema import EXPLORER
from relpos.topics.position_effects import model as position_effects_model
from relpos.topics.position_effects import text as position_effects_text
from tests.support import oracle
from tests.support.apptest import decode_z


def _example():
    example = relpos.worked_example()
    return example, example.attention()


def _explorer(query: dict, scalar: bool = False):
    state = EXPLORER.decode(query).state
    inputs = explorer_schema.explorer_inputs(state)
    if scalar:
        result = relpos.scalar_bias_attention(inputs.queries, inputs.keys, inputs.table[:, 0])
    else:
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
    return inputs, result, oracle.explorer_panels(inputs.queries, inputs.keys, inputs.table, result, scalar=scalar)


def _trace(fig: go.Figure) -> dict:
    """The first trace as the browser receives it (through Streamlit's serialisation)."""
    return json.loads(pio.to_json(fig, validate=False))["data"][0]


class TestExplorerPanels:
    def test_seven_panels_in_matrix_orientation(self):
        _, _, figs = _explorer({})
        assert list(figs) == list(panels.EXPLORER_PANELS)
        for fig in figs.values():
            assert list(fig.layout.yaxis.range) == [4.5, 0.5]  # row 1 on top
            trace = fig.data[0]
            assert (trace.x0, trace.y0) == (1, 1)  # cell (i, j) sits at the 1-based positions
            assert (fig.layout.xaxis.tick0, fig.layout.xaxis.dtick) == (1, 1)  # every position labelled

    def test_panels_are_valid_plotly_figures(self):
        """Panels are built without Plotly's per-property checks; here they get them."""
        for query in ({}, {"n": "12", "k": "3"}, {"n": "96", "d": "2"}):
            for fig in _explorer(query)[2].values():
                go.Figure(fig.to_dict())  # raises on any invalid property

    def test_score_panels_share_one_range_centred_on_zero(self):
        _, result, figs = _explorer({})
        limit = np.abs(np.stack([result.content, result.bias, result.scores])).max()
        for name in ("content", "bias", "scores"):
            trace = figs[name].data[0]
            assert (trace.zmin, trace.zmax, trace.zmid) == (-limit, limit, 0.0)
            assert diverging_blue_white_red(trace.colorscale)

    def test_weights_on_a_sequential_zero_to_one_scale(self):
        _, _, figs = _explorer({})
        for name in ("content_weights", "weights"):
            trace = figs[name].data[0]
            assert (trace.zmin, trace.zmax) == (0.0, 1.0)

    def test_panels_have_equal_geometry(self):
        _, _, figs = _explorer({})
        geometry = {
            (fig.layout.height, fig.layout.margin.l, fig.layout.margin.t, fig.layout.margin.b) for fig in figs.values()
        }
        assert len(geometry) == 1

    def test_numbers_in_cells_only_up_to_twelve_tokens(self):
        for n, expected in (("12", True), ("13", False)):
            _, _, figs = _explorer({"n": n})
            assert bool(figs["scores"].data[0].texttemplate) is expected

    def test_z_values_are_the_result(self):
        _, result, figs = _explorer({})
        np.testing.assert_allclose(decode_z(_trace(figs["scores"])), result.scores)
        np.testing.assert_allclose(decode_z(_trace(figs["difference"])), result.weights - result.content_weights)

    def test_large_panels_are_float32_without_text_or_hover_data(self):
        _, _, figs = _explorer({"n": "512", "k": "5"})
        for name in ("content", "bias", "scores", "content_weights", "weights", "difference"):
            trace = _trace(figs[name])
            assert trace["z"]["dtype"] == "f4"
            assert "customdata" not in trace and "text" not in trace and "texttemplate" not in trace
        offsets = _trace(figs["offsets"])
        assert offsets["z"]["dtype"] == "u1" and "text" not in offsets and "hovertext" not in offsets
        np.testing.assert_array_equal(decode_z(offsets)[0, :3], [5, 6, 7])  # table rows: offset + k
        assert len(pio.to_json(figs["offsets"], validate=False)) < 400_000  # one byte per cell

    def test_bias_panel_outlines_the_clipping_window(self):
        _, _, figs = _explorer({})  # n = 4 > k + 1 = 3: two clipped cells
        assert len(figs["bias"].layout.shapes) == 2 and figs["bias"].layout.shapes[0].line.dash == "dash"
        _, _, unclipped = _explorer({"n": "3"})
        assert not unclipped["bias"].layout.shapes

    def test_scalar_bias_title(self):
        _, _, figs = _explorer({}, scalar=True)
        assert "query-independent" in figs["bias"].layout.title.text

    def test_the_browser_gets_explicit_colour_scales(self):
        """Plotly.js knows neither "RdBu_r" nor "PuOr": unvalidated figures must send the colours."""
        _, _, figs = _explorer({})
        for fig in figs.values():
            assert isinstance(_trace(fig)["colorscale"], list)


class TestOffsetMap:
    def test_colours_are_clipped_offsets_constant_along_diagonals(self):
        z = np.asarray(panel_spec.offset_map_panel(5, 5, 1, 400).data[0].z)
        np.testing.assert_array_equal(z, relpos.clip_offsets(relpos.relative_offsets(5), 1))
        np.testing.assert_array_equal(z[1:, 1:], z[:-1, :-1])

    def test_small_maps_mark_clipped_cells(self):
        fig = panel_spec.offset_map_panel(4, 4, 1, 400)
        markers = fig.data[1]
        assert len(markers.x) == np.count_nonzero(np.abs(relpos.relative_offsets(4)) > 1)

    def test_staircase_separates_the_window(self):
        assert heatmaps.window_staircases(4, 4, 3) == []
        upper, lower = heatmaps.window_staircases(4, 4, 1)
        assert upper[0] == (1.5, -0.5) and lower[0] == (-0.5, 1.5)

    def test_shared_builder_still_labels_arrows(self):
        """Outside a panel the foundation's labels (+3→+2) and markers are kept."""
        fig = offset_map_figure(4, 4, 2)
        assert fig.data[0].text[0][3] == "+3→+2"

    def test_default_hover_prints_numbers_with_a_true_minus(self):
        trace = heatmaps.score_heatmap([[-0.25, 0.0001], [-0.00001, 1.5]], "t").data[0]
        assert trace.hovertemplate is None and trace.hoverinfo == "text"
        assert [list(row) for row in trace.hovertext] == [
            ["query i=1, key j=1<br>−0.2500", "query i=1, key j=2<br>0.0001"],
            ["query i=2, key j=1<br>0.0000", "query i=2, key j=2<br>1.5000"],
        ]

    def test_small_panel_offsets_follow_the_one_offset_rule(self, plotly_hover):
        """Cells and hover read +1, 0, −1 (true minus, no "+0"), formatted by relpos.text.numbers."""
        trace = panel_spec.offset_map_panel(4, 4, 1, 300).data[0]
        assert [list(row) for row in trace.text] == [
            ["0", "+1", "+1", "+1"],
            ["−1", "0", "+1", "+1"],
            ["−1", "−1", "0", "+1"],
            ["−1", "−1", "−1", "0"],
        ]
        assert trace.customdata[0][3].tolist() == ["+3", "+1"]  # true offset, clipped offset
        label = plotly_hover.label(panel_spec.offset_map_panel(4, 4, 1, 300), 0, 3)
        assert "offset j − i = +3 → table row a^K_+1" in label, label


def shown(plotly_hover, data: hover.Hover, matrix, i: int, j: int) -> str:
    """The label plotly.js shows for cell (i, j) of a panel drawing `matrix` with this hover."""
    fig = heatmaps.score_heatmap(matrix, "t", look=HeatmapStyle(panel_height=400), hover=data)
    return plotly_hover.label(fig, i, j)


def _rgb(colour: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", colour)[:3])


def diverging_blue_white_red(colorscale) -> bool:
    """Negative scores blue, zero (the middle) near white, positive red: what the colour means."""
    (red_low, _, blue_low), (red_high, _, blue_high) = _rgb(colorscale[0][1]), _rgb(colorscale[-1][1])
    middle = min(colorscale, key=lambda stop: abs(stop[0] - 0.5))
    return blue_low > red_low and red_high > blue_high and min(_rgb(middle[1])) >= 230


class TestHover:
    def test_textbook_cell_arithmetic(self, plotly_hover):
        example, result = _example()
        label = shown(
            plotly_hover, hover.score_hover(example.queries, example.keys, example.table, result), result.scores, 0, 3
        )
        assert "offset j − i = +3, uses a^K_+2" in label
        assert "q_1·k_4 = 1.00·(1.20) = 1.20" in label
        assert "q_1·a^K_+2 = 1.00·(−0.50) = −0.50" in label
        assert label.endswith("score 1.20 + (−0.50) = 0.70")

    def test_d2_shows_the_dot_product_sum(self, plotly_hover):
        inputs, result, _ = _explorer({"d": "2"})
        label = shown(
            plotly_hover, hover.score_hover(inputs.queries, inputs.keys, inputs.table, result), result.scores, 1, 2
        )
        q, k = inputs.queries[1], inputs.keys[2]
        expected = f"q_2·k_3 = ({q[0]:.2f}·({k[0]:.2f}) + {q[1]:.2f}·({k[1]:.2f}))/√2 = {result.content[1, 2]:.2f}"
        assert expected.replace("-", "−") in label  # small panels: strings with true minus signs

    def test_scalar_mode(self, plotly_hover):
        example, _ = _example()
        result = relpos.scalar_bias_attention(example.queries, example.keys, example.table)
        scalar = hover.score_hover(example.queries, example.keys, example.table, result, scalar=True)
        label = shown(plotly_hover, scalar, result.scores, 2, 0)
        assert "b_−2 = −0.30 (the same for every query)" in label

    def test_weights_and_change(self, plotly_hover):
        _, result = _example()
        content, _, change = hover.weight_hovers(result)
        assert shown(plotly_hover, content, result.content_weights, 0, 3).endswith("= 0.3576")
        difference = result.weights - result.content_weights
        assert "with positions 0.2764 − content only 0.3576" in shown(plotly_hover, change, difference, 0, 3)

    def test_small_panels_send_strings_with_true_minus_signs(self):
        example, result = _example()
        data = hover.score_hover(example.queries, example.keys, example.table, result).customdata
        assert data.dtype == object and data.shape[:2] == (4, 4)
        assert "−0.50" in data[0, 3].tolist() and not any("-" in text for text in data.ravel())

    def test_large_panels_send_compact_float32(self, plotly_hover):
        rng = np.random.default_rng(0)
        queries, keys, table = rng.standard_normal(13), rng.standard_normal(13), rng.standard_normal(5)
        result = relpos.relative_attention(queries, keys, A_K=table)
        data = hover.score_hover(queries, keys, table, result).customdata
        assert data.dtype == np.float32 and data.shape[:2] == (13, 13)
        label = shown(plotly_hover, hover.score_hover(queries, keys, table, result), result.scores, 0, 12)
        assert f"score {result.content[0, 12]:.2f} + ({result.bias[0, 12]:.2f})" in label  # Plotly's hyphen-minus

    def test_effects_hover(self, plotly_hover):
        inputs = position_effects_model.position_effects_inputs(5, 1, seed=0)
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        scores, weights = hover.position_effects_hover(result)
        assert "offset j − i = +4, uses a^K_+1" in shown(plotly_hover, scores, result.bias, 0, 4)
        assert "→ with positions" in shown(plotly_hover, weights, result.weights, 0, 0)


class TestCaptions:
    def test_difference_explains_why_position_4_is_penalised(self):
        _, result = _example()
        caption = explain.explorer_captions(result)["difference"]
        assert "Largest loss: query 1 → key 4 (offset +3, clipped to +2), −0.0812 (0.3576 → 0.2764)" in caption
        # the cause is the bias relative to the row's content-weighted log-mean-exp, not the bias alone
        assert "because its bias −0.50 is below the row's log-mean-exp" in caption
        assert (
            "its bias −0.50 is below the row's content-weighted log-mean-exp T = log Σₗ wₗ·e^(bₗ) = −0.2425"
            in explain.difference_derivation(result)[1]
        )

    def test_bias_caption_reports_the_query_dependence(self):
        _, result = _example()
        caption = explain.explorer_captions(result)["bias"]
        assert "changes down the diagonal" in caption and "Cells further apart than k = 2" in caption

    def test_scalar_captions(self):
        example, _ = _example()
        result = relpos.scalar_bias_attention(example.queries, example.keys, example.table)
        assert "exactly constant" in explain.explorer_captions(result, scalar=True)["bias"]
        assert "exactly b₀ = 0.10" in explain.diagonal_note(example.queries, example.table, result, scalar=True)

    def test_offsets_caption_depends_on_clipping(self):
        _, result = _example()
        assert "2 cells" in explain.explorer_captions(result)["offsets"]
        short = relpos.relative_attention([1.0, 0.5], [0.9, 0.7], A_K=[0.4, 0.1, -0.2])
        assert "nothing is clipped" in explain.explorer_captions(short)["offsets"]

    def test_never_says_anti_diagonal(self):
        example, result = _example()
        words = " ".join(explain.explorer_captions(result).values())
        words += explain.diagonal_note(example.queries, example.table, result)
        assert "anti-diagonal" not in words and "antidiagonal" not in words

    @pytest.mark.parametrize("k", [1, 3])
    def test_effects_summary(self, k):
        inputs = position_effects_model.position_effects_inputs(8, k, seed=0, pattern="back")
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        text = " ".join(
            position_effects_text.position_effects_summary(inputs.queries, result, (-2, -1), inputs.direction)
        )
        assert "the position term moved it by" in text and "Weight on offsets −2, −1:" in text
        assert ("Raise k to 3" in text) is (k == 1)  # with k = 1, "two back" leaks to every earlier key

    def test_effects_summary_for_a_random_table(self):
        inputs = position_effects_model.position_effects_inputs(6, 2, seed=0, pattern="random")
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        sentences = position_effects_text.position_effects_summary(inputs.queries, result, (), table=inputs.table)
        assert "no preferred offset" not in " ".join(sentences)
        assert position_effects_text.preferred_row_sentence(inputs.queries, inputs.table, result) in sentences


class TestEffectsPanels:
    def test_four_panels_share_geometry_and_scales(self):
        inputs = position_effects_model.position_effects_inputs(6, 3, seed=0)
        result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)
        figs = panels.position_effects_panels(result)
        assert sorted(figs) == sorted(panels.POSITION_EFFECTS_PANELS)
        assert figs["content"].data[0].zmax == figs["bias"].data[0].zmax
        for fig in figs.values():
            go.Figure(fig.to_dict())


class TestLongSequenceCaptions:
    def test_small_weights_get_a_note(self):
        _, result, _ = _explorer({"n": "128", "preset": "random"})
        captions = explain.explorer_captions(result)
        assert "128 keys share each row, 1/128 = 0.008 on average) look alike" in captions["weights"]
        _, example_result = _example()
        assert "look alike" not in explain.explorer_captions(example_result)["weights"]

    def test_ticks_of_long_axes_are_round_numbers(self):
        _, _, figs = _explorer({"n": "512", "k": "2"})
        assert (figs["scores"].layout.xaxis.tick0, figs["scores"].layout.xaxis.dtick) == (0, 64)  # 64, 128, …


class TestHoverAsDrawn:
    """Whole labels as plotly.js draws them (sub/superscripts as _ and ^, lines as newlines)."""

    def test_score_arithmetic(self, plotly_hover):
        example, result = _example()
        data = hover.score_hover(example.queries, example.keys, example.table, result)
        assert shown(plotly_hover, data, result.scores, 1, 2) == (
            "query i = 2, key j = 3: offset j − i = +1, uses a^K_+1\n"
            "q_2·k_3 = 0.50·(0.40) = 0.20\n"
            "q_2·a^K_+1 = 0.50·(−0.20) = −0.10\n"
            "score 0.20 + (−0.10) = 0.10"
        )

    def test_softmax_and_change(self, plotly_hover):
        _, result = _example()
        _, combined, change = hover.weight_hovers(result)
        assert shown(plotly_hover, combined, result.weights, 0, 0) == (
            "query i = 1, key j = 1\nα_1,1 = exp(1.00) / Σ_j exp(e_1j) = 2.718 / 7.286 = 0.3731"
        )
        difference = result.weights - result.content_weights
        assert shown(plotly_hover, change, difference, 0, 3) == (
            "query i = 1, key j = 4\nwith positions 0.2764 − content only 0.3576 = −0.0812"
        )

    def test_scheme_position_part_and_translation(self, plotly_hover):
        content, scores = np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([[0.7, -0.5], [0.2, 0.3]])
        part = hover.scheme_score_hover(content, scores)
        assert shown(plotly_hover, part, scores - content, 0, 1) == (
            "query i = 1, key j = 2 (offset j − i = +1)\n"
            "position part = score −0.5000 − without positions (−0.2000) = −0.3000"
        )
        moved = hover.translation_hover(np.array([[0.5]]), np.array([[-0.25]]), 3)
        assert shown(plotly_hover, moved, np.array([[-0.25]]), 0, 0) == (
            "query i = 1, key j = 1 (offset j − i = 0)\nmoved 3 places: 0.2500 − before (0.5000) = −0.2500"
        )

    def test_position_effects_terms(self, plotly_hover):
        _, result = _example()
        scores, _ = hover.position_effects_hover(result)
        assert shown(plotly_hover, scores, result.bias, 0, 3) == (
            "query i = 1, key j = 4: offset j − i = +3, uses a^K_+2\ncontent 1.20 + position (−0.50) = score 0.70"
        )
