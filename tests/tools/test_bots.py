"""Bots and the game driver."""

from __future__ import annotations

from rulekit.load import load_game
from rulekit.tools.bots import FirstLegalBot, RandomBot, make_bots, play_game


def test_the_same_seeds_play_the_same_game() -> None:
    game = load_game("tic_tac_toe", 2)
    first = play_game(game, 9, make_bots(game, "random", 9))
    second = play_game(game, 9, make_bots(game, "random", 9))
    assert first.log.actions == second.log.actions
    assert first.state.state_hash() == second.state.state_hash()


def test_the_first_legal_bot_takes_the_first_action() -> None:
    game = load_game("tic_tac_toe", 2)
    played = play_game(game, 0, [FirstLegalBot(), FirstLegalBot()])
    assert [text for _, text in played.log.actions[:3]] == ["place(a1)", "place(b1)", "place(c1)"]
    assert played.finished


def test_play_game_stops_after_max_actions() -> None:
    game = load_game("tic_tac_toe", 2)
    played = play_game(game, 0, [RandomBot(1), RandomBot(2)], max_actions=2)
    assert not played.finished
    assert [p for p, _ in played.log.actions] == [0, 1]
