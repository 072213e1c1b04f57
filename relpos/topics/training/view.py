"""Widgets of the "Train a tiny head" page (pages/training.py).

The page's settings are one dict (schema :data:`relpos.topics.training.schema.TRAINING`), read
from the URL on the first run and mirrored back into it. Training runs only when asked
(the **Train** button, the "train short, test long" button) and goes through
``st.cache_data``: a class pressing Train with the same settings shares one run, and a
session that asks while another computes waits for it. The cached functions return
plain data (trained heads, the accuracy table), never figures; each draws its own
progress bar, which Streamlit replays, finished, on a cache hit.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import relpos
from relpos import ui
from relpos.core.trained_presets import TRAINED_PRESETS
from relpos.core.training import TrainedHead
from relpos.core.training_eval import LengthTable
from relpos.topics.training import figures, tables, text
from relpos.topics.training.schema import ALL_SCHEMES, TRAINING, TRAINING_STEP_CHOICES

PAGE = "training"  # url_path
STATE = ui.PageState("training", TRAINING)  # the run's settings; the page's widgets are "training.<name>"
RUN = "training:run"  # the settings of the last Train press
TABLE = "training:table"  # the settings whose "train short, test long" table was asked for
DRAWN = "training:drawn"  # (settings, table) drawn by Train in this run, so its bar shows once

#: The head's fixed sizes (the trainer's defaults), quoted on the page.
VOCAB = 16
#: Test lengths of the "train short, test long" table, as multiples of L.
FACTORS = (1, 2, 4)
#: Progress bar updates per training run (more would only cost messages).
BAR_UPDATES = 50

#: What the schemes that learn no position parameter do instead.
FIXED_POSITIONS = {
    "none": "This head has no position information at all: it learns nothing about position, "
    "and a copying task can only be guessed from the mix of tokens it sees.",
    "sinusoidal": "Sinusoidal positions are fixed vectors added to the tokens: nothing about position is learned "
    "here (the projections learn how to read them).",
    "rope": "RoPE rotates queries and keys by fixed angles: nothing about position is learned here "
    "(the projections learn how to use the rotations).",
}


def run_key(state: dict) -> tuple:
    """Everything a training run depends on (the trainer's other settings are fixed)."""
    return tuple(state[name] for name in ("task", "scheme", "L", "k", "steps", "seed"))


def table_key(state: dict) -> tuple:
    """Everything the "train short, test long" table depends on (every scheme is trained)."""
    return tuple(state[name] for name in ("task", "L", "k", "steps", "seed"))


def _scheme_name(scheme: str) -> str:
    return "all schemes at once" if scheme == ALL_SCHEMES else relpos.TRAINING_SCHEMES[scheme]


def sidebar(state: dict) -> None:
    """The run's settings; each widget writes its value into the page state."""
    with st.sidebar:
        st.subheader("Training run")
        st.selectbox(
            "Task",
            list(relpos.TRAINING_TASKS),
            format_func=relpos.TRAINING_TASKS.get,
            **STATE.bind("task"),
        )
        st.selectbox(
            "Position scheme",
            [*relpos.TRAINING_SCHEMES, ALL_SCHEMES],
            format_func=_scheme_name,
            **STATE.bind("scheme"),
        )
        st.slider("Training length L", *TRAINING.bounds("L", state), **STATE.bind("L"))
        st.slider(
            "Shaw: clipping distance k",
            *TRAINING.bounds("k", state),
            **STATE.bind("k"),
            help="Only the Shaw scheme uses k: offsets below −k share the row of −k. The head is causal, so the "
            "rows after the query (+1 … +k) are never trained.",
        )
        steps = sorted(set(TRAINING_STEP_CHOICES) | {state["steps"]})
        st.select_slider("Training steps (Adam updates)", steps, **STATE.bind("steps"))
        st.number_input(
            "Seed",
            *TRAINING.bounds("seed", state),
            **STATE.bind("seed"),
            help="Seeds the initial parameters, the training batches and the test sequences.",
        )
        st.caption(f"Fixed: vocabulary {VOCAB} tokens, width d = 16, batch 32, Adam learning rate 0.01.")


def _bar_callback(bar, label: str):
    """A ``progress(step, steps, loss)`` for the trainer that moves `bar` about 50 times a run."""

    def progress(step: int, steps: int, loss: float) -> None:
        if step == steps or step % max(1, steps // BAR_UPDATES) == 0:
            bar.progress(step / steps, text=f"{label}: step {step} of {steps}, loss {loss:.3f}")

    return progress


#: Shown while a run computes, or while a session waits for the same run another one started.
WAITING = "Training, or waiting for the same run that another session started…"


@st.cache_data(show_spinner=WAITING, max_entries=64)
def train_one(task: str, scheme: str, length: int, k: int, steps: int, seed: int) -> TrainedHead:
    """One trained head (cached; the progress bar is drawn inside, so a hit replays it finished)."""
    name = relpos.TRAINING_SCHEMES[scheme]
    bar = st.progress(0.0, text=f"Training {name}…")
    head = relpos.train_head(
        task, scheme, length=length, k=k, steps=steps, seed=seed, vocab=VOCAB, progress=_bar_callback(bar, name)
    )
    bar.progress(1.0, text=f"Trained {name}: {steps} steps, final loss {head.losses[-1]:.4f}")
    return head


@st.cache_data(show_spinner=WAITING, max_entries=32)
def length_table(task: str, length: int, k: int, steps: int, seed: int) -> LengthTable:
    """Every scheme trained at L and tested at L, 2L, 4L (cached, with its own progress bar)."""
    total = len(relpos.TRAINING_SCHEMES)
    bar = st.progress(0.0, text=f"Training {total} schemes, one after another…")

    def progress(done: int, count: int, scheme: str) -> None:
        bar.progress(done / count, text=f"{done} of {count} schemes trained and tested ({_scheme_name(scheme)})")

    table = relpos.train_short_test_long(
        task, length=length, factors=FACTORS, k=k, steps=steps, seed=seed, vocab=VOCAB, progress=progress
    )
    bar.progress(1.0, text=f"{total} schemes trained ({steps} steps each) and tested at {len(FACTORS)} lengths")
    return table


def trained_heads(state: dict) -> dict[str, TrainedHead]:
    """The heads of the current settings: one scheme, or all of them (the table's runs)."""
    if state["scheme"] == ALL_SCHEMES:
        table = length_table(state["task"], state["L"], state["k"], state["steps"], state["seed"])
        st.session_state[TABLE] = table_key(state)
        st.session_state[DRAWN] = (table_key(state), table)
        return dict(zip(table.schemes, table.heads, strict=True))
    head = train_one(state["task"], state["scheme"], state["L"], state["k"], state["steps"], state["seed"])
    return {state["scheme"]: head}


def train_controls(state: dict) -> dict[str, TrainedHead] | None:
    """The Train button; the trained heads once Train was pressed for these settings, else None."""
    label = "Train all schemes" if state["scheme"] == ALL_SCHEMES else f"Train: {_scheme_name(state['scheme'])}"
    if st.button(label, type="primary", key=STATE.key("train"), icon=":material/model_training:"):
        st.session_state[RUN] = run_key(state)
    if st.session_state.get(RUN) == run_key(state):
        return trained_heads(state)
    if RUN in st.session_state:
        st.info("The settings changed since the last run: press Train to train with these.", icon=":material/refresh:")
    else:
        st.info("Nothing trained yet: press Train. A default run takes about a second.", icon=":material/play_arrow:")
    return None


def detail_scheme(heads: dict[str, TrainedHead]) -> str:
    """The scheme whose parameters and attention are shown (a choice only when all were trained)."""
    if len(heads) == 1:
        return next(iter(heads))
    return st.selectbox(
        "Show the learned parameters and attention of",
        list(heads),
        index=list(heads).index("shaw"),
        format_func=_scheme_name,
        key=STATE.key("detail"),
    )


def loss_section(heads: dict[str, TrainedHead]) -> None:
    st.header("1 · The training loss")
    losses = {scheme: head.losses for scheme, head in heads.items()}
    ui.plotly(figures.loss_figure(losses, vocab=VOCAB), key=STATE.key("fig.loss"))
    if len(heads) == 1:
        st.caption(text.loss_summary(next(iter(losses.values())), vocab=VOCAB))
    else:
        final = ", ".join(f"{_scheme_name(s)} {head.losses[-1]:.3f}" for s, head in heads.items())
        st.caption(f"Final loss: {final}.")


def _snapshot_slider(head: TrainedHead, key: str) -> int:
    """Pick a snapshot by the number of updates done (default: the trained head); its index."""
    steps = [int(s) for s in head.snapshot_steps]
    chosen = st.select_slider(
        "Training progress: parameters after this many steps (drag from 0 to watch them form)",
        steps,
        value=steps[-1],
        key=key,
    )
    return steps.index(chosen)


def _offset_bars(head: TrainedHead, scheme: str) -> None:
    """Bias per offset over training (Shaw, T5) or the fixed ALiBi penalty, as bars."""
    k = head.settings.k if scheme == "shaw" else None
    every = [relpos.offset_biases(head, snapshot=s)[1] for s in range(len(head.snapshots))]  # m × (L,)
    index = _snapshot_slider(head, STATE.key(f"snapshot.{scheme}")) if scheme != "alibi" else len(every) - 1
    offsets, biases = relpos.offset_biases(head, snapshot=index)
    step = int(head.snapshot_steps[index])
    y_title = "mean bias added to the score" if scheme == "shaw" else "bias added to the score"
    fig = figures.offset_bias_figure(
        offsets,
        biases,
        title=text.bias_chart_title(scheme, step),
        y_title=y_title,
        k=k,
        y_range=figures.bias_range(every),
    )
    ui.plotly(fig, key=STATE.key("fig.bias"))
    settings = head.settings
    st.caption(
        text.offset_bars_caption(scheme, offsets, biases, step=step, k=settings.k, length=settings.length, vocab=VOCAB)
    )
    ui.chart_tables(
        {text.bias_chart_title(scheme, step): tables.offset_bias_frame(offsets, biases)},
        key=STATE.key("tables.bias"),
        label="Numbers as tables (screen-reader friendly)",
        decimals=4,
    )


def _position_vectors(head: TrainedHead) -> None:
    """The learned absolute position vectors over training, as a heatmap."""
    snapshots = head.position_snapshots  # (m, L, d)
    index = _snapshot_slider(head, STATE.key("snapshot.absolute"))
    step = int(head.snapshot_steps[index])
    limit = float(np.abs(snapshots).max()) or 1.0
    title = f"Learned absolute position vectors, step {step}"
    fig = figures.position_vectors_figure(snapshots[index], title=title, limit=limit)
    ui.plotly(fig, key=STATE.key("fig.positions"))
    st.caption(
        f"One row per position 1 … {head.settings.length}, one column per feature; the same colour range at "
        "every step. Positions beyond L have no row of their own: they read row L."
    )


def position_section(head: TrainedHead) -> None:
    """What the head learned about position, step by step, and how a shared row learns."""
    scheme = head.settings.scheme
    st.header("2 · What it learned about position")
    if scheme in ("shaw", "t5", "alibi"):
        _offset_bars(head, scheme)
    elif scheme == "absolute":
        _position_vectors(head)
    else:
        st.info(FIXED_POSITIONS[scheme], icon=":material/info:")
    ui.markdown("training_gradient")
    st.latex(
        r"\frac{\partial \mathcal{L}}{\partial a^K_r} \;=\; \sum_{(i,\,j):\ \operatorname{clip}(j-i,\,k) = r - k}"
        r" \frac{\partial \mathcal{L}}{\partial e_{ij}}\;\frac{q_i}{\sqrt{d}}"
    )
    ui.markdown("training_gradient_after")
    st.page_link("pages/efficiency.py", label="The placement, forward: Efficient computation", icon=":material/speed:")
    _trained_preset_link(head)


def _trained_preset_link(head: TrainedHead) -> None:
    """Shaw's learned table at work in the Position effects experiment, as its trained preset."""
    preset = f"trained_{head.settings.task}"
    if head.settings.scheme != "shaw" or preset not in TRAINED_PRESETS:
        return
    label, _ = TRAINED_PRESETS[preset]
    st.page_link(
        "pages/position_effects.py",
        label=f'Position effects, preset "{label}": this task\'s Shaw table (default training) on random tokens',
        icon=":material/tune:",
        query_params={"preset": preset},
    )


def attention_section(head: TrainedHead) -> None:
    """The trained head's attention on one fresh test sequence, at L and at 4L side by side."""
    settings = head.settings
    length, longest = settings.length, settings.length * FACTORS[-1]
    st.header(f"3 · Attention on a test sequence: L = {length} and {FACTORS[-1]}L = {longest}")
    # a stream apart from the training batches: the test sequences of the accuracy table
    tokens = relpos.task_sequences(settings.task, longest, vocab=settings.vocab, seed=settings.seed).tokens[0]
    weights = relpos.attention_pattern(head, tokens)  # (4L, 4L)
    patterns = {
        text.length_label(length, length): weights[:length, :length],
        text.length_label(longest, length): weights,
    }
    name = relpos.TRAINING_SCHEMES[settings.scheme]
    for (label, matrix), column in zip(patterns.items(), st.columns(2), strict=True):
        with column:
            fig = figures.attention_figure(matrix, title=f"{name}: weights at {label}", trained_length=length)
            ui.plotly(fig, key=STATE.key(f"fig.attention.{label}"))
    st.caption(text.attention_summary(patterns, settings.task))
    ui.markdown("training_attention")
    tables_shown = {f"Weights at {label}": matrix for label, matrix in patterns.items()}
    ui.matrix_tables(tables_shown, key=STATE.key("tables.attention"))


def length_section(state: dict) -> None:
    """Train short, test long: every scheme, accuracy at L, 2L, 4L (computed when asked)."""
    st.header("4 · Train short, test long")
    drawn_key, table = st.session_state.pop(DRAWN, (None, None))
    ui.markdown("training_length")
    label = "Train every scheme and test at L, 2L and 4L"
    asked = st.button(label, key=STATE.key("table"), icon=":material/table_chart:")
    if asked:
        st.session_state[TABLE] = table_key(state)
    if st.session_state.get(TABLE) != table_key(state):
        st.caption(
            f"{len(relpos.TRAINING_SCHEMES)} training runs (one per scheme) of {state['steps']} steps each: "
            "a few seconds at the default settings, "
            "up to about half a minute at the largest."
        )
        return
    if drawn_key != table_key(state):  # not yet drawn by Train in this run: compute or replay it here
        table = length_table(state["task"], state["L"], state["k"], state["steps"], state["seed"])
    frame = tables.accuracy_frame(table.schemes, table.lengths, table.accuracy)
    left, right = st.columns([2, 3])
    with left:
        ui.labelled_table(frame, decimals=text.TABLE_DECIMALS, caption="Next-token accuracy, percent.", stretch=True)
    with right:
        fig = figures.accuracy_figure(table.schemes, table.lengths, table.accuracy, vocab=VOCAB)
        ui.plotly(fig, key=STATE.key("fig.accuracy"))
    names = [relpos.TRAINING_SCHEMES[scheme] for scheme in table.schemes]
    sentences = text.length_summary(names, table.lengths, table.accuracy, vocab=VOCAB)
    st.markdown("\n".join(f"- {sentence}" for sentence in sentences))
    ui.download_buttons(
        [ui.Download("accuracy table.csv", "training_accuracy.csv", _csv(frame.reset_index()))],
        columns=3,
        key=STATE.key("table.download"),
    )


def _csv(frame) -> bytes:
    """UTF-8 CSV with a byte-order mark (spreadsheets then read "−" right), full precision."""
    return frame.to_csv(index=False).encode("utf-8-sig")


def export_section(state: dict, heads: dict[str, TrainedHead] | None) -> None:
    """Lesson link, and the loss history and learned tables as CSV once something was trained."""
    with st.expander("Lesson link and downloads", icon=":material/ios_share:"):
        ui.lesson_link(TRAINING, state, PAGE)
        if heads is None:
            st.caption("Train first: the loss history and the learned tables can then be downloaded here.")
            return
        files = [ui.Download("loss history.csv", "training_loss.csv", _csv(tables.loss_frame(heads)))]
        for scheme, head in heads.items():
            if head.position_parameter is not None:
                files.append(
                    ui.Download(
                        f"learned {head.position_parameter} ({scheme}).csv",
                        f"training_{scheme}_{head.position_parameter}.csv",
                        _csv(tables.position_frame(head)),
                    )
                )
        ui.download_buttons(files, columns=2, key=STATE.key("download"))


def render() -> None:
    """The whole page: train heads live, watch a^K learn, test them on longer sequences."""
    st.title("Train a tiny head")
    ui.markdown("training")
    state = STATE.state()
    STATE.show_problems()
    sidebar(state)

    heads = train_controls(state)
    if heads is not None:
        loss_section(heads)
        head = heads[detail_scheme(heads)]
        position_section(head)
        attention_section(head)
    length_section(state)
    export_section(state, heads)
    STATE.write_url()
