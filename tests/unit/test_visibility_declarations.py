"""Declaring who sees a field: others, a condition, a reveal, and the visibilities the checker refuses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.information import unseen
from rulekit.errors import RulekitError, RulesetError
from rulekit.load import load_game, load_program

BASE = """\
ruleset: vis
players: {{min: 2, max: 2}}
state:
  game:
    deck: {{type: "list[int]", initial: "between(1, 9)", visibility: hidden}}
{game}
  player:
    hand: {{type: "list[int]", visibility: {hand}}}
    friends: {{type: "list[player]"}}
actions:
  look:
    effect: {effect}
    ends_turn: true
flow:
  - turn: player_at(1)
scoring:
  score: "0"
"""


def _write(
    write_ruleset: Callable[..., Path], game: str = "", hand: str = "others", effect: str = "note('x')"
) -> Path:
    return write_ruleset(BASE.format(game=game, hand=hand, effect=effect))


def test_others_is_for_player_fields_only(write_ruleset: Callable[..., Path]) -> None:
    folder = _write(write_ruleset, game='    pile: {type: "list[int]", visibility: others}')
    with pytest.raises(RulesetError, match="visibility 'others' is for player fields only"):
        load_program(str(folder))


def test_a_condition_shows_the_field_to_the_seats_it_holds_for(write_ruleset: Callable[..., Path]) -> None:
    folder = _write(write_ruleset, hand='{is: owner, to: "viewer in owner.friends"}')
    state = load_game(str(folder), 2).new_initial_state(0)
    assert (0, "hand") in unseen(state, 1)
    state.fields[(0, "friends")] = (1,)
    assert (0, "hand") not in unseen(state, 1)
    assert (1, "hand") not in unseen(state, 1) and (1, "hand") in unseen(state, 0)


def test_a_condition_must_be_a_bool(write_ruleset: Callable[..., Path]) -> None:
    folder = _write(write_ruleset, hand='{to: "owner.friends"}')
    with pytest.raises(RulesetError, match=r"visibility condition of player.hand must be bool"):
        load_program(str(folder))


def test_a_condition_that_reads_a_hidden_field_is_refused(write_ruleset: Callable[..., Path]) -> None:
    folder = _write(write_ruleset, hand='{to: "len(game.deck) > 3"}')
    with pytest.raises(RulesetError, match=r"visibility condition of player.hand reads 'deck'"):
        load_program(str(folder))


def test_a_public_field_computed_from_a_hidden_one_is_refused(write_ruleset: Callable[..., Path]) -> None:
    folder = _write(write_ruleset, game='    top: {type: int, initial: "first(game.deck)"}')
    with pytest.raises(RulesetError, match=r"game.top is public but its initial value reads 'deck'"):
        load_program(str(folder))


def test_reveal_shows_a_field_to_a_player_for_the_rest_of_the_game(
    write_ruleset: Callable[..., Path],
) -> None:
    folder = _write(write_ruleset, hand="owner", effect='reveal(me, "hand", player_at(2))')
    game = load_game(str(folder), 2)
    state = game.new_initial_state(0)
    assert (0, "hand") in unseen(state, 1)
    state.apply_action(game.parse_action("look"))
    assert (0, "hand") not in unseen(state, 1)
    assert state.view(1)["P1.hand"] == list(state.value(0, "hand"))
    assert state.view(None)["P1.hand"] == {"hidden": 0}


def test_reveal_of_a_field_that_does_not_exist_fails(write_ruleset: Callable[..., Path]) -> None:
    folder = _write(write_ruleset, hand="owner", effect='reveal(me, "pocket", player_at(2))')
    game = load_game(str(folder), 2)
    state = game.new_initial_state(0)
    with pytest.raises(RulekitError, match="reveal: P1 has no field 'pocket'"):
        state.apply_action(game.parse_action("look"))
