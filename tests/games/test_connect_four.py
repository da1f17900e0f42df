"""Connect Four (rulesets/connect_four): the same games as OpenSpiel's, bots that play it.

OpenSpiel's C++ ``connect_four`` is the reference: random move sequences played in both
must offer the same moves and end at the same move with the same returns. Its action ``k``
is a disc dropped in column ``k`` (0 = a), the same integer as rulekit's action space.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.load import load_game
from rulekit.tools.bots import make_bots, play_game
from rulekit.tools.scenario import find_scenarios, run_scenario
from tests.ecosystem.extras import require

RULESET_DIR = Path(__file__).resolve().parents[2] / "rulesets" / "connect_four"
SCENARIOS = sorted(find_scenarios([RULESET_DIR / "scenarios"]))


def test_without_diagonals_the_diagonal_scenarios_fail(tmp_path: Path) -> None:
    """The scenarios can fail: rules that forget the diagonals fail exactly the diagonal wins."""
    variant = tmp_path / "no_diagonals.yaml"
    when = "n_in_a_row(game.board, (column.x, height(column) - 1), CONNECT, directions('orthogonal'))"
    variant.write_text(
        f"variant: no_diagonals\nruleset: connect_four\nset:\n  triggers.four_in_a_row.when: {when}\n"
    )
    failed = {p.stem for p in SCENARIOS if not run_scenario(p, variants=[str(variant)]).passed}
    assert failed == {"win_on_a_rising_diagonal", "win_on_a_falling_diagonal"}


def test_the_columns_are_numbered_as_in_openspiel() -> None:
    """Action k drops a disc in column k, left to right, as in OpenSpiel."""
    from rulekit.engine.spaces import ActionSpace

    game = load_game(str(RULESET_DIR), 2)
    space = ActionSpace(game)
    assert [str(space.decode(k)) for k in range(7)] == [f"drop({c})" for c in "abcdefg"]


def _openspiel_pair() -> tuple[Any, Any]:
    """A new rulekit_connect_four state and a new OpenSpiel connect_four state."""
    pyspiel = require("pyspiel", "openspiel")
    from rulekit import openspiel

    openspiel.register(str(RULESET_DIR), players=2)
    ours = pyspiel.load_game("rulekit_connect_four").new_initial_state()
    return ours, pyspiel.load_game("connect_four").new_initial_state()


@given(picks=st.lists(st.integers(0, 6), max_size=42))
def test_any_move_sequence_ends_as_in_openspiel(picks: list[int]) -> None:
    """Same legal moves at every step, same end, same returns as OpenSpiel's connect_four.

    Move i is the legal move ``picks[i] % len(legal)``; after the picks, the first legal move.
    """
    ours, theirs = _openspiel_pair()
    moves = 0
    while not theirs.is_terminal():
        assert not ours.is_terminal(), f"rulekit ended after {moves} moves, OpenSpiel did not"
        assert ours.current_player() == theirs.current_player()
        legal = theirs.legal_actions()
        assert ours.legal_actions() == legal, f"after {moves} moves"
        move = legal[picks[moves] % len(legal)] if moves < len(picks) else legal[0]
        ours.apply_action(move)
        theirs.apply_action(move)
        moves += 1
    assert ours.is_terminal(), f"OpenSpiel ended after {moves} moves, rulekit did not"
    assert ours.returns() == theirs.returns()


@pytest.mark.parametrize("seed", range(20))
def test_random_games_end_as_in_openspiel(seed: int) -> None:
    """Uniformly random games (which reach full boards and draws more often than the
    property's shrinking-friendly picks) end as in OpenSpiel."""
    ours, theirs = _openspiel_pair()
    rng = random.Random(seed)
    while not theirs.is_terminal():
        assert ours.legal_actions() == theirs.legal_actions()
        move = rng.choice(theirs.legal_actions())
        ours.apply_action(move)
        theirs.apply_action(move)
    assert ours.is_terminal() and ours.returns() == theirs.returns()


def test_heuristic_bot_beats_random_bots() -> None:
    """bots.evaluate is good enough for a one-move look-ahead to beat random play."""
    game = load_game(str(RULESET_DIR), 2)
    wins = 0
    for seed in range(10):
        seat = seed % 2
        bots = make_bots(game, "heuristic,random" if seat == 0 else "random,heuristic", seed)
        played = play_game(game, seed, bots, 100)
        assert played.finished
        wins += played.state.winners() == [seat]
    assert wins >= 8, f"the heuristic bot won {wins} of 10"


@pytest.mark.slow
def test_mcts_beats_random_more_often_than_not() -> None:
    """MCTS (100 iterations, cut-offs rated by bots.evaluate) wins most games in either seat."""
    game = load_game(str(RULESET_DIR), 2)
    wins = 0
    games = 6
    for seed in range(games):
        seat = seed % 2
        spec = "mcts:iterations=100,random" if seat == 0 else "random,mcts:iterations=100"
        played = play_game(game, seed, make_bots(game, spec, seed), 100)
        assert played.finished
        wins += played.state.winners() == [seat]
    assert wins > games // 2, f"MCTS won {wins} of {games}"
