"""Dots and Boxes (rulesets/dots_and_boxes) is OpenSpiel's ``dots_and_boxes``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter): at
every state the player to move (the same player again after a box is completed), the terminal
flag and the legal actions must agree, and at the end the returns. The action mapping:
rulekit's ``horizontal((R, C))`` and ``vertical((R, C))`` are OpenSpiel's ``PN(h,R,C)`` and
``PN(v,R,C)``, where N is the seat of the player to move (1 or 2).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402
from tests.games.lockstep import lockstep  # noqa: E402


def _theirs_text(ours_text: str, player: int) -> str:
    found = re.fullmatch(r"(horizontal|vertical)\(\((\d+), (\d+)\)\)", ours_text)
    assert found, ours_text
    return f"P{player + 1}({found[1][0]},{found[2]},{found[3]})"


def _lockstep(ours: Any, theirs: Any, seed: int) -> int:
    return lockstep(ours, theirs, seed, lambda a, text: _theirs_text(text, a.current_player()))


@pytest.fixture(scope="module")
def games() -> tuple[Any, Any]:
    return rk.register("dots_and_boxes"), pyspiel.load_game("dots_and_boxes")


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_matches_openspiel_dots_and_boxes(games: tuple[Any, Any], seed: int) -> None:
    assert _lockstep(*games, seed) > 1


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (3, 2), (3, 3)])
def test_other_grid_sizes_match_openspiel_dots_and_boxes(rows: int, cols: int) -> None:
    ours = rk.register("dots_and_boxes", params={"ROWS": rows, "COLS": cols})
    theirs = pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols})
    for seed in range(10):
        _lockstep(ours, theirs, seed)


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel_dots_and_boxes(games: tuple[Any, Any]) -> None:
    assert sum(_lockstep(*games, seed) for seed in range(50, 1050)) > 1000


def test_openspiel_random_sim_test_passes_on_dots_and_boxes(games: tuple[Any, Any]) -> None:
    pyspiel.random_sim_test(games[0], num_sims=3, serialize=True, verbose=False)
