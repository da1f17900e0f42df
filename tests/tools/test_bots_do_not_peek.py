"""A bot never plays as if it saw its own ``others`` hand: its samples of that hand are the real
one no more often than chance (tests/data/peek: everyone sees your cards but you)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rulekit.engine.game import State
from rulekit.load import load_game
from rulekit.tools import bots, mcts
from rulekit.tools.bots import HeuristicBot

PEEK = str(Path(__file__).resolve().parents[1] / "data" / "peek")


def _recording(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[tuple[Any, Any]]:
    """For every sample the module's bots draw: (the real hand of the bot's player, the sampled one)."""
    seen: list[tuple[Any, Any]] = []
    original = module.determinize

    def record(state: State, player: int, rng: Any, **kwargs: Any) -> State:
        sample = original(state, player, rng, **kwargs)
        seen.append((state.value(player, "hand"), sample.value(player, "hand")))
        return sample

    monkeypatch.setattr(module, "determinize", record)
    return seen


def _kept_own_hand(samples: list[tuple[Any, Any]]) -> float:
    return sum(real == sampled for real, sampled in samples) / len(samples)


def test_the_heuristic_bots_samples_of_their_own_hand_are_not_their_real_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    samples = _recording(monkeypatch, bots)
    game = load_game(PEEK, 2)
    for seed in range(5):
        state = game.new_initial_state(seed)
        players = [HeuristicBot(seed=1, samples=20), HeuristicBot(seed=2, samples=20)]
        while not state.is_terminal():
            state.apply_action(players[state.current_player()].choose(state))
    assert len(samples) >= 200
    # a two-card hand dealt from the 10+ cards a player cannot see: the real one about 1 time in 50
    assert _kept_own_hand(samples) < 0.1


def test_the_mcts_bots_samples_of_their_own_hand_are_not_their_real_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    samples = _recording(monkeypatch, mcts)
    game = load_game(PEEK, 2)
    state = game.new_initial_state(6)
    bot = mcts.MctsBot(seed=3, iterations=200)
    bot.choose(state)
    assert len(samples) >= 100
    assert _kept_own_hand(samples) < 0.1
