"""Checkers (rulesets/checkers) is OpenSpiel's ``checkers``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter): at
every state the player to move (the same player again while a piece must jump on), the
terminal flag and the legal actions must agree, and at the end the returns. The action
mapping: rulekit's ``step((x, y), (x2, y2))`` and ``jump((x, y), (x2, y2))`` are OpenSpiel's
``FRTR`` strings, the square's file letter ``chr(ord("a") + x)`` and rank ``ROWS - y`` (y = 0
is the top row), from then to: ``step((0, 5), (1, 4))`` is ``a3b4``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402
from tests.games.lockstep import lockstep  # noqa: E402


def _theirs_text(ours_text: str, rows: int) -> str:
    found = re.fullmatch(r"(?:step|jump)\(\((\d+), (\d+)\), \((\d+), (\d+)\)\)", ours_text)
    assert found, ours_text
    x, y, x2, y2 = (int(v) for v in found.groups())
    return f"{chr(ord('a') + x)}{rows - y}{chr(ord('a') + x2)}{rows - y2}"


def _lockstep(ours: Any, theirs: Any, seed: int, rows: int = 8) -> int:
    return lockstep(ours, theirs, seed, lambda a, text: _theirs_text(text, rows))


@pytest.fixture(scope="module")
def games() -> tuple[Any, Any]:
    return rk.register("checkers"), pyspiel.load_game("checkers")


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_matches_openspiel_checkers(games: tuple[Any, Any], seed: int) -> None:
    assert _lockstep(*games, seed) > 1


@pytest.mark.parametrize("size", [10, 12])
def test_other_board_sizes_match_openspiel_checkers(size: int) -> None:
    ours = rk.register("checkers", params={"ROWS": size, "COLS": size})
    theirs = pyspiel.load_game("checkers", {"rows": size, "columns": size})
    for seed in range(5):
        _lockstep(ours, theirs, seed, rows=size)


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel_checkers(games: tuple[Any, Any]) -> None:
    assert sum(_lockstep(*games, seed) for seed in range(50, 1050)) > 1000


def test_openspiel_random_sim_test_passes_on_checkers(games: tuple[Any, Any]) -> None:
    pyspiel.random_sim_test(games[0], num_sims=2, serialize=True, verbose=False)
