"""Python code that recomputes the Position effects page's numbers with relpos."""

from __future__ import annotations

from relpos.topics.position_effects import model as position_effects_model

__all__ = ["position_effects_snippet"]


def position_effects_snippet(state: dict) -> str:
    """Python code that recomputes the Position effects page's numbers with relpos.

    Examples
    --------
    >>> from relpos.topics.position_effects.schema import POSITION_EFFECTS
    >>> import contextlib, io
    >>> namespace = {}
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     exec(position_effects_snippet(POSITION_EFFECTS.decode({}).state), namespace)
    >>> namespace["result"].scores.shape
    (6, 6)
    """
    lines = ["import relpos", "from relpos.topics.position_effects.model import position_effects_inputs", ""]
    profile = ""
    if position_effects_model.is_trained(state["preset"]):
        lines += [
            "from relpos.core.trained_presets import preset_profile, train_preset_head",
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
