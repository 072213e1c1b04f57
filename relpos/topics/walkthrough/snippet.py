"""Python code that recomputes the walkthrough's numbers with relpos, and the current stop."""

from __future__ import annotations

__all__ = ["walkthrough_snippet"]


def _numbers(values) -> str:
    """A Python list of exact floats (repr round-trips), so the snippet reproduces the page exactly."""
    return "[" + ", ".join(repr(float(v) + 0.0) for v in values) + "]"


def walkthrough_snippet(state: dict) -> str:
    """Python code that recomputes the walkthrough's numbers with relpos, and the current stop.

    Parameters
    ----------
    state : dict
        A valid :data:`relpos.topics.walkthrough.schema.WALKTHROUGH` state.

    Examples
    --------
    >>> from relpos.topics.walkthrough.schema import WALKTHROUGH
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
