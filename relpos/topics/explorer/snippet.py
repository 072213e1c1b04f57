"""Python code that recomputes the Explorer's numbers with relpos, for its "Reproduce in Python" box."""

from __future__ import annotations

import numpy as np

__all__ = ["explorer_snippet"]


def _array_text(array: np.ndarray) -> str:
    rows = ", ".join("[" + ", ".join(repr(round(float(v), 6)) for v in row) + "]" for row in array)
    return f"np.array([{rows}])"


def explorer_snippet(state: dict, queries, keys, table, *, inline_limit: int = 16) -> str:
    """Python code that recomputes the Explorer's numbers with relpos.

    Up to ``inline_limit`` tokens the arrays are written out; longer sequences are
    regenerated from the preset and seed, exactly as the page does.

    Examples
    --------
    >>> from relpos.topics.explorer.schema import EXPLORER, explorer_inputs
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
            "from relpos.topics.explorer.presets import explorer_inputs, preset_values",
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
