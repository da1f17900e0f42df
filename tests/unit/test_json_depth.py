"""rulekit.limits.json_too_deep: JSON nesting bounded before a parser recurses."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rulekit.limits import json_too_deep


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


def test_brackets_inside_strings_do_not_count_but_real_nesting_does() -> None:
    assert not json_too_deep(json.dumps(["[" * 500, '{\\"[']), 3)
    assert json_too_deep("[" * 4 + "]" * 4, 3)
    assert not json_too_deep("[" * 3 + "]" * 3, 3)
    assert json_too_deep("[" * 100_000, 100)


json_values = st.recursive(
    st.none() | st.integers() | st.text('[]{}"\\ab'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text('[{a"'), inner, max_size=3),
    max_leaves=20,
)


@given(value=json_values, limit=st.integers(0, 8))
def test_it_says_too_deep_exactly_when_the_value_nests_beyond_the_limit(value: object, limit: int) -> None:
    assert json_too_deep(json.dumps(value), limit) == (_depth(value) > limit)
