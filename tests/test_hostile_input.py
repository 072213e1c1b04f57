"""Hostile input on every page (harness; the full corpus comes once pages with inputs merge).

For every page in PAGES the inputs are discovered, not listed: every text field, text
area and number field the page renders, and every URL parameter the page writes into
``st.query_params``. Each receives the values of tests/hostile.py. Every case must give
no exception, keep the page rendering, and put no user text on the page as live HTML.
A page with nothing to fuzz is skipped, with the reason, rather than passing vacuously.
"""

from __future__ import annotations

import math

import pytest

from relpos.navigation import PAGES
from tests.apptest import open_app
from tests.hostile import HTML_MARKERS, NUMBER_CORPUS, TEXT_CORPUS, discovered_inputs

pytestmark = pytest.mark.timeout(600)


def page_name(spec) -> str | None:
    """open_app's page argument: None for the default page, else the script's stem."""
    return None if spec == PAGES[0] else spec.path.removeprefix("pages/").removesuffix(".py")


def assert_survived(at, value: str | float) -> None:
    """No exception, something still on the page, and no hostile text rendered as HTML."""
    assert not at.exception, [element.value for element in at.exception]
    assert len(at.main.children) > 0
    if isinstance(value, str) and any(marker in value for marker in HTML_MARKERS):
        for element in at.markdown:
            if element.proto.allow_html:
                assert value not in element.value, "user text rendered with unsafe_allow_html"


@pytest.mark.parametrize("spec", PAGES, ids=[spec.url_path for spec in PAGES])
def test_every_input_survives_hostile_values(spec):
    at = open_app(page_name(spec))
    assert not at.exception
    found = discovered_inputs(at)
    if not any(found.values()):
        pytest.skip(f"{spec.title}: no text field, number field or URL parameter to fuzz")

    for index, field in enumerate(found["text_input"]):
        for value in TEXT_CORPUS.values():
            at = open_app(page_name(spec))
            field = (list(at.text_input) + list(at.text_area))[index]
            field.input(value).run()
            assert_survived(at, value)

    for index, _ in enumerate(found["number_input"]):
        for value in NUMBER_CORPUS.values():
            at = open_app(page_name(spec))
            field = at.number_input[index]
            low, high = field.min, field.max
            bounded = value if math.isnan(value) else min(max(value, low if low is not None else value), high or value)
            field.set_value(bounded).run()
            assert_survived(at, value)

    for key in found["query_params"]:
        for value in TEXT_CORPUS.values():
            at = open_app(page_name(spec), query={key: value})
            assert_survived(at, value)
