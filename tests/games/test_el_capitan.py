"""El Capitan base game (rulesets/el_capitan): random games, money ledger, replay, scenarios.

Random bots must finish every game for 2-5 players; what the bank paid out and
took in must explain every player's money.  Replaying a logged game and running every
scenario file are part of the contract every ruleset keeps (tests/contract).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.load import load_game
from rulekit.tools.bots import make_bots, play_game
from rulekit.tools.scenario import find_scenarios

RULESET_DIR = Path(__file__).resolve().parents[2] / "rulesets" / "el_capitan"
SCENARIO_DIR = RULESET_DIR / "scenarios"
START_MONEY = 20
MAX_ACTIONS = 20_000
SEEDS = (0, 1, 2, 3)


def _base_scenarios() -> list[Path]:
    """The base game's scenarios (expansion scenarios live in a subdirectory)."""
    return sorted(p for p in find_scenarios([SCENARIO_DIR]) if p.parent == SCENARIO_DIR)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_game_ends_with_winners_and_money_that_adds_up(players: int, seed: int) -> None:
    """Random bots finish the game; the bank ledger explains every player's money."""
    game = load_game(str(RULESET_DIR), players)
    played = play_game(game, seed, make_bots(game, "random", seed), MAX_ACTIONS)
    state = played.state
    assert played.finished, f"no end after {MAX_ACTIONS} actions"
    fields = state.fields
    assert fields[("game", "phase")] == 3
    assert state.winners()
    money = sum(fields[(p, "money")] for p in range(players))
    assert money == START_MONEY * players + fields[("_", "paid_out")] - fields[("_", "taken_in")]
    assert all(fields[(p, "loans")] == () for p in range(players)), "all loans are repaid at the end"
    assert len(fields[("game", "loan_stock")]) == 30


@pytest.mark.parametrize("players", [2, 5])
def test_first_legal_bot_finishes_the_game(players: int) -> None:
    """A bot that always takes the first legal action cannot loop forever either."""
    game = load_game(str(RULESET_DIR), players)
    played = play_game(game, 1, make_bots(game, "first", 1), MAX_ACTIONS)
    assert played.finished


def test_tied_money_shares_the_victory() -> None:
    """With no tie-break, players with equal final money all win (R18)."""
    game = load_game(str(RULESET_DIR), 3)
    state = game.new_initial_state(0)
    state.fields[(0, "money")] = 30
    state.fields[(1, "money")] = 30
    state.fields[(2, "money")] = 10
    assert sorted(state.winners()) == [0, 1]


def test_debt_counts_against_the_final_score() -> None:
    """A player who could not repay scores her money minus the shortfall (R7)."""
    game = load_game(str(RULESET_DIR), 2)
    state = game.new_initial_state(0)
    state.fields[(0, "money")] = 10
    state.fields[(0, "debt")] = 15
    assert state.scores()[0] == -5


def test_there_are_at_least_forty_base_scenarios() -> None:
    """Every worked example and ruling of the base game has a scenario."""
    assert len(_base_scenarios()) >= 40
