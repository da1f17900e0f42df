"""Square-grid geometry built-ins: cells, directions, neighbours and lines.

A *cell* is an ``(x, y)`` tuple; ``x`` grows to the east and ``y`` to the
south, as on a printed board read from its top-left corner.  A *direction* is
an ``(dx, dy)`` step.  A *grid* is a map from cells to whatever stands there
(a player, a record...); a cell that is not a key of the map is empty.

Every built-in here is bounded by its arguments: lines stop at the first cell
whose value differs, so a walk is never longer than the grid has cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rulekit.dsl.types import BOOL, INT, MAP, STR, TUPLE, list_of
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.registry import register

Cell = tuple[int, int]

#: Named direction sets, each listed clockwise from north (lines: east, south, the two diagonals).
DIRECTIONS: dict[str, tuple[Cell, ...]] = {
    "orthogonal": ((0, -1), (1, 0), (0, 1), (-1, 0)),
    "diagonal": ((1, -1), (1, 1), (-1, 1), (-1, -1)),
    "all": ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)),
    "lines": ((1, 0), (0, 1), (1, 1), (1, -1)),
}

_MAX_CELLS = 100_000


def _cell(value: Any, what: str) -> Cell:
    if (
        not isinstance(value, tuple | list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise RuleFailure(f"{what} must be a pair of integers (x, y), not {value!r}")
    return (value[0], value[1])


@register(
    "directions",
    [("which", STR)],
    list_of(TUPLE),
    'The (dx, dy) steps of a named set: "orthogonal" (N, E, S, W), "diagonal" (NE, SE, SW, NW), '
    '"all" (the eight, clockwise from north) or "lines" (E, S, SE, NE: one per line through a cell).',
    example='directions("orthogonal") == [(0, -1), (1, 0), (0, 1), (-1, 0)]',
    choices={0: tuple(DIRECTIONS)},
)
def _directions(which: str) -> tuple[Cell, ...]:
    found = DIRECTIONS.get(which)
    if found is None:
        raise RuleFailure(f"directions: unknown set {which!r} (known: {', '.join(map(repr, DIRECTIONS))})")
    return found


@register(
    "all_neighbors",
    [("cell", TUPLE)],
    list_of(TUPLE),
    "The eight neighbours of an (x, y) cell, diagonals included, clockwise from north.",
    example="all_neighbors((0, 0)) == [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)]",
)
def _all_neighbors(cell: Sequence[int]) -> tuple[Cell, ...]:
    x, y = _cell(cell, "all_neighbors: the cell")
    return tuple((x + dx, y + dy) for dx, dy in DIRECTIONS["all"])


@register(
    "diagonal_neighbors",
    [("cell", TUPLE)],
    list_of(TUPLE),
    "The four diagonal neighbours of an (x, y) cell: north-east, south-east, south-west, north-west.",
    example="diagonal_neighbors((0, 0)) == [(1, -1), (1, 1), (-1, 1), (-1, -1)]",
)
def _diagonal_neighbors(cell: Sequence[int]) -> tuple[Cell, ...]:
    x, y = _cell(cell, "diagonal_neighbors: the cell")
    return tuple((x + dx, y + dy) for dx, dy in DIRECTIONS["diagonal"])


@register(
    "shift",
    [("cell", TUPLE), ("direction", TUPLE), ("times", INT)],
    TUPLE,
    "The cell reached from an (x, y) cell by times steps (default 1) in a (dx, dy) direction.",
    optional=1,
    example="shift((2, 3), (1, -1), 2) == (4, 1)",
)
def _shift(cell: Sequence[int], direction: Sequence[int], times: int = 1) -> Cell:
    x, y = _cell(cell, "shift: the cell")
    dx, dy = _cell(direction, "shift: the direction")
    return (x + dx * times, y + dy * times)


@register(
    "grid_cells",
    [("width", INT), ("height", INT)],
    list_of(TUPLE),
    "Every (x, y) cell of a width x height board, row by row from (0, 0) (at most 100000 cells).",
    example="grid_cells(2, 2) == [(0, 0), (1, 0), (0, 1), (1, 1)]",
)
def _grid_cells(width: int, height: int) -> tuple[Cell, ...]:
    if max(0, width) * max(0, height) > _MAX_CELLS:
        raise RuleFailure(f"grid_cells() is limited to {_MAX_CELLS} cells")
    return tuple((x, y) for y in range(height) for x in range(width))


@register(
    "in_grid",
    [("cell", TUPLE), ("width", INT), ("height", INT)],
    BOOL,
    "Whether an (x, y) cell lies on a width x height board whose corner is (0, 0).",
    example="in_grid((6, 5), 7, 6) and not in_grid((7, 0), 7, 6)",
)
def _in_grid(cell: Sequence[int], width: int, height: int) -> bool:
    x, y = _cell(cell, "in_grid: the cell")
    return 0 <= x < width and 0 <= y < height


@register(
    "line",
    [("cell", TUPLE), ("direction", TUPLE), ("n", INT)],
    list_of(TUPLE),
    "The n cells in a row starting at an (x, y) cell and going in a (dx, dy) direction (cell first).",
    example="line((0, 5), (1, -1), 3) == [(0, 5), (1, 4), (2, 3)]",
)
def _line(cell: Sequence[int], direction: Sequence[int], n: int) -> tuple[Cell, ...]:
    x, y = _cell(cell, "line: the cell")
    dx, dy = _cell(direction, "line: the direction")
    if n > _MAX_CELLS:
        raise RuleFailure(f"line() is limited to {_MAX_CELLS} cells")
    return tuple((x + i * dx, y + i * dy) for i in range(max(0, n)))


def _run(grid: Mapping[Any, Any], cell: Cell, direction: Cell) -> int:
    """Cells in a row through ``cell`` along ``direction`` and its opposite holding its value."""
    if not isinstance(grid, Mapping):
        raise RuleFailure(f"run_length: the grid must be a map, not {grid!r}")
    value = grid.get(cell)
    if value is None:
        return 0
    dx, dy = direction
    if (dx, dy) == (0, 0):
        return 1
    count = 1
    for sign in (1, -1):
        x, y = cell[0] + sign * dx, cell[1] + sign * dy
        while count <= len(grid) and grid.get((x, y)) == value:
            count += 1
            x, y = x + sign * dx, y + sign * dy
    return count


@register(
    "run_length",
    [("grid", MAP), ("cell", TUPLE), ("direction", TUPLE)],
    INT,
    "How many cells in a row, through an (x, y) cell along a (dx, dy) direction and its opposite, "
    "hold the same value as that cell in the grid (a map from cells); 0 if the cell is empty.",
    example="run_length(put(put(put({}, (0, 0), 1), (1, 0), 1), (3, 0), 1), (1, 0), (1, 0)) == 2",
)
def _run_length(grid: Mapping[Any, Any], cell: Sequence[int], direction: Sequence[int]) -> int:
    return _run(grid, _cell(cell, "run_length: the cell"), _cell(direction, "run_length: the direction"))


@register(
    "n_in_a_row",
    [("grid", MAP), ("cell", TUPLE), ("n", INT), ("directions", list_of(TUPLE))],
    BOOL,
    "Whether at least n cells in a row through an (x, y) cell, along one of the (dx, dy) directions "
    '(each read both ways; directions("lines") for every line), hold the value of that cell in the grid.',
    example='n_in_a_row(put(put({}, (0, 0), 1), (1, 1), 1), (1, 1), 2, directions("lines"))',
)
def _n_in_a_row(grid: Mapping[Any, Any], cell: Sequence[int], n: int, directions: Sequence[Any]) -> bool:
    # _run for each direction in turn, written out: a named set of directions needs no check
    # (checked in the same order as before: the cell, then each direction as it comes)
    x0, y0 = _cell(cell, "n_in_a_row: the cell")
    named = any(directions is known for known in DIRECTIONS.values())
    value = None
    for index, d in enumerate(directions):
        dx, dy = d if named else _cell(d, "n_in_a_row: a direction")
        if not index:
            if not isinstance(grid, Mapping):
                raise RuleFailure(f"run_length: the grid must be a map, not {grid!r}")
            value = grid.get((x0, y0))
        if value is None:
            count = 0
        elif dx == 0 and dy == 0:
            count = 1
        else:
            count = 1
            size = len(grid)
            get = grid.get
            x, y = x0 + dx, y0 + dy
            while count <= size and get((x, y)) == value:
                count += 1
                x, y = x + dx, y + dy
            x, y = x0 - dx, y0 - dy
            while count <= size and get((x, y)) == value:
                count += 1
                x, y = x - dx, y - dy
        if count >= n:
            return True
    return False
