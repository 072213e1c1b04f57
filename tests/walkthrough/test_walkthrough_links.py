"""Lesson links, scenario files and the NumPy snippet of the walkthrough (pages/walkthrough.py).

Unit tests of the WALKTHROUGH schema, its scenario files and snippet (no Streamlit),
then AppTest runs of the page: a link opens exactly its view, bad links warn and fall
back, the URL follows every move, and the downloaded scenario file loads again.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.core.examples import Scenario
from relpos.state import export
from relpos.state.codec import StateError
from relpos.topics.explorer.schema import EXPLORER
from relpos.topics.walkthrough import controls_view
from relpos.topics.walkthrough import model as wt
from relpos.topics.walkthrough.schema import WALKTHROUGH, walkthrough_state, walkthrough_view
from relpos.topics.walkthrough.snippet import walkthrough_snippet
from tests.support.apptest import captured_downloads, download_bytes, open_app
from tests.support.strategies import hostile_texts

TEXTBOOK = relpos.worked_example()
DEFAULT_PARAMS = {
    "i": "1",
    "j": "1",
    "presenter": "0",
    "k": "2",
    "q": "1,0.5,0.8,0.3",
    "keys": "0.9,0.7,0.4,1.2",
    "a": "-0.3,0.4,0.1,-0.2,-0.5",
}
#: The issue's example: row 3, pair (3, 2), presenter mode on, q_1 edited to 2.
TEACHER_LINK = dict(DEFAULT_PARAMS, i="3", j="2", presenter="1", q="2,0.5,0.8,0.3")


def scenario_file(state: dict, *, page: str = "walkthrough", version=1) -> bytes:
    document = {"format": export.FORMAT, "version": version, "page": page, "state": state}
    return json.dumps(document).encode()


def run_snippet(state: dict) -> tuple[dict, str]:
    namespace, printed = {}, io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(walkthrough_snippet(state), namespace)
    return namespace, printed.getvalue()


# ---------------------------------------------------------------------------------------
# The schema, without Streamlit


class TestWalkthroughSchema:
    def test_defaults_are_the_textbook_at_the_first_pair(self):
        decoded = WALKTHROUGH.decode({})
        assert decoded.problems == ()
        view = walkthrough_view(decoded.state)
        assert view == (TEXTBOOK, wt.Stop(0, 0), False)
        assert WALKTHROUGH.encode(decoded.state) == DEFAULT_PARAMS

    @pytest.mark.parametrize("k", wt.K_CHOICES)
    def test_every_stop_and_k_round_trips(self, k):
        scenario = Scenario(
            queries=(2.0, -0.5, 0.125, 9.75),
            keys=(0.9, 0.7, -10.0, 1.2),
            table=tuple(0.1 * r for r in range(2 * k + 1)),
        )
        for stop in wt.lesson_stops(scenario.n):
            for presenter in (False, True):
                params = WALKTHROUGH.encode(walkthrough_state(scenario, stop, presenter))
                decoded = WALKTHROUGH.decode(params)
                assert decoded.problems == ()
                assert walkthrough_view(decoded.state) == (scenario, stop, presenter)

    def test_stop_is_one_based_as_on_screen(self):
        assert walkthrough_view(WALKTHROUGH.decode({"i": "3", "j": "2"}).state).stop == wt.Stop(2, 1)
        assert walkthrough_view(WALKTHROUGH.decode({"i": "4", "j": "softmax"}).state).stop == wt.Stop(3, 4)

    def test_values_keep_every_digit(self):
        state = WALKTHROUGH.decode({"q": "0.123456789,0.5,0.8,0.3"}).state
        assert state["q"][0] == 0.123456789
        assert WALKTHROUGH.encode(state)["q"] == "0.123456789,0.5,0.8,0.3"

    @pytest.mark.parametrize(
        ("k", "table"), [(0, [0.1]), (1, [0.4, 0.1, -0.2]), (3, [-0.3, -0.3, 0.4, 0.1, -0.2, -0.5, -0.5])]
    )
    def test_k_without_a_table_takes_the_textbook_entries(self, k, table):
        decoded = WALKTHROUGH.decode({"k": str(k)})
        assert decoded.problems == () and decoded.state["a"] == table

    @pytest.mark.parametrize(
        ("params", "problem", "field", "default"),
        [
            ({"i": "abc"}, "i: expected an integer from 1 to 4; got 'abc'. Using the default, 1.", "i", 1),
            ({"i": "5"}, "i: expected an integer from 1 to 4; got '5'", "i", 1),
            ({"j": "0"}, "j: expected one of 1, 2, 3, 4, softmax; got '0'", "j", "1"),
            ({"presenter": "maybe"}, "presenter: expected on or off (1 or 0); got 'maybe'", "presenter", False),
            ({"k": "4"}, "k: expected an integer from 0 to 3; got '4'. Using the default, 2.", "k", 2),
            ({"k": "-1"}, "k: expected an integer from 0 to 3; got '-1'", "k", 2),
            (
                {"q": "nan,1,2,3"},
                "q: expected exactly 4 comma-separated numbers from -10 to 10",
                "q",
                [1.0, 0.5, 0.8, 0.3],
            ),
            ({"q": "1,inf,2,3"}, "q: expected exactly 4 comma-separated numbers", "q", [1.0, 0.5, 0.8, 0.3]),
            ({"keys": "1,2,3"}, "keys: expected exactly 4 comma-separated numbers", "keys", [0.9, 0.7, 0.4, 1.2]),
            ({"keys": "1,2,3,4,5"}, "got '1,2,3,4,5'", "keys", [0.9, 0.7, 0.4, 1.2]),
            (
                {"q": "11,0,0,0"},
                "q: expected exactly 4 comma-separated numbers from -10 to 10",
                "q",
                [1.0, 0.5, 0.8, 0.3],
            ),
            ({"a": "0.1,0.2,0.3"}, "a: expected 5 values for k = 2 (offsets −2..+2); got 3", "a", list(TEXTBOOK.table)),
            ({"a": "x" * 100_000}, "(100000 characters)", "a", list(TEXTBOOK.table)),
            ({"zz": "1", "utm_source": "x"}, "Unknown parameters ignored: 'zz', 'utm_source'.", "i", 1),
        ],
    )
    def test_each_malformed_parameter_is_reported_and_replaced_by_its_default(self, params, problem, field, default):
        decoded = WALKTHROUGH.decode(params)
        assert len(decoded.problems) == 1 and problem in decoded.problems[0]
        assert decoded.state[field] == default
        assert walkthrough_view(decoded.state).scenario.n == 4  # always a complete, usable view

    def test_a_bad_k_keeps_the_rest_of_the_link(self):
        decoded = WALKTHROUGH.decode(dict(TEACHER_LINK, k="9"))
        assert decoded.state["q"] == [2.0, 0.5, 0.8, 0.3] and decoded.state["i"] == 3 and decoded.state["k"] == 2

    @given(st.dictionaries(st.sampled_from([*WALKTHROUGH.fields, "zz"]), hostile_texts, max_size=6))
    @settings(max_examples=60)
    def test_hostile_links_never_raise_and_always_give_a_valid_view(self, params):
        decoded = WALKTHROUGH.decode(params)
        view = walkthrough_view(decoded.state)
        assert view.scenario.n == 4 and view.scenario.k in wt.K_CHOICES
        assert len(view.scenario.table) == 2 * view.scenario.k + 1
        assert wt.stop_index(view.stop, 4) in range(20)
        values = np.concatenate([view.scenario.queries, view.scenario.keys, view.scenario.table])
        assert np.all(np.abs(values) <= wt.VALUE_LIMIT)
        for problem in decoded.problems:
            assert len(problem) < 400 and problem.isprintable()


class TestWalkthroughScenarioFile:
    def test_round_trip(self):
        state = WALKTHROUGH.decode(dict(TEACHER_LINK, k="1", a="0.4,0.125,-0.2", j="softmax")).state
        text = export.scenario_json("walkthrough", WALKTHROUGH, state, {"scores": np.ones((4, 4))})
        assert export.load_scenario(text, "walkthrough", WALKTHROUGH) == state

    @pytest.mark.parametrize(
        ("state", "message"),
        [
            ({"q": [1.0, 2.0, 3.0]}, "q: expected exactly 4 numbers; got 3"),
            ({"q": [[1.0], [0.5], [0.8], [0.3]]}, "q: entry 1: expected a number; got a list"),
            ({"keys": "0.9,0.7,0.4,1.2"}, "keys: expected a list of numbers; got a string"),
            ({"k": "two"}, "k: expected an integer from 0 to 3; got a string"),
            ({"k": 5}, "k: expected an integer from 0 to 3; got 5"),
            ({"presenter": 1}, "presenter: expected true or false"),
            ({"i": 3, "j": 2}, "j: expected one of 1, 2, 3, 4, softmax; got an integer"),
            ({"a": [0.1, 0.2, 0.3]}, "a: expected 5 values for k = 2 (offsets −2..+2); got 3"),
            ({"q": [1.0, 0.5, 0.8, 1e9]}, "q: entry 4: expected a number from -10 to 10; got 1000000000.0"),
            ({"n": 4}, "unknown entry 'n'"),
        ],
    )
    def test_bad_states_are_refused_with_every_reason(self, state, message):
        with pytest.raises(StateError) as error:
            export.load_scenario(scenario_file(state), "walkthrough", WALKTHROUGH)
        assert message in str(error.value)

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            (scenario_file({}, version=2), "unsupported scenario version 2; this app reads version 1"),
            (scenario_file({}, version="1"), "unsupported scenario version '1'"),
            (scenario_file({}, page="explorer"), "this scenario belongs to the Explorer page"),
            (b'{"format": "relpos-scenario", "version": 1, "page": "walkthrough", "state": {"q": [NaN]}}', "NaN"),
            (b"\xff\xfe not text", "not UTF-8 text"),
            (b"[1, 2]", "not a relpos scenario file"),
        ],
    )
    def test_bad_files_are_refused(self, data, message):
        with pytest.raises(StateError, match=message):
            export.load_scenario(data, "walkthrough", WALKTHROUGH)

    def test_the_explorer_names_the_walkthrough_for_its_files(self):
        text = export.scenario_json("walkthrough", WALKTHROUGH, WALKTHROUGH.decode({}).state)
        with pytest.raises(StateError, match="belongs to the Walkthrough page"):
            export.load_scenario(text, "explorer", EXPLORER)


class TestWalkthroughSnippet:
    @pytest.mark.parametrize(
        "params",
        [
            {},
            TEACHER_LINK,
            {"i": "4", "j": "softmax", "k": "0", "a": "0.1"},
            {"k": "3", "q": "0.123456789,-9.5,0,10", "keys": "-0.25,0.7,0.4,1.2", "j": "4"},
        ],
    )
    def test_reproduces_relative_attention(self, params):
        state = WALKTHROUGH.decode(params).state
        namespace, printed = run_snippet(state)
        expected = walkthrough_view(state).scenario.attention()
        for field in ("offsets", "content", "bias", "scores", "content_weights", "weights"):
            np.testing.assert_array_equal(getattr(namespace["result"], field), getattr(expected, field))
        assert str(expected.scores.round(4)) in printed

    def test_prints_the_current_pair(self):
        _, printed = run_snippet(WALKTHROUGH.decode({"i": "3", "j": "2"}).state)
        assert printed.splitlines()[-2:] == ["offset -1 -> clipped -1", "content 0.56 + position 0.32 = score 0.88"]

    def test_prints_the_current_softmax_row(self):
        _, printed = run_snippet(WALKTHROUGH.decode({"i": "1", "j": "softmax"}).state)
        assert printed.splitlines()[-1] == "combined:     [0.373 0.226 0.124 0.276]"


# ---------------------------------------------------------------------------------------
# The page, with AppTest


def open_link(params: dict[str, str] | None = None):
    at = open_app("walkthrough", query=params)
    assert not at.exception, at.exception
    return at


def view_of(at) -> tuple:
    """What the page shows: stop pickers, presenter toggle, k, every field, the scores."""
    fields = [at.text_input(key=key).value for key in _field_keys(at.segmented_control(key=controls_view.K).value)]
    (frame,) = [df.value for df in at.table if "combined weight" in df.value.columns]
    return (
        at.segmented_control(key=controls_view.ROW).value,
        at.segmented_control(key=controls_view.STEP).value,
        at.toggle(key=controls_view.PRESENTER).value,
        at.segmented_control(key=controls_view.K).value,
        fields,
        frame["score"].round(12).tolist(),
    )


def _field_keys(k: int) -> list[str]:
    return [
        *(controls_view.input_key("q", i) for i in range(4)),
        *(controls_view.input_key("k", j) for j in range(4)),
        *(controls_view.input_key("a", o) for o in range(-k, k + 1)),
    ]


def lesson_link(at) -> str:
    assert not at.sidebar.code, "the link is drawn only while its expander is open"
    at.session_state[controls_view.SHARE] = True
    at.run()
    (link,) = [code.value for code in at.sidebar.code]
    return link


class TestOpeningALink:
    def test_the_teachers_link_opens_exactly_that_view(self):
        at = open_link(TEACHER_LINK)
        assert not at.warning
        assert (
            at.segmented_control(key=controls_view.ROW).value == 2
            and at.segmented_control(key=controls_view.STEP).value == 1
        )
        latex = at.latex[0].value
        assert "j - i = 2 - 3 = -1" in latex and r"0.8 \times 0.7 = 0.56" in latex
        assert at.toggle(key=controls_view.PRESENTER).value
        assert any("font-size: 22px" in html.proto.body for html in at.html)  # presenter style applied
        assert at.text_input(key=controls_view.input_key("q", 0)).value == "2.0"
        frame = next(df.value for df in at.table if "combined weight" in df.value.columns)
        np.testing.assert_allclose(frame["score"][:4], [2.0, 1.0, -0.2, 1.4], atol=1e-12)
        assert dict(at.query_params) == TEACHER_LINK
        assert lesson_link(at).endswith("/walkthrough?" + "&".join(f"{k}={v}" for k, v in TEACHER_LINK.items()))

    def test_round_trip_through_a_new_session(self):
        at = open_link()
        at.segmented_control(key=controls_view.ROW).set_value(2).run()
        walk_next(at, 4)  # row 3's softmax step
        at.text_input(key=controls_view.input_key("k", 1)).input("-1.5").run()
        at.segmented_control(key=controls_view.K).set_value(1).run()
        at.text_input(key=controls_view.input_key("a", 1)).input("0.75").run()
        at.toggle(key=controls_view.PRESENTER).set_value(True).run()
        assert not at.exception
        params = dict(at.query_params)
        assert params == dict(
            DEFAULT_PARAMS, i="3", j="softmax", presenter="1", k="1", keys="0.9,-1.5,0.4,1.2", a="0.4,0.1,0.75"
        )
        reopened = open_link(params)
        assert not reopened.warning
        assert view_of(reopened) == view_of(at)
        assert dict(reopened.query_params) == params
        assert reopened.latex[0].value == at.latex[0].value

    def test_digits_beyond_the_fields_four_decimals_survive(self):
        at = open_link(dict(DEFAULT_PARAMS, q="0.123456789,0.5,0.8,0.3"))
        assert at.text_input(key=controls_view.input_key("q", 0)).value == "0.1235"
        at.button(key=controls_view.NEXT).click().run()
        assert at.query_params["q"] == "0.123456789,0.5,0.8,0.3"


def walk_next(at, times: int) -> None:
    for _ in range(times):
        at.button(key=controls_view.NEXT).click().run()
        assert not at.exception


class TestMalformedLinks:
    @pytest.mark.parametrize(
        ("params", "problem"),
        [
            ({"i": "nan"}, "i: expected an integer from 1 to 4; got 'nan'"),
            ({"j": "9"}, "j: expected one of 1, 2, 3, 4, softmax; got '9'"),
            ({"k": "7"}, "k: expected an integer from 0 to 3; got '7'"),
            ({"presenter": "yes please"}, "presenter: expected on or off"),
            ({"q": "inf,1,1,1"}, "q: expected exactly 4 comma-separated numbers from -10 to 10"),
            ({"keys": "1,2"}, "keys: expected exactly 4 comma-separated numbers"),
            ({"a": "1,2,3"}, "a: expected 5 values for k = 2"),
            ({"a": "9" * 30_000}, "(30000 characters)"),
            ({"zz": "<b>x</b>"}, "Unknown parameter ignored: 'zz'"),
        ],
    )
    def test_warns_and_shows_the_default(self, params, problem):
        at = open_link(params)
        (warning,) = at.warning
        assert problem in warning.value.replace("\\", "")
        assert view_of(at) == DEFAULT_VIEW
        assert dict(at.query_params) == DEFAULT_PARAMS  # the address bar holds a valid link again

    def test_user_text_is_escaped_and_cut(self):
        at = open_link({"i": "[click](javascript:alert(1)) $x$ :red[y] <img src=x onerror=alert(1)>", "j": "x" * 5000})
        (warning,) = at.warning
        assert "[click](" not in warning.value and "\\[click\\]" in warning.value
        assert "$x$" not in warning.value and ":red[" not in warning.value and "<img" not in warning.value
        assert "x" * 100 not in warning.value
        assert all("onerror" not in element.proto.body for element in at.html)

    def test_warning_is_shown_once_and_the_rest_of_the_link_is_kept(self):
        at = open_link(dict(TEACHER_LINK, k="-3"))
        assert at.warning and at.toggle(key=controls_view.PRESENTER).value
        assert at.text_input(key=controls_view.input_key("q", 0)).value == "2.0"
        at.run()
        assert not at.warning


DEFAULT_VIEW = (
    0,
    0,
    False,
    2,
    ["1.0", "0.5", "0.8", "0.3", "0.9", "0.7", "0.4", "1.2", "-0.3", "0.4", "0.1", "-0.2", "-0.5"],
    TEXTBOOK.attention().scores.round(12).ravel().tolist(),
)


class TestTheUrlFollowsThePage:
    def test_next_previous_and_the_pickers(self):
        at = open_link()
        assert dict(at.query_params) == DEFAULT_PARAMS
        walk_next(at, 1)
        assert at.query_params["i"] == "1" and at.query_params["j"] == "2"
        walk_next(at, 3)
        assert at.query_params["j"] == "softmax"
        at.button(key=controls_view.PREVIOUS).click().run()
        assert at.query_params["j"] == "4"
        at.segmented_control(key=controls_view.ROW).set_value(3).run()
        assert at.query_params["i"] == "4"
        assert lesson_link(at).endswith(
            "?i=4&j=4&presenter=0&k=2&q=1,0.5,0.8,0.3&keys=0.9,0.7,0.4,1.2&a=-0.3,0.4,0.1,-0.2,-0.5"
        )

    def test_edits_k_presenter_and_reset(self):
        at = open_link()
        at.text_input(key=controls_view.input_key("q", 0)).input("2").run()
        assert at.query_params["q"] == "2,0.5,0.8,0.3"
        at.text_input(key=controls_view.input_key("q", 1)).input(
            "abc"
        ).run()  # rejected: the link keeps the last good value
        assert at.warning and at.query_params["q"] == "2,0.5,0.8,0.3"
        at.segmented_control(key=controls_view.K).set_value(0).run()
        assert at.query_params["k"] == "0" and at.query_params["a"] == "0.1"
        at.toggle(key=controls_view.PRESENTER).set_value(True).run()
        assert at.query_params["presenter"] == "1"
        at.button(key=controls_view.RESET).click().run()
        assert dict(at.query_params) == dict(DEFAULT_PARAMS, presenter="1")
        assert lesson_link(at).endswith("/walkthrough?" + "&".join(f"{k}={v}" for k, v in at.query_params.items()))


class TestScenarioFileOnThePage:
    def upload(self, at, data: bytes):
        at.session_state[controls_view.LOAD] = True
        at.run()
        at.get("file_uploader")[0].upload("scenario.json", data, "application/json")
        at.run()
        assert not at.exception, at.exception
        return at

    def test_download_then_upload_restores_the_view(self):
        with captured_downloads() as files:
            at = open_link(dict(TEACHER_LINK, k="1", a="0.4,0.1,-0.2", j="softmax"))
            data = download_bytes(at, files, controls_view.JSON)
        document = json.loads(data)
        assert document["page"] == "walkthrough" and document["state"]["j"] == "softmax"
        expected = relpos.relative_attention([2.0, 0.5, 0.8, 0.3], TEXTBOOK.keys, A_K=[0.4, 0.1, -0.2])
        computed = document["computed (read-only, recomputed on upload)"]
        np.testing.assert_allclose(computed["scores"], expected.scores, atol=1e-6)
        np.testing.assert_allclose(computed["combined weights"], expected.weights, atol=1e-6)
        fresh = self.upload(open_link(), data)
        assert fresh.success and not fresh.error
        assert view_of(fresh) == view_of(at)
        assert dict(fresh.query_params) == dict(at.query_params)

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            (scenario_file({"q": [1.0, 2.0]}), "q: expected exactly 4 numbers; got 2"),
            (scenario_file({"k": "1"}), "k: expected an integer from 0 to 3; got a string"),
            (scenario_file({}, version=3), "unsupported scenario version 3"),
            (scenario_file({}, page="explorer"), "belongs to the Explorer page"),
            (b"{not json", "not valid JSON"),
        ],
    )
    def test_bad_files_are_explained_and_change_nothing(self, data, message):
        at = open_link(TEACHER_LINK)
        before = (view_of(at), dict(at.query_params))
        self.upload(at, data)
        (error,) = at.error
        assert message in error.value.replace("\\", "")
        assert (view_of(at), dict(at.query_params)) == before


class TestSnippetOnThePage:
    def test_the_snippet_shown_reproduces_the_step_table(self):
        at = open_link(dict(TEACHER_LINK, k="3", a="0.5,-0.3,0.4,0.1,-0.2,-0.5,0.25"))
        assert not at.main.code, "the snippet is drawn only while its expander is open"
        at.session_state[controls_view.SNIPPET] = True
        at.run()
        (snippet,) = [code.value for code in at.main.code]
        namespace = {}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(snippet, namespace)
        frame = next(df.value for df in at.table if "combined weight" in df.value.columns)
        np.testing.assert_allclose(namespace["result"].scores.ravel(), frame["score"], atol=1e-12)
        np.testing.assert_allclose(namespace["result"].weights.ravel(), frame["combined weight"], atol=1e-12)
