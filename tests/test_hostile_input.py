"""Hostile input on every page: URL parameters, text fields, number fields, scenario uploads.

A fixed corpus per input type (tests/support/hostile.py) goes into every input of every page,
batched so the whole suite stays fast:

* URL parameters: one fresh session per corpus value with *every* parameter of the page
  set to it (the pages report each bad parameter on its own line), plus links that are
  only wrong as a whole (k > n, too many values, unknown keys) and the largest valid ones;
* text fields: one session per page, all fields set to the next value each run;
* number fields: one session per page, all fields set to the next value each run;
* uploads: one session per page, one file after another.

Every case: no uncaught exception; where the page rejects the value, a message says
so (checked per parameter, field or file); memory bounded (the process's peak rises by
less than 200 MiB, and the page writes back only values inside their ranges); no user
text rendered as HTML or as live Markdown. A page that gains an input the registry in
tests/support/hostile.py does not know fails here instead of going unfuzzed.
"""

from __future__ import annotations

import json
import math

import pytest

from relpos.quizbank import checking as quiz
from relpos.topics.quiz import view as quiz_ui
from relpos.topics.walkthrough import model as wt
from relpos.ui.navigation import PAGES
from tests.support.hostile import (
    ALWAYS_INVALID,
    NUMBER_CORPUS,
    STREAMLIT_QUERY_LIMIT,
    TEXT_CORPUS,
    TEXT_PAGES,
    UPLOAD_PAGES,
    URL_PAGES,
    URL_SPECIAL_CASES,
    PeakMemory,
    assert_case,
    message_lines,
    messages,
    open_page,
    upload_corpus,
)

pytestmark = pytest.mark.timeout(300)

PAGE_PATHS = [spec.url_path for spec in PAGES]


def run(at, case: str, values: list[str]):
    """Run the session and apply the checks every case shares."""
    with PeakMemory() as memory:
        at.run()
    assert_case(at, values, memory, case)
    return at


@pytest.fixture(scope="module")
def first_loads() -> dict[str, object]:
    """Every page once, untouched: its inputs, and a warm interpreter for the memory checks."""
    loads = {}
    for path in PAGE_PATHS:
        at = open_page(path)
        assert not at.exception, path
        loads[path] = at
    return loads


# ---------------------------------------------------------------------------------------
# The registry matches the pages


UPLOAD_LABEL = "Load a scenario file"


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_input_of_the_page_is_in_the_corpus_registry(first_loads, path):
    at = first_loads[path]
    written = set(at.query_params)
    registry = "tests/support/hostile.py"
    if path in URL_PAGES:
        assert written == set(URL_PAGES[path].params), f"the page's URL parameters changed: update {registry}"
    else:
        assert not written, f"{path} writes URL parameters {sorted(written)}: register them in {registry}"
    fields = len(at.text_input) + len(at.text_area)
    assert fields == TEXT_PAGES.get(path, 0), f"{path} has {fields} text fields"
    # an uploader sits in a lazy expander (its content is built only while open)
    uploads = bool(at.get("file_uploader")) or any(section.label == UPLOAD_LABEL for section in at.expander)
    assert uploads == (path in UPLOAD_PAGES), f"{path}: its scenario upload and tests/support/hostile.py disagree"


def test_corpus_reaches_every_input(first_loads):
    """Every parameter, field and uploader of every page gets the whole corpus.

    The counts are printed (the corpus has ~3,900 cases); what is asserted is coverage:
    each page's registered URL parameters are exactly those it writes (checked above),
    and each kind of input is fuzzed on every page that has one.
    """
    url = sum(len(inputs.params) for inputs in URL_PAGES.values()) * len(TEXT_CORPUS) + len(URL_SPECIAL_CASES)
    text = sum(TEXT_PAGES.values()) * len(TEXT_CORPUS)
    number_fields = sum(len(first_loads[path].number_input) for path in NUMBER_PAGES)
    numbers = number_fields * len(NUMBER_CORPUS)
    uploads = sum(len(upload_corpus(page, inputs.schema)) for page, inputs in UPLOAD_PAGES.items())
    print(f"fuzz corpus: {url} URL, {text} text-field, {numbers} number-field, {uploads} upload cases")
    with_urls = {path for path, at in first_loads.items() if at.query_params}
    with_text = {path for path, at in first_loads.items() if at.text_input or at.text_area}
    assert with_urls <= set(URL_PAGES), "pages with URL state that the corpus does not reach"
    assert with_text == set(TEXT_PAGES), "pages with text fields that the corpus does not reach"
    for page, inputs in UPLOAD_PAGES.items():
        assert len(upload_corpus(page, inputs.schema)) > len(inputs.schema.fields), f"{page}: too few upload cases"


# ---------------------------------------------------------------------------------------
# URL parameters


@pytest.mark.parametrize("path", sorted(URL_PAGES))
def test_url_parameters_survive_hostile_values(first_loads, path):
    inputs = URL_PAGES[path]
    for name, value in TEXT_CORPUS.items():
        # as many parameters per link as stay under Streamlit's own limit on a query string
        per_link = max(1, (STREAMLIT_QUERY_LIMIT // 2) // (len(value) + 16))
        for start in range(0, len(inputs.params), per_link):
            _check_link(path, inputs, name, value, inputs.params[start : start + per_link])


def _check_link(path, inputs, name: str, value: str, params: tuple[str, ...]) -> None:
    """One link setting `params` to `value`: a message line per parameter the page rejects."""
    case = f"{path}?<{len(params)} parameters>={name}"
    with PeakMemory() as memory:
        at = open_page(path, dict.fromkeys(params, value))
    assert_case(at, [value], memory, case)
    lines = message_lines(at)
    for param in params:
        accepted = inputs.accepts(param, value)
        if name in ALWAYS_INVALID:
            assert not accepted, f"{case}: the page's own parser accepts it for {param}"
        if not accepted:
            marker = inputs.marker(param)
            assert any(line.startswith(marker) for line in lines), f"{case}: no message about {param}: {lines}"
    # what the page writes back into the URL is valid: sizes were clamped before any allocation
    for param, text in at.query_params.items():
        assert inputs.accepts(param, text), f"{case}: the page wrote {param}={text[:60]!r}"


@pytest.mark.parametrize(
    ("path", "query", "expected"),
    URL_SPECIAL_CASES,
    ids=[f"{path}-{'&'.join(query)[:40]}" for path, query, _ in URL_SPECIAL_CASES],
)
def test_links_wrong_as_a_whole_and_the_largest_valid_ones(first_loads, path, query, expected):
    with PeakMemory() as memory:
        at = open_page(path, query)
    values = [value if isinstance(value, str) else ",".join(value) for value in query.values()] + list(query)
    assert_case(at, values, memory, f"{path}?{query}")
    text = "\n".join(messages(at))
    if not expected:
        assert not at.warning and not at.error, text
    for snippet in expected:
        assert snippet in text, f"{snippet!r} not in {text!r}"
    inputs = URL_PAGES[path]
    for param, written in at.query_params.items():
        assert inputs.accepts(param, written), f"the page wrote {param}={written[:60]!r}"


@pytest.mark.parametrize("path", sorted(set(PAGE_PATHS) - set(URL_PAGES)))
def test_url_parameters_of_an_unregistered_page(first_loads, path):
    """Pages without registered URL state: stray hostile parameters never break them, and
    hostile values of their own parameters (once they have some) give a message."""
    stray = {f"x-{name}": value for name, value in TEXT_CORPUS.items()}
    with PeakMemory() as memory:
        at = open_page(path, stray)
    assert_case(at, list(stray.values()), memory, f"{path} with every corpus value as a stray parameter")
    own = sorted(first_loads[path].query_params)
    for name in sorted(ALWAYS_INVALID) if own else ():
        value = TEXT_CORPUS[name]
        with PeakMemory() as memory:
            at = open_page(path, dict.fromkeys(own, value))
        assert_case(at, [value], memory, f"{path}?<every parameter>={name}")
        assert messages(at), f"{path}?<every parameter>={name}: no message about its parameters {own}"


# ---------------------------------------------------------------------------------------
# Text fields


def test_walkthrough_text_fields(first_loads):
    """All 13 number fields of the walkthrough get each value at once; every rejected
    field gets its own error, and the page keeps computing with the last good numbers."""
    at = open_page("walkthrough")
    fields = [field.key for field in at.text_input]
    assert len(fields) == TEXT_PAGES["walkthrough"]
    good_scores = None
    for name, value in TEXT_CORPUS.items():
        case = f"walkthrough fields={name}"
        before = _walkthrough_scores(at)
        for key in fields:
            at.text_input(key=key).set_value(value)
        run(at, case, [value])
        rejected = sum(wt.parse_value(value, name="x")[0] is None for _ in fields)
        if name in ALWAYS_INVALID:
            assert rejected == len(fields), f"{case}: the walkthrough's parser accepts it"
        errors = [error for error in at.sidebar.error]
        assert len(errors) == rejected, f"{case}: {len(errors)} field errors for {rejected} rejected fields"
        if rejected:
            assert any("not accepted" in text for text in messages(at)), case
            assert _walkthrough_scores(at) == before, f"{case}: the last good values must stay"
        else:
            good_scores = _walkthrough_scores(at)
    assert good_scores is not None, "some corpus values are valid numbers"


def _walkthrough_scores(at) -> list[float]:
    """The per-pair table's score column (the page's numbers in one list; an ``st.table``)."""
    frame = at.table[0].value
    column = "score" if "score" in frame.columns else frame.columns[-3]
    return [round(float(value), 9) for value in frame[column]]


def test_quiz_answer_fields():
    """All five answers get each value at once and all five are checked; an unreadable
    answer gets a warning saying what to type, a readable one its verdict."""
    seed = 42
    at = open_page("quiz", {"seed": str(seed)})
    questions = quiz.make_quiz(seed)
    for name, value in TEXT_CORPUS.items():
        case = f"quiz answers={name}"
        for number in range(1, len(questions) + 1):
            at.text_input(key=quiz_ui.answer_key(seed, number)).set_value(value)
            at.button(key=quiz_ui.button_key("check", seed, number)).click()
        run(at, case, [value])
        statuses = [quiz.check_answer(question, value).status for question in questions]
        if name in ALWAYS_INVALID and not _looks_numeric(value):
            assert set(statuses) == {"invalid"}, f"{case}: {statuses}"
        unreadable = [line for line in messages(at) if line.startswith("Could not read that answer")]
        assert len(unreadable) == statuses.count("invalid"), f"{case}: {messages(at)}"
        verdicts = len(at.success) + len(at.error)
        assert verdicts == len(statuses) - statuses.count("invalid"), case
        if verdicts:  # settled questions lose their form: start again for the next value
            at.button(key=quiz_ui.START_AGAIN).click()
            run(at, f"{case} (start again)", [value])
            assert len(at.text_input) == len(questions)


def test_join_a_class_fields(tmp_path, monkeypatch):
    """The Overview's join form gets each value as a code and as a nickname at once: no
    class has that code, so every case gets a message saying so (or what a code is), and
    nobody joins."""
    from relpos.class_routes import store as events
    from relpos.ui import classroom

    monkeypatch.setenv("RELPOS_CLASS_STORE", f"sqlite://{tmp_path / 'classes.sqlite3'}")
    monkeypatch.setattr(events, "_store", None)
    try:
        at = open_page("overview")
        assert len(at.text_input) == TEXT_PAGES["overview"]
        for name, value in TEXT_CORPUS.items():
            case = f"join form={name}"
            at.text_input(key=classroom.JOIN_CODE).set_value(value)
            at.text_input(key=classroom.JOIN_NICKNAME).set_value(value)
            at.button(key=classroom.JOIN).click()
            run(at, case, [value])
            assert classroom.STUDENT not in at.session_state, f"{case}: joined a class that does not exist"
            assert messages(at), f"{case}: no message"
    finally:
        if events._store is not None:
            events._store.close()
        events._store = None


def _looks_numeric(text: str) -> bool:
    """A finite number in Python's eyes (1e308 and 40 nines are numbers: a wrong answer, not an unreadable one)."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------
# Number fields


#: the pages with number fields (checked against the pages by test_number_pages_are_registered)
NUMBER_PAGES = ("explorer", "position_effects", "schemes", "efficiency", "training", "long_context")


def test_number_pages_are_registered(first_loads):
    """Every page with a number field is fuzzed, and no registered page has lost its fields."""
    assert {path for path, at in first_loads.items() if at.number_input} == set(NUMBER_PAGES)


@pytest.mark.parametrize("path", NUMBER_PAGES)
def test_number_fields_hold_only_values_in_range(first_loads, path):
    """Out-of-range values (a hand-made WebSocket message; a browser cannot send them) are
    reset by Streamlit to the field's default before the page runs, so the page never
    computes with them; in-range ones are used as integers."""
    at = open_page(path)
    fields = {field.key: (field.min, field.max) for field in at.number_input}
    assert fields, f"{path} has no number field"
    for name, value in NUMBER_CORPUS.items():
        case = f"{path} number fields={name}"
        for key in fields:
            at.number_input(key=key).set_value(value)
        run(at, case, [])
        for key, (low, high) in fields.items():
            held = at.number_input(key=key).value
            assert low <= held <= high, f"{case}: {key} holds {held}"
            if low <= value <= high:
                assert held == int(value), f"{case}: {key} holds {held}"
    if path == "efficiency":  # the memory table is computed for the largest valid inputs too
        for key, (_, high) in fields.items():
            at.number_input(key=key).set_value(high)
        run(at, "efficiency number fields=max", [])
        assert at.dataframe, "the memory table is drawn"


# ---------------------------------------------------------------------------------------
# Scenario uploads


@pytest.mark.parametrize("path", sorted(UPLOAD_PAGES))
def test_scenario_uploads(path):
    """Each file in turn: a bad one gets an error naming the problem and changes nothing;
    a good one loads."""
    inputs = UPLOAD_PAGES[path]
    at = open_page(path)
    at.session_state[inputs.lazy_key] = True  # open the expander that holds the uploader
    at.run()
    for upload in upload_corpus(path, inputs.schema):
        case = f"{path} upload {upload.name}"
        before = dict(at.query_params)
        at.get("file_uploader")[0].upload("scenario.json", upload.data, "application/json")
        text = upload.data[:2000].decode("utf-8", "replace")
        run(at, case, [text, *_strings(upload.data)])
        if upload.error is None:
            assert at.success and not at.error, f"{case}: {messages(at)}"
            continue
        errors = [error.value.replace("\\", "") for error in at.error]
        assert len(errors) == 1, f"{case}: {errors}"
        for expected in (upload.error, upload.detail):
            assert expected in errors[0], f"{case}: expected {expected!r} in {errors[0]!r}"
        assert dict(at.query_params) == before, f"{case}: a rejected file must change nothing"


def _strings(data: bytes) -> list[str]:
    """String values inside a JSON file (for the HTML checks), if it parses."""
    try:
        document = json.loads(data) if len(data) < 200_000 else None
    except (ValueError, RecursionError):
        return []
    found: list[str] = []

    def walk(node) -> None:
        if isinstance(node, str):
            found.append(node[:1000])
        elif isinstance(node, dict):
            for key, child in node.items():
                found.append(key[:1000])
                walk(child)
        elif isinstance(node, list):
            for child in node[:100]:
                walk(child)

    walk(document)
    return found
