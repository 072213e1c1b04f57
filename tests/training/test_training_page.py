"""The "Train a tiny head" page (pages/training.py), rendered headless with AppTest.

Runs use 60 steps (the page's URL accepts 50 and up) so the whole module stays fast.
"""

from __future__ import annotations

import io
from unittest.mock import patch

import numpy as np
import pandas as pd
import pytest

import relpos
from relpos.core.trained_presets import TRAINED_PRESETS
from relpos.topics.training import text
from relpos.topics.training import view as page
from relpos.topics.training.schema import TRAINING
from tests.support.apptest import captured_downloads, decode_array, download_bytes, open_app, plotly_specs, texts

FAST = {"steps": "60"}


def training_page(query: dict[str, str] | None = None):
    at = open_app("training", query=query)
    assert not at.exception, at.exception
    return at


def trained(query: dict[str, str] | None = None):
    at = training_page({**FAST, **(query or {})})
    at.button(key="training.train").click().run()
    assert not at.exception, at.exception
    return at


def figure(at, title_start: str) -> dict:
    matches = [
        spec for spec in plotly_specs(at) if spec["layout"].get("title", {}).get("text", "").startswith(title_start)
    ]
    assert len(matches) == 1, [spec["layout"].get("title", {}).get("text") for spec in plotly_specs(at)]
    return matches[0]


def head(scheme="shaw", task="previous", length=16, k=4, steps=60, seed=0):
    return relpos.train_head(task, scheme, length=length, k=k, steps=steps, seed=seed)


class TestFirstLoad:
    def test_nothing_is_trained_until_asked(self):
        at = training_page()
        assert at.title[0].value == "Train a tiny head"
        assert not plotly_specs(at) and not at.get("progress")
        assert "Nothing trained yet: press Train" in texts(at)

    def test_settings_are_written_into_the_url(self):
        at = training_page()
        assert dict(at.query_params) == TRAINING.encode(TRAINING.decode({}).state)


class TestTrain:
    def test_progress_bar_ends_full_with_the_final_loss(self):
        at = trained()
        bars = at.get("progress")
        assert len(bars) == 1
        assert bars[0].proto.value == 100
        final = head().losses[-1]
        assert bars[0].proto.text == f"Trained Shaw relative (clip k): 60 steps, final loss {final:.4f}"

    def test_loss_curve_is_the_training_loss(self):
        at = trained()
        trace = figure(at, "Training loss")["data"][0]
        np.testing.assert_allclose(decode_array(trace["y"]), head().losses)
        assert text.loss_summary(head().losses, vocab=16) in texts(at)

    def test_bias_bars_follow_the_snapshot_slider(self):
        at = trained()
        expected = head()
        bars = figure(at, "Shaw: mean bias")["data"][0]
        np.testing.assert_allclose(decode_array(bars["y"]), relpos.offset_biases(expected)[1])
        at.select_slider(key="training.snapshot.shaw").set_value(0).run()
        spec = figure(at, "Shaw: mean bias")
        assert spec["layout"]["title"]["text"].endswith("step 0")
        np.testing.assert_allclose(decode_array(spec["data"][0]["y"]), relpos.offset_biases(expected, snapshot=0)[1])
        offsets, biases = relpos.offset_biases(expected, snapshot=0)
        assert text.bias_summary(offsets, biases, step=0) in texts(at)

    def test_k_zero_says_position_can_never_change_a_weight(self):
        page = texts(trained({"k": "0"}))
        assert "With k = 0 every offset reads the one row aᴷ₀" in page and "however long the head trains" in page
        assert "the scores yet" not in page and "Pale bars" not in page

    def test_k_beyond_the_length_names_the_untrained_rows(self):
        page = texts(trained({"L": "8", "k": "12"}))
        assert "Pale bars" not in page  # every offset of the chart has its own row
        assert "Never trained either: rows −12 to −8" in page

    def test_alibi_penalty_is_not_presented_as_learned(self):
        at = trained({"scheme": "alibi"})
        assert "step" not in figure(at, "ALiBi: fixed penalty")["layout"]["title"]["text"]
        page = texts(at)
        assert "The penalty is fixed, not learned" in page and "After 60 steps the largest bias" not in page

    def test_attention_at_L_and_4L_side_by_side(self):
        at = trained()
        expected = head()
        tokens = relpos.task_sequences("previous", 64, seed=0).tokens[0]
        weights = relpos.attention_pattern(expected, tokens)
        long = figure(at, "Shaw relative (clip k): weights at 4L = 64")
        short = figure(at, "Shaw relative (clip k): weights at L = 16")
        np.testing.assert_allclose(decode_array(long["data"][0]["z"]), weights)
        np.testing.assert_allclose(decode_array(short["data"][0]["z"]), weights[:16, :16])
        assert long["layout"]["yaxis"]["autorange"] == "reversed"  # matrix orientation
        assert (long["data"][0]["zmin"], long["data"][0]["zmax"]) == (0.0, 1.0)

    def test_numbers_as_tables_for_screen_readers(self):
        at = trained()
        assert not at.table  # built only when an expander is open
        at.session_state["training.tables.bias"] = True
        at.session_state["training.tables.attention"] = True
        at.run()
        expected = head()
        offsets, biases = relpos.offset_biases(expected)
        bias_table = at.table[0].value
        assert list(bias_table["offset j − i"]) == [
            f"{o:+d}".replace("-", "\N{MINUS SIGN}") if o else "0" for o in offsets
        ]
        np.testing.assert_allclose(bias_table["bias"].astype(float), biases, atol=5e-5)
        tokens = relpos.task_sequences("previous", 64, seed=0).tokens[0]
        weights = relpos.attention_pattern(expected, tokens)
        shown = at.table[1].value.to_numpy(dtype=float)  # exact numbers, shown to 4 decimals
        np.testing.assert_allclose(shown, weights[:16, :16], atol=5e-5)

    def test_the_gradient_of_a_shared_row_is_explained(self):
        at = trained()
        assert "sum over its diagonal" in texts(at)
        assert any("clip" in latex.value and r"\partial" in latex.value for latex in at.latex)

    @pytest.mark.parametrize("task", ["previous", "two_back", "first"])
    def test_a_shaw_head_links_to_its_trained_preset(self, task):
        at = trained({"task": task})
        links = [link.proto for link in at.get("page_link") if "position_effects" in link.proto.page]
        assert len(links) == 1, [link.proto.page for link in at.get("page_link")]
        assert f"preset=trained_{task}" in links[0].query_string, links[0]
        assert TRAINED_PRESETS[f"trained_{task}"][0] in links[0].label

    def test_other_schemes_have_no_trained_preset_link(self):
        at = trained({"scheme": "absolute"})
        assert not [link for link in at.get("page_link") if "position_effects" in link.proto.page]

    def test_absolute_shows_its_position_vectors(self):
        at = trained({"scheme": "absolute"})
        spec = figure(at, "Learned absolute position vectors, step 60")
        np.testing.assert_allclose(decode_array(spec["data"][0]["z"]), head("absolute").params["positions"])

    @pytest.mark.parametrize("scheme", ["none", "sinusoidal", "rope"])
    def test_schemes_that_learn_no_position_say_so(self, scheme):
        at = trained({"scheme": scheme})
        assert page.FIXED_POSITIONS[scheme] in [info.value for info in at.info]

    def test_the_bar_moves_about_fifty_times_and_ends_at_the_last_step(self):
        class Bar:
            def __init__(self):
                self.updates = []

            def progress(self, value, text):
                self.updates.append((value, text))

        bar = Bar()
        callback = page._bar_callback(bar, "Shaw")
        for step in range(1, 401):
            callback(step, 400, 0.5)
        assert len(bar.updates) == 50
        assert bar.updates[-1] == (1.0, "Shaw: step 400 of 400, loss 0.500")
        assert all(a[0] < b[0] for a, b in zip(bar.updates, bar.updates[1:], strict=False))

    def test_changed_settings_ask_for_a_new_run(self):
        at = trained()
        at.slider(key="training.L").set_value(8).run()
        assert not plotly_specs(at)
        assert "The settings changed since the last run" in texts(at)

    def test_a_class_shares_one_run(self):
        page.train_one.clear()
        calls = []
        original = relpos.train_head

        def counting(*args, **kwargs):
            calls.append(args)
            return original(*args, **kwargs)

        with patch.object(relpos, "train_head", counting):
            first, second = trained({"seed": "11"}), trained({"seed": "11"})
        assert len(calls) == 1
        assert second.get("progress")[0].proto.value == 100  # the finished bar is replayed
        np.testing.assert_array_equal(
            decode_array(figure(first, "Training loss")["data"][0]["y"]),
            decode_array(figure(second, "Training loss")["data"][0]["y"]),
        )


class TestTrainShortTestLong:
    def test_table_is_computed_on_demand(self):
        at = training_page({**FAST, "L": "8"})
        assert not at.dataframe
        at.button(key="training.table").click().run()
        assert not at.exception
        expected = relpos.train_short_test_long("previous", length=8, steps=60)
        np.testing.assert_allclose(at.dataframe[0].value.to_numpy(), 100 * expected.accuracy, atol=0.05)
        assert list(at.dataframe[0].value.columns) == ["L = 8", "2L = 16", "4L = 32"]
        names = [relpos.TRAINING_SCHEMES[s] for s in expected.schemes]
        for sentence in text.length_summary(names, expected.lengths, expected.accuracy, vocab=16):
            assert sentence in texts(at)
        accuracy = figure(at, "Trained at L, tested at longer lengths")
        assert len(accuracy["data"]) == 7
        assert at.get("progress")[0].proto.value == 100

    def test_all_schemes_train_the_table_once(self):
        at = trained({"scheme": "all"})
        assert len(at.get("progress")) == 1  # the table's bar, not drawn twice
        assert len(figure(at, "Training loss")["data"]) == 7
        assert at.dataframe  # the table comes with the same runs
        at.selectbox(key="training.detail").select("t5").run()
        assert figure(at, "T5: learned bias")


LINK = {"task": "two_back", "scheme": "t5", "L": "8", "k": "2", "steps": "60", "seed": "3"}


class TestLink:
    def test_a_link_restores_every_setting(self):
        at = training_page(LINK)
        assert at.selectbox(key="training.task").value == "two_back"
        assert at.selectbox(key="training.scheme").value == "t5"
        assert at.slider(key="training.L").value == 8
        assert at.slider(key="training.k").value == 2
        assert at.select_slider(key="training.steps").value == 60
        assert at.number_input(key="training.seed").value == 3
        assert dict(at.query_params) == LINK
        assert not at.warning

    def test_widgets_write_the_url(self):
        at = training_page()
        at.selectbox(key="training.task").select("first").run()
        at.number_input(key="training.seed").set_value(5).run()
        assert at.query_params["task"] == "first" and at.query_params["seed"] == "5"

    def test_hostile_parameters_are_reported_and_replaced(self):
        at = training_page({"L": "1e9", "scheme": "<script>alert(1)</script>", "steps": "nan", "zz": "1"})
        warning = at.warning[0].value.replace("\\", "")  # Markdown escapes removed
        for start in ("L: expected an integer from 4 to 32", "scheme: expected one of", "steps: expected"):
            assert start in warning
        assert "Unknown parameter ignored" in warning
        assert "<script>" not in at.warning[0].value  # escaped, never live markup
        assert at.query_params["L"] == "16" and at.query_params["scheme"] == "shaw"

    def test_downloads_hold_the_loss_history_and_the_learned_table(self):
        with captured_downloads() as files:
            at = trained()
            loss = pd.read_csv(io.BytesIO(download_bytes(at, files, "training.download.0")), encoding="utf-8-sig")
            table = pd.read_csv(io.BytesIO(download_bytes(at, files, "training.download.1")), encoding="utf-8-sig")
        expected = head()
        np.testing.assert_allclose(loss["loss (Shaw relative (clip k))"], expected.losses)
        final = table[table["step"] == 60].drop(columns=["step", "offset j − i", "trained"]).to_numpy()
        np.testing.assert_allclose(final, expected.params["A_K"])
        assert table[table["step"] == 60]["trained"].tolist() == relpos.trained_rows(expected).tolist()
