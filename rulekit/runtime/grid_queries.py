"""Which cells of a grid hold a record with given entries: ``cells_where`` (and
``cells_of_kind``, the query on ``kind`` alone).

An answer is kept per query for the last grid asked (in the program's
:class:`GridQueries`).  In play a grid is the previous one with a cell or two changed by
``put`` or ``remove_key``; those built-ins note the key they changed
(:mod:`rulekit.runtime.lineage`), so the answer for the new grid is the previous answer
with just those cells looked at again, not a pass over every cell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulekit.dsl.types import ANY, MAP, TUPLE, list_of
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.lineage import Lineage
from rulekit.runtime.registry import register

if TYPE_CHECKING:
    from rulekit.runtime.memory import Memory

#: Queries kept at most (then forgotten all at once).
_LIMIT = 64
#: A grid more changes away from the last one asked is looked at afresh.
_PATCH_LIMIT = 8


def _holds(record: Any, query: tuple[Any, ...]) -> bool:
    """Whether ``record`` has each field of ``query`` (field, value, field, value...) equal to
    its value (a missing field, or a record that is not a map, reads as none)."""
    fields, values = query[0::2], query[1::2]
    if isinstance(record, dict):
        return tuple(map(record.get, fields)) == values
    return (None,) * len(fields) == values


def _scan(grid: dict[Any, Any], query: tuple[Any, ...]) -> tuple[Any, ...]:
    """The answer of :func:`cells_where` from scratch: one pass over the grid (written out
    for one and two fields, the usual queries)."""
    if len(query) == 2:
        field, value = query
        found = [c for c, r in grid.items() if (r.get(field) if isinstance(r, dict) else None) == value]
    elif len(query) == 4:
        pair = (query[1], query[3])
        first, second = query[0], query[2]
        found = [
            c
            for c, r in grid.items()
            if ((r.get(first), r.get(second)) if isinstance(r, dict) else (None, None)) == pair
        ]
    else:
        found = [c for c, r in grid.items() if _holds(r, query)]
    return tuple(sorted(found))


class GridQueries:
    """The answers one program keeps (in its :class:`~rulekit.runtime.memory.Memory`): per
    query (its field, value pairs), the last grid asked and the answer."""

    __slots__ = ("answers", "lineage")

    def __init__(self, lineage: Lineage | None = None) -> None:
        self.lineage = Lineage() if lineage is None else lineage
        self.answers: dict[tuple[Any, ...], tuple[dict[Any, Any], tuple[Any, ...]]] = {}

    def cells_where(self, grid: dict[Any, Any], query: tuple[Any, ...]) -> tuple[Any, ...]:
        """The sorted cells of ``grid`` whose record holds ``query`` (field, value pairs)."""
        answers = self.answers
        try:
            last = answers.get(query)
        except TypeError:  # an unhashable value: nothing kept
            return _scan(grid, query)
        if last is not None:
            if last[0] is grid:
                return last[1]
            changed = self.lineage.changed_keys(grid, last[0], _PATCH_LIMIT)
            if changed is not None:
                cells = set(last[1])
                for cell in changed:
                    cells.discard(cell)
                    if cell in grid and _holds(grid[cell], query):
                        cells.add(cell)
                found = tuple(sorted(cells))
                answers[query] = (grid, found)  # holds the grid: its id cannot be reused meanwhile
                return found
        found = _scan(grid, query)
        if len(answers) >= _LIMIT:
            answers.clear()
        answers[query] = (grid, found)
        return found


@register(
    "cells_where",
    [("grid", MAP), ("field", ANY), ("value", ANY)],
    list_of(TUPLE),
    "The cells of grid whose record has each field equal to the value after it (any number of "
    "field, value pairs; a missing field reads as none), sorted: sort([c for c in keys(grid) "
    "if grid[c].field == value and ...]) in one call, kept from one grid to the next.",
    variadic=True,
    example='cells_where(game.map, "kind", "pawn", "owner", me)',
    remembers=True,
    memory=True,
)
def _cells_where(memory: Memory, grid: dict[Any, Any], *query: Any) -> tuple[Any, ...]:
    if len(query) % 2:
        raise RuleFailure("cells_where() needs fields and values in pairs")
    return memory.grids.cells_where(grid, query)


@register(
    "cells_of_kind",
    [("grid", MAP), ("kind", ANY)],
    list_of(TUPLE),
    "The cells of grid holding a record of kind (its 'kind' entry; none: records without "
    "one), sorted: sort([c for c in keys(grid) if grid[c].kind == kind]) in one call.",
    example='cells_of_kind(record((0, 0), record("kind", "pawn")), "pawn") == [(0, 0)]',
    remembers=True,
    memory=True,
)
def _cells_of_kind(memory: Memory, grid: dict[Any, Any], kind: Any) -> tuple[Any, ...]:
    return memory.grids.cells_where(grid, ("kind", kind))
