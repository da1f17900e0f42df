"""Othello (rulesets/othello) is OpenSpiel's ``othello``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter): at
every state the board, the player to move, the terminal flag, the legal actions and at the end
the returns must agree. The action mapping: rulekit's ``place(cX_Y)`` (x the column from 0, y
the row from the top from 0) is OpenSpiel's ``{a+X}{Y+1}`` (``place(c4_2)`` is ``e3``), and
``pass`` is ``pass``.
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

OTHELLO = Path(__file__).resolve().parents[2] / "rulesets" / "othello"
PLACE = re.compile(r"place\(c(\d+)_(\d+)\)")


def _theirs_text(ours_text: str) -> str:
    if ours_text == "pass":
        return "pass"
    found = PLACE.fullmatch(ours_text)
    assert found, ours_text
    return f"{chr(ord('a') + int(found[1]))}{int(found[2]) + 1}"


def _rows(state: Any) -> list[str]:
    """rulekit's board drawn as the rows of OpenSpiel's ``ToString`` (``x`` black, ``o`` white)."""
    board: dict[tuple[int, int], int] = state.engine_state.value("game", "board")
    return [
        f"{y + 1} " + "".join("-xo"[board.get((x, y), -1) + 1] + " " for x in range(8)) + f"{y + 1}"
        for y in range(8)
    ]


def _same_board(a: Any, b: Any) -> None:
    assert _rows(a) == str(b).splitlines()[2:10]


def _lockstep(ours: Any, theirs: Any, seed: int) -> int:
    return lockstep(ours, theirs, seed, lambda a, text: _theirs_text(text), _same_board)


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_matches_openspiel(seed: int) -> None:
    ours, theirs = rk.register("othello"), pyspiel.load_game("othello")
    assert _lockstep(ours, theirs, seed) > 9


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel() -> None:
    ours, theirs = rk.register("othello"), pyspiel.load_game("othello")
    assert sum(_lockstep(ours, theirs, seed) for seed in range(100, 1100)) > 20_000


def test_openspiel_random_sim_test_passes() -> None:
    pyspiel.random_sim_test(rk.register("othello"), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("scenario", sorted(find_scenarios([OTHELLO / "scenarios"])), ids=lambda p: p.stem)
def test_the_scenarios_pass(scenario: Path) -> None:
    report = run_scenario(scenario)
    assert report.passed, report
