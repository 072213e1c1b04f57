"""The scheme comparison page (pages/schemes.py), rendered headless with AppTest."""

from __future__ import annotations

import numpy as np
import pytest

import relpos
from relpos.topics.schemes import figures as scheme_figures
from tests.support.apptest import figures_titled, heatmap_z, open_app, plotly_specs, shown_text, trace_values

PAGE = "schemes"
RELATIVE = ("shaw", "t5", "alibi", "rope", "none")


def heatmap_named(at, title: str, scheme: str) -> np.ndarray:
    """z of the heatmap titled `title` whose trace carries the scheme's key as its name."""
    for spec in figures_titled(at, title):
        trace = spec["data"][0]
        if trace.get("name") == scheme:
            return heatmap_z(spec)
    raise AssertionError(f"no heatmap {title!r} for {scheme}")


def change_maps(at) -> dict[str, np.ndarray]:
    return {name: heatmap_named(at, f"{label}: change", name) for name, label in relpos.SCHEMES.items()}


@pytest.fixture(scope="module")
def default_page():
    return open_app(PAGE)


class TestSchemesPage:
    def test_renders_every_section(self, default_page):
        at = default_page
        assert not at.exception
        assert at.title[0].value == "Comparing position schemes"
        # 6 schemes × 2 heatmaps, the translation bar chart and 6 change maps, 5 length charts
        assert len(at.get("plotly_chart")) == 12 + 1 + 6 + 5

    def test_heatmaps_show_the_cores_numbers(self, default_page):
        setup = relpos.random_scheme_setup(8, k=2, num_buckets=16, max_distance=32, alibi_slope=0.5, seed=0)
        results = relpos.scheme_scores(setup)
        np.testing.assert_allclose(
            heatmap_named(default_page, "scores without positions", "none"), results["none"].content
        )
        for name in ("sinusoidal", "shaw", "t5", "alibi", "rope"):
            np.testing.assert_allclose(heatmap_named(default_page, "position part", name), results[name].position)
            np.testing.assert_allclose(heatmap_named(default_page, "combined weights", name), results[name].weights)

    def test_parameter_counts_are_shown(self, default_page):
        summary = default_page.dataframe[0].value
        assert summary.loc["Shaw relative (clip k)", "position parameters"].startswith("20 ")
        assert summary.loc["T5 bucketed bias", "position parameters"].startswith("16 ")
        assert summary.loc["ALiBi", "position parameters"].startswith("0 ")


class TestTranslationSlider:
    def test_shift_changes_absolute_scores_only(self):
        at = open_app(PAGE)
        at.slider(key="schemes.shift").set_value(0).run()
        assert all(not np.any(change) for change in change_maps(at).values())
        at.slider(key="schemes.shift").set_value(7).run()
        assert not at.exception
        changes = change_maps(at)
        assert np.abs(changes["sinusoidal"]).max() > 0.1
        for name in RELATIVE:
            assert not np.any(changes[name]), name
        setup = relpos.random_scheme_setup(8, k=2, num_buckets=16, max_distance=32, alibi_slope=0.5, seed=0)
        np.testing.assert_allclose(changes["sinusoidal"], relpos.translation_changes(setup, 7)["sinusoidal"])
        bar = figures_titled(at, "largest change of a score when every token moves 7 places")[0]["data"][0]
        assert bar["text"][1] != "0 (unchanged)" and bar["text"][2] == "0 (unchanged)"
        summary = at.dataframe[0].value
        assert summary.loc["absolute sinusoidal", "unchanged by the shift"] == "no"
        assert (summary.drop("absolute sinusoidal")["unchanged by the shift"] == "yes").all()

    def test_length_slider_marks_untrained_t5_buckets(self):
        at = open_app(PAGE)
        at.slider(key="schemes.L").set_value(3).run()
        (t5,) = figures_titled(at, "T5: log-spaced buckets")
        untrained = [trace for trace in t5["data"] if trace.get("name") == "bucket never trained"]
        assert untrained, "length 3 → 6 reaches buckets that length 3 never used"
        offsets = trace_values(untrained[0], "x")
        assert np.all(np.abs(offsets) > 2)


class TestSchemeSettings:
    def test_shrinking_n_clamps_k(self):
        at = open_app(PAGE, query={"n": "12", "k": "10"})
        assert at.slider(key="schemes.k").value == 10
        at.slider(key="schemes.n").set_value(4).run()
        assert not at.exception
        assert at.slider(key="schemes.k").value == 3

    def test_malformed_link_gives_a_message(self):
        at = open_app(
            PAGE,
            query={"n": "1e9", "seed": "-4", "buckets": "7", "maxdist": "", "head": "99", "L": "<script>", "zzz": "1"},
        )
        assert not at.exception
        (warning,) = at.warning
        shown = shown_text(warning.value)
        for expected in ("sequence length n", "seed", "T5 buckets", "T5 max_distance", "ALiBi head", "trained length"):
            assert expected in shown
        assert "<script>" not in warning.value
        assert at.slider(key="schemes.n").value == 8
        assert len(plotly_specs(at)) == 24

    def test_settings_valid_alone_but_not_together_are_reported(self):
        at = open_app(PAGE, query={"n": "4", "k": "15", "heads": "2", "head": "16"})
        assert not at.exception
        (warning,) = at.warning
        shown = shown_text(warning.value)
        assert "Shaw clipping distance k must be at most n − 1 = 3 for n = 4; got 15 (used 3)" in shown
        assert "ALiBi head must be at most the number of heads H = 2; got 16 (used 2)" in shown
        assert at.slider(key="schemes.k").value == 3
        assert at.slider(key="schemes.head").value == 2
        assert at.query_params["k"] == "3" and at.query_params["head"] == "2"
        at.slider(key="schemes.shift").set_value(5).run()
        assert not at.warning, "reported once, for the opening link"

    def test_a_link_opens_the_same_view(self):
        at = open_app(PAGE, query={"n": "6", "seed": "42", "k": "1", "heads": "6", "head": "5", "shift": "2"})
        assert not at.exception and not at.warning
        setup = relpos.random_scheme_setup(6, k=1, num_buckets=16, max_distance=32, alibi_slope=0.5, seed=42)
        np.testing.assert_allclose(
            heatmap_named(at, "position part", "shaw"), relpos.scheme_scores(setup)["shaw"].position
        )
        # head 5 of 6 has slope 2^(−1) (the first of the interleaved slopes)
        np.testing.assert_allclose(heatmap_named(at, "position part", "alibi")[0, 1], -0.5)


class TestExtremeSettings:
    def test_smallest_and_largest_scenarios(self):
        at = open_app(PAGE, query={"n": "16", "k": "15", "buckets": "32", "maxdist": "128", "heads": "1", "L": "32"})
        assert not at.exception and not at.warning
        assert len(plotly_specs(at)) == 24
        at.slider(key="schemes.n").set_value(4).run()
        at.slider(key="schemes.L").set_value(2).run()
        at.slider(key="schemes.shift").set_value(32).run()
        assert not at.exception
        assert at.slider(key="schemes.k").value == 3
        changes = change_maps(at)
        assert all(not np.any(changes[name]) for name in RELATIVE)


class TestSchemesAccessibility:
    def test_every_heatmap_has_its_numbers_as_tables(self):
        at = open_app(PAGE)
        assert not at.table  # built only when an expander is open
        at.session_state["schemes.tables.scores"] = True
        at.session_state["schemes.tables.changes"] = True
        at.run()
        assert not at.exception
        setup = relpos.random_scheme_setup(8, k=2, num_buckets=16, max_distance=32, seed=0)  # the page's defaults
        shift = at.session_state["schemes.shift"]
        expected = {
            **scheme_figures.score_matrices(relpos.scheme_scores(setup)),
            **scheme_figures.change_matrices(relpos.translation_changes(setup, shift)),
        }
        assert len(at.table) == len(expected) == 6 * 2 + 6
        titles = [element.value.strip("*") for element in at.markdown if element.value.strip("*") in expected]
        assert titles == list(expected)
        for table, matrix in zip(at.table, expected.values(), strict=True):
            np.testing.assert_allclose(table.value.to_numpy(dtype=float), matrix, atol=5e-5)
