"""Breakthrough (rulesets/breakthrough) is OpenSpiel's ``breakthrough``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter): at
every state the player to move, the terminal flag, the legal actions and at the end the returns
must agree. The action mapping: rulekit's ``move(cX_Y, cU_V)`` (x the column from 0, y the row
from the bottom from 0) is OpenSpiel's ``{a+X}{Y+1}{a+U}{V+1}``, with a ``*`` when the target
square holds an opposing piece (a capture), e.g. ``move(c1_6, c2_5)`` is ``b7c6`` or ``b7c6*``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402
from rulekit.tools.scenario import find_scenarios, run_scenario  # noqa: E402
from tests.games.lockstep import lockstep  # noqa: E402

BREAKTHROUGH = Path(__file__).resolve().parents[2] / "rulesets" / "breakthrough"
MOVE = re.compile(r"move\(c(\d+)_(\d+), c(\d+)_(\d+)\)")


def _square(x: str, y: str) -> str:
    return f"{chr(ord('a') + int(x))}{int(y) + 1}"


def _board(state: Any) -> dict[tuple[int, int], int]:
    """rulekit's board: (x, y) -> the seat (0 = OpenSpiel's black) of the piece there."""
    board: dict[tuple[int, int], int] = state.engine_state.value("game", "board")
    return board


def _theirs_text(ours_text: str, state: Any) -> str:
    """OpenSpiel's text of a rulekit move: squares in algebraic notation, ``*`` on a capture."""
    found = MOVE.fullmatch(ours_text)
    assert found, ours_text
    x1, y1, x2, y2 = found.groups()
    capture = "*" if (int(x2), int(y2)) in _board(state) else ""
    return _square(x1, y1) + _square(x2, y2) + capture


def _drawn(state: Any, rows: int, columns: int) -> str:
    """rulekit's board drawn as OpenSpiel's ``ToString`` draws its own."""
    board = _board(state)
    lines = [
        f"{y + 1}" + "".join(".bw"[board.get((x, y), -1) + 1] for x in range(columns))
        for y in reversed(range(rows))
    ]
    return "\n".join(lines) + "\n " + "".join(chr(ord("a") + x) for x in range(columns)) + "\n"


def _lockstep(ours: Any, theirs: Any, seed: int, rows: int = 8, columns: int = 8) -> int:
    def same_board(a: Any, b: Any) -> None:
        assert _drawn(a, rows, columns) == str(b)

    return lockstep(ours, theirs, seed, lambda a, text: _theirs_text(text, a), same_board)


_REGISTERED: dict[tuple[int, int], Any] = {}


@pytest.fixture(scope="module")
def sized() -> Any:
    """rulekit's breakthrough on a rows x columns board (its parameters), loaded once per size."""

    def register(rows: int, columns: int) -> Any:
        if (rows, columns) not in _REGISTERED:
            _REGISTERED[rows, columns] = rk.register(
                "breakthrough", params={"ROWS": rows, "COLUMNS": columns}
            )
        return _REGISTERED[rows, columns]

    return register


@pytest.mark.parametrize("seed", range(10))
def test_a_random_game_on_the_default_board_matches_openspiel(seed: int) -> None:
    ours, theirs = rk.register("breakthrough"), pyspiel.load_game("breakthrough")
    assert _lockstep(ours, theirs, seed) > 10


@pytest.mark.parametrize("seed", range(40))
def test_a_random_game_on_a_small_board_matches_openspiel(sized: Any, seed: int) -> None:
    """6x5: two home rows each (OpenSpiel's rule for 6 rows or more), a short game."""
    ours = sized(6, 5)
    theirs = pyspiel.load_game("breakthrough", {"rows": 6, "columns": 5})
    assert _lockstep(ours, theirs, seed, rows=6, columns=5) > 4


@pytest.mark.parametrize(("rows", "columns"), [(5, 4), (3, 3), (4, 7)])
def test_boards_under_six_rows_start_with_one_home_row_as_in_openspiel(
    sized: Any, rows: int, columns: int
) -> None:
    ours = sized(rows, columns)
    theirs = pyspiel.load_game("breakthrough", {"rows": rows, "columns": columns})
    for seed in range(5):
        _lockstep(ours, theirs, seed, rows=rows, columns=columns)


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel() -> None:
    ours, theirs = rk.register("breakthrough"), pyspiel.load_game("breakthrough")
    assert sum(_lockstep(ours, theirs, seed) for seed in range(100, 1100)) > 10_000


def test_openspiel_random_sim_test_passes() -> None:
    pyspiel.random_sim_test(rk.register("breakthrough"), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "scenario", sorted(find_scenarios([BREAKTHROUGH / "scenarios"])), ids=lambda p: p.stem
)
def test_the_scenarios_pass(scenario: Path) -> None:
    report = run_scenario(scenario)
    assert report.passed, report
