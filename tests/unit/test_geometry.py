"""Square-grid built-ins: neighbours, lines and "n in a row" on a map from cells."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.errors import RulesetError
from rulekit.load import load_game
from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.errors import RuleFailure


def _call(name: str, *args: Any) -> Any:
    return BUILTINS[name].impl(*args)


def test_all_neighbors_are_the_orthogonal_and_the_diagonal_ones() -> None:
    """The eight neighbours are the four of neighbors() and the four diagonal ones."""
    cell = (3, 4)
    orthogonal, diagonal = _call("neighbors", cell), _call("diagonal_neighbors", cell)
    assert set(_call("all_neighbors", cell)) == {*orthogonal, *diagonal}
    assert len(set(_call("all_neighbors", cell))) == 8


def test_a_line_steps_from_its_cell_in_its_direction() -> None:
    """line(cell, d, n) starts at the cell; shift() reaches its last cell."""
    cells = _call("line", (1, 1), (1, 1), 3)
    assert cells == ((1, 1), (2, 2), (3, 3))
    assert _call("shift", (1, 1), (1, 1), 2) == cells[-1]
    assert _call("line", (1, 1), (1, 0), 0) == ()


def test_run_length_counts_both_ways_and_stops_at_another_value() -> None:
    """A run through the middle of a row counts cells on both sides, up to a different value."""
    grid = {(0, 0): 1, (1, 0): 1, (2, 0): 1, (3, 0): 2, (4, 0): 1}
    assert _call("run_length", grid, (1, 0), (1, 0)) == 3
    assert _call("run_length", grid, (1, 0), (-1, 0)) == 3
    assert _call("run_length", grid, (3, 0), (1, 0)) == 1
    assert _call("run_length", grid, (9, 9), (1, 0)) == 0


def test_four_in_a_row_on_a_diagonal_is_found_from_any_of_its_cells() -> None:
    """A rising diagonal of four (as in a column-dropping game) is found from each of its cells."""
    diagonal = [(0, 5), (1, 4), (2, 3), (3, 2)]
    grid: dict[Any, Any] = dict.fromkeys(diagonal, 0)
    grid[(1, 5)] = 1
    lines = _call("directions", "lines")
    for cell in diagonal:
        assert _call("n_in_a_row", grid, cell, 4, lines)
        assert not _call("n_in_a_row", grid, cell, 5, lines)
        assert not _call("n_in_a_row", grid, cell, 4, _call("directions", "orthogonal"))
    assert not _call("n_in_a_row", grid, (1, 5), 2, lines)


@given(
    st.dictionaries(
        st.tuples(st.integers(0, 4), st.integers(0, 4)), st.sampled_from(["X", "O"]), max_size=25
    ),
    st.tuples(st.integers(0, 4), st.integers(0, 4)),
    st.integers(1, 5),
)
def test_n_in_a_row_agrees_with_checking_every_line_through_the_cell(
    grid: dict[tuple[int, int], str], cell: tuple[int, int], n: int
) -> None:
    """n_in_a_row is true exactly when some line of n cells containing the cell holds its value."""
    value = grid.get(cell)
    expected = value is not None and any(
        all(grid.get((cell[0] + (k - back) * dx, cell[1] + (k - back) * dy)) == value for k in range(n))
        for dx, dy in _call("directions", "lines")
        for back in range(n)
    )
    assert _call("n_in_a_row", grid, cell, n, _call("directions", "lines")) == expected


@given(
    st.dictionaries(
        st.tuples(st.integers(0, 4), st.integers(0, 4)), st.sampled_from(["X", "O"]), max_size=25
    ),
    st.tuples(st.integers(0, 4), st.integers(0, 4)),
    st.integers(-1, 5),
    st.one_of(
        st.sampled_from(["orthogonal", "diagonal", "all", "lines"]).map(lambda w: _call("directions", w)),
        st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), max_size=4),
    ),
)
def test_n_in_a_row_is_a_run_length_of_n_along_one_of_the_directions(
    grid: dict[tuple[int, int], str], cell: tuple[int, int], n: int, directions: list[tuple[int, int]]
) -> None:
    """Along named or any other directions (a (0, 0) one included), n_in_a_row is whether the
    run through the cell reaches n along one of them."""
    expected = any(_call("run_length", grid, cell, d) >= n for d in directions)
    assert _call("n_in_a_row", grid, cell, n, directions) == expected


def test_n_in_a_row_checks_its_cell_directions_and_grid() -> None:
    """A bad cell, direction or grid is a rule failure naming it, as with run_length."""
    with pytest.raises(RuleFailure, match="n_in_a_row: the cell"):
        _call("n_in_a_row", {}, (1, 2, 3), 2, _call("directions", "lines"))
    with pytest.raises(RuleFailure, match="n_in_a_row: a direction"):
        _call("n_in_a_row", {}, (1, 2), 2, [(1, 0), "east"])
    with pytest.raises(RuleFailure, match="the grid must be a map"):
        _call("n_in_a_row", [1, 2], (1, 2), 2, [(1, 0)])


def test_an_unknown_direction_set_is_a_located_load_error() -> None:
    """directions("line") is caught when the rules load, with the known names as a hint."""
    program = load_game("tic_tac_toe", 2).program
    with pytest.raises(RulesetError, match="'directions' knows no which 'line'") as caught:
        program.compile_expression('directions("line")')
    assert "did you mean 'lines'" in str(caught.value)


def test_a_cell_that_is_not_a_pair_fails_the_rule_not_the_engine() -> None:
    """A malformed cell is a rule failure with a message, not a Python error."""
    with pytest.raises(RuleFailure, match="pair of integers"):
        _call("line", (1, 2, 3), (1, 0), 2)
    with pytest.raises(RuleFailure, match="limited"):
        _call("grid_cells", 1000, 1000)


def test_n_in_a_row_reads_a_map_field_built_in_the_rules() -> None:
    """Compiled rules call the built-ins on a map built with put()."""
    game = load_game("tic_tac_toe", 2)
    fn, _ = game.program.compile_expression(
        'n_in_a_row(g, (2, 2), 3, directions("lines"))'
        " where g = put(put(put(record(), (1, 1), me), (2, 2), me), (3, 3), me)"
    )
    assert fn(game.new_initial_state(0).fields, game.runtime, 0) is True
