"""The size of run-time values (the limit max_state_size): the remembered, derived and
C-measured sizes agree with the definition, written out plainly here."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.memory import Memory

#: One program's memory: sizes are remembered in it, and derived along put and remove_key.
MEMORY = Memory()
size_of = MEMORY.sizes.size_of
state_size = MEMORY.sizes.state_size
_put = BUILTINS["put"].bind(MEMORY)
_remove_key = BUILTINS["remove_key"].bind(MEMORY)

_KEYS = st.one_of(st.integers(-5, 5), st.text(max_size=3))
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=20).map(tuple), st.dictionaries(_KEYS, inner, max_size=20)
    ),
    max_leaves=30,
)


def _plain(value: Any) -> int:
    if isinstance(value, str):
        return max(1, len(value))
    if isinstance(value, tuple):
        return 1 + sum(_plain(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(_plain(k) + _plain(v) for k, v in value.items())
    return 1


@given(_VALUES)
def test_the_size_of_a_value_is_its_characters_elements_keys_and_values(value: Any) -> None:
    assert size_of(value) == _plain(value)
    assert size_of(value) == _plain(value)  # remembered the second time, the same


_SMALL = st.one_of(st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=3).map(tuple))


@given(
    st.dictionaries(st.integers(0, 40), _SMALL, min_size=16, max_size=24),
    st.lists(st.tuples(st.integers(0, 40), _SMALL), max_size=12),
)
def test_a_map_made_by_put_and_remove_key_is_measured_as_a_new_one(
    table: dict[Any, Any], edits: list[Any]
) -> None:
    size_of(table)  # remembered: the maps made from it are derived from it
    for number, (key, value) in enumerate(edits):
        table = _remove_key(table, key) if number % 3 == 2 else _put(table, key, value)
        assert size_of(table) == _plain(table)


@given(st.dictionaries(st.tuples(st.sampled_from("ab_"), st.sampled_from("xyz")), _SMALL, max_size=9))
def test_a_state_is_measured_field_by_field(fields: dict[Any, Any]) -> None:
    assert state_size(fields) == 1 + sum(_plain(v) for v in fields.values())
    assert state_size(fields) == 1 + sum(_plain(v) for v in fields.values())


def test_a_value_shared_in_many_places_counts_in_each_but_is_walked_once() -> None:
    value: Any = ("x",)
    for _ in range(200):  # 2**200 elements written out: measured in 200 steps
        value = (value, value)
    assert size_of(value) == 2**201 - 1 + 2**200
