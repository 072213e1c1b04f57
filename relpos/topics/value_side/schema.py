"""The value side: its URL schema. Pure."""

from __future__ import annotations

from relpos.core.value_side import value_example
from relpos.state.codec import Field, Schema, choice_field, floats_field, int_field

#: The variants' URL codes and what the page calls them (Shaw et al.'s Table 3).
VALUE_VARIANTS = {"both": "a^K and a^V", "key": "a^K only", "value": "a^V only", "neither": "neither"}
_VALUE_EXAMPLE = value_example()
_VALUE_TOKENS = _VALUE_EXAMPLE.n
_VALUE_LIMIT = 2.0


def _example_numbers(default, noun: str) -> Field:
    """One of the example's lists: a slider per entry, each from −2 to 2."""
    count = len(default)
    return floats_field(list(default), -_VALUE_LIMIT, _VALUE_LIMIT, count, min_items=count, noun=noun, step=0.05)


#: The value-side page's settings, with the example's numbers as defaults. The example's
#: n is fixed, so k's bound n − 1 is too.
VALUE_SIDE = Schema(
    {
        "k": int_field(2, 0, _VALUE_TOKENS - 1, label="clipping distance k"),
        "query": int_field(1, 1, _VALUE_TOKENS, label="query i", noun="query"),
        "variant": choice_field(
            "both", VALUE_VARIANTS, label="relative tables in use (Shaw et al.'s Table 3)", noun="variant"
        ),
        "v": _example_numbers(_VALUE_EXAMPLE.values, "values v"),
        "av": _example_numbers(_VALUE_EXAMPLE.value_table, "aⱽ table"),
        "q": _example_numbers(_VALUE_EXAMPLE.queries, "queries q"),
        "kk": _example_numbers(_VALUE_EXAMPLE.keys, "keys k"),
        "ak": _example_numbers(_VALUE_EXAMPLE.key_table, "aᴷ table"),
    }
)
