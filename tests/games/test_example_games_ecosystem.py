"""The three example games (connect_four, royal_letter, pig) through the OpenSpiel and
PettingZoo adapters, checked by those projects' own conformance tests."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")
require("pettingzoo", "pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from rulekit import openspiel, pettingzoo  # noqa: E402

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
GAMES = [("connect_four", 2), ("royal_letter", 2), ("royal_letter", 4), ("pig", 2), ("pig", 3)]
IDS = [f"{name}-{players}p" for name, players in GAMES]
Information = pyspiel.GameType.Information
ChanceMode = pyspiel.GameType.ChanceMode


@pytest.mark.parametrize(("name", "players"), GAMES, ids=IDS)
def test_openspiel_random_sim_test_passes_with_serialization(name: str, players: int) -> None:
    game = openspiel.register(str(RULESETS / name), players=players)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize(
    ("name", "information", "chance"),
    [
        ("connect_four", Information.PERFECT_INFORMATION, ChanceMode.DETERMINISTIC),
        ("royal_letter", Information.IMPERFECT_INFORMATION, ChanceMode.EXPLICIT_STOCHASTIC),
        ("pig", Information.PERFECT_INFORMATION, ChanceMode.EXPLICIT_STOCHASTIC),
    ],
)
def test_openspiel_game_types_follow_from_the_rules(name: str, information: object, chance: object) -> None:
    """Hidden or owner-only fields make imperfect information; a shuffle or a roll makes chance."""
    game = openspiel.register(str(RULESETS / name), players=2)
    assert game.get_type().information == information
    assert game.get_type().chance_mode == chance


@pytest.mark.parametrize(("name", "players"), GAMES, ids=IDS)
def test_pettingzoo_api_and_seed_tests_pass(name: str, players: int) -> None:
    with warnings.catch_warnings():
        # api_test warns that dict observations and all-zero masks of waiting agents are unusual.
        warnings.simplefilter("ignore", UserWarning)
        api_test(pettingzoo.env(str(RULESETS / name), players=players), num_cycles=60)
    seed_test(lambda render_mode=None: pettingzoo.env(str(RULESETS / name), players=players), num_cycles=8)
