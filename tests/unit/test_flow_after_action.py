"""The flow's short way after an action (``flow.after_action``: the turn goes on, or the next
turn of a loop of ``do`` steps starts) ends in the same state, with the same steps charged
and the same conditions asked, as the general loop (``flow.advance``) it stands in for."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.engine import flow
from rulekit.engine.game import Game, State
from rulekit.errors import RulekitError
from rulekit.load import load_game
from tests.rulesets import shipped_rulesets

Trace = list[tuple[Any, ...]]


def _general(state: State, F: dict[Any, Any], R: Any, ends_turn: bool) -> None:
    flow.advance(state, ends_turn)


def _trace(game: Game, seeds: range, limit: int) -> Trace:
    """Seeded random games: after each action, the action, the whole state, the steps charged
    so far and the branches of ``if`` expressions taken (the conditions asked)."""
    runtime = game.runtime
    taken: list[int] = []
    runtime.branch = lambda span, branch: taken.append(branch)
    found: Trace = []
    try:
        for seed in seeds:
            rng = random.Random(seed)
            state = game.new_initial_state(seed)
            for _ in range(limit):
                if state.is_terminal():
                    break
                action = rng.choice(state.legal_actions())
                try:
                    state.apply_action(action)
                except RulekitError as error:  # a rule failing must fail the same way
                    found.append((action, "refused", str(error)))
                    break
                found.append(
                    (action, state.state_hash(), runtime.work(), len(taken), tuple(state.legal_actions()))
                )
    finally:
        runtime.branch = None
    return found


def _both(make: Callable[[], Game], monkeypatch: pytest.MonkeyPatch, seeds: range, limit: int) -> None:
    short = _trace(make(), seeds, limit)
    with monkeypatch.context() as patch:
        patch.setattr(flow, "after_action", _general)
        general = _trace(make(), seeds, limit)
    assert short, "no action was played"
    assert short == general


@pytest.mark.parametrize("ruleset", shipped_rulesets(), ids=lambda p: p.name)
def test_a_shipped_game_plays_the_same_by_the_short_way_as_by_the_general_loop(
    ruleset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every shipped ruleset, at its fewest players: the same states, steps and branches."""
    from tests.rulesets import player_range

    players = player_range(ruleset)[0]
    _both(lambda: load_game(str(ruleset), players), monkeypatch, range(3), 150)


HEAD = """\
ruleset: flow
players: {min: 2, max: 3}
state:
  game:
    n: {type: int}
    i: {type: int}
    who: {type: "player?"}
    log: {type: "list[int]"}
  turn:
    moves: {type: int}
  player:
    score: {type: int}
actions:
  tick:
    require: game.n < 40
    effect: |
      game.n += 1
      turn.moves += 1
      me.score += 1
  stop:
    ends_turn: true
    effect: game.n += 3
  answer:
    prompt: true
    params: {x: "[1, 2]"}
    effect: game.log += [x]
flow:
"""

FLOWS = {
    "a repeat with do steps before and after the turn, a counter and a limit": """\
  - repeat:
      times: 6
      counter: i
      steps:
        - do: game.n += 1
        - turn: {player: "player_at(1 + game.i % num_players)", once: true}
        - do: game.log += [game.n]
""",
    "a repeat whose turn starts and ends with effects, until a condition": """\
  - repeat:
      until: len(game.log) >= 8
      steps:
        - turn:
            player: "player_at(1 + game.n % num_players)"
            on_start: game.n += 1
            on_end: game.log += [turn.moves]
""",
    "a for_each of turns, each until two moves, run twice": """\
  - repeat:
      times: 2
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: {player: game.who, until: turn.moves >= 2}
""",
    "a turn whose end asks a player, and a game that ends in a do step": """\
  - repeat:
      while: true
      steps:
        - turn: {player: "player_at(1)", once: true}
        - do: |
            if game.n % 2 == 1:
                ask(player_at(2), "answer")
        - do: |
            if len(game.log) >= 3:
                end_game()
""",
    "a do step before the turn asks a player, or ends the game": """\
  - repeat:
      while: true
      steps:
        - do: |
            if game.n % 3 == 1:
                ask(player_at(2), "answer")
            if len(game.log) >= 2:
                end_game()
        - turn: {player: "player_at(1)", once: true}
""",
    "a turn nobody can play ends by itself": """\
  - repeat:
      times: 3
      steps:
        - turn: {player: "player_at(1)", actions: [tick], once: true}
        - do: game.n += 20
""",
}


@pytest.mark.parametrize("shape", FLOWS, ids=list(range(len(FLOWS))))
def test_a_loop_of_turns_plays_the_same_by_the_short_way_as_by_the_general_loop(
    shape: str, write_ruleset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Flows of every shape the short way takes (and leaves to the general loop)."""
    directory = write_ruleset(HEAD + FLOWS[shape])
    _both(lambda: load_game(str(directory), 2), monkeypatch, range(6), 60)
