"""Tile records and what is derived from a tile grid, cached per grid object.

Grids, like every state value, are never changed in place: a changed grid is a new map.
So what is derived from a grid (each tile's placed edges, the frontier, the regions) is
cached per grid object (:class:`Derived`, kept while the grid is alive in the cache), and
a placement listing costs a few dictionary look-ups per frontier cell and rotation instead
of re-rotating every neighbour's edges each time.  The built-ins that read it are in
:mod:`rulekit.runtime.tiles`.
"""

from __future__ import annotations

import sys
from bisect import insort
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import compress
from operator import is_not
from typing import Any, TypeVar

from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.lineage import Lineage

Cell = tuple[int, int]
_V = TypeVar("_V")
Part = tuple[Any, tuple[int, ...]]
#: For each rotation 0-3, whether a tile fits.
Fits = tuple[bool, bool, bool, bool]

STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))


def step(cell: Sequence[int], side: int) -> Cell:
    dx, dy = STEPS[side]
    return (cell[0] + dx, cell[1] + dy)


def is_tile(record: Any, kind: Any) -> bool:
    if not isinstance(record, dict) or "edges" not in record:
        return False
    return kind is None or record.get("kind") == kind


def _check_edges(edges: Sequence[Any]) -> tuple[Any, ...]:
    seq = tuple(edges)
    if len(seq) != 4:
        raise RuleFailure(f"a tile needs 4 edge labels (north, east, south, west), not {len(seq)}")
    return seq


def placed_edges(edges: Sequence[Any], rotation: int) -> tuple[Any, ...]:
    r = rotation % 4
    try:
        return _rotated(edges, r)
    except TypeError:  # unhashable edges
        return _rotate(edges, r)


def _rotate(edges: Sequence[Any], r: int) -> tuple[Any, ...]:
    seq = _check_edges(edges)
    return (seq[(0 - r) % 4], seq[(1 - r) % 4], seq[(2 - r) % 4], seq[(3 - r) % 4])


#: (a pure function of the printed edges: kept per edges, a deck has a few dozen kinds of tile)
_rotated = lru_cache(maxsize=4096)(_rotate)


def all_rotations(edges: Sequence[Any]) -> tuple[tuple[Any, ...], ...]:
    """The placed edges of a tile printed with ``edges`` for rotations 0, 1, 2 and 3."""
    try:
        return _all_rotations(edges)
    except TypeError:  # unhashable edges
        return _four_rotations(edges)


def _four_rotations(edges: Sequence[Any]) -> tuple[tuple[Any, ...], ...]:
    return tuple(placed_edges(edges, r) for r in range(4))


_all_rotations = lru_cache(maxsize=4096)(_four_rotations)


def tile_edges(tile: dict[Any, Any]) -> tuple[Any, ...]:
    return placed_edges(tile["edges"], int(tile.get("rotation") or 0))


_NOT_A_TILE = None
ANYTHING: Any = object()  # no tile on that side: any edge fits


class Derived:
    """What is derived from one grid for one ``kind``, filled in as it is asked for.

    Everything but the frontier, regions and placements is kept per cell, so a new grid
    that differs from the previous one in a few cells inherits the answers of every cell
    those changes cannot affect (see :func:`_inherit`).
    """

    __slots__ = (
        "anywhere",
        "edges",
        "facing",
        "frontier",
        "grid",
        "kind",
        "masks",
        "needs",
        "placements",
        "regions",
    )

    def __init__(self, grid: dict[Any, Any], kind: Any) -> None:
        self.grid = grid
        self.kind = kind
        self.edges: dict[Any, tuple[Any, ...] | None] = {}
        self.frontier: tuple[Cell, ...] | None = None
        self.regions: dict[Any, list[tuple[tuple[Cell, int], ...]]] = {}
        self.needs: dict[Any, tuple[Any, Any, Any, Any, bool] | None] = {}
        #: Where a tile fits, by cell, then by printed edges (``(edges, False)`` for fits
        #: that need not touch a tile): see :meth:`fits_at`.
        self.masks: dict[Any, dict[Any, Fits]] = {}
        #: Answers of tile_facing by cell, then by label.
        self.facing: dict[Any, dict[Any, tuple[int, ...]]] = {}
        self.placements: dict[Any, tuple[tuple[Cell, int], ...]] = {}
        #: Whether a tile fits anywhere, by printed edges (tile_fits_anywhere).
        self.anywhere: dict[Any, bool] = {}

    def edges_at(self, cell: Any) -> tuple[Any, ...] | None:
        """The placed edges of the tile of ``kind`` on ``cell``; None: no such tile."""
        try:
            return self.edges[cell]
        except KeyError:
            pass
        record = self.grid.get(cell)
        found = tile_edges(record) if record is not None and is_tile(record, self.kind) else _NOT_A_TILE
        self.edges[cell] = found
        return found

    def needs_at(self, cell: Cell) -> tuple[Any, Any, Any, Any, bool] | None:
        """What a tile on the empty ``cell`` must show on each side (the facing edge of the
        tile of ``kind`` there, or ``ANYTHING``) and whether any such tile touches it;
        None if the cell is not empty."""
        try:
            return self.needs[cell]
        except KeyError:
            pass
        found: tuple[Any, Any, Any, Any, bool] | None = None
        if cell not in self.grid:
            x, y = cell
            north = self.edges_at((x, y - 1))
            east = self.edges_at((x + 1, y))
            south = self.edges_at((x, y + 1))
            west = self.edges_at((x - 1, y))
            found = (
                ANYTHING if north is None else north[2],
                ANYTHING if east is None else east[3],
                ANYTHING if south is None else south[0],
                ANYTHING if west is None else west[1],
                not (north is None and east is None and south is None and west is None),
            )
        self.needs[cell] = found
        return found

    def fits_at(self, cell: Cell, edges: Sequence[Any], adjacent: bool = True) -> Fits:
        """For each rotation 0-3, whether a tile printed with ``edges`` fits on ``cell``: the
        cell is empty, every edge it shares with a tile of ``kind`` matches and (if
        ``adjacent``) such a tile touches it.  Raises :class:`RuleFailure` for edges that are
        not four labels, whatever the cell."""
        rotations = all_rotations(edges)
        needs = self.needs_at(cell)
        if needs is None:
            return NOWHERE
        north, east, south, west, touching = needs
        if adjacent and not touching:
            return NOWHERE
        any_ = ANYTHING
        return tuple(  # type: ignore[return-value]
            [
                (north is any_ or north == placed[0])
                and (east is any_ or east == placed[1])
                and (south is any_ or south == placed[2])
                and (west is any_ or west == placed[3])
                for placed in rotations
            ]
        )


#: Fits nowhere: every rotation refused.
NOWHERE: Fits = (False, False, False, False)

#: Entries at which the cache is swept (see :meth:`TileMemory.forget`).  Play asks about the
#: current map only; entries of past maps kept longer live long enough to be traversed by the
#: garbage collector's older generations: forgetting 256 at once, random playouts of a
#: tile-laying game spent ~5% of their time in the collector, sweeping at 64 ~2% (see
#: docs/performance.md).
DERIVED_LIMIT = 64
#: Grids still held elsewhere are kept through a sweep while there are fewer than this.
_KEPT_LIMIT = 256
#: ``sys.getrefcount`` (CPython): a grid whose count is this (the entry's reference and the
#: call's argument) is held by nothing but the cache.
_refcount = getattr(sys, "getrefcount", None)
_ONLY_HERE = 2
#: A new grid that differs from the parent's in more cells than this starts afresh.
_INHERIT_LIMIT = 8
_GONE: Any = object()


class TileMemory:
    """What one program derived from its tile grids (in its
    :class:`~rulekit.runtime.memory.Memory`): ``derived``, (id(grid), kind) -> the entry of
    that very grid object (the entry keeps it alive, so its id cannot be reused while
    cached); ``parent``, the entry made last for each kind (a new grid inherits from it: in
    play a new grid is usually the previous one with a cell or two changed); ``last``, the
    entry asked last; ``sweep_at``, the size at which ``derived`` is swept."""

    __slots__ = ("derived", "last", "lineage", "parent", "sweep_at")

    def __init__(self, lineage: Lineage | None = None) -> None:
        self.lineage = Lineage() if lineage is None else lineage
        self.derived: dict[tuple[int, Any], Derived] = {}
        self.parent: dict[Any, Derived] = {}
        self.last: Derived | None = None
        self.sweep_at = DERIVED_LIMIT

    def derived_for(self, grid: dict[Any, Any], kind: Any) -> Derived:
        """The cache entry of ``grid`` for ``kind``."""
        last = self.last
        if last is not None and last.grid is grid and last.kind == kind:
            return last
        entry = self._lookup(grid, kind)
        self.last = entry
        return entry

    def _lookup(self, grid: dict[Any, Any], kind: Any) -> Derived:
        derived = self.derived
        try:
            key = (id(grid), kind)
            entry = derived.get(key)
        except TypeError:  # an unhashable kind: no caching
            return Derived(grid, kind)
        if entry is not None and entry.grid is grid:
            return entry
        if len(derived) >= self.sweep_at:
            self.forget()
        entry = derived[key] = Derived(grid, kind)
        parent = self.parent.get(kind)
        if parent is not None:
            _inherit(entry, parent, self.lineage)
        self.parent[kind] = entry
        return entry

    def forget(self) -> None:
        """Make room: forget the grids that nothing but this cache holds any more (in play,
        the maps of past states), keep those still held elsewhere (states kept by a search, a
        tool, a benchmark) while there are fewer than :data:`_KEPT_LIMIT`, else forget
        everything.  The next sweep comes when the cache has doubled (at least
        :data:`DERIVED_LIMIT`)."""
        derived = self.derived
        if _refcount is not None:
            for key, entry in list(derived.items()):
                if _refcount(entry.grid) <= _ONLY_HERE:
                    del derived[key]
            if len(derived) < _KEPT_LIMIT:
                self.sweep_at = max(DERIVED_LIMIT, 2 * len(derived))
                return
        derived.clear()
        self.sweep_at = DERIVED_LIMIT


def _inherit(entry: Derived, parent: Derived, lineage: Lineage) -> None:
    """Give ``entry`` the answers of ``parent`` that still hold for its grid.

    Records are compared by identity (grids are immutable values: an unchanged cell keeps
    its record object; an equal but new record just counts as changed).  A changed cell
    is one of three sorts:

    * a tile of ``kind`` was or is there: its placed edges change, and with them what a
      tile must show on its neighbours (needs, where tiles fit), which tiles face them
      (facing), the frontier around it, the regions and the placements;
    * it was emptied or filled by something else: only that cell's needs and fits, its
      place in the frontier and the placements change;
    * one record of another kind replaced another: nothing derived changes.

    Answers that still hold are shared, not copied: an answer added later holds for both
    grids.
    """
    grid, old = entry.grid, parent.grid
    changed = _changed_cells(grid, old, lineage)
    if changed is None:
        return
    kind = entry.kind
    tiles: list[Any] = []
    moved: list[Any] = []
    for cell in changed:
        before, after = old.get(cell, _GONE), grid.get(cell, _GONE)
        if is_tile(before, kind) or is_tile(after, kind):
            tiles.append(cell)
        elif (before is _GONE) is not (after is _GONE):
            moved.append(cell)
    if not tiles:
        entry.edges = parent.edges
        entry.facing = parent.facing
        entry.regions = parent.regions
        if not moved:
            entry.needs = parent.needs
            entry.masks = parent.masks
            entry.frontier = parent.frontier
            entry.placements = parent.placements
            entry.anywhere = parent.anywhere
            return
    try:
        near = set(moved)
        near.update(tiles)
        for x, y in tiles:
            near.update(((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)))
        if parent.frontier is not None:  # the frontier changes only among the cells near a change
            frontier = [cell for cell in parent.frontier if cell not in near]
            for x, y in near:
                if (x, y) not in grid and (
                    is_tile(grid.get((x, y - 1)), kind)
                    or is_tile(grid.get((x + 1, y)), kind)
                    or is_tile(grid.get((x, y + 1)), kind)
                    or is_tile(grid.get((x - 1, y)), kind)
                ):
                    insort(frontier, (x, y))
            entry.frontier = tuple(frontier)
    except (TypeError, ValueError):  # cells that are not (x, y) pairs: nothing is inherited
        entry.edges, entry.facing, entry.regions, entry.frontier = {}, {}, {}, None
        return
    if tiles:
        entry.edges = _without(parent.edges, tiles)
        entry.facing = _without(parent.facing, near)
    entry.needs = _without(parent.needs, near)
    entry.masks = _without(parent.masks, near)


def _changed_cells(grid: dict[Any, Any], old: dict[Any, Any], lineage: Lineage) -> list[Any] | None:
    """The cells whose record differs (by identity) between ``old`` and ``grid`` (perhaps
    with some whose record is the same: the keys the map built-ins changed on the way, see
    :mod:`rulekit.runtime.lineage`), or None if there are more than :data:`_INHERIT_LIMIT`."""
    noted = lineage.changed_keys(grid, old, _INHERIT_LIMIT)
    if noted is not None:
        return list(dict.fromkeys(noted))
    size = len(old)
    if len(grid) >= size:
        cells = list(grid)
        if cells[:size] == list(old):
            # the same cells in the same order (a map changed by put keeps its order),
            # perhaps with new ones at the end: compare the records pairwise, in C
            changed = list(compress(cells, map(is_not, grid.values(), old.values())))
            changed.extend(cells[size:])
            return changed if len(changed) <= _INHERIT_LIMIT else None
    changed = [cell for cell, record in grid.items() if old.get(cell, _GONE) is not record]
    if len(changed) > _INHERIT_LIMIT:
        return None
    if len(grid) - len(changed) != size:  # some cells were removed
        changed.extend(cell for cell in old if cell not in grid)
        if len(changed) > _INHERIT_LIMIT:
            return None
    return changed


def _without(answers: dict[Any, _V], cells: Iterable[Any]) -> dict[Any, _V]:
    """A copy of ``answers`` without the entries of ``cells``."""
    kept = dict(answers)
    for cell in cells:
        kept.pop(cell, None)
    return kept


def default_parts(edges: Sequence[Any], joined: Sequence[Any] = ()) -> tuple[Part, ...]:
    """Parts as printed: one part for all sides of a joined label, cyclic runs otherwise
    (kept by edges and joined labels: a deck has a few dozen kinds of tile)."""
    try:
        return _kept_parts(edges, joined)
    except TypeError:  # unhashable labels
        return _default_parts(edges, joined)


def _default_parts(edges: Sequence[Any], joined: Sequence[Any]) -> tuple[Part, ...]:
    seq = _check_edges(edges)
    parts: list[Part] = []
    done: set[Any] = set()
    # joined labels first, in order of first appearance
    for label in seq:
        if label in joined and label not in done:
            done.add(label)
            parts.append((label, tuple(d for d in range(4) if seq[d] == label)))
    if len(set(seq)) == 1:
        if seq[0] not in joined:
            parts.append((seq[0], (0, 1, 2, 3)))
        return tuple(parts)
    # start each run right after a label change, so runs never wrap past index 3
    runs: list[Part] = []
    start = next(d for d in range(4) if seq[d] != seq[d - 1])
    current: list[int] = []
    for i in range(4):
        d = (start + i) % 4
        if current and seq[d] != seq[current[-1]]:
            runs.append((seq[current[0]], tuple(sorted(current))))
            current = []
        current.append(d)
    runs.append((seq[current[0]], tuple(sorted(current))))
    runs.sort(key=lambda p: p[1][0])
    parts.extend(p for p in runs if p[0] not in joined)
    return tuple(parts)


_kept_parts = lru_cache(maxsize=4096)(_default_parts)


def record_parts(tile: dict[Any, Any]) -> tuple[Part, ...]:
    explicit = tile.get("parts")
    if explicit:
        return tuple((p[0], tuple(p[1])) for p in explicit)
    return default_parts(tile["edges"])


def part_by_side(tile: dict[Any, Any]) -> list[int]:
    """For each placed side, the index of the part touching it (-1: none)."""
    r = int(tile.get("rotation") or 0) % 4
    result = [-1, -1, -1, -1]
    for index, (_, sides) in enumerate(record_parts(tile)):
        for printed in sides:
            result[(printed + r) % 4] = index
    return result
