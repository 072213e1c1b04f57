"""The efficiency and quiz pages, rendered headless with Streamlit's AppTest."""

from __future__ import annotations

import re

import numpy as np
import pytest

import relpos
from relpos.core.skewing import skew_labels
from relpos.quizbank.checking import make_quiz
from relpos.state.keys import widget_key
from relpos.text.numbers import offset
from relpos.topics.quiz import view as quiz_ui
from tests.support.apptest import by_label, decode_array, open_app, plotly_specs


def _figure(specs: list[dict], title_start: str, occurrence: int = 0) -> dict:
    matching = [spec for spec in specs if spec["layout"].get("title", {}).get("text", "").startswith(title_start)]
    assert len(matching) > occurrence, f"no figure titled {title_start!r}"
    return matching[occurrence]


def _cell_texts(spec: dict) -> dict[tuple[int, int], str]:
    """(row, column) -> label, from the figure's text traces."""
    cells = {}
    for trace in spec["data"]:
        if trace.get("mode") == "text":
            xs, ys = decode_array(trace["x"]), decode_array(trace["y"])
            for x, y, text in zip(xs, ys, trace["text"], strict=True):
                cells[int(y), int(x)] = text
    return cells


@pytest.fixture(scope="module")
def efficiency():
    at = open_app("efficiency")
    assert not at.exception
    return at


class TestEfficiencyPage:
    def test_renders(self, efficiency):
        assert efficiency.title[0].value.startswith("Efficient computation")
        assert len(plotly_specs(efficiency)) >= 11  # placement 2, skew 4 + strip, numbers 4, growth 1

    def test_every_grid_has_a_table_alternative(self):
        """The labelled grids and the memory strip, cell for cell, as HTML tables."""
        at = open_app("efficiency")
        assert not at.table  # built only when an expander is open
        for key in (
            widget_key("efficiency", "placement_tables"),
            widget_key("skew", "tables"),
            widget_key("efficiency", "strip_table"),
        ):
            at.session_state[key] = True
        at.run()
        assert not at.exception
        assert len(at.table) == 2 + 4 + 1
        strip = at.table[-1].value
        assert list(strip.columns) == ["② rows of 5", "③ rows of 4"] and len(strip) == 20
        assert strip.iloc[4, 0] == strip.iloc[4, 1] == "q1·e(0)"  # same cells, different row ends
        logits = at.table[0].value
        assert logits.iloc[0, 0].startswith("q1·a(−2)")

    def test_symbolic_skew_steps(self, efficiency):
        specs = plotly_specs(efficiency)
        steps = skew_labels(4, offset_name=offset)
        first = _cell_texts(_figure(specs, "① Q Eᵀ"))
        padded = _cell_texts(_figure(specs, "② pad"))
        reshaped = _cell_texts(_figure(specs, "③ read as 5 rows of 4"))
        sliced = _cell_texts(_figure(specs, "④ drop the first row"))
        for drawn, array in ((first, steps.relative_logits), (padded, steps.padded), (reshaped, steps.reshaped)):
            assert {cell: text.replace("<br>", "") for cell, text in drawn.items()} == {
                (r, c): str(array[r, c]) for r in range(array.shape[0]) for c in range(array.shape[1])
            }
        for i in range(4):
            for j in range(i + 1):
                assert sliced[i, j].replace("<br>", "") == f"q{i + 1}·e({j - i})".replace("-", "−")

    def test_numeric_skew_equals_position_biases(self, efficiency):
        specs = plotly_specs(efficiency)
        sliced = _cell_texts(_figure(specs, "④ drop the first row", occurrence=1))
        bias = relpos.worked_example().attention().bias
        for i in range(4):
            for j in range(i + 1):
                assert float(sliced[i, j].replace("−", "-")) == pytest.approx(bias[i, j], abs=0.005)
        assert any("Skewed = relpos.position_biases on all 10 cells" in s.value for s in efficiency.success)
        assert any("(largest difference 0)." in s.value for s in efficiency.success)

    def test_diagonals_share_a_colour_after_skewing(self, efficiency):
        heatmap = _figure(plotly_specs(efficiency), "④ drop the first row")["data"][0]
        z = decode_array(heatmap["z"])
        if z.dtype == object:
            z = np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)
        for i in range(4):
            for j in range(i + 1):
                assert z[i, j] == j - i  # coloured by offset: constant along diagonals
            for j in range(i + 1, 4):
                assert np.isnan(z[i, j])  # leftovers are not coloured

    def test_placement_figures(self, efficiency):
        placed = _cell_texts(_figure(plotly_specs(efficiency), "placed: 4 × 4"))
        assert placed[0, 3].startswith("q1·a(+2)")  # offset +3 clipped to +2
        assert placed[3, 0].startswith("q4·a(−2)")

    def test_length_slider_redraws_the_steps(self):
        at = open_app("efficiency")
        by_label(at.slider, "sequence length L").set_value(5).run()
        assert not at.exception
        sliced = _cell_texts(_figure(plotly_specs(at), "④ drop the first row: S_rel (5 × 5)"))
        assert sliced[4, 0].replace("<br>", "") == "q5·e(−4)"

    def test_published_memory_figure_is_reproduced(self, efficiency):
        message = " ".join(s.value for s in efficiency.success)
        assert "8,589,934,592 B = 8.59 GB" in message and "4,194,304 B = 4.19 MB" in message
        frames = [frame.value for frame in efficiency.dataframe]
        published = next(frame for frame in frames if "paper (Huang et al., 2018)" in frame.columns)
        assert list(published["paper (Huang et al., 2018)"]) == ["8.5 GB", "4.2 MB"]
        assert list(published["bytes"]) == ["8,589,934,592", "4,194,304"]

    def test_memory_table_follows_inputs(self):
        at = open_app("efficiency")
        by_label(at.number_input, "sequence length n").set_value(1024).run()
        memory = next(f.value for f in at.dataframe if "formula" in f.value.columns and "shape" in f.value.columns)
        assert memory.loc["naive gather", "bytes"] == f"{1024 * 1024 * 512 * 4:,}"
        assert memory.loc["Q A_Kᵀ + placement", "bytes"] == f"{8 * 1024 * 129 * 4:,}"

    def test_timing_runs_on_demand(self):
        at = open_app("efficiency")
        assert any("Run the timing" in info.value for info in at.info)
        by_label(at.select_slider, "sequence length n").set_value(64)
        by_label(at.select_slider, "feature size d").set_value(16)
        by_label(at.button, "Run the timing").click().run()
        assert not at.exception
        timing = next(f.value for f in at.dataframe if "best time (ms)" in f.value.columns)
        assert list(timing.index) == ["naive gather (n, n, d)", "Q A_Kᵀ + placement", "skewing (causal)"]
        assert all(float(t) > 0 for t in timing["best time (ms)"])
        assert all(float(e.replace("−", "-")) < 1e-9 for e in timing["max |difference|"])  # true minus


# ---------------------------------------------------------------- quiz


def _prompts(at) -> list[str]:
    return [m.value for m in at.markdown if "?" in m.value and ("$" in m.value or "position" in m.value)]


def _answer(at, seed: int, number: int, text: str, *, reveal: bool = False):
    at.text_input(key=quiz_ui.answer_key(seed, number)).input(text)
    at.button(key=quiz_ui.button_key("reveal" if reveal else "check", seed, number)).click().run()
    assert not at.exception
    return at


class TestQuizPage:
    def test_renders_with_five_questions(self):
        at = open_app("quiz", query={"seed": "123"})
        assert not at.exception
        assert at.title[0].value == "Self-check quiz"
        # headers (h2), one level under the title: no h1 -> h3 jump (axe heading-order)
        questions = [f"{n}. {q.title}" for n, q in enumerate(make_quiz(123), 1)]
        assert [h.value for h in at.header][: len(questions)] == questions
        assert len(at.text_input) == 5

    def test_seed_in_the_url_reproduces_the_questions(self):
        first = _prompts(open_app("quiz", query={"seed": "2024"}))
        again = _prompts(open_app("quiz", query={"seed": "2024"}))
        other = _prompts(open_app("quiz", query={"seed": "2025"}))
        assert first == again and first != other
        assert any(make_quiz(2024)[0].prompt == prompt for prompt in first)

    def test_without_seed_one_is_chosen_and_put_in_the_url(self):
        at = open_app("quiz")
        seed = int(at.query_params["seed"])
        assert _prompts(at)[0] == make_quiz(seed)[0].prompt
        assert any(f"?seed={seed}" in text.value for text in at.text), "the share link names the seed"

    @pytest.mark.parametrize("bad", ["abc", "-4", "1e9999", "9" * 500])
    def test_unusable_seed_warns_and_recovers(self, bad):
        at = open_app("quiz", query={"seed": bad})
        assert not at.exception
        assert any("could not be used" in w.value for w in at.warning)
        assert re.fullmatch(r"\d+", at.query_params["seed"])

    def test_right_wrong_and_revealed_answers(self):
        seed = 77
        questions = make_quiz(seed)
        at = open_app("quiz", query={"seed": str(seed)})
        _answer(at, seed, 1, questions[0].answer_text.replace("−", "-"))
        assert any("Correct" in s.value for s in at.success)
        wrong = f"{questions[3].expected + 0.5:.2f}"
        _answer(at, seed, 4, wrong)  # a first wrong try: no solution yet
        assert any("Not quite" in e.value for e in at.error)
        assert questions[3].solution[-1] not in " ".join(latex.value for latex in at.latex)
        _answer(at, seed, 4, f"{questions[3].expected + 0.7:.2f}")
        assert questions[3].solution[-1] in " ".join(latex.value for latex in at.latex)
        _answer(at, seed, 5, "", reveal=True)
        assert any("The answer is" in i.value for i in at.info)
        assert any("1 of 5 correct (1 wrong, 1 revealed, 2 not answered yet)" in m.value for m in at.markdown)
        results = next(f.value for f in at.dataframe if "result" in f.value.columns)
        assert list(results["result"]) == ["✓ correct", "open", "open", "✗ wrong", "revealed"]

    @pytest.mark.parametrize("text", ["", "abc", "nan", "1e400", "<b>1</b>", "x" * 100_000, "**0.5**"])
    def test_malformed_answers_keep_the_question_open(self, text):
        seed = 5
        at = open_app("quiz", query={"seed": str(seed)})
        _answer(at, seed, 1, text)
        warnings = [w.value for w in at.warning]
        assert any("Could not read that answer" in w for w in warnings)
        assert len(at.text_input) == 5  # still open
        assert all(len(w) < 400 for w in warnings)  # a huge answer is not echoed back
        assert any("0 of 5 correct" in m.value for m in at.markdown)
        # and the page still takes a good answer afterwards
        _answer(at, seed, 1, make_quiz(seed)[0].answer_text)
        assert any("Correct" in s.value for s in at.success)

    def test_unicode_minus_and_cells_format(self):
        seed = next(s for s in range(100) if make_quiz(s)[0].expected < 0)
        questions = make_quiz(seed)
        at = open_app("quiz", query={"seed": str(seed)})
        _answer(at, seed, 1, f"−{abs(questions[0].expected):.2f}")
        cells = "; ".join(f"{i},{j}" for i, j in sorted(questions[4].expected))
        _answer(at, seed, 5, cells)
        assert sum("Correct" in s.value for s in at.success) == 2

    def test_new_questions_and_start_again(self):
        at = open_app("quiz", query={"seed": "9"})
        _answer(at, 9, 2, "+99")
        assert any("Not quite" in e.value for e in at.error)
        at.button(key=quiz_ui.START_AGAIN).click().run()
        assert not at.error and len(at.text_input) == 5
        at.button(key=quiz_ui.NEW_QUESTIONS).click().run()
        assert not at.exception
        assert at.query_params["seed"] != "9"
