"""The long-context page (pages/long_context.py), rendered headless with AppTest: every
section at the defaults, every method at the sliders' limits, presets, a bad link."""

from __future__ import annotations

import itertools

import pytest

from relpos.topics.long_context import model
from relpos.topics.long_context.schema import LONG_CONTEXT
from tests.support.apptest import open_app, plotly_specs, texts

PAGE = "long_context"
#: The smallest and the largest value of every slider of sections 1 and 2.
LIMITS = {
    name: (LONG_CONTEXT.fields[name].choices[0], LONG_CONTEXT.fields[name].choices[-1])
    for name in ("d", "b", "s", "L0", "ell", "low", "high", "bfast", "bslow")
}


@pytest.fixture(scope="module")
def default_page():
    return open_app(PAGE)


def test_every_section_is_drawn_with_one_figure_per_group(default_page):
    at = default_page
    assert not at.exception
    assert at.title[0].value == "Long context: RoPE and its extensions"
    # hands, wavelengths, decay | frequencies, six decay panels, patterns | accuracy, head maps | PI
    assert len(at.get("plotly_chart")) == 9
    headers = [header.value for header in at.header]
    assert headers == [
        "1 · RoPE as rotations",
        "2 · Context extension as experiments",
        "3 · Published settings",
        "4 · Train short, test long, with RoPE",
        "5 · Why interpolate: Position Interpolation's bound",
    ]
    assert "YaRN multiplies cos and sin by 0.1 · ln 4 + 1 = 1.1386" in texts(at)


def test_the_six_method_panels_are_one_figure(default_page):
    titles = [spec["layout"]["title"]["text"] for spec in plotly_specs(default_page)]
    methods = [t for t in titles if t.startswith("Score against distance, out to s·L₀")]
    assert len(methods) == 1
    spec = next(s for s in plotly_specs(default_page) if s["layout"]["title"]["text"] == methods[0])
    assert len(spec["data"]) == len(model.METHODS)


@pytest.mark.parametrize(("method", "end"), list(itertools.product(model.METHODS, (0, 1))))
def test_every_method_at_the_sliders_limits(method, end):
    query = {name: values[end] for name, values in LIMITS.items()}
    query |= {"method": method, "m": str(LONG_CONTEXT.fields["m"].high if end else 0)}
    at = open_app(PAGE, query=query)
    assert not at.exception, at.exception
    assert not at.warning, [w.value for w in at.warning]
    assert dict(at.query_params)["method"] == method


def test_a_preset_loads_its_published_numbers():
    at = open_app(PAGE)
    at.selectbox(key="long_context:preset").set_value("llama31").run()
    assert not at.exception
    state = at.session_state[PAGE]
    assert (state["b"], state["L0"], state["s"], state["method"]) == ("500000", "8192", "8", "llama3")
    assert "Llama 3.1 at s = 8" in texts(at)


def test_a_bad_link_is_reported_and_the_defaults_kept():
    at = open_app(PAGE, query={"s": "1e9", "method": "<b>yarn</b>", "m": "-5"})
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "scale factor s" in warning and "method" in warning and "position m" in warning
    assert "<b>" not in texts(at).replace(warning, "")
    state = at.session_state[PAGE]
    assert (state["s"], state["method"], state["m"]) == ("4", "yarn", 100)


@pytest.mark.parametrize(("task", "length"), [("two_back", "8"), ("first", "32")])
def test_the_experiment_at_the_training_lengths_limits(task, length):
    at = open_app(PAGE, query={"task": task, "L": length, "seed": "9999"})
    assert not at.exception
    trained = int(length)
    sentences = texts(at)
    assert f"At L = {trained} every method scores" in sentences
    assert f"At 8L = {8 * trained:,}" in sentences
