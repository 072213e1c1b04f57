"""Links too long for Streamlit are reported (relpos.server.links); the browser half is in test_browser.py."""

from __future__ import annotations

import pytest

from relpos.server.links import CHARS, FIELDS, MARKER, oversized_link_message
from tests.support.apptest import open_app


class TestOversizedLinkMessage:
    def test_states_the_sizes_and_the_limits(self):
        message = oversized_link_message(10_000, 88_890)
        assert "10,000 parameters (88,890 characters)" in message
        assert "at most 1,000 parameters" in message and "shows its defaults" in message

    def test_unknown_sizes_still_explain(self):
        assert oversized_link_message(None, None).startswith("This link is too long:")


class TestOversizedLinkNotice:
    def test_the_reopened_page_warns_and_forgets_the_marker(self):
        at = open_app(query={MARKER: "1", FIELDS: "10000", CHARS: "88890"})
        assert not at.exception
        assert any("holds 10,000 parameters" in warning.value for warning in at.warning)
        assert not any("Unknown parameter" in warning.value for warning in at.warning)
        assert MARKER not in at.query_params

    @pytest.mark.parametrize("fields", ["abc", "-1", "9" * 40, "<b>x</b>"])
    def test_hostile_sizes_give_the_plain_message(self, fields):
        at = open_app(query={MARKER: "1", FIELDS: fields, CHARS: "1"})
        assert not at.exception
        assert any(warning.value.startswith("This link is too long:") for warning in at.warning)

    def test_an_ordinary_link_says_nothing(self):
        at = open_app(query={"probe": "1"})
        assert not any("This link" in warning.value for warning in at.warning)
