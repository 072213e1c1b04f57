"""Two tries per question: a wrong first answer names its slip and keeps the question open; the
worked solution and the link into the Explorer come once the question is settled."""

from __future__ import annotations

from unittest.mock import patch
from urllib.parse import parse_qsl, urlsplit

import pytest

from relpos.quizbank import checking
from relpos.quizbank.checking import Feedback, check_try, give_up, make_quiz, summarise
from relpos.state.keys import NUMBER_FIELDS
from relpos.topics.explorer.link_view import explorer_query
from relpos.topics.explorer.schema import EXPLORER
from relpos.topics.quiz import view as quiz_ui
from tests.support.apptest import open_app

SEED = 42
FIRST = make_quiz(SEED)[0]  # e₁₂ = q₁k₂ + q₁aᴷ₊₁ = −0.24 + 0.72 = 0.48


def _answer(at, number: int, text: str, *, reveal: bool = False):
    at.text_input(key=quiz_ui.answer_key(SEED, number)).input(text)
    at.button(key=quiz_ui.button_key("reveal" if reveal else "check", SEED, number)).click().run()
    assert not at.exception
    return at


def _latex(at) -> str:
    return " ".join(latex.value for latex in at.latex)


def _results(at) -> list[str]:
    return list(next(f.value for f in at.dataframe if "result" in f.value.columns)["result"])


def _plain(text: str) -> str:
    """Streamlit Markdown as read: the escaper's backslashes removed."""
    return text.replace("\\", "")


class TestTheFlow:
    """The pure half: relpos.quizbank.checking.check_try and give_up."""

    def test_a_wrong_first_try_names_the_slip_and_leaves_one_more(self):
        progress = check_try(FIRST, "-0.24")
        assert progress.feedback.status == "retry" and not progress.settled and progress.tries == ("-0.24",)
        assert "You left out the position term" in progress.feedback.message
        assert "0.48" not in progress.feedback.message and "one more try" in progress.feedback.message

    def test_right_on_either_try(self):
        assert check_try(FIRST, "0.48").feedback == Feedback("correct", checking.check_answer(FIRST, "0.48").message)
        second = check_try(FIRST, "0.48", check_try(FIRST, "-0.24"))
        assert second.settled and second.feedback.status == "correct" and second.feedback.attempt == 2
        assert second.feedback.message.startswith("Correct on the second try: 0.48")

    def test_wrong_twice_settles_with_the_answer_and_the_slip(self):
        second = check_try(FIRST, "0.72", check_try(FIRST, "-0.24"))
        assert second.settled and second.feedback.status == "wrong" and second.tries == ("-0.24", "0.72")
        assert "the answer is 0.48" in second.feedback.message
        assert "You left out the content term" in second.feedback.message

    def test_unreadable_and_repeated_answers_are_no_try(self):
        first = check_try(FIRST, "-0.24")
        for text in ("abc", "", "−.24", "-0.240"):
            again = check_try(FIRST, text, first)
            assert again.tries == first.tries and not again.settled, text
        assert "your answer from before (−0.24)" in check_try(FIRST, "-.24", first).feedback.message

    def test_giving_up_after_a_try_keeps_it_and_a_settled_question_stays_settled(self):
        revealed = give_up(FIRST, check_try(FIRST, "-0.24"))
        assert revealed.feedback.status == "revealed" and revealed.tries == ("-0.24",)
        assert check_try(FIRST, "0.48", revealed) == revealed

    def test_a_second_try_success_counts_as_correct_and_is_said(self):
        right_later = check_try(FIRST, "0.48", check_try(FIRST, "-0.24")).feedback
        summary = summarise([right_later, Feedback("correct", ""), Feedback("retry", ""), None, "wrong"])
        assert (summary.correct, summary.second_try, summary.wrong, summary.unanswered) == (2, 1, 1, 2)
        assert summary.message == "2 of 5 correct (1 of them on the second try, 1 wrong, 2 not answered yet)"


class TestThePage:
    def test_seed_42_first_question_typed_content_term_alone(self):
        at = open_app("quiz", query={"seed": str(SEED)})
        _answer(at, 1, "−0.24")
        errors = [_plain(error.value) for error in at.error]
        assert len(errors) == 1 and "you left out the position term" in errors[0].lower(), errors
        assert "0.48" not in errors[0]
        # a second try is offered: the form is still there; no solution, no answer, no link yet
        assert len(at.text_input) == 5 and at.button(key=quiz_ui.button_key("check", SEED, 1))
        assert not any(line in _latex(at) for line in FIRST.solution)
        assert not at.get("link_button")
        assert _results(at)[0] == "open: one more try"
        # the number answer keeps its decimal keyboard (relpos.state.keys.NUMBER_FIELDS)
        assert quiz_ui.answer_key(SEED, 1).startswith(NUMBER_FIELDS)

    def test_second_try_right_is_accepted(self):
        at = open_app("quiz", query={"seed": str(SEED)})
        _answer(at, 1, "-0.24")
        _answer(at, 1, "0.48")
        assert any("Correct on the second try: 0.48" in _plain(s.value) for s in at.success)
        assert not at.error and len(at.text_input) == 4
        assert _results(at)[0] == "✓ right on the second try"
        assert any("1 of 5 correct (1 of them on the second try, 4 not answered yet)" in m.value for m in at.markdown)
        assert [link.key for link in at.get("link_button")] == [quiz_ui.button_key("explorer", SEED, 1)]

    def test_second_try_wrong_shows_the_solution(self):
        at = open_app("quiz", query={"seed": str(SEED)})
        _answer(at, 1, "-0.24")
        _answer(at, 1, "0.1")
        errors = [_plain(error.value) for error in at.error]
        assert len(errors) == 1 and "the answer is 0.48" in errors[0], errors
        assert all(line in _latex(at) for line in FIRST.solution)
        assert "Your answers: -0.24, then 0.1" in [text.value for text in at.text]
        assert _results(at)[0] == "✗ wrong"

    def test_every_explorer_link_decodes_to_its_questions_numbers(self):
        at = open_app("quiz", query={"seed": str(SEED)})
        questions = make_quiz(SEED)
        for number in range(1, len(questions) + 1):
            _answer(at, number, "", reveal=True)
        links = [link.proto for link in at.get("link_button")]
        assert [link.label for link in links] == ["Open this example in the Explorer"] * len(questions)
        for question, link in zip(questions, links, strict=True):
            url = urlsplit(link.url)
            assert url.path.endswith("/explorer")
            decoded = EXPLORER.decode(dict(parse_qsl(url.query)))
            assert decoded.problems == ()
            state = decoded.state
            k = question.parameters.get("k_from", question.k)
            assert (state["n"], state["k"]) == (question.n, k), question.kind
            if question.scenario is not None:
                assert state["q"] == list(question.scenario.queries)
                assert state["keys"] == list(question.scenario.keys)
                assert state["a"] == list(question.scenario.table)
        assert len(at.caption) >= len(questions)

    def test_no_link_where_the_explorer_cannot_show_the_numbers(self):
        """A setting outside the Explorer's sliders (k beyond n − 1 here) gets no link at all."""
        with patch.object(checking, "explorer_example", return_value=({"n": 4, "k": 9}, "hint")):
            at = open_app("quiz", query={"seed": str(SEED)})
            _answer(at, 1, "0.48")
        assert any("Correct" in s.value for s in at.success)
        assert not at.get("link_button") and not any(c.value == "hint" for c in at.caption)

    def test_start_again_forgets_the_tries(self):
        at = open_app("quiz", query={"seed": str(SEED)})
        _answer(at, 1, "-0.24")
        at.button(key=quiz_ui.START_AGAIN).click().run()
        assert not at.error
        _answer(at, 1, "-0.24")  # a first try again, not the second
        assert any("one more try" in error.value for error in at.error)


@pytest.mark.parametrize("number", range(1, 6))
def test_every_answer_field_of_seed_42_keeps_its_keyboard(number):
    """Number answers open a phone's decimal keyboard, the others (signs, commas, brackets) do not."""
    is_number = make_quiz(SEED)[number - 1].answer_kind == "number"
    assert quiz_ui.answer_key(SEED, number).startswith(NUMBER_FIELDS) == is_number


@pytest.mark.parametrize("seed", range(0, 400, 9))
def test_every_questions_example_fits_the_explorer(seed):
    """Every question the quiz draws can be opened in the Explorer, and its link reads back to its numbers."""
    for question in make_quiz(seed):
        setting, hint = checking.explorer_example(question)
        params = explorer_query(setting)
        assert params is not None, (seed, question.kind, setting)
        decoded = EXPLORER.decode(params)
        assert decoded.problems == () and all(decoded.state[name] == value for name, value in setting.items())
        assert hint


def test_the_share_link_opens_these_questions_and_loads_no_code_highlighter():
    """The link under the score names the quiz page and this seed, as plain text: a code
    block (``st.code``) would make every reader's browser load Streamlit's 0.4 MB highlighter
    for one line (docs/benchmarks.md, page weight)."""
    at = open_app("quiz", query={"seed": str(SEED)})
    assert not at.exception
    assert not at.code, [block.value for block in at.code]
    links = [text.value for text in at.text if "seed=" in text.value]
    assert len(links) == 1, [text.value for text in at.text]
    parts = urlsplit(links[0])
    assert parts.path.endswith("/quiz") and dict(parse_qsl(parts.query)) == {"seed": str(SEED)}
