"""The Schemes and Value side pages draw every widget from its schema field: the field's
bounds, step, options and label are the widget's, so a bound is declared only once."""

from __future__ import annotations

import pytest

from relpos.topics.schemes import view as schemes_ui
from relpos.topics.value_side import view as value_side_ui
from relpos.topics.value_side.schema import VALUE_VARIANTS
from tests.support.apptest import open_app

PAGES = {"schemes": schemes_ui.STATE, "value_side": value_side_ui.STATE}
#: How a widget shows a choice, where it shows more than the choice's URL code.
SHOWN = {value_side_ui.STATE.key("variant"): lambda code: value_side_ui.latex_names(VALUE_VARIANTS[code])}


def _widget(at, key: str):
    """The one drawn widget with `key`, whatever its kind."""
    found = [
        element
        for kind in ("slider", "select_slider", "number_input", "radio")
        for element in getattr(at, kind)
        if element.key == key
    ]
    assert len(found) == 1, f"{key}: {len(found)} widgets"
    return found[0]


def _check_widgets(at, fields) -> int:
    """Compare every field's widget(s) with the field; returns how many were checked."""
    state = at.session_state[fields.page]
    checked = 0
    for name, spec in fields.schema.fields.items():
        keys = [fields.key(name, i) for i in range(len(state[name]))] if spec.kind == "floats" else [fields.key(name)]
        for key in keys:
            widget = _widget(at, key)
            if spec.kind != "floats":
                assert widget.label == spec.label, key
            if spec.kind == "choice":
                assert list(widget.options) == [SHOWN.get(key, str)(choice) for choice in spec.choices], key
            elif widget.type == "radio":
                low, high = fields.schema.bounds(name, state)
                assert [int(option) for option in widget.options] == list(range(low, high + 1)), key
            else:
                assert (widget.min, widget.max) == fields.schema.bounds(name, state), key
                assert widget.step == spec.step, key
            checked += 1
    return checked


@pytest.mark.parametrize("page", PAGES)
def test_every_field_drives_its_widget(page):
    fields = PAGES[page]
    at = open_app(page)
    assert not at.exception
    assert _check_widgets(at, fields) >= len(fields.schema.fields)


def test_a_dependent_bound_follows_the_field_it_depends_on():
    """k ≤ n − 1 and head ≤ H: the widgets' maxima are the schema's limits in the current state."""
    fields = schemes_ui.STATE
    at = open_app("schemes", query={"n": "12", "k": "10", "heads": "6", "head": "5"})
    assert at.slider(key=fields.key("k")).max == 11 and at.slider(key=fields.key("head")).max == 6
    at.slider(key=fields.key("n")).set_value(5).run()
    at.slider(key=fields.key("heads")).set_value(3).run()
    assert not at.exception
    assert (at.slider(key=fields.key("k")).max, at.slider(key=fields.key("k")).value) == (4, 4)
    assert (at.slider(key=fields.key("head")).max, at.slider(key=fields.key("head")).value) == (3, 3)
    _check_widgets(at, fields)


def _literal_bounds(path):
    """``st.slider(label, 0, 16, …)`` calls of a view: bounds written beside the widget."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("slider", "number_input")
            and len(node.args) >= 3
            and any(isinstance(arg, ast.Constant) for arg in node.args[1:3])
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return found


#: widgets that set no URL state (no schema field): the efficiency page's demo length
_NO_FIELD = {"efficiency"}


def test_views_read_the_bounds_of_their_fields_from_the_schema():
    """A field's bounds are declared once, in the schema: a view never repeats them."""
    from pathlib import Path

    topics = Path(__file__).resolve().parents[1] / "relpos" / "topics"
    views = [p for p in topics.glob("*/*.py") if p.parent.name not in _NO_FIELD]
    assert len(views) > 20
    literal = {str(p.relative_to(topics)): _literal_bounds(p) for p in views}
    assert {name: calls for name, calls in literal.items() if calls} == {}


def _seed_fields() -> dict[str, object]:
    """Every seed field of every lesson's schema module (``<topic>.<SCHEMA>.seed``, the quiz's own)."""
    import importlib
    import pkgutil

    import relpos.topics
    from relpos.state.codec import Field, Schema

    found = {}
    for topic in pkgutil.iter_modules(relpos.topics.__path__):
        try:
            module = importlib.import_module(f"relpos.topics.{topic.name}.schema")
        except ModuleNotFoundError:
            continue
        for name, value in vars(module).items():
            if isinstance(value, Schema) and "seed" in value.fields:
                found[f"{topic.name}.{name}.seed"] = value.fields["seed"]
            elif isinstance(value, Field) and "SEED" in name:
                found[f"{topic.name}.{name}"] = value
    return found


def test_every_page_takes_the_same_seeds():
    """A seed that opens one page opens every page that takes a seed: 0 .. MAX_SEED."""
    from relpos.text.answers import MAX_SEED

    fields = _seed_fields()
    assert {"explorer", "position_effects", "schemes", "training", "long_context", "quiz"} <= {
        name.split(".")[0] for name in fields
    }
    assert {name: (field.low, field.high) for name, field in fields.items()} == dict.fromkeys(fields, (0, MAX_SEED))
