"""Bots and the game driver."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.errors import RulekitError, RulesetError, UsageError
from rulekit.load import load_game
from rulekit.tools.bots import (
    FirstLegalBot,
    RandomBot,
    make_bots,
    parse_bots,
    play_game,
    seat_specs,
)
from rulekit.tools.evaluation import evaluate
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


# ---------------------------------------------------------------- --bots specifications


def test_a_bots_value_names_one_bot_per_seat_with_options() -> None:
    specs = parse_bots("mcts:iterations=400:cutoff=10,heuristic,random,random")
    assert [str(s) for s in specs] == ["mcts:iterations=400:cutoff=10", "heuristic", "random", "random"]


def test_options_after_a_comma_continue_the_seat_before() -> None:
    assert [str(s) for s in parse_bots("mcts:iterations=40,cutoff=5,random")] == [
        "mcts:iterations=40:cutoff=5",
        "random",
    ]


def test_one_bot_fills_every_seat_and_a_wrong_count_is_a_usage_error() -> None:
    assert [str(s) for s in seat_specs(parse_bots("heuristic"), 3)] == ["heuristic"] * 3
    with pytest.raises(UsageError, match="names 2 bots for 4 players"):
        seat_specs(parse_bots("random,random"), 4)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("clever", "unknown bot kind 'clever'"),
        ("mcts:depth=3", "bot 'mcts' has no option 'depth'"),
        ("mcts:iterations", "needs NAME=VALUE"),
        ("mcts:iterations=many", "needs a number"),
        ("mcts:iterations=0", "must be positive"),
        ("mcts:iterations=0.5", "needs a whole number, not '0.5'"),
        ("heuristic:depth=1.5", "needs a whole number"),
        ("random,,random", "an empty seat"),
    ],
)
def test_a_bad_bots_value_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_bots(text)


def test_the_heuristic_bot_needs_an_evaluation_in_the_rules() -> None:
    game = load_game("tic_tac_toe", 2)
    with pytest.raises(UsageError, match=r"needs the ruleset's bots\.evaluate"):
        make_bots(game, "heuristic", 0)
    with pytest.raises(UsageError, match="cutoff needs"):
        make_bots(game, "mcts:cutoff=5", 0)


def test_play_and_the_old_bot_option_take_a_bots_value(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "tic_tac_toe", "--bots", "first,random", "--quiet"]) == 0
    assert main(["play", "tic_tac_toe", "--bot", "first", "--quiet"]) == 0
    assert main(["play", "tic_tac_toe", "--bots", "first,random,random", "--quiet"]) == 2
    assert "names 3 bots for 2 players" in capsys.readouterr().err


# ---------------------------------------------------------------- evaluation and the heuristic bot

EVALUATED = TINY.replace("scoring:", 'bots:\n  evaluate: "me.coins * 10 - len(me.hand)"\nscoring:')


def test_the_evaluation_is_an_int_expression_of_me(write_ruleset: Callable[..., Path]) -> None:
    game = load_game(str(write_ruleset(EVALUATED, name="evaluated")), 2)
    state = game.new_initial_state(0)
    assert [evaluate(state, p) for p in range(2)] == [28, 28]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ('"me.cions"', "cions"),
        ('"me.coins > 1"', "the bots' evaluation"),
        ('"me.coins +"', "ruleset.yaml:"),
    ],
)
def test_a_bad_evaluation_is_a_located_load_error(
    write_ruleset: Callable[..., Path], expression: str, message: str
) -> None:
    text = TINY.replace("scoring:", f"bots:\n  evaluate: {expression}\nscoring:")
    with pytest.raises(RulekitError) as caught:
        load_game(str(write_ruleset(text, name="bad_eval")), 2)
    rendered = caught.value.render()
    assert message in rendered and "ruleset.yaml:" in rendered


def test_the_heuristic_bot_plays_the_action_rated_best(write_ruleset: Callable[..., Path]) -> None:
    # paying lowers the evaluation (coins * 10), waiting keeps it: the heuristic bot always waits
    game = load_game(str(write_ruleset(EVALUATED, name="evaluated")), 2)
    for seed in range(3):
        played = play_game(game, seed, make_bots(game, "heuristic", seed))
        assert {text for _, text in played.log.actions} == {"wait"}


def test_the_evaluation_survives_the_program_cache(
    write_ruleset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program read back from the on-disk cache still evaluates states (a new process's case)."""
    import rulekit.load

    directory = str(write_ruleset(EVALUATED, name="cached_eval"))
    load_game(directory, 2)
    monkeypatch.setattr(rulekit.load, "_LOADED", {})  # as a fresh process: only the disk cache is left
    state = load_game(directory, 2).new_initial_state(0)
    assert evaluate(state, 0) == 28
