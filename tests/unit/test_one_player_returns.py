"""A game of one player (against a dealer, a puzzle) has no one to tie with: her return is the
sign of her score (+1 a win, -1 a loss, 0 a push)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.load import load_game
from rulekit.tools.render import render_standings

SOLO = """
ruleset: solo
players: {min: 1, max: 2}
state:
  game:
    result: {type: int}
actions:
  finish:
    params: {r: "[-3, 0, 2]"}
    effect: game.result = r
    ends_turn: true
flow:
  - turn: player_at(1)
scoring:
  score: game.result
"""


@pytest.mark.parametrize(("result", "expected"), [(-3, [-1.0]), (0, [0.0]), (2, [1.0])])
def test_one_player_s_return_is_the_sign_of_her_score(
    write_ruleset: Callable[..., Path], result: int, expected: list[float]
) -> None:
    game = load_game(str(write_ruleset(SOLO)), 1)
    state = game.new_initial_state(seed=0)
    state.apply_action(f"finish({result})")
    assert state.is_terminal()
    assert state.returns() == expected


def test_two_players_on_the_same_score_still_tie(write_ruleset: Callable[..., Path]) -> None:
    game = load_game(str(write_ruleset(SOLO)), 2)
    state = game.new_initial_state(seed=0)
    state.apply_action("finish(2)")
    assert state.returns() == [0.0, 0.0]


@pytest.mark.parametrize(
    ("result", "line"), [(-3, "result: lost"), (0, "result: a draw"), (2, "result: won")]
)
def test_the_standings_of_one_player_say_won_or_lost(
    write_ruleset: Callable[..., Path], result: int, line: str
) -> None:
    state = load_game(str(write_ruleset(SOLO)), 1).new_initial_state(seed=0)
    state.apply_action(f"finish({result})")
    assert render_standings(state).splitlines()[-1] == line
