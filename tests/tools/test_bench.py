"""The benchmark's playout loop, on rulekit games and on anything with OpenSpiel's state API."""

from __future__ import annotations

from rulekit.load import load_game
from rulekit.tools.bench import bench_openspiel, bench_rulekit


class _CountdownState:
    """A stand-in for an OpenSpiel state: three actions, then the game is over."""

    def __init__(self) -> None:
        self.left = 3

    def is_terminal(self) -> bool:
        return self.left == 0

    def legal_actions(self) -> list[int]:
        return [0, 1]

    def apply_action(self, action: int) -> None:
        self.left -= 1


class _CountdownGame:
    def new_initial_state(self) -> _CountdownState:
        return _CountdownState()


def test_the_openspiel_loop_plays_whole_games_and_counts_their_actions() -> None:
    """With no time left, one whole game is still played and all its actions counted."""
    result = bench_openspiel(_CountdownGame(), seconds=0.0)
    assert result.playouts == 1
    assert result.actions == 3


def test_a_rulekit_playout_is_cut_off_after_max_actions() -> None:
    """max_actions bounds a playout of a rulekit game."""
    result = bench_rulekit(load_game("tic_tac_toe", 2), seconds=0.0, max_actions=2)
    assert (result.playouts, result.actions) == (1, 2)
