"""Bots and the game driver."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_game
from rulekit.tools.bots import FirstLegalBot, RandomBot, make_bots, play_game
from tests.tools.conftest import TINY


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


def _with_weights(tiny_text: str, weights: str) -> str:
    return tiny_text.replace("scoring:", f"bots:\n  weights:\n{weights}\nscoring:")


def test_a_random_bot_never_picks_an_action_of_weight_zero(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(_with_weights(TINY, "    wait: 0"), name="weighted")
    game = load_game(str(directory), 2)
    for seed in range(5):
        played = play_game(game, seed, make_bots(game, "random", seed))
        assert all(text.startswith("pay") for _, text in played.log.actions)


def test_a_weight_expression_sees_the_action_parameters(write_ruleset: Callable[..., Path]) -> None:
    yaml_weights = '    pay: "5 if amount == 2 else 0"\n    wait: 0'
    directory = write_ruleset(_with_weights(TINY, yaml_weights), name="expr")
    state = load_game(str(directory), 2).new_initial_state(0)
    weights = {str(a): state.action_weight(a) for a in state.legal_actions()}
    assert weights == {"pay(1)": 0, "pay(2)": 5, "wait": 0}


def test_a_uniform_bot_ignores_the_weights(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(_with_weights(TINY, "    wait: 0"), name="uniform")
    game = load_game(str(directory), 2)
    texts = set()
    for seed in range(10):
        played = play_game(game, seed, make_bots(game, "uniform", seed))
        texts.update(text for _, text in played.log.actions)
    assert "wait" in texts


def test_a_weight_for_an_unknown_action_is_reported_at_its_position(
    write_ruleset: Callable[..., Path],
) -> None:
    directory = write_ruleset(_with_weights(TINY, "    wiat: 3"), name="typo")
    with pytest.raises(RulesetError) as caught:
        load_game(str(directory), 2)
    text = caught.value.render()
    assert "ruleset.yaml:" in text and "unknown action 'wiat'" in text and "did you mean 'wait'?" in text
