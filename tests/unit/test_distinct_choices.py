"""Equivalent choices: identical cards in a hand are offered once, always the same one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import Game
from rulekit.errors import RulesetError
from rulekit.load import load_game

RULES = """\
ruleset: hands
players: {min: 2, max: 2}
components:
  card:
    attributes: {kind: str, value: int}
    items:
      - {id: guard_1, kind: guard, value: 1}
      - {id: guard_2, kind: guard, value: 1}
      - {id: guard_3, kind: guard, value: 1}
      - {id: baron_1, kind: baron, value: 3}
state:
  player:
    hand: {type: "list[card]"}
    played: {type: "list[card]"}
  card:
    marked: {type: bool}
actions:
  play:
    params:
      card: "%s"
    effect: move(card, me.hand, me.played)
    ends_turn: true
setup: |
SETUP
flow:
  - repeat:
      until: len(player_at(1).hand) == 0
      steps:
        - turn: player_at(1)
"""

SETUP = """\
  player_at(1).hand = [cards.guard_2, cards.guard_1, cards.baron_1, cards.guard_3]
"""


def _game(write_ruleset: Callable[..., Path], domain: str, setup: str = SETUP) -> Game:
    text = (RULES % domain).replace("SETUP\n", setup)
    return load_game(str(write_ruleset(text)), 2)


def test_identical_cards_are_offered_once_the_first_in_the_hand(write_ruleset: Callable[..., Path]) -> None:
    """Three identical guards make one choice (the first in the hand), not three."""
    game = _game(write_ruleset, "distinct(c for c in me.hand)")
    state = game.new_initial_state(0)
    assert state.legal_action_strings() == ["play(guard_2)", "play(baron_1)"]
    state.apply_action("play(guard_2)")
    assert state.legal_action_strings() == ["play(guard_1)", "play(baron_1)"]


def test_a_card_whose_fields_differ_is_not_identical(write_ruleset: Callable[..., Path]) -> None:
    """Identical means same kind, attributes and state fields: a marked guard is a choice of its own."""
    setup = SETUP + "  cards.guard_1.marked = true\n"
    game = _game(write_ruleset, "distinct(c for c in me.hand)", setup)
    state = game.new_initial_state(0)
    assert state.legal_action_strings() == ["play(guard_2)", "play(guard_1)", "play(baron_1)"]


def test_a_by_key_says_what_makes_cards_equivalent(write_ruleset: Callable[..., Path]) -> None:
    """``by c.value > 2`` groups cards into two classes; the first card of each is offered."""
    game = _game(write_ruleset, "distinct(c for c in me.hand by c.value > 2)")
    state = game.new_initial_state(0)
    assert state.legal_action_strings() == ["play(guard_2)", "play(baron_1)"]


def test_the_card_not_offered_is_rejected_and_a_replay_takes_the_same_card(
    write_ruleset: Callable[..., Path],
) -> None:
    """The equivalent card that is not offered is illegal, so a log names exactly one card."""
    game = _game(write_ruleset, "distinct(c for c in me.hand)")
    state = game.new_initial_state(0)
    with pytest.raises(Exception, match=r"not legal|not a possible"):
        state.apply_action("play(guard_1)")
    played = []
    while not state.is_terminal():
        action = state.legal_action_strings()[0]
        played.append(action)
        state.apply_action(action)
    again = game.new_initial_state(0)
    for action in played:
        again.apply_action(action)
    assert again.state_hash() == state.state_hash()
    assert played == ["play(guard_2)", "play(guard_1)", "play(baron_1)", "play(guard_3)"]


def test_distinct_keeps_the_first_of_equal_values_and_records() -> None:
    """Without components, equal values (numbers, records) are the identical ones."""
    game = load_game("tic_tac_toe", 2)
    state = game.new_initial_state(0)
    for text, expected in [
        ("distinct(x for x in [3, 1, 3, 2, 1])", (3, 1, 2)),
        ("distinct(r for r in [{a: 1}, {a: 2}, {a: 1}])", ({"a": 1}, {"a": 2})),
        ("distinct(x for x in [3, 1, 3, 2, 1] if x < 3)", (1, 2)),
    ]:
        fn, _ = game.program.compile_expression(text)
        assert fn(state.fields, game.runtime, 0) == expected


def test_distinct_is_an_aggregate_not_a_call(write_ruleset: Callable[..., Path]) -> None:
    with pytest.raises(RulesetError, match="distinct"):
        _game(write_ruleset, "distinct(me.hand)")
