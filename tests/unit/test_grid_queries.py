"""cells_where and cells_of_kind (rulekit/runtime/grid_queries.py): answers kept per query and
patched from one grid to the next equal an answer computed from scratch."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.memory import Memory

#: What the built-ins remember, as one program's (answers must not depend on it).
MEMORY = Memory()


def call(name: str, *args: Any) -> Any:
    return BUILTINS[name].bind(MEMORY)(*args)


def _scratch(grid: dict[Any, Any], *query: Any) -> tuple[Any, ...]:
    def holds(record: Any) -> bool:
        return all(
            (record.get(query[i]) if isinstance(record, dict) else None) == query[i + 1]
            for i in range(0, len(query), 2)
        )

    return tuple(sorted(cell for cell, record in grid.items() if holds(record)))


_RECORDS = st.one_of(
    st.fixed_dictionaries({"kind": st.sampled_from(["pawn", "tile"]), "owner": st.integers(0, 2)}),
    st.fixed_dictionaries({"kind": st.sampled_from(["pawn", "tile"])}),  # no owner
    st.fixed_dictionaries({"owner": st.integers(0, 2)}),  # no kind
    st.just(5),  # not a record
)
_CHANGES = st.tuples(
    st.integers(-2, 2), st.integers(-2, 2), st.one_of(_RECORDS, st.just("remove"), st.just("copy"))
)


@given(st.lists(_CHANGES, min_size=1, max_size=12))
def test_answers_follow_each_new_grid(changes: list[tuple[int, int, Any]]) -> None:
    """Grids made by put and remove_key (noted changes) or copied (nothing noted): after
    every step each query equals a computation from scratch, asked twice."""
    grid: dict[Any, Any] = {}
    for x, y, change in changes:
        if change == "remove":
            grid = call("remove_key", grid, (x, y))
        elif change == "copy":
            grid = dict(grid)
        else:
            grid = call("put", grid, (x, y), change)
        for query in (("kind", "pawn"), ("kind", "pawn", "owner", 1), ("owner", 0), ("kind", None)):
            expected = _scratch(grid, *query)
            assert call("cells_where", grid, *query) == expected
            assert call("cells_where", grid, *query) == expected
        assert call("cells_of_kind", grid, "tile") == _scratch(grid, "kind", "tile")


def test_an_unhashable_value_is_answered_without_keeping_anything() -> None:
    grid = {(0, 0): {"tags": ("a",)}, (1, 0): {"tags": ["a"]}}
    assert call("cells_where", grid, "tags", ["a"]) == ((1, 0),)


def test_fields_and_values_come_in_pairs() -> None:
    with pytest.raises(RuleFailure, match="in pairs"):
        call("cells_where", {}, "kind")
