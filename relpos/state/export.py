"""Scenario files and reproduction snippets for the pages with lesson links.

A scenario file is JSON: a small envelope naming the page, the page's state (as its
:class:`relpos.state.codec.Schema` types it) and, for the reader's convenience, the arrays
that state produces. Uploading the file restores the state; the arrays are
recomputed, never read back. No Streamlit.
"""

from __future__ import annotations

import json

import numpy as np

from relpos.lessons import effects
from relpos.state.codec import Schema, StateError, read_json

__all__ = [
    "FORMAT",
    "VERSION",
    "effects_snippet",
    "explorer_snippet",
    "load_scenario",
    "scenario_json",
    "walkthrough_snippet",
]

FORMAT = "relpos-scenario"
VERSION = 1
_PAGE_NAMES = {"explorer": "Explorer", "position_effects": "Position effects", "worked_example": "Walkthrough"}


def scenario_json(page: str, schema: Schema, state: dict, computed: dict | None = None) -> str:
    """JSON text of a page's scenario.

    Parameters
    ----------
    page : str
        The page's url_path, e.g. ``"explorer"``.
    schema : Schema
        The page's state schema.
    state : dict
        A valid state of that schema.
    computed : dict of str to array_like, optional
        Arrays derived from the state, written for the reader and ignored on upload.

    Examples
    --------
    >>> from relpos.state.schemas import EXPLORER
    >>> text = scenario_json("explorer", EXPLORER, EXPLORER.decode({}).state)
    >>> json.loads(text)["state"]["q"]
    [1.0, 0.5, 0.8, 0.3]
    """
    document = {"format": FORMAT, "version": VERSION, "page": page, "state": schema.to_json(state)}
    if computed:
        document["computed (read-only, recomputed on upload)"] = {
            name: np.round(np.asarray(values, dtype=float), 6).tolist() for name, values in computed.items()
        }
    return json.dumps(document, indent=1, ensure_ascii=False)


def load_scenario(data: bytes | str, page: str, schema: Schema) -> dict:
    """State from an uploaded scenario file; StateError listing every problem otherwise.

    Examples
    --------
    >>> from relpos.state.schemas import EXPLORER
    >>> load_scenario(scenario_json("explorer", EXPLORER, EXPLORER.decode({"n": "3"}).state), "explorer", EXPLORER)["n"]
    3
    >>> load_scenario('{"format": "relpos-scenario", "version": 1, "page": "explorer", "state": {"n": "4"}}',
    ...               "explorer", EXPLORER)
    Traceback (most recent call last):
    ...
    relpos.state.codec.StateError: n: expected an integer from 2 to 512; got a string
    """
    document = read_json(data)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise StateError([f'not a relpos scenario file: expected a JSON object with "format": "{FORMAT}"'])
    if document.get("version") != VERSION:
        raise StateError(
            [f"unsupported scenario version {document.get('version')!r}; this app reads version {VERSION}"]
        )
    if document.get("page") != page:
        other = _PAGE_NAMES.get(document.get("page"))
        where = f"the {other} page" if other else "another page"
        raise StateError([f"this scenario belongs to {where}; open that page to load it"])
    if "state" not in document:
        raise StateError(['the file has no "state" object'])
    return schema.from_json(document["state"])


def _array_text(array: np.ndarray) -> str:
    rows = ", ".join("[" + ", ".join(repr(round(float(v), 6)) for v in row) + "]" for row in array)
    return f"np.array([{rows}])"


def explorer_snippet(state: dict, queries, keys, table, *, inline_limit: int = 16) -> str:
    """Python code that recomputes the Explorer's numbers with relpos.

    Up to ``inline_limit`` tokens the arrays are written out; longer sequences are
    regenerated from the preset and seed, exactly as the page does.

    Examples
    --------
    >>> from relpos.state.schemas import EXPLORER, explorer_inputs
    >>> state = EXPLORER.decode({}).state
    >>> inputs = explorer_inputs(state)
    >>> import contextlib, io
    >>> namespace = {}
    >>> with contextlib.redirect_stdout(io.StringIO()):  # the snippet prints every matrix
    ...     exec(explorer_snippet(state, inputs.queries, inputs.keys, inputs.table), namespace)
    >>> namespace["result"].scores[0]
    array([ 1. ,  0.5, -0.1,  0.7])
    """
    Q, K, A = (np.asarray(x, dtype=float) for x in (queries, keys, table))
    n, d = Q.shape
    k = (A.shape[0] - 1) // 2
    lines = [
        "import numpy as np",
        "",
        "import relpos",
        "",
        f"# Explorer: n = {n} tokens, d = {d}, clipping distance k = {k}, preset {state['preset']!r}, "
        f"seed {state['seed']}",
    ]
    if n <= inline_limit:
        lines += [
            f"Q = {_array_text(Q)}  # queries, (n, d)",
            f"K = {_array_text(K)}  # keys, (n, d)",
            f"A_K = {_array_text(A)}  # a^K for offsets -{k}..+{k}, (2k+1, d)",
        ]
    else:
        lines += [
            "from relpos.lessons.presets import explorer_inputs, preset_values",
            "",
            f"q, keys, table = preset_values({state['preset']!r}, {n}, {k}, seed={state['seed']})",
        ]
        if state.get("a") is not None:
            lines.append(f"table = np.array({[round(float(v), 6) for v in state['a']]})  # the a^K sliders")
        lines += [
            f"inputs = explorer_inputs(q, keys, table, d={d}, preset={state['preset']!r}, seed={state['seed']})",
            "Q, K, A_K = inputs.queries, inputs.keys, inputs.table  # (n, d), (n, d), (2k+1, d)",
        ]
    lines.append("")
    if state["bias"] == "scalar":
        lines += [
            "# query-independent bias: one scalar per offset (the first column of A_K), added as is",
            "result = relpos.scalar_bias_attention(Q, K, A_K[:, 0])",
        ]
    else:
        lines += [
            "# Shaw et al.: content q_i·k_j and bias q_i·a^K_clip(j-i,k), both divided by sqrt(d)",
            "result = relpos.relative_attention(Q, K, A_K=A_K)",
        ]
    lines += [
        "print(result.content.round(4))  # content scores",
        "print(result.bias.round(4))  # position biases",
        "print(result.scores.round(4))  # combined scores",
        "print(result.content_weights.round(4))  # content-only weights",
        "print(result.weights.round(4))  # combined weights",
        "",
    ]
    return "\n".join(lines)


def effects_snippet(state: dict) -> str:
    """Python code that recomputes the Position effects page's numbers with relpos.

    Examples
    --------
    >>> from relpos.state.schemas import EFFECTS
    >>> import contextlib, io
    >>> namespace = {}
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     exec(effects_snippet(EFFECTS.decode({}).state), namespace)
    >>> namespace["result"].scores.shape
    (6, 6)
    """
    lines = ["import relpos", "from relpos.lessons.effects import position_effects_inputs", ""]
    profile = ""
    if effects.is_trained(state["preset"]):
        lines += [
            "from relpos.lessons.trained_presets import preset_profile, train_preset_head",
            "",
            "# the preset's head: Shaw, trained live with fixed settings (deterministic, about a second)",
            f"head = train_preset_head({state['preset']!r}, {state['k']})",
            "# its mean bias per offset, centred and scaled so the favoured offset holds 1",
            f"profile = preset_profile(head, {state['k']})",
            "",
        ]
        profile = ", profile=profile"
    return "\n".join(
        [
            *lines,
            "# seeded X (n, d_model), W_q and W_k (d_model, d_k) and a^K (2k+1, d_k)",
            f"inputs = position_effects_inputs({state['n']}, {state['k']}, d_model={state['dmodel']}, "
            f"d_k={state['dk']}, seed={state['seed']}, pattern={state['preset']!r}, "
            f"strength={state['strength']!r}, shared={state['shared']!r}{profile})",
            "# both the content and the position term are divided by sqrt(d_k) (Shaw et al., eq. 4)",
            "result = relpos.relative_attention(inputs.queries, inputs.keys, A_K=inputs.table)",
            "print(result.content.round(3))  # content scores",
            "print(result.bias.round(3))  # position biases",
            "print(result.content_weights.round(3))  # content-only weights",
            "print(result.weights.round(3))  # combined weights",
            "",
        ]
    )


def _numbers(values) -> str:
    """A Python list of exact floats (repr round-trips), so the snippet reproduces the page exactly."""
    return "[" + ", ".join(repr(float(v) + 0.0) for v in values) + "]"


def walkthrough_snippet(state: dict) -> str:
    """Python code that recomputes the walkthrough's numbers with relpos, and the current stop.

    Parameters
    ----------
    state : dict
        A valid :data:`relpos.state.schemas.WALKTHROUGH` state.

    Examples
    --------
    >>> from relpos.state.schemas import WALKTHROUGH
    >>> import contextlib, io
    >>> namespace, printed = {}, io.StringIO()
    >>> with contextlib.redirect_stdout(printed):
    ...     exec(walkthrough_snippet(WALKTHROUGH.decode({"i": "1", "j": "4"}).state), namespace)
    >>> namespace["result"].scores[0]
    array([ 1. ,  0.5, -0.1,  0.7])
    >>> printed.getvalue().splitlines()[-2:]
    ['offset 3 -> clipped 2', 'content 1.2 + position -0.5 = score 0.7']
    """
    k, i, j = state["k"], state["i"], state["j"]
    offsets = f"offsets -{k}..+{k} (row r is offset r - k)" if k else "offset 0 only (k = 0)"
    lines = [
        "import numpy as np",
        "",
        "import relpos",
        "",
        f"# Walkthrough: {len(state['q'])} tokens, d = 1 (one number per vector), clipping distance k = {k}",
        f"q = np.array({_numbers(state['q'])})  # queries q_1..q_n",
        f"keys = np.array({_numbers(state['keys'])})  # keys k_1..k_n",
        f"a_K = np.array({_numbers(state['a'])})  # a^K for {offsets}",
        "",
        "# e_ij = q_i k_j + q_i a^K_clip(j-i, k); with d = 1 the scale 1/sqrt(d) is 1",
        "result = relpos.relative_attention(q, keys, A_K=a_K)",
        "print(result.scores.round(4))  # combined scores e_ij (rows: queries i, columns: keys j)",
        "print(result.content_weights.round(3))  # softmax of the content scores alone",
        "print(result.weights.round(3))  # softmax of the combined scores",
        "",
    ]
    if j == "softmax":
        lines += [
            f"i = {i - 1}  # query row {i} (code counts from 0)",
            "print('content only:', result.content_weights[i].round(3))",
            "print('combined:    ', result.weights[i].round(3))",
        ]
    else:
        lines += [
            f"i, j = {i - 1}, {int(j) - 1}  # the current pair ({i}, {j}); code counts from 0",
            "print('offset', j - i, '-> clipped', result.offsets[i, j])",
            "print('content', result.content[i, j].round(4), '+ position', result.bias[i, j].round(4),",
            "      '= score', result.scores[i, j].round(4))",
        ]
    return "\n".join(lines) + "\n"
