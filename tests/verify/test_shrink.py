"""Shrinking by replanning a turn: a shorter way to hand the decision on, found breadth-first."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from pathlib import Path

from rulekit.load import load_program
from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.options import Stats
from rulekit.tools.verify.shrink import Shrinker, find_failure, shorter_turns

# Each turn a player may inch forward (one step), leap (three steps, once a turn) or be done.
# Three steps and a turn handed on break the invariant: inch, inch, inch, done fails, and so
# does leap, done -- which no dropping of actions from the first reaches.
STRIDES = """
ruleset: strides
players: {min: 2, max: 2}
state:
  game:
    steps: {type: int}
    turns: {type: int}
    who: {type: player, initial: "player_at(1)"}
  turn:
    leapt: {type: bool}
actions:
  inch:
    effect: game.steps += 1
  leap:
    require:
      - if: not turn.leapt
        else: one leap a turn
    effect: |
      game.steps += 3
      turn.leapt = true
  done:
    effect: game.turns += 1
    ends_turn: true
flow:
  - repeat:
      until: game.turns >= 20
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
invariants:
  short_walk:
    holds: game.turns == 0 or game.steps < 3
    message: three steps and a turn handed on
"""
KEY = "invariant:short_walk"


def _checker(write_ruleset: Callable[..., Path]) -> Checker:
    return Checker(load_program(str(write_ruleset(STRIDES))), Stats(), focus=KEY)


def test_the_shorter_turns_are_listed_shortest_first_and_once_per_state(
    write_ruleset: Callable[..., Path],
) -> None:
    checker = _checker(write_ruleset)
    state = checker.start(2, 1)
    turns = shorter_turns(state, 3, frozenset({"done"}))
    assert turns[:3] == [["done"], ["inch", "done"], ["leap", "done"]]
    assert ["inch", "leap", "done"] in turns
    assert ["leap", "inch", "done"] not in turns, "the same state as inch, leap: listed once"
    assert all(len(turn) <= 3 and turn[-1] == "done" for turn in turns)


def test_a_turn_no_action_can_be_dropped_from_is_replanned_shorter(
    write_ruleset: Callable[..., Path],
) -> None:
    checker = _checker(write_ruleset)
    texts = ["inch", "inch", "inch", "done"]
    failure = find_failure(checker, 2, 1, texts, KEY)
    assert failure is not None and len(failure.history) == 4
    # dropping actions, however many, never keeps the failure
    for size in range(1, len(texts)):
        for kept in combinations(texts, len(texts) - size):
            assert find_failure(checker, 2, 1, list(kept), KEY) is None
    shrinker = Shrinker(checker, 30.0, 2)
    best = shrinker.shrink(failure)
    assert [text for _, text in best.history] == ["leap", "done"]
    assert shrinker.minimal
