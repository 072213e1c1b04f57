"""The value-side page (pages/value_side.py), rendered headless with AppTest."""

from __future__ import annotations

import numpy as np

import relpos
from tests.support.apptest import figures_titled, open_app, plotly_specs, shown_text, trace_values

PAGE = "value_side"


def split_figure(at, query: int) -> dict:
    (spec,) = figures_titled(at, f"output of query {query}, key by key")
    return spec


def outputs_figure(at) -> dict:
    return plotly_specs(at)[2]


class TestValueSidePage:
    def test_renders_the_example(self):
        at = open_app(PAGE)
        assert not at.exception
        assert len(at.get("plotly_chart")) == 3
        assert "$a^V$" in at.title[0].value
        terms = at.dataframe[0].value  # query 1, key by key
        np.testing.assert_allclose(terms["α_ij"].to_numpy(), [0.3731, 0.2263, 0.1242, 0.2764], atol=5e-5)
        example = relpos.value_example()
        result = example.attention(2)
        bars = split_figure(at, 1)["data"]
        content, position = trace_values(bars[0]), trace_values(bars[1])
        np.testing.assert_allclose(content[:4], result.weights[0] * np.array(example.values))
        np.testing.assert_allclose(content[4] + position[4], result.output[0, 0])

    def test_choosing_a_query_redraws_its_split(self):
        at = open_app(PAGE)
        at.radio(key="value_side.query").set_value(3).run()
        assert not at.exception
        result = relpos.value_example().attention(2)
        bars = split_figure(at, 3)["data"]
        np.testing.assert_allclose(trace_values(bars[0])[4], result.output_content[2, 0])
        np.testing.assert_allclose(trace_values(bars[1])[4], result.output_position[2, 0])

    def test_k_zero_makes_every_position_part_a_v_zero(self):
        at = open_app(PAGE)
        at.slider(key="value_side.k").set_value(0).run()
        assert not at.exception
        position = trace_values(outputs_figure(at)["data"][1])
        np.testing.assert_allclose(position, relpos.value_example().value_table[3])
        # the a^V sliders beyond ±k are greyed out
        assert at.slider(key="value_side.av.0").disabled and not at.slider(key="value_side.av.3").disabled

    def test_moving_an_a_v_entry_changes_only_the_position_part(self):
        at = open_app(PAGE)
        before = outputs_figure(at)["data"]
        at.slider(key="value_side.av.3").set_value(1.5).run()  # a^V_0
        after = outputs_figure(at)["data"]
        np.testing.assert_allclose(trace_values(after[0]), trace_values(before[0]))  # content part
        assert np.all(trace_values(after[1]) > trace_values(before[1]))  # more of a^V_0 everywhere

    def test_variants_switch_tables_off(self):
        at = open_app(PAGE)
        at.radio(key="value_side.variant").set_value("key").run()  # a^K only
        assert not np.any(trace_values(outputs_figure(at)["data"][1]))
        at.radio(key="value_side.variant").set_value("neither").run()
        content = trace_values(outputs_figure(at)["data"][0])
        example = relpos.value_example()
        plain = relpos.softmax(relpos.content_scores(example.queries, example.keys)) @ np.array(example.values)
        np.testing.assert_allclose(content, plain)

    def test_ablation_table_is_shaw_table_3(self):
        at = open_app(PAGE)
        ablation = at.dataframe[-1].value
        assert ablation["BLEU"].tolist() == [25.8, 25.8, 25.3, 12.5]

    def test_reset_restores_the_example(self):
        at = open_app(PAGE)
        at.slider(key="value_side.v.0").set_value(-2.0).run()
        at.button[0].click().run()
        assert at.slider(key="value_side.v.0").value == relpos.value_example().values[0]


class TestValueSideLinks:
    def test_a_link_restores_the_view(self):
        at = open_app(PAGE, query={"k": "1", "query": "2", "v": "1,1,1,1", "variant": "value"})
        assert not at.exception and not at.warning
        assert at.slider(key="value_side.k").value == 1
        assert at.radio(key="value_side.query").value == 2
        content = trace_values(outputs_figure(at)["data"][0])
        np.testing.assert_allclose(content, 1.0)  # all values 1: the content part is 1 for every query

    def test_a_mistyped_parameter_is_named(self):
        at = open_app(PAGE, query={"clip": "1", "query": "2"})
        assert not at.exception
        (warning,) = at.warning
        shown = shown_text(warning.value)
        assert "Unknown parameter ignored: “clip”." in shown
        assert at.radio(key="value_side.query").value == 2

    def test_the_url_follows_the_widgets(self):
        at = open_app(PAGE)
        at.slider(key="value_side.k").set_value(3).run()
        assert at.query_params["k"] == ["3"] or at.query_params["k"] == "3"

    def test_malformed_parameters_give_a_message_and_defaults(self):
        at = open_app(
            PAGE,
            query={"k": "nine", "query": "7", "v": "1,2", "av": "nan,0,0,0,0,0,0", "variant": "<b>x</b>"},
        )
        assert not at.exception
        (warning,) = at.warning
        shown = shown_text(warning.value)
        for expected in ("clipping distance k", "query must be", "values v must be 4 numbers", "aⱽ table", "variant"):
            assert expected in shown
        assert "<b>" not in warning.value  # user text is never echoed as markup
        assert at.slider(key="value_side.k").value == 2
        np.testing.assert_allclose(
            at.dataframe[0].value["α_ij"].to_numpy(), [0.3731, 0.2263, 0.1242, 0.2764], atol=5e-5
        )


class TestEverySetting:
    def test_every_k_and_variant_renders_and_adds_up(self):
        at = open_app(PAGE)
        example = relpos.value_example()
        for variant in ("both", "key", "value", "neither"):
            at.radio(key="value_side.variant").set_value(variant).run()
            for k in range(4):
                at.slider(key="value_side.k").set_value(k).run()
                assert not at.exception, (variant, k)
                data = outputs_figure(at)["data"]
                content, position, output = (trace_values(trace) for trace in data)
                np.testing.assert_allclose(content + position, output)
                if variant in ("both", "value") and k == 0:
                    np.testing.assert_allclose(position, example.value_table[3])
