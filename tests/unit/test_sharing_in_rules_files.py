"""Procedures, requirement groups, function result types and fallback actions, written in rules files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import IllegalActionError, RulesetError
from rulekit.load import load_game

RULES = """\
ruleset: sharing
players: {min: 2, max: 2}
state:
  game:
    pile: {type: int, initial: "3"}
    passes: {type: int}
  player:
    taken: {type: int}
functions:
  others: {params: {p: player}, body: "[q for q in players if q != p]", returns: "list[player]"}
procedures:
  take_from_pile:
    params: {p: player, n: int}
    body: |
      game.pile -= n
      p.taken += n
      record_taking(p)
  record_taking:
    params: {p: player}
    body: note(concat(p, " took"))
requirements:
  pile_has:
    params: {n: int}
    require:
      - {if: "game.pile >= n", else: "the pile is too small", cite: "§2"}
  my_move:
    params: {n: int}
    require:
      - {if: "game.passes < 2", else: "the game is over"}
      - use: pile_has(n)
actions:
  take_one:
    require: [{use: my_move(1)}]
    effect: take_from_pile(me, 1)
    ends_turn: true
  take_two:
    require:
      - use: my_move(2)
      - {if: "me.taken == 0", else: "only as a first move"}
    effect: take_from_pile(me, 2)
    ends_turn: true
  pass_turn:
    only_if_nothing_else: "she can still take, so she may not pass"
    effect: game.passes += 1
    ends_turn: true
flow:
  - repeat:
      until: game.passes >= 2
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
"""


def test_shared_rules_play_as_if_written_out(write_ruleset: Callable[..., Path]) -> None:
    """Groups add their requirements, procedures run, and the pass comes only at the end."""
    game = load_game(str(write_ruleset(RULES)), 2)
    state = game.new_initial_state(0)
    assert state.legal_action_strings() == ["take_one", "take_two"]
    state.apply_action("take_two")
    assert state.legal_action_strings() == ["take_one"]
    with pytest.raises(IllegalActionError, match=r"take_two is not legal: the pile is too small \[§2\]"):
        state.apply_action("take_two")
    with pytest.raises(IllegalActionError, match="she can still take, so she may not pass"):
        state.apply_action("pass_turn")
    state.apply_action("take_one")
    assert state.legal_action_strings() == ["pass_turn"]
    assert state.value(0, "taken") == 2 and state.value(1, "taken") == 1
    assert state.notes()[-1] == "P2 took"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('returns: "list[player]"', "returns: int"), "the result of others (returns: int) must be int"),
        (("record_taking(p)", "take_from_pile(p, 1)"), "procedures call each other in a cycle"),
        (("use: pile_has(n)", "use: pile_hass(n)"), "unknown requirement group 'pile_hass'"),
        (("use: my_move(1)", "use: my_move(true)"), "'n' must be int, not bool"),
        (
            ("effect: take_from_pile(me, 1)", "effect: take_from_pile(1, me)"),
            "argument 'p' of take_from_pile",
        ),
        (("use: pile_has(n)", "use: my_move(n)"), "requirement groups use each other in a cycle"),
    ],
)
def test_mistakes_in_shared_rules_are_located_load_errors(
    write_ruleset: Callable[..., Path], change: tuple[str, str], message: str
) -> None:
    with pytest.raises(RulesetError) as caught:
        load_game(str(write_ruleset(RULES.replace(*change))), 2)
    assert message in str(caught.value)
    assert "ruleset.yaml:" in str(caught.value)
