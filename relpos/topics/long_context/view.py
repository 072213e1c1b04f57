"""Widgets of the "Long context: RoPE and its extensions" page (pages/long_context.py).

The page's settings are one dict (schema :data:`relpos.topics.long_context.schema.LONG_CONTEXT`),
read from the URL on the first run and mirrored back into it; each section's sliders sit
in the section. Numbers come from :mod:`relpos.core.rope_scaling` (exact to Hugging Face
transformers), sentences from :mod:`relpos.topics.long_context.text`. The experiment of
section 4 trains one tiny head (about a second) through ``st.cache_data``, so a class
shares one run per setting; the fit of section 5 is cached the same way.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from relpos import ui
from relpos.core.rope_extension import EXTENSION_METHODS, ExtensionTable, extension_pattern, rope_extension_table
from relpos.core.rope_scaling import ROPE_SCALINGS
from relpos.core.training_tasks import TRAINING_TASKS, task_sequences
from relpos.state.keys import widget_key
from relpos.text.escape import escape_markdown
from relpos.topics.long_context import figures, model, tables, text
from relpos.topics.long_context.schema import LONG_CONTEXT

PAGE = "long_context"  # url_path
STATE = ui.PageState(PAGE, LONG_CONTEXT)  # the page state; its widgets are "long_context.<name>"
#: The preset picker (outside the fields' key prefix: loading a preset re-seeds every field).
PRESET = "long_context:preset"
#: Training steps of the experiment's head (the trainer's default run).
STEPS = 400
#: Test lengths of the experiment, as multiples of L.
FACTORS = (1, 2, 4, 8)
#: The test length of the attention maps, as a multiple of L.
MAP_FACTOR = 4


def _on_preset() -> None:
    key = st.session_state.get(PRESET)
    if key in model.PRESETS:
        STATE.replace(dict(STATE.state(), **model.PRESETS[key].values))


#: Help beside a field's widget.
HELP = {"m": "The angle's index m: the first token has m = 0, the token at position p has m = p − 1."}


def _row(*names: str) -> None:
    """The named fields' widgets side by side: a slider over a list, an integer slider, the seed's number field."""
    for column, name in zip(st.columns(len(names)), names, strict=True):
        with column:
            if name == "seed":
                STATE.number_input(name)
            elif LONG_CONTEXT.fields[name].kind == "choice":
                STATE.select_slider(name, help=HELP.get(name))
            else:
                STATE.slider(name, help=HELP.get(name))


def _chart(fig, name: str) -> None:
    ui.chart(fig, key=widget_key(PAGE, "fig", name))


# ----------------------------------------------------------------------------- 1


def rotations_section(look: dict) -> None:
    st.header("1 · RoPE as rotations")
    ui.markdown("long_context_rotations")
    st.latex(
        r"\begin{pmatrix} q'_{2i} \\ q'_{2i+1} \end{pmatrix} = "
        r"\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
        r"\begin{pmatrix} q_{2i} \\ q_{2i+1} \end{pmatrix},\qquad \theta_i = b^{-2i/d},\quad "
        r"\lambda_i = \frac{2\pi}{\theta_i}"
    )
    width, base, index = st.columns(3)
    with width:
        STATE.select_slider("d")
    with base:
        STATE.select_slider("b")
    with index:
        STATE.slider("m", help="The angle's index m: the first token has m = 0, the token at position p has m = p − 1.")
    chosen = model.setting(STATE.state())
    plain = model.frequencies(chosen, "none")
    _chart(figures.hands_figure(plain, chosen.m, model.hand_pairs(chosen.d), **look), "hands")
    st.caption(
        f"Pair i turns by m·θᵢ: at m = {text.count(chosen.m)} the fastest pair (i = 0, θ = 1) has made "
        f"{text.count(round(chosen.m / (2 * np.pi), 2))} full turns, the slowest "
        f"(i = {chosen.d // 2 - 1}) {text.count(round(chosen.m * plain.inv_freq[-1] / (2 * np.pi), 4))}."
    )
    _chart(figures.wavelength_figure(plain, chosen.original_length, **look), "wavelengths")
    st.caption(text.unseen_sentence(model.frequencies(chosen, "none"), chosen.original_length).split(";")[0] + ".")
    pairs, scores = model.relative_check(chosen.d, chosen.base)
    st.markdown("**Only n − m matters, checked live.** Random q and k (seed 0), rotated to (m, n):")
    ui.labelled_table(
        tables.relative_frame(pairs, scores).set_index("m (query index)"),
        decimals=12,
        caption=text.relative_sentence(pairs, scores),
    )
    distances = model.distance_grid(chosen.original_length)
    decay = {"none": (distances, model.score_curve(plain, distances))}
    title = f"Score against distance 1 .. L₀ = {text.count(chosen.original_length)}, as trained"
    fig = figures.decay_figure(decay, chosen.original_length, chosen.original_length, title=title, shade=False, **look)
    _chart(fig, "decay")
    st.caption(
        "The score of q = k = (1, …, 1) at distance Δ is (2/d) Σᵢ cos(Δ θᵢ): 1 at Δ = 0, then it falls and "
        "oscillates as the pairs drift out of step (Su et al.'s long-term decay)."
    )


# ----------------------------------------------------------------------------- 2 and 3


def extension_controls() -> None:
    st.selectbox(
        "Load published settings (numbers only, no weights)",
        list(model.PRESETS),
        index=None,
        format_func=lambda key: model.PRESETS[key].label,
        placeholder="choose a preset…",
        key=PRESET,
        on_change=_on_preset,
    )
    STATE.radio("method", format_func=ROPE_SCALINGS.get)
    _row("s", "L0")
    state = STATE.state()
    st.caption(f"Head width d = {state['d']} and base b = {text.count(int(state['b']))}: the sliders of section 1.")
    method = state["method"]
    extra = {"dynamic": ("ell",), "llama3": ("low", "high"), "yarn": ("bfast", "bslow")}
    if method in extra:
        _row(*extra[method])


def extension_section(look: dict) -> None:
    """Section 2: the methods' formulas, their controls, and what the chosen one does."""
    st.header("2 · Context extension as experiments")
    ui.markdown("long_context_extension")
    st.latex(
        r"\text{PI: }\theta'_i = \frac{\theta_i}{s}\qquad \text{NTK: } b' = b\,s^{d/(d-2)}\qquad"
        r"\text{dynamic: } b' = b\,\Big(\frac{s\,\ell}{L_0} - (s-1)\Big)^{d/(d-2)}"
    )
    st.latex(
        r"\text{YaRN: }\theta'_i = (1-\gamma_i)\frac{\theta_i}{s} + \gamma_i\,\theta_i,\ \ "
        r"\cos, \sin \times (0.1 \ln s + 1)\qquad"
        r"\text{Llama 3.1: } \gamma_i = \frac{L_0/\lambda_i - l}{h - l}"
    )
    extension_controls()
    chosen = model.setting(STATE.state())
    freq = model.frequencies(chosen)
    bands = model.bands(freq)
    ui.bullets(_extension_sentences(chosen, freq, bands))
    _chart(figures.frequency_figure(freq, bands, chosen.original_length, **look), "frequencies")
    with st.expander("Every pair's numbers as a table"):
        ui.labelled_table(tables.frequency_frame(freq, bands, chosen.original_length), decimals=6, stretch=True)
    _methods_chart(chosen, look)
    _patterns_chart(chosen, freq, look)


def _extension_sentences(chosen, freq, bands) -> list[str]:
    """What the chosen method does to the pairs, its temperature, and which angles are new."""
    sentences = [text.band_sentence(freq, bands), text.temperature_sentence(freq)]
    if chosen.method in ("dynamic", "ntk"):
        sentences.append(
            text.dynamic_sentence(chosen, model.frequencies(chosen, "dynamic"), model.frequencies(chosen, "ntk"))
        )
    sentences.append(text.unseen_sentence(freq, chosen.original_length))
    return sentences


def _methods_chart(chosen, look: dict) -> None:
    """Every method's score against distance, side by side in one figure."""
    distances = model.distance_grid(chosen.top)
    curves = {m: (distances, model.score_curve(model.frequencies(chosen, m), distances)) for m in model.METHODS}
    _chart(figures.decay_figure(curves, chosen.original_length, chosen.top, **look), "methods")
    st.caption(
        "Each panel: the score of q = k = (1, …, 1) against distance with that method's frequencies and attention "
        f"factor, at s = {text.count(chosen.factor)}, L₀ = {text.count(chosen.original_length)}; "
        "dynamic NTK at the chosen ℓ. Distances are every integer up to 64, then about 700 spread evenly on the "
        "log axis."
    )


def _patterns_chart(chosen, freq, look: dict) -> None:
    """The attention pattern without scaling at L₀ and s·L₀, and with the chosen method at s·L₀."""
    unscaled = model.frequencies(chosen, "none")
    patterns = {
        f"no scaling, L₀ = {text.count(chosen.original_length)}": model.score_pattern(unscaled, chosen.original_length),
        f"no scaling, s·L₀ = {text.count(chosen.top)}": model.score_pattern(unscaled, chosen.top),
        f"{text.SHORT[chosen.method]}, s·L₀ = {text.count(chosen.top)}": model.score_pattern(freq, chosen.top),
    }
    _chart(figures.pattern_figure(patterns, **look), "patterns")
    st.caption(
        f"Every panel samples {model.PATTERN_SIZE} evenly spread positions (from 1) of its context; the scores "
        "depend on j − i only, so each diagonal is one distance."
    )


def presets_section() -> None:
    """Section 3: the published settings, each with its source."""
    st.header("3 · Published settings")
    ui.markdown("long_context_presets")
    ui.bullets([f"**{escape_markdown(p.label)}**: {escape_markdown(p.source)}" for p in model.PRESETS.values()])


# ----------------------------------------------------------------------------- 4


@st.cache_data(show_spinner="Training the RoPE head, or waiting for the same run another session started…")
def experiment(task: str, length: int, seed: int) -> ExtensionTable:
    """The head trained at L and its accuracy at 1, 2, 4, 8 L under each method (cached)."""
    return rope_extension_table(task, length=length, factors=FACTORS, steps=STEPS, seed=seed)


def training_section(look: dict) -> None:
    st.header("4 · Train short, test long, with RoPE")
    ui.markdown("long_context_training")
    st.page_link(
        "pages/training.py", label="The trainer and its task: Train a tiny head", icon=":material/model_training:"
    )
    _row("task", "L", "seed")
    state = STATE.state()
    trained = int(state["L"])
    table = experiment(state["task"], trained, int(state["seed"]))
    left, right = st.columns([2, 3])
    with left:
        frame = tables.accuracy_frame(table.methods, table.lengths.tolist(), table.accuracy, trained).set_index(
            "method"
        )
        ui.labelled_table(frame, decimals=1, caption="Next-token accuracy, percent.", stretch=True)
    with right:
        fig = figures.accuracy_figure(table.methods, table.lengths.tolist(), table.accuracy, trained, **look)
        _chart(fig, "accuracy")
    ui.bullets(text.extension_sentences(table.methods, table.lengths.tolist(), table.accuracy, trained))
    longest = trained * MAP_FACTOR
    tokens = task_sequences(table.task, longest, seed=int(state["seed"])).tokens[0]
    weights = {m: extension_pattern(table.head, tokens, m) for m in EXTENSION_METHODS}
    maps = {text.SHORT[m]: w for m, w in weights.items()}
    _chart(figures.head_patterns_figure(maps, trained, **look), "head")
    shares = {m: model.target_share(w, table.task) for m, w in weights.items()}
    st.caption(
        f"One test sequence of {MAP_FACTOR}L = {longest} tokens ({TRAINING_TASKS[table.task]}), the same head, "
        f"each method with s = {MAP_FACTOR}. {text.share_sentence(shares, longest)}"
    )


# ----------------------------------------------------------------------------- 5


@st.cache_data(show_spinner=False)
def _pi_bound(seed: int) -> model.PiBound:
    return model.pi_bound(seed=seed)


def pi_section(look: dict) -> None:
    st.header("5 · Why interpolate: Position Interpolation's bound")
    ui.markdown("long_context_pi")
    st.latex(
        r"a(s) = \operatorname{Re}\Big[\sum_{j=0}^{d/2-1} h_j\, e^{\,i s \theta_j}\Big],\qquad \theta_j = 10000^{-2j/d}"
    )
    bound = _pi_bound(int(STATE.state()["seed"]))
    _chart(figures.pi_figure(bound, **look), "pi")
    st.caption(text.pi_sentence(bound))


# ----------------------------------------------------------------------------- the page


def render() -> None:
    """The whole page: RoPE's rotations, context extension, presets, the experiment, PI's bound."""
    state = ui.presenter_heading(
        STATE,
        "Long context: RoPE and its extensions",
        help="Bigger text and figures for a projector, the sidebar folded away (its arrow brings it back).",
    )
    look = {"big": state["presenter"], "narrow": ui.phone_screen()}
    ui.markdown("long_context")
    STATE.show_problems()
    rotations_section(look)
    extension_section(look)
    presets_section()
    training_section(look)
    pi_section(look)
    with st.expander("Lesson link", icon=":material/ios_share:"):
        ui.lesson_link(LONG_CONTEXT, STATE.state(), PAGE)
    STATE.write_url()
