"""Hex (rulesets/hex) is OpenSpiel's ``hex``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter): at
every state the board (drawn as OpenSpiel's ``ToString``), the player to move, the terminal flag,
the legal actions and at the end the returns must agree. The action mapping: rulekit's
``place(cX_Y)`` (x the column from 0, y the row from 0, north to south) is OpenSpiel's
``{a+X}{Y+1}`` (its standard notation: ``place(c2_0)`` is ``c1``). OpenSpiel's ``swap`` option
(off by default) is not in the ruleset.
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

HEX = Path(__file__).resolve().parents[2] / "rulesets" / "hex"
PLACE = re.compile(r"place\(c(\d+)_(\d+)\)")


def _theirs_text(ours_text: str) -> str:
    found = PLACE.fullmatch(ours_text)
    assert found, ours_text
    return f"{chr(ord('a') + int(found[1]))}{int(found[2]) + 1}"


def _drawn(state: Any, rows: int, columns: int) -> str:
    """rulekit's board drawn as OpenSpiel's ``ToString`` (standard notation) draws its own."""
    board: dict[tuple[int, int], int] = state.engine_state.value("game", "board")
    return "\n".join(
        " " * y + "".join(".xo"[board.get((x, y), -1) + 1] + " " for x in range(columns)) for y in range(rows)
    )


def _lockstep(ours: Any, theirs: Any, seed: int, rows: int = 11, columns: int = 11) -> int:
    def same_board(a: Any, b: Any) -> None:
        assert _drawn(a, rows, columns) == str(b)

    return lockstep(ours, theirs, seed, lambda a, text: _theirs_text(text), same_board)


_REGISTERED: dict[tuple[int, int], Any] = {}


@pytest.fixture(scope="module")
def sized() -> Any:
    """rulekit's hex on a board of rows x columns (its parameters), loaded once per size."""

    def register(rows: int, columns: int) -> Any:
        if (rows, columns) not in _REGISTERED:
            _REGISTERED[rows, columns] = rk.register("hex", params={"ROWS": rows, "COLUMNS": columns})
        return _REGISTERED[rows, columns]

    return register


@pytest.mark.parametrize("seed", range(10))
def test_a_random_game_on_the_default_board_matches_openspiel(seed: int) -> None:
    ours, theirs = rk.register("hex"), pyspiel.load_game("hex")
    assert _lockstep(ours, theirs, seed) > 11


@pytest.mark.parametrize("seed", range(40))
def test_a_random_game_on_a_small_board_matches_openspiel(sized: Any, seed: int) -> None:
    theirs = pyspiel.load_game("hex", {"board_size": 5})
    assert _lockstep(sized(5, 5), theirs, seed, rows=5, columns=5) > 5


@pytest.mark.parametrize(("rows", "columns"), [(3, 4), (4, 3), (2, 2), (7, 5)])
def test_boards_of_other_shapes_match_openspiel(sized: Any, rows: int, columns: int) -> None:
    theirs = pyspiel.load_game("hex", {"num_rows": rows, "num_cols": columns})
    for seed in range(5):
        _lockstep(sized(rows, columns), theirs, seed, rows=rows, columns=columns)


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel() -> None:
    ours, theirs = rk.register("hex"), pyspiel.load_game("hex")
    assert sum(_lockstep(ours, theirs, seed) for seed in range(100, 1100)) > 20_000


def test_openspiel_random_sim_test_passes() -> None:
    pyspiel.random_sim_test(rk.register("hex"), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("scenario", sorted(find_scenarios([HEX / "scenarios"])), ids=lambda p: p.stem)
def test_the_scenarios_pass(scenario: Path) -> None:
    report = run_scenario(scenario)
    assert report.passed, report
