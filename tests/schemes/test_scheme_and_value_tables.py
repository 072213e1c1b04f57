"""Tables, figures and URL settings of the value-side and schemes pages, without Streamlit."""

from __future__ import annotations

import numpy as np
import pytest

import relpos
from relpos.state.codec import Schema, choice_field, floats_field, int_field
from relpos.state.field import excerpt as sanitise
from relpos.tables import frames as tables
from relpos.text.numbers import number
from relpos.topics.schemes import figures as scheme_figures
from relpos.topics.value_side import figures


@pytest.fixture(scope="module")
def setup():
    return relpos.random_scheme_setup(8, k=2, num_buckets=16, max_distance=32, seed=0)


class TestSchemeTables:
    def test_summary_reports_the_translation_test(self, setup):
        results = relpos.scheme_scores(setup)
        frame = tables.scheme_summary_frame(results, relpos.translation_changes(setup, 4))
        assert frame.loc["absolute sinusoidal", "unchanged by the shift"] == "no"
        assert frame.loc["ALiBi", "constant along diagonals"] == "yes"
        assert frame.loc["Shaw relative (clip k)", "constant along diagonals"] == "no"
        assert frame.loc["RoPE (rotary)", "max |change| after shift"] == 0.0

    def test_length_frame_names_the_untrained_buckets(self, setup):
        report = relpos.length_generalization(setup, 8)
        frame = tables.length_frame(report, k=2, slope=0.5, head=0)
        # 16 buckets, max_distance 32: distances up to 7 reach bucket 5; 12..15 fall in bucket 6
        assert "buckets never trained: [6, 14]" in frame.loc["T5 bucketed bias"].iloc[1]
        assert "−3.50 at L, −7.50 at 2L" in frame.loc["ALiBi"].iloc[1]

    def test_length_report_flags(self, setup):
        report = relpos.length_generalization(setup, 8, relpos.alibi_slopes(4))
        np.testing.assert_array_equal(report.offsets[report.t5_untrained], [-15, -14, -13, -12, 12, 13, 14, 15])
        assert report.alibi.shape == (4, 31)
        assert not report.shaw_row_untrained.any()  # k = 2 < L: every row was trained
        wide = relpos.length_generalization(relpos.random_scheme_setup(8, k=7), 3)
        assert wide.shaw_row_untrained.any()  # k = 7 ≥ L = 3: rows ±3..±5 never met in training

    def test_constant_diagonals(self):
        assert tables.constant_diagonals(relpos.alibi_bias(relpos.relative_offsets(5), 0.3))
        assert not tables.constant_diagonals(np.arange(9.0).reshape(3, 3) ** 2)


def minus(text: str) -> str:
    """Expected hover text of a small panel: numbers with a true minus sign."""
    return text.replace("-", "−")


def hover_of(plotly_hover, fig, i: int, j: int) -> str:
    """The hover label of cell (i, j) (0-based) of a heatmap figure, as plotly.js draws it."""
    return plotly_hover.label(fig, i, j)


class TestSchemeHeatmaps:
    """The page-wide heatmap conventions hold on the schemes page too."""

    def test_cells_print_their_numbers_up_to_twelve_tokens(self):
        for n, shown in ((8, True), (12, True), (13, False)):
            results = relpos.scheme_scores(relpos.random_scheme_setup(n, k=2, seed=1))
            for maps in (scheme_figures.position_heatmaps(results), scheme_figures.weight_heatmaps(results)):
                for fig in maps.values():
                    assert bool(fig.data[0].texttemplate) == shown, (n, fig.data[0].name)

    def test_position_hover_shows_the_subtraction(self, setup, plotly_hover):
        results = relpos.scheme_scores(setup)
        shaw = results["shaw"]
        label = hover_of(plotly_hover, scheme_figures.position_heatmaps(results)["shaw"], 1, 4)
        assert label.startswith("query i = 2, key j = 5 (offset j − i = +3)")
        assert minus(f"score {shaw.scores[1, 4]:.4f} − without positions ({shaw.content[1, 4]:.4f})") in label
        assert label.endswith(minus(f"= {shaw.position[1, 4]:.4f}"))
        none = hover_of(plotly_hover, scheme_figures.position_heatmaps(results)["none"], 0, 0)
        assert none.endswith(minus(f"q_i·k_j/√d = {results['none'].content[0, 0]:.4f}"))

    def test_weight_hover_shows_the_softmax(self, setup, plotly_hover):
        results = relpos.scheme_scores(setup)
        alibi = results["alibi"]
        label = hover_of(plotly_hover, scheme_figures.weight_heatmaps(results)["alibi"], 2, 0)
        exps = np.exp(alibi.scores[2])
        assert minus(f"exp({alibi.scores[2, 0]:.2f})") in label
        assert f"{exps[0]:.3f} / {exps.sum():.3f} = {alibi.weights[2, 0]:.4f}" in label

    def test_translation_hover_shows_after_minus_before(self, setup, plotly_hover):
        before = relpos.scheme_scores(setup)
        after = relpos.scheme_scores(setup, shift=4)
        changes = relpos.translation_changes(setup, 4)
        label = hover_of(
            plotly_hover, scheme_figures.translation_heatmaps(changes, before=before, shift=4)["sinusoidal"], 0, 1
        )
        old, new = before["sinusoidal"].scores[0, 1], after["sinusoidal"].scores[0, 1]
        assert minus(f"moved 4 places: {new:.4f} − before ({old:.4f}) = {new - old:.4f}") in label


class TestSchemeFigures:
    def test_curves_mark_what_training_never_saw(self, setup):
        report = relpos.length_generalization(setup, 8)
        t5 = scheme_figures.t5_curve_figure(report)
        names = [trace.name for trace in t5.data]
        assert "bucket never trained" in names
        assert t5.layout.shapes[0].x0 == -7.5 and t5.layout.shapes[0].x1 == 7.5  # the trained band
        shaw = scheme_figures.shaw_curve_figure(report, 2)
        clipped = next(trace for trace in shaw.data if "clipped" in trace.name)
        assert np.all(np.abs(np.asarray(clipped.x)) > 2)

    def test_curve_hovers_use_the_one_formatter(self, setup):
        """Every curve's hover is our text: offsets +2 / 0 / −1 and true minus signs, never Plotly's hyphen."""
        report = relpos.length_generalization(setup, 8, relpos.alibi_slopes(4))
        figs = [
            scheme_figures.shaw_curve_figure(report, 2),
            scheme_figures.t5_curve_figure(report),
            scheme_figures.alibi_curve_figure(report, 1),
            scheme_figures.rope_curve_figure(report),
            scheme_figures.sinusoid_figure(report),
        ]
        for fig in figs:
            for trace in fig.data:
                if trace.type != "scatter" or trace.x is None or not len(trace.x):
                    continue
                assert trace.hoverinfo == "text" and trace.hovertemplate is None, trace.name
                labels = list(trace.hovertext)
                assert len(labels) == len(trace.x) and not any("-" in label for label in labels), labels[:3]
                for label, y in zip(labels, trace.y, strict=True):
                    assert label.endswith(number(y, 3)) or f"bias {number(y, 3)}" in label, (label, y)
        shaw = figs[0].data[0]
        assert shaw.hovertext[list(shaw.x).index(-1)].startswith("j − i = −1: ")
        assert shaw.hovertext[list(shaw.x).index(0)].startswith("j − i = 0: ")

    def test_translation_maps_zero_out_rounding(self, setup):
        changes = relpos.translation_changes(setup, 5)
        maps = scheme_figures.translation_heatmaps(changes, before=relpos.scheme_scores(setup), shift=5)
        assert not np.any(np.asarray(maps["rope"].data[0].z))  # 1e-16 noise drawn as exact zeros
        assert np.abs(np.asarray(maps["sinusoidal"].data[0].z)).max() > 0.1

    def test_value_split_adds_up(self):
        example = relpos.value_example()
        result = example.attention(1)
        terms = relpos.query_value_terms(result, example.values, relpos.window_table(example.value_table, 1), 1)
        fig = figures.value_split_figure(terms)
        content, position = (np.asarray(trace.y) for trace in fig.data[:2])
        np.testing.assert_allclose(content[:-1].sum(), content[-1])
        np.testing.assert_allclose(position[:-1].sum(), position[-1])
        np.testing.assert_allclose(fig.data[2].y[0], result.output[1, 0])

    def test_value_terms_frame_columns_sum_to_the_parts(self):
        example = relpos.value_example()
        result = example.attention(3)
        terms = relpos.query_value_terms(result, example.values, relpos.window_table(example.value_table, 3), 2)
        frame = tables.value_terms_frame(terms, decimals=None)
        np.testing.assert_allclose(frame["α_ij·v_j"].sum(), result.output_content[2, 0])
        np.testing.assert_allclose(frame["α_ij·a^V"].sum(), result.output_position[2, 0])


class TestPageSettings:
    """Settings with a label for the learner: messages name them by it, in a sentence."""

    SETTINGS = Schema(
        {
            "n": int_field(8, 2, 16, label="n"),
            "mode": choice_field("a", ("a", "b"), label="mode"),
            "v": floats_field([0.0, 0.0], -2.0, 2.0, 2, min_items=2, noun="values"),
        }
    )

    def read(self, params):
        decoded = self.SETTINGS.decode(params)
        return decoded.state, list(decoded.problems)

    @pytest.mark.parametrize("text", ["1_000", "1000", " 12 ", "+5", "1e3", "0x10", "12.0", "−3", "nan", "inf"])
    def test_one_codec_reads_every_pages_numbers_alike(self, text):
        """/schemes?seed=1_000 used to open seed 1000 while /explorer?seed=1_000 refused it."""

        def outcome(fields, name):
            decoded = Schema(fields).decode({name: text})
            return None if decoded.problems else decoded.state[name]

        labelled = {
            "seed": int_field(0, -9999, 9999, label="seed"),
            "v": floats_field([0.0], -5000.0, 5000.0, 1, noun="values"),
        }
        plain = {"seed": int_field(0, -9999, 9999), "v": floats_field([0.0], -5000.0, 5000.0, 1)}
        for name in ("seed", "v"):
            assert outcome(labelled, name) == outcome(plain, name)

    @pytest.mark.parametrize(
        ("params", "message"),
        [
            ({"n": "abc"}, "n must be a whole number from 2 to 16"),
            ({"n": "1e9"}, "n must be a whole number"),
            ({"n": "17"}, "got 17"),
            ({"n": "-3"}, "got -3"),
            ({"mode": "c"}, "mode must be one of a, b"),
            ({"v": "1"}, "values must be 2 numbers"),
            ({"v": "1,inf"}, "values must be 2 numbers from −2 to 2"),
            ({"v": "1,nan"}, "values must be 2 numbers"),
            ({"v": "1,3"}, "entry 2: 3 is outside −2 to 2"),  # the entry by its place, not a bare "3"
            ({"v": "1,x"}, "“x” is not a number"),
            ({"v": "1," + "9" * 500}, "values is too long"),
        ],
    )
    def test_malformed_values_fall_back_with_a_message(self, params, message):
        values, problems = self.read(params)
        assert values == {"n": 8, "mode": "a", "v": [0.0, 0.0]}
        assert len(problems) == 1 and message in problems[0]

    def test_round_trip(self):
        values = {"n": 12, "mode": "b", "v": [-1.5, 0.25]}
        assert self.read(self.SETTINGS.encode(values)) == (values, [])

    def test_negative_zero(self):
        values, problems = self.read({"v": "-0,0"})
        assert values["v"] == [0.0, 0.0] and str(values["v"][0]) == "0.0" and not problems

    def test_unknown_keys_are_named_and_ignored(self):
        values, problems = self.read({"n": "12", "nn": "3", "<b>x": "1"})
        assert values == {"n": 12, "mode": "a", "v": [0.0, 0.0]}
        assert problems == ["Unknown parameters ignored: “nn”, “<b>x”."]  # plain text: the page escapes it

    def test_many_unknown_keys_are_counted(self):
        _, (problem,) = self.read({f"x{i}": "1" for i in range(12)})
        assert problem.endswith("“x5” and 6 more.")

    def test_sanitise_keeps_messages_short_and_printable(self):
        assert sanitise("a\x00b\nc") == "a?b?c"
        assert len(sanitise("1" * 1000)) == 24 and sanitise("1" * 1000).endswith("…")
        assert sanitise("1" * 24) == "1" * 24
