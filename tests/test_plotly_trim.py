"""Streamlit's Plotly chunk trimmed to the plotly.js the app draws with (relpos/static/plotly_trim.py).

On a small chunk of the same shape: unreached modules are emptied and unwanted traces
unregistered, anything of another shape is left alone. On the installed chunk: the trim
keeps bar, heatmap and the core (scatter) and drops the maps, WebGL and 3D. On every page:
no figure needs a trace type the trimmed chunk lacks, and no figure's template styles one.
"""

from __future__ import annotations

import pytest

from relpos.plots.template import TRACE_TYPES
from relpos.server import internals
from relpos.static import plotly_trim
from relpos.ui.navigation import PAGES
from tests.support.apptest import open_app, plotly_specs

# the shape of esbuild's CommonJS wrappers as Streamlit's chunk carries them
CHUNK = (
    'import{x as y}from"./a.js";var W=(function(){var _=(e,t)=>()=>(t||e((t={exports:{}}).exports,t),t.exports),'
    'A=_({"src/lib/a.js"(e,t){t.exports=1}}),'
    'B=_({"src/lib/b.js"(e,t){var n=A();t.exports={n}}}),'
    'C=_({"src/traces/pie/index.js"(e,t){t.exports=B()}}),'
    'D=_({"src/core.js"(e,t){t.exports={register(){},lib:B()}}}),'
    'E=_({"lib/core.js"(e,t){t.exports=D()}});var '
    'F=_({"lib/bar.js"(e,t){t.exports={bar:A()}}}),'
    'G=_({"lib/pie.js"(e,t){t.exports=C()}}),'
    'H=_({"lib/heatmap.js"(e,t){t.exports=e.C}}),'
    'I=_({"lib/calendars.js"(e,t){t.exports=G()}});'
    'return _({"lib/index.js"(e,t){var n=E();n.register([F(),G(),H(),I()]),t.exports=n}})()})();'
    "window.Plotly=W;"
)


def test_only_the_wanted_traces_stay_registered_and_unreached_modules_are_emptied():
    trimmed = plotly_trim.trim(CHUNK, ("bar", "heatmap"))
    assert trimmed is not None
    assert "n.register([F(),H()])" in trimmed
    for name in "CGI":  # pie, its trace module, and calendars: reached only from the dropped entries
        assert f"{name}=0" in trimmed and f"{name}=_(" not in trimmed
    for name in "ABDEFH":  # the core, what it requires, the kept traces
        assert f"{name}=_(" in trimmed
    # the code around the wrappers is kept as it was
    assert trimmed.startswith('import{x as y}from"./a.js";var W=(function(){var _=')
    assert trimmed.endswith("t.exports=n}})()})();window.Plotly=W;")


def test_a_property_of_a_modules_name_is_not_a_require():
    trimmed = plotly_trim.trim(CHUNK, ("heatmap",))  # H reads e.C, which is no call of the module C
    assert trimmed is not None and "C=0" in trimmed and "n.register([H()])" in trimmed


@pytest.mark.parametrize(
    "changed",
    [
        CHUNK.replace('"lib/index.js"', '"lib/main.js"'),  # no root
        CHUNK.replace("n.register([F(),G(),H(),I()])", "n.register([F(),G(),H(),I(),x.y()])"),  # not only calls
        CHUNK.replace('F=_({"lib/bar.js"', 'F=_({"src/bar.js"'),  # a registered entry that is not lib/
        CHUNK.replace('"lib/heatmap.js"', '"lib/heatmap2.js"'),  # a wanted trace missing
        CHUNK.replace("var n=E()", "var n=D()"),  # the root's plotly is not lib/core.js
        CHUNK.replace('"src/lib/a.js"(e,t){t.exports=1}})', '"src/lib/a.js"(e,t){t.exports=1})'),  # not }})
    ],
)
def test_a_chunk_of_another_shape_is_left_alone(changed):
    assert plotly_trim.trim(changed, ("bar", "heatmap")) is None


def test_bytes_that_are_not_utf8_are_left_alone():
    assert plotly_trim.trim_bytes(b"\xff" + CHUNK.encode()) is None


@pytest.fixture(scope="module")
def installed():
    source = (internals.static_dir() / internals.plotly_chunk()).read_text(encoding="utf-8")
    return source, plotly_trim.trim(source)


def test_the_installed_chunk_keeps_the_app_traces_and_drops_the_rest(installed):
    source, trimmed = installed
    assert trimmed is not None, "Streamlit's Plotly chunk is no longer built as plotly_trim expects"
    assert len(trimmed) < len(source) / 3, f"{len(trimmed)} of {len(source)} characters"
    for kept in ("src/traces/heatmap/plot.js", "src/traces/bar/plot.js", "src/traces/scatter/plot.js"):
        assert f'"{kept}"(' in trimmed
    for dropped in ("src/plots/map/map.js", "src/plots/gl3d/scene.js", "src/traces/pie/plot.js", "lib/sankey.js"):
        assert f'"{dropped}"(' in source and f'"{dropped}"(' not in trimmed
    assert internals.PLOTLY_CHUNK_GLOBAL in trimmed  # the Explorer panel finds window.Plotly
    served = plotly_trim.draw_once(trimmed)
    assert served is not None, "Streamlit's chart element is no longer built as draw_once expects"
    assert served.encode() == plotly_trim.trim_bytes(source.encode())


def test_the_chart_element_renders_its_plot_only_with_a_width():
    element = "role:X,children:i(q,{data:N.data,layout:N.layout,config:B,style:{}})"
    assert plotly_trim.draw_once(element) == (
        "role:X,children:N.layout.width===void 0?null:i(q,{data:N.data,layout:N.layout,config:B,style:{}})"
    )
    assert plotly_trim.draw_once(element + element) is None  # two chart elements: not the chunk we know
    assert plotly_trim.draw_once("children:i(q,{data:N.data,layout:M.layout,") is None  # another shape
    assert plotly_trim.trim_bytes(CHUNK.encode()) == plotly_trim.trim(CHUNK).encode()  # trimmed, drawn as shipped


def test_every_page_draws_only_trace_types_the_trimmed_plotly_has_and_its_template_styles_no_other():
    drawable = {"scatter", *plotly_trim.TRACES}
    assert drawable == set(TRACE_TYPES)
    seen = set()
    for spec in PAGES:
        at = open_app(spec.path.removeprefix("pages/").removesuffix(".py"))
        assert not at.exception, spec.url_path
        figures = plotly_specs(at)
        types = {trace.get("type", "scatter") for figure in figures for trace in figure["data"]}
        assert types <= drawable, f"/{spec.url_path} draws {sorted(types - drawable)}"
        styled = {kind for figure in figures for kind in figure["layout"]["template"].get("data", {})}
        assert styled <= drawable, f"/{spec.url_path}: the template styles {sorted(styled - drawable)} too"
        seen |= types
    assert seen == drawable, f"no page draws {sorted(drawable - seen)}: drop it from TRACE_TYPES"
