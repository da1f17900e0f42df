"""Oware (rulesets/oware) is OpenSpiel's ``oware``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter): at
every state the player to move, the terminal flag and the legal actions must agree, and at the
end the returns. The action mapping: rulekit's ``sow(H)`` (a house of the mover's row, 1..6)
is OpenSpiel's action string ``chr(ord("A") + H - 1)`` for its player 0 and the lower-case
letter for player 1.
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
    found = re.fullmatch(r"sow\((\d+)\)", ours_text)
    assert found, ours_text
    return chr(ord("A" if player == 0 else "a") + int(found[1]) - 1)


def _lockstep(ours: Any, theirs: Any, seed: int) -> int:
    return lockstep(ours, theirs, seed, lambda a, text: _theirs_text(text, a.current_player()))


@pytest.fixture(scope="module")
def games() -> tuple[Any, Any]:
    return rk.register("oware"), pyspiel.load_game("oware")


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_matches_openspiel_oware(games: tuple[Any, Any], seed: int) -> None:
    assert _lockstep(*games, seed) > 1


@pytest.mark.parametrize(("houses", "seeds"), [(3, 2), (4, 3), (2, 1)])
def test_other_board_sizes_match_openspiel_oware(houses: int, seeds: int) -> None:
    ours = rk.register("oware", params={"HOUSES": houses, "SEEDS": seeds})
    theirs = pyspiel.load_game("oware", {"num_houses_per_player": houses, "num_seeds_per_house": seeds})
    for seed in range(20):
        _lockstep(ours, theirs, seed)


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel_oware(games: tuple[Any, Any]) -> None:
    assert sum(_lockstep(*games, seed) for seed in range(50, 1050)) > 1000


def test_openspiel_random_sim_test_passes_on_oware(games: tuple[Any, Any]) -> None:
    pyspiel.random_sim_test(games[0], num_sims=2, serialize=True, verbose=False)
