"""Tile-grid built-ins for tile-laying games: square tiles with labelled edges.

A *grid* is a map from cells ``(x, y)`` to records (maps) describing what is
placed there.  A *tile* is a record with

* ``edges``: the labels of its four edges as printed, north, east, south, west
  (any values: ``"L"``/``"W"``, ``"road"``/``"field"``...);
* ``rotation`` (optional, default 0): clockwise quarter turns it was placed
  with; its edge on side ``d`` is ``edges[(d - rotation) % 4]``;
* ``parts`` (optional): its parts as printed, a list of ``(label, sides)``.
  Without it, the parts are the maximal cyclic runs of equal edge labels;
  :func:`tile_parts` can build explicit parts (e.g. one part for all edges of
  a label);
* ``kind`` (optional): compared with the ``kind`` argument, so a grid can hold
  tiles and other pieces (records of another kind, which have no edges).

Sides are 0 north (0, -1), 1 east (1, 0), 2 south (0, 1), 3 west (-1, 0).  A
part is numbered by its position in the tile's part list and is written
``(cell, part)`` in regions.

Grids, like every state value, are never changed in place: a changed grid is a new map.
So what is derived from a grid (each tile's placed edges, the frontier, the regions) is
cached per grid object (:mod:`rulekit.runtime.tile_grid`, kept while the grid is alive in the cache), and
a placement listing costs a few dictionary look-ups per frontier cell and rotation instead
of re-rotating every neighbour's edges each time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulekit.dsl.types import ANY, ANY_LIST, BOOL, INT, MAP, TUPLE, list_of
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.registry import register
from rulekit.runtime.tile_grid import (
    NOWHERE,
    STEPS,
    Cell,
    Derived,
    Fits,
    Part,
    default_parts,
    is_tile,
    part_by_side,
    placed_edges,
    record_parts,
    step,
    tile_edges,
)

if TYPE_CHECKING:
    from rulekit.runtime.memory import Memory

# --------------------------------------------------------------- records


@register(
    "record",
    [("key", ANY), ("value", ANY)],
    MAP,
    "A new map from alternating keys and values (any number of pairs), e.g. the record "
    "describing what a grid cell holds; record() is an empty map.",
    variadic=True,
    optional=2,
    example='record("kind", "tile", "edges", ["L", "W", "W", "W"], "rotation", 1)',
)
def _record(*items: Any) -> dict[Any, Any]:
    if len(items) % 2:
        raise RuleFailure("record() needs keys and values in pairs")
    return {items[i]: items[i + 1] for i in range(0, len(items), 2)}


# ------------------------------------------------------------ single tiles


@register(
    "tile_edges",
    [("edges", ANY_LIST), ("rotation", INT)],
    ANY_LIST,
    "The four edge labels (north, east, south, west) of a tile printed with edges and "
    "placed with rotation clockwise quarter turns.",
    example='tile_edges(["L", "W", "W", "W"], 1) == ["W", "L", "W", "W"]',
)
def _tile_edges_builtin(edges: Sequence[Any], rotation: int) -> tuple[Any, ...]:
    return placed_edges(edges, rotation)


@register(
    "tile_edge",
    [("tile", MAP), ("side", INT)],
    ANY,
    "The label of a placed tile's edge on a side (0 N, 1 E, 2 S, 3 W), its rotation applied.",
    example='tile_edge(record("edges", ["L", "W", "W", "W"], "rotation", 1), 1) == "L"',
)
def _tile_edge(tile: dict[Any, Any], side: int) -> Any:
    return tile_edges(tile)[side % 4]


@register(
    "tile_parts",
    [("edges", ANY_LIST), ("joined", ANY_LIST)],
    list_of(TUPLE),
    "The parts of a tile printed with these edges, as a list of (label, sides): all edges "
    "of a label in joined form one part; every other label forms one part per maximal "
    "cyclic run of equal edges. Joined parts come first, then runs by their first side. "
    "Store the result as the tile's 'parts' to use it.",
    optional=1,
    example='tile_parts(["L", "W", "L", "W"], ["L"]) == [("L", [0, 2]), ("W", [1]), ("W", [3])]',
)
def _tile_parts(edges: Sequence[Any], joined: Sequence[Any] = ()) -> tuple[Part, ...]:
    return default_parts(edges, tuple(joined))


@register(
    "tile_part_at",
    [("tile", MAP), ("side", INT)],
    INT,
    "The index (in the tile's parts) of the part of a placed tile touching a side, or -1.",
    example='tile_part_at(record("edges", ["L", "W", "L", "W"], "rotation", 1), 0) == 3',
)
def _tile_part_at(tile: dict[Any, Any], side: int) -> int:
    return part_by_side(tile)[side % 4]


# ------------------------------------------------------------- placement


def _tile_fits_every_rotation(
    memory: Memory,
    grid: dict[Any, Any],
    cell: Sequence[int],
    edges: Sequence[Any],
    kind: Any = None,
    adjacent: bool = True,
) -> tuple[bool, bool, bool, bool]:
    """``tile_fits`` for rotations 0, 1, 2 and 3 at once (the built-in's ``cyclic`` form)."""
    tiles = memory.tiles
    derived = tiles.last
    if derived is None or derived.grid is not grid or derived.kind != kind:
        derived = tiles.derived_for(grid, kind)
    try:
        answers = derived.masks.get(cell)
        if answers is None:
            answers = derived.masks[cell] = {}
        key = edges if adjacent else (edges, False)
        found = answers.get(key)
        if found is None:
            found = answers[key] = derived.fits_at((cell[0], cell[1]), edges, adjacent)
    except TypeError:  # unhashable arguments: no caching
        found = derived.fits_at((cell[0], cell[1]), edges, adjacent)
    return found


@register(
    "tile_fits",
    [
        ("grid", MAP),
        ("cell", TUPLE),
        ("edges", ANY_LIST),
        ("rotation", INT),
        ("kind", ANY),
        ("adjacent", BOOL),
    ],
    BOOL,
    "Whether a tile with these printed edges can go on cell with this rotation: the cell is "
    "empty, every edge it shares with a tile of kind (none: any tile) has the same label as "
    "that tile's facing edge, and (unless adjacent is false) at least one such tile touches it. "
    "Neighbours of other kinds impose nothing.",
    optional=2,
    example='tile_fits(game.map, (1, 0), card.edges, 3, "area")',
    cyclic=(3, 4, _tile_fits_every_rotation),
    memory=True,
)
def _tile_fits(
    memory: Memory,
    grid: dict[Any, Any],
    cell: Sequence[int],
    edges: Sequence[Any],
    rotation: int,
    kind: Any = None,
    adjacent: bool = True,
) -> bool:
    return _tile_fits_every_rotation(memory, grid, cell, edges, kind, adjacent)[rotation % 4]


def _frontier(memory: Memory, grid: dict[Any, Any], kind: Any) -> tuple[Cell, ...]:
    derived = memory.tiles.derived_for(grid, kind)
    if derived.frontier is None:
        derived.frontier = tuple(_compute_frontier(grid, kind))
    return derived.frontier


def _compute_frontier(grid: dict[Any, Any], kind: Any) -> list[Cell]:
    cells: set[Cell] = set()
    for cell, record in grid.items():
        if not is_tile(record, kind):
            continue
        x, y = cell
        for dx, dy in STEPS:
            neighbour = (x + dx, y + dy)
            if neighbour not in grid:
                cells.add(neighbour)
    return sorted(cells)


@register(
    "tile_frontier",
    [("grid", MAP), ("kind", ANY)],
    list_of(TUPLE),
    "The empty cells orthogonally next to a tile of kind (none: any tile), sorted by (x, y).",
    optional=1,
    example='tile_frontier(game.map, "area")',
    remembers=True,
    memory=True,
)
def _tile_frontier(memory: Memory, grid: dict[Any, Any], kind: Any = None) -> tuple[Cell, ...]:
    return _frontier(memory, grid, kind)


@register(
    "tile_placements",
    [("grid", MAP), ("edges", ANY_LIST), ("kind", ANY)],
    list_of(TUPLE),
    "Every (cell, rotation) where a tile with these printed edges fits next to the tiles of "
    "kind (see tile_fits), cells sorted by (x, y), rotations 0..3.",
    optional=1,
    example='len(tile_placements(game.map, card.edges, "area")) > 0',
    memory=True,
)
def _tile_placements(
    memory: Memory, grid: dict[Any, Any], edges: Sequence[Any], kind: Any = None
) -> tuple[tuple[Cell, int], ...]:
    derived = memory.tiles.derived_for(grid, kind)
    try:
        return derived.placements[edges]
    except KeyError:
        found = derived.placements[edges] = _compute_placements(memory, grid, edges, kind)
        return found
    except TypeError:  # unhashable edges: no caching
        return _compute_placements(memory, grid, edges, kind)


@register(
    "tile_fits_anywhere",
    [("grid", MAP), ("edges", ANY_LIST), ("kind", ANY)],
    BOOL,
    "Whether a tile with these printed edges fits somewhere next to the tiles of kind: "
    "len(tile_placements(grid, edges, kind)) > 0, stopping at the first placement found.",
    optional=1,
    example='tile_fits_anywhere(game.map, card.edges, "area")',
    remembers=True,
    memory=True,
)
def _tile_fits_anywhere(memory: Memory, grid: dict[Any, Any], edges: Sequence[Any], kind: Any = None) -> bool:
    derived = memory.tiles.derived_for(grid, kind)
    try:
        return derived.anywhere[edges]
    except KeyError:
        pass
    except TypeError:  # unhashable edges: no caching
        return bool(_compute_placements(memory, grid, edges, kind))
    placed_edges(edges, 0)  # four labels, or a RuleFailure even on a full grid
    found = any(True in _fits(derived, cell, edges) for cell in _frontier(memory, grid, kind))
    derived.anywhere[edges] = found
    return found


def _compute_placements(
    memory: Memory, grid: dict[Any, Any], edges: Sequence[Any], kind: Any
) -> tuple[tuple[Cell, int], ...]:
    derived = memory.tiles.derived_for(grid, kind)
    placed_edges(edges, 0)  # four labels, or a RuleFailure even on a full grid
    result: list[tuple[Cell, int]] = []
    for cell in _frontier(memory, grid, kind):
        fits = _fits(derived, cell, edges)
        if fits is not NOWHERE:
            result.extend((cell, r) for r in range(4) if fits[r])
    return tuple(result)


def _fits(derived: Derived, cell: Cell, edges: Sequence[Any]) -> Fits:
    """``derived.fits_at(cell, edges)``, kept per cell and edges when they are hashable."""
    try:
        answers = derived.masks.get(cell)
        if answers is None:
            answers = derived.masks[cell] = {}
        found = answers.get(edges)
        if found is None:
            found = answers[edges] = derived.fits_at(cell, edges)
        return found
    except TypeError:  # unhashable edges: no caching
        return derived.fits_at(cell, edges)


# -------------------------------------------------------------- adjacency


@register(
    "tile_facing",
    [("grid", MAP), ("cell", TUPLE), ("kind", ANY), ("label", ANY)],
    list_of(INT),
    "The sides of cell whose neighbour is a tile of kind (none: any) showing an edge labelled "
    "label toward cell (label none: any edge), in side order.",
    example='len(tile_facing(game.map, (2, 1), "area", "L")) >= 2',
    remembers=True,
    memory=True,
)
def _tile_facing(
    memory: Memory, grid: dict[Any, Any], cell: Sequence[int], kind: Any, label: Any
) -> tuple[int, ...]:
    tiles = memory.tiles
    derived = tiles.last
    if derived is None or derived.grid is not grid or derived.kind != kind:
        derived = tiles.derived_for(grid, kind)
    try:
        answers = derived.facing.get(cell)
        if answers is None:
            answers = derived.facing[cell] = {}
        found = answers.get(label)
        if found is None:
            found = answers[label] = _compute_facing(derived, cell, label)
        return found
    except TypeError:  # unhashable arguments: no caching
        return _compute_facing(derived, cell, label)


def _compute_facing(derived: Derived, cell: Sequence[int], label: Any) -> tuple[int, ...]:
    edges_at = derived.edges_at
    x, y = cell[0], cell[1]
    result = []
    for side in range(4):
        dx, dy = STEPS[side]
        other = edges_at((x + dx, y + dy))
        if other is None:
            continue
        if label is None or other[(side + 2) % 4] == label:
            result.append(side)
    return tuple(result)


@register(
    "tile_facing_part",
    [("grid", MAP), ("cell", TUPLE), ("side", INT), ("kind", ANY)],
    TUPLE,
    "The part across a side of cell: (neighbour cell, index of its part touching cell), or "
    "none if no tile of kind (none: any) is there. Use it as a key of tile_region_ids.",
    optional=1,
    example="tile_facing_part(game.map, (2, 1), 3)",
)
def _tile_facing_part(
    grid: dict[Any, Any], cell: Sequence[int], side: int, kind: Any = None
) -> tuple[Cell, int] | None:
    neighbour = step(cell, side % 4)
    other = grid.get(neighbour)
    if other is None or not is_tile(other, kind):
        return None
    index = part_by_side(other)[(side + 2) % 4]
    return None if index < 0 else (neighbour, index)


# ---------------------------------------------------------------- regions


def _regions(
    memory: Memory, grid: dict[Any, Any], kind: Any, label: Any
) -> list[tuple[tuple[Cell, int], ...]]:
    derived = memory.tiles.derived_for(grid, kind)
    try:
        return derived.regions[label]
    except KeyError:
        pass
    except TypeError:  # an unhashable label
        return _compute_regions(grid, kind, label)
    found = derived.regions[label] = _compute_regions(grid, kind, label)
    return found


def _compute_regions(grid: dict[Any, Any], kind: Any, label: Any) -> list[tuple[tuple[Cell, int], ...]]:
    parent: dict[tuple[Cell, int], tuple[Cell, int]] = {}
    sides_of: dict[Cell, list[int]] = {}
    edges_of: dict[Cell, tuple[Any, ...]] = {}
    for cell, record in grid.items():
        if not is_tile(record, kind):
            continue
        r = int(record.get("rotation") or 0) % 4
        by_side = [-1, -1, -1, -1]
        for index, (part_label, sides) in enumerate(record_parts(record)):
            if part_label != label:
                continue
            node = (cell, index)
            parent[node] = node
            for printed in sides:
                by_side[(printed + r) % 4] = index
        sides_of[cell] = by_side
        edges_of[cell] = tile_edges(record)

    def find(node: tuple[Cell, int]) -> tuple[Cell, int]:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for cell, by_side in sides_of.items():
        x, y = cell
        for side in (1, 2):  # east and south: each shared edge once
            mine = by_side[side]
            if mine < 0:
                continue
            dx, dy = STEPS[side]
            other_cell = (x + dx, y + dy)
            other = sides_of.get(other_cell)
            if other is None:
                continue
            theirs = other[(side + 2) % 4]
            if theirs < 0 or edges_of[cell][side] != edges_of[other_cell][(side + 2) % 4]:
                continue
            a, b = find((cell, mine)), find((other_cell, theirs))
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[tuple[Cell, int], list[tuple[Cell, int]]] = {}
    for node in parent:
        groups.setdefault(find(node), []).append(node)
    return sorted(tuple(sorted(g)) for g in groups.values())


@register(
    "tile_regions",
    [("grid", MAP), ("kind", ANY), ("label", ANY)],
    list_of(ANY_LIST),
    "The connected regions of the parts labelled label of the tiles of kind (none: any): two "
    "parts join when they touch the two sides of a shared edge whose labels match. Each region "
    "is a sorted list of (cell, part); regions are sorted by their first element.",
    example='tile_regions(game.map, "area", "L")',
    memory=True,
)
def _tile_regions(
    memory: Memory, grid: dict[Any, Any], kind: Any, label: Any
) -> tuple[tuple[tuple[Cell, int], ...], ...]:
    return tuple(_regions(memory, grid, kind, label))


@register(
    "tile_region_ids",
    [("grid", MAP), ("kind", ANY), ("label", ANY)],
    MAP,
    "A map from each (cell, part) labelled label to the index of its region in "
    "tile_regions(grid, kind, label).",
    example='get(tile_region_ids(game.map, "area", "W"), tile_facing_part(game.map, c, 1), -1)',
    memory=True,
)
def _tile_region_ids(
    memory: Memory, grid: dict[Any, Any], kind: Any, label: Any
) -> dict[tuple[Cell, int], int]:
    return {node: i for i, region in enumerate(_regions(memory, grid, kind, label)) for node in region}


@register(
    "tile_region_at",
    [("grid", MAP), ("cell", TUPLE), ("side", INT), ("kind", ANY)],
    ANY_LIST,
    "The region (as in tile_regions) of the part of the tile on cell touching side, with that "
    "part's label; [] if there is no tile of kind (none: any) or no part there.",
    optional=1,
    example='len(tile_region_at(game.map, (0, 0), 1, "area"))',
    memory=True,
)
def _tile_region_at(
    memory: Memory, grid: dict[Any, Any], cell: Sequence[int], side: int, kind: Any = None
) -> tuple[Any, ...]:
    key = (cell[0], cell[1])
    record = grid.get(key)
    if record is None or not is_tile(record, kind):
        return ()
    index = part_by_side(record)[side % 4]
    if index < 0:
        return ()
    label = record_parts(record)[index][0]
    for region in _regions(memory, grid, kind, label):
        if (key, index) in region:
            return region
    return ()
