"""The tile-grid built-ins (rulekit/runtime/tiles.py): edges, parts, fitting, regions."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.runtime import tile_grid
from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.memory import Memory
from rulekit.runtime.tile_grid import _default_parts

#: What the built-ins remember, as one program's (answers must not depend on it).
MEMORY = Memory()


def call(name: str, *args: Any) -> Any:
    return BUILTINS[name].bind(MEMORY)(*args)


L, W = "L", "W"
JOINED = (L,)


def tile(edges: tuple[str, ...], rotation: int = 0, *, joined: tuple[str, ...] = JOINED) -> dict[str, Any]:
    """A placed tile record whose land edges form one part (the El Caballero default)."""
    return {
        "kind": "area",
        "edges": edges,
        "rotation": rotation,
        "parts": call("tile_parts", edges, joined),
    }


CAPE = (L, W, W, W)
CORNER = (L, L, W, W)
BRIDGE = (L, W, L, W)
BAY = (L, L, L, W)
LAND = (L, L, L, L)
WATER = (W, W, W, W)


# ------------------------------------------------------------------ records


def test_record_builds_a_map_from_pairs() -> None:
    assert call("record", "kind", "area", "rotation", 2) == {"kind": "area", "rotation": 2}
    assert call("record") == {}


def test_record_rejects_an_odd_number_of_arguments() -> None:
    with pytest.raises(RuleFailure):
        call("record", "kind")


# -------------------------------------------------------------- one tile


@pytest.mark.parametrize(
    ("rotation", "expected"),
    [(0, (L, W, W, W)), (1, (W, L, W, W)), (2, (W, W, L, W)), (3, (W, W, W, L)), (5, (W, L, W, W))],
)
def test_rotation_turns_edges_clockwise(rotation: int, expected: tuple[str, ...]) -> None:
    assert call("tile_edges", CAPE, rotation) == expected
    assert tuple(call("tile_edge", tile(CAPE, rotation), d) for d in range(4)) == expected


def test_tile_needs_four_edges() -> None:
    with pytest.raises(RuleFailure):
        call("tile_edges", (L, W, W), 0)


def test_default_parts_are_cyclic_runs_of_equal_labels() -> None:
    assert call("tile_parts", BRIDGE) == ((L, (0,)), (W, (1,)), (L, (2,)), (W, (3,)))
    assert call("tile_parts", (W, L, L, W)) == ((W, (0, 3)), (L, (1, 2)))  # the run wraps past west
    assert call("tile_parts", WATER) == ((W, (0, 1, 2, 3)),)


def test_joined_labels_form_one_part_and_come_first() -> None:
    assert call("tile_parts", BRIDGE, JOINED) == ((L, (0, 2)), (W, (1,)), (W, (3,)))
    assert call("tile_parts", LAND, JOINED) == ((L, (0, 1, 2, 3)),)
    assert call("tile_parts", CORNER, JOINED) == ((L, (0, 1)), (W, (2, 3)))


def test_part_at_applies_the_rotation() -> None:
    bridge = tile(BRIDGE, 1)  # land east and west, water north and south
    assert [call("tile_part_at", bridge, d) for d in range(4)] == [2, 0, 1, 0]


def test_record_without_parts_uses_the_default_parts() -> None:
    record = {"edges": BRIDGE, "rotation": 0}
    assert [call("tile_part_at", record, d) for d in range(4)] == [0, 1, 2, 3]


# ----------------------------------------------------------------- fitting


def test_fits_needs_matching_shared_edges() -> None:
    grid = {(0, 0): tile(CAPE)}  # land north only
    assert call("tile_fits", grid, (1, 0), WATER, 0, "area")
    assert not call("tile_fits", grid, (1, 0), LAND, 0, "area")
    assert not call("tile_fits", grid, (0, -1), CAPE, 0, "area")  # water south against land
    assert call("tile_fits", grid, (0, -1), CAPE, 2, "area")  # turned: land south


def test_fits_needs_an_adjacent_tile_and_an_empty_cell() -> None:
    grid = {(0, 0): tile(WATER)}
    assert not call("tile_fits", grid, (2, 0), WATER, 0, "area")
    assert call("tile_fits", grid, (2, 0), WATER, 0, "area", False)
    assert not call("tile_fits", grid, (0, 0), WATER, 0, "area")


def test_fits_ignores_neighbours_of_another_kind() -> None:
    grid = {(0, 0): tile(WATER), (1, 1): {"kind": "piece", "owner": 0}}
    # (1, 0) touches the water tile (west) and the piece (south): only the tile constrains it
    assert call("tile_fits", grid, (1, 0), CAPE, 3, "area") is False  # land west against water
    assert call("tile_fits", grid, (1, 0), CAPE, 2, "area") is True  # land south, against the piece


def test_frontier_lists_empty_cells_next_to_tiles_sorted() -> None:
    grid = {(0, 0): tile(WATER), (1, 0): {"kind": "piece"}}
    assert call("tile_frontier", grid, "area") == ((-1, 0), (0, -1), (0, 1))


def test_placements_list_every_fitting_cell_and_rotation() -> None:
    grid = {(0, 0): tile(CAPE)}
    placements = call("tile_placements", grid, CAPE, "area")
    assert ((0, -1), 2) in placements
    assert ((0, -1), 0) not in placements
    assert all(call("tile_fits", grid, cell, CAPE, r, "area") for cell, r in placements)
    assert call("tile_placements", grid, LAND, "area") == tuple(((0, -1), r) for r in range(4))


# ---------------------------------------------------------------- adjacency


def test_facing_lists_the_sides_that_face_a_label() -> None:
    grid = {(0, 0): tile(LAND), (1, 1): tile(CAPE), (2, 0): tile(WATER)}
    # cell (1, 0): west faces land, south faces the cape's north edge (land), east faces water
    assert call("tile_facing", grid, (1, 0), "area", L) == (2, 3)
    assert call("tile_facing", grid, (1, 0), "area", W) == (1,)
    assert call("tile_facing", grid, (1, 0), "area", None) == (1, 2, 3)


def test_facing_part_names_the_neighbours_part() -> None:
    grid = {(0, 0): tile(BRIDGE, 1)}
    # printed parts: land (0, 2), water east (1), water west (3); turned once, they face S and N
    assert call("tile_facing_part", grid, (0, -1), 2, "area") == ((0, 0), 2)  # the north water part
    assert call("tile_facing_part", grid, (0, 1), 0, "area") == ((0, 0), 1)  # the south water part
    assert call("tile_facing_part", grid, (0, 1), 1, "area") is None


# ------------------------------------------------------------------ regions


def test_land_region_spans_several_tiles() -> None:
    grid = {
        (0, 0): tile(LAND),
        (1, 0): tile(CAPE, 3),  # land west
        (0, -1): tile(CAPE, 2),  # land south
        (3, 0): tile(CAPE, 1),  # a separate island
        (2, 0): tile(WATER),
    }
    regions = call("tile_regions", grid, "area", L)
    assert regions == (
        (((0, -1), 0), ((0, 0), 0), ((1, 0), 0)),
        (((3, 0), 0),),
    )
    ids = call("tile_region_ids", grid, "area", L)
    assert ids[((1, 0), 0)] == 0 and ids[((3, 0), 0)] == 1
    assert call("tile_region_at", grid, (0, 0), 2, "area") == regions[0]


def test_land_bridge_splits_water() -> None:
    grid = {
        (0, 0): tile(BRIDGE, 1),  # land east-west
        (0, -1): tile(WATER),
        (0, 1): tile(WATER),
        (1, 1): tile(WATER),
    }
    regions = call("tile_regions", grid, "area", W)
    assert regions == (
        (((0, -1), 0), ((0, 0), 2)),
        (((0, 0), 1), ((0, 1), 0), ((1, 1), 0)),
    )
    assert call("tile_region_at", grid, (0, 0), 0, "area") != call("tile_region_at", grid, (0, 0), 2, "area")


def test_water_joins_around_a_loop_across_a_bridge_ends() -> None:
    # the two water parts of one bridge tile are joined through other tiles
    grid = {
        (0, 0): tile(BRIDGE, 1),
        (0, -1): tile(WATER),
        (1, -1): tile(WATER),
        (1, 0): tile(CAPE, 3),  # land west meets the bridge's land, water elsewhere
        (1, 1): tile(WATER),
        (0, 1): tile(WATER),
    }
    regions = call("tile_regions", grid, "area", W)
    assert len(regions) == 1
    assert ((0, 0), 1) in regions[0] and ((0, 0), 2) in regions[0]


def test_regions_ignore_other_kinds_and_diagonals() -> None:
    grid = {
        (0, 0): tile(WATER),
        (1, 1): tile(WATER),  # diagonal: not connected
        (1, 0): {"kind": "piece"},
    }
    assert len(call("tile_regions", grid, "area", W)) == 2


def test_mismatched_edges_do_not_join() -> None:
    grid = {(0, 0): tile(CAPE), (0, -1): tile(CAPE)}  # water south of the top one meets land
    assert len(call("tile_regions", grid, "area", L)) == 2


def test_explicit_parts_override_the_default() -> None:
    two_capes = {"kind": "area", "edges": BRIDGE, "rotation": 0, "parts": ((L, (0,)), (L, (2,)), (W, (1, 3)))}
    grid = {(0, 0): two_capes, (0, -1): tile(CAPE, 2), (0, 1): tile(CAPE)}
    assert len(call("tile_regions", grid, "area", L)) == 2
    assert len(call("tile_regions", grid, "area", W)) == 3


def test_empty_or_missing_cells_have_no_region() -> None:
    assert call("tile_region_at", {}, (0, 0), 0, "area") == ()
    assert call("tile_regions", {}, "area", L) == ()


# -------------------------------------------------------------- caching


def _uncached_fits(
    grid: dict[Any, Any], cell: tuple[int, int], edges: tuple[str, ...], rotation: int
) -> bool:
    """tile_fits written out from its documentation, with no cache."""
    if cell in grid:
        return False
    placed = [edges[(d - rotation) % 4] for d in range(4)]
    touching = False
    for side, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
        other = grid.get((cell[0] + dx, cell[1] + dy))
        if other is None or other.get("kind") != "area":
            continue
        touching = True
        theirs = other["edges"][((side + 2) % 4 - other["rotation"]) % 4]
        if theirs != placed[side]:
            return False
    return touching


#: A change to a grid: a tile placed (or replaced) with some edges and rotation, a piece of
#: another kind put on a cell ("token", replacing what is there) or changed in place
#: ("retoken": a new record on a cell holding a piece, nothing if it holds none), a cell
#: emptied ("remove"), or the same records in another order ("reorder").
_CHANGES = st.tuples(
    st.integers(-2, 2),
    st.integers(-2, 2),
    st.sampled_from(
        [CAPE, CORNER, BRIDGE, BAY, LAND, WATER, CAPE, BRIDGE, "token", "retoken", "remove", "reorder"]
    ),
    st.integers(0, 3),
)


@given(st.lists(_CHANGES, min_size=1, max_size=10))
def test_cached_results_follow_each_new_grid(changes: list[tuple[int, int, Any, int]]) -> None:
    """Grids change one cell at a time (each a new map, as in play: a new grid inherits the
    answers of the cells a change cannot affect); after every step the cached frontier,
    fits, facing sides and placements equal a computation from scratch."""
    grid: dict[Any, Any] = {}
    for x, y, edges, rotation in changes:
        if edges == "remove":  # through the built-in (which notes the change: lineage) or not
            if rotation % 2:
                grid = call("remove_key", grid, (x, y))
            else:
                grid = {cell: record for cell, record in grid.items() if cell != (x, y)}
        elif edges == "token":
            grid = call("put", grid, (x, y), {"kind": "token", "owner": rotation})
        elif edges == "reorder":
            grid = dict(reversed(grid.items()))
        elif edges == "retoken":
            pieces = [cell for cell, record in grid.items() if record["kind"] == "token"]
            if pieces:
                grid = {**grid, pieces[0]: {**grid[pieces[0]], "owner": rotation}}
            else:
                grid = dict(grid)  # a new map object equal to the previous one
        elif rotation % 2:
            grid = call("put", grid, (x, y), tile(edges, rotation))
        else:
            grid = {**grid, (x, y): tile(edges, rotation)}
        anywhere = {shape: call("tile_fits_anywhere", grid, shape, "area") for shape in (CAPE, BRIDGE, LAND)}
        areas = {cell for cell, record in grid.items() if record["kind"] == "area"}
        frontier = call("tile_frontier", grid, "area")
        assert list(frontier) == sorted(
            {(cx + dx, cy + dy) for cx, cy in areas for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))}
            - set(grid)
        )
        cells = sorted({(cx + dx, cy + dy) for cx, cy in grid for dx in (-1, 0, 1) for dy in (-1, 0, 1)})
        for shape in (CAPE, BRIDGE, LAND):
            expected_fits = [_uncached_fits(grid, c, shape, r) for c in cells for r in range(4)]
            for _ in range(2):  # the second time from the cache
                assert [call("tile_fits", grid, c, shape, r, "area") for c in cells for r in range(4)] == (
                    expected_fits
                )
            every = BUILTINS["tile_fits"].cyclic
            assert every is not None and every[:2] == (3, 4)  # the rotation, modulo 4
            every_rotation = BUILTINS["tile_fits"].bind_every(MEMORY)
            assert every_rotation is not None
            assert [fits for c in cells for fits in every_rotation(grid, c, shape, "area")] == expected_fits
            placements = tuple(
                (c, r) for c in frontier for r in range(4) if _uncached_fits(grid, c, shape, r)
            )
            assert call("tile_placements", grid, shape, "area") == placements
            assert call("tile_placements", grid, shape, "area") == placements
            assert anywhere[shape] is bool(placements)  # asked first, before anything was kept
            assert call("tile_fits_anywhere", grid, shape, "area") is bool(placements)
        for cell in cells:
            facing = _uncached_facing(grid, cell, L)
            assert call("tile_facing", grid, cell, "area", L) == facing
            assert call("tile_facing", grid, cell, "area", L) == facing
        for label in (L, W):  # regions are kept while only pieces of another kind change
            regions = call("tile_regions", grid, "area", label)
            assert regions == _uncached_regions(grid, label)
            assert call("tile_regions", grid, "area", label) == regions


def _uncached_regions(grid: dict[Any, Any], label: str) -> tuple[tuple[Any, ...], ...]:
    """tile_regions of a copy of grid: a new map object, with nothing cached for it (a
    grid with every record copied differs from any cached grid in every cell)."""
    fresh = {cell: dict(record) for cell, record in grid.items()}
    return call("tile_regions", fresh, "area", label)


def _uncached_facing(grid: dict[Any, Any], cell: tuple[int, int], label: str) -> tuple[int, ...]:
    found = []
    for side, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
        other = grid.get((cell[0] + dx, cell[1] + dy))
        if (
            other is not None
            and other["kind"] == "area"
            and other["edges"][((side + 2) % 4 - other["rotation"]) % 4] == label
        ):
            found.append(side)
    return tuple(found)


@given(
    st.dictionaries(
        st.tuples(st.integers(-3, 3), st.integers(-3, 3)),
        st.one_of(
            st.fixed_dictionaries({"kind": st.sampled_from(["area", "piece"])}),
            st.fixed_dictionaries({"owner": st.integers(0, 2)}),  # no kind
        ),
        max_size=12,
    ),
    st.sampled_from(["area", "piece", None]),
)
def test_cells_of_kind_are_the_sorted_cells_whose_record_has_that_kind(
    grid: dict[Any, Any], kind: str | None
) -> None:
    expected = tuple(sorted(c for c in grid if grid[c].get("kind") == kind))
    assert call("cells_of_kind", grid, kind) == expected
    assert call("cells_of_kind", grid, kind) == expected  # the kept answer
    changed = {**grid, (9, 9): {"kind": kind}}  # a new map: asked afresh
    assert call("cells_of_kind", changed, kind) == tuple(sorted((*expected, (9, 9))))


@pytest.mark.parametrize("edges", [CAPE, CORNER, BRIDGE, BAY, LAND, WATER, (W, L, L, W)])
@pytest.mark.parametrize("joined", [(), JOINED, (W,)])
def test_parts_asked_again_are_the_parts_computed_afresh(
    edges: tuple[str, ...], joined: tuple[str, ...]
) -> None:
    fresh = _default_parts(edges, joined)
    assert call("tile_parts", edges, joined) == fresh
    assert call("tile_parts", edges, joined) == fresh
    assert call("tile_parts", list(edges), list(joined)) == fresh  # unhashable: not kept, same answer


def test_a_sweep_forgets_the_grids_nothing_else_holds_and_keeps_the_others() -> None:
    """The cache makes room by forgetting the grids only it holds (past maps in play); a grid
    still held elsewhere (a state kept by a search or a benchmark) keeps its entry, and the
    answers stay those of a fresh computation."""
    memory = Memory()
    frontier = BUILTINS["tile_frontier"].bind(memory)
    kept = [{(0, 0): tile(CAPE, r % 4), (i, 5): {"kind": "token"}} for r, i in enumerate(range(10))]
    for grid in kept:
        frontier(grid, "area")
    for i in range(3 * tile_grid.DERIVED_LIMIT):  # grids dropped as soon as asked about
        frontier({(0, 0): tile(BRIDGE), (i, 9): {"kind": "token"}}, "area")
    cached = {id(entry.grid) for entry in memory.tiles.derived.values()}
    assert all(id(grid) in cached for grid in kept)
    assert len(memory.tiles.derived) <= tile_grid.DERIVED_LIMIT
    for grid in kept:
        assert call("tile_fits", grid, (1, 0), CAPE, 3, "area") == _uncached_fits(grid, (1, 0), CAPE, 3)


def test_fitting_a_tile_without_four_edges_is_a_rule_failure_even_where_nothing_could_fit() -> None:
    grid = {(0, 0): tile(CAPE), (1, 0): {"kind": "token"}}
    every_rotation = BUILTINS["tile_fits"].bind_every(MEMORY)
    assert every_rotation is not None
    for cell in ((0, -1), (1, 0), (5, 5)):  # next to a tile, occupied, far away
        with pytest.raises(RuleFailure):
            call("tile_fits", grid, cell, (L, W, W), 0, "area")
        with pytest.raises(RuleFailure):  # asked for every rotation at once: the same failure
            every_rotation(grid, cell, (L, W, W), "area")
    with pytest.raises(RuleFailure):
        call("tile_placements", grid, (L, W, W, W, L), "area")
    with pytest.raises(RuleFailure):
        call("tile_fits_anywhere", grid, (L, W, W, W, L), "area")
