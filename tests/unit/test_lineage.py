"""Where a map came from (rulekit/runtime/lineage.py): the keys put and remove_key changed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from rulekit.runtime import lineage
from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.memory import Memory


@pytest.fixture
def memory() -> Iterator[Memory]:
    """A program's memory of its own: what other tests (or games) made is not in it."""
    yield Memory()


def call(memory: Memory, name: str, *args: Any) -> Any:
    return BUILTINS[name].bind(memory)(*args)


def test_the_keys_changed_along_a_chain_of_puts_and_removals_are_known(memory: Memory) -> None:
    start = {(0, 0): "a", (1, 0): "b"}
    one = call(memory, "put", start, (2, 0), "c")
    two = call(memory, "remove_key", one, (0, 0))
    three = call(memory, "put", two, (1, 0), "d")
    assert memory.lineage.changed_keys(three, start, 8) == [(1, 0), (0, 0), (2, 0)]
    assert memory.lineage.changed_keys(two, one, 8) == [(0, 0)]


def test_no_answer_for_unrelated_maps_too_long_a_chain_or_a_copy(memory: Memory) -> None:
    start = {(0, 0): "a"}
    current = start
    for x in range(1, 5):
        current = call(memory, "put", current, (x, 0), x)
    assert memory.lineage.changed_keys(current, start, 3) is None  # four changes, at most three asked
    assert memory.lineage.changed_keys(current, {(0, 0): "a"}, 8) is None  # an equal map, not the same
    assert memory.lineage.changed_keys(dict(current), start, 8) is None  # a copy was not made by put
    assert memory.lineage.changed_keys(start, current, 8) is None  # the other way round


def test_only_the_last_maps_made_are_remembered(memory: Memory) -> None:
    start = {(0, 0): "a"}
    made = call(memory, "put", start, (1, 0), "b")
    for i in range(lineage.LIMIT):  # others made since
        call(memory, "put", {}, i, i)
    assert memory.lineage.changed_keys(made, start, 8) is None


def test_maps_made_with_another_programs_memory_do_not_sweep_this_ones(memory: Memory) -> None:
    """What other tests or games made (in their own memory) cannot push a chain out of this
    one: the chain test above gives the same answer whichever tests ran before it."""
    start = {(0, 0): "a"}
    one = call(memory, "put", start, (1, 0), "b")
    other = Memory()
    for i in range(lineage.LIMIT - 1):  # one more map in this memory would sweep it
        call(other, "put", {}, i, i)
    two = call(memory, "put", one, (2, 0), "c")
    for i in range(lineage.LIMIT - 1):
        call(other, "put", {}, i, i)
    assert memory.lineage.changed_keys(two, start, 8) == [(2, 0), (1, 0)]
