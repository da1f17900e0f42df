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


RECORDS = """\
ruleset: knights
players: {min: 2, max: 2}
records:
  knight: {kind: str, owner: player, strength: int}
  post: {at: tuple, guard: knight}
constants:
  FIRST: {type: knight, value: {kind: squire, owner: P2, strength: 1}}
state:
  game:
    posts: {type: "map[tuple, post]"}
    last: {type: "knight?"}
functions:
  stronger: {params: {k: knight, n: int}, body: "k with {strength: k.strength + n}", returns: knight}
actions:
  post_knight:
    params: {x: "range(0, 2)"}
    effect: |
      let k = stronger({kind: "knight", owner: me, strength: 2}, x)
      game.posts = put(game.posts, (x, 0), {at: (x, 0), guard: k})
      game.last = k
    ends_turn: true
flow:
  - turn: player_at(1)
"""


def test_declared_records_name_types_used_everywhere(write_ruleset: Callable[..., Path]) -> None:
    """A record type declared once types fields, constants, parameters, results and maps of it."""
    game = load_game(str(write_ruleset(RECORDS)), 2)
    state = game.new_initial_state(0)
    state.apply_action("post_knight(1)")
    assert state.value("game", "last") == {"kind": "knight", "owner": 0, "strength": 3}
    fn, type_ = game.program.compile_expression("game.posts[(1, 0)].guard.owner")
    assert str(type_) == "player" and fn(state.fields, game.runtime, 0) == 0
    fn, _ = game.program.compile_expression("FIRST.owner")
    assert fn(state.fields, game.runtime, 0) == 1  # P2, written in YAML, is a player


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('{kind: "knight", owner: me, strength: 2}', '{kind: "knight", owner: me}'), "argument 'k'"),
        (("k.strength + n", "k.strenght + n"), "the record has no field 'strenght'"),
        (("owner: P2, strength: 1}", "owner: P2}"), "has no value for 'strength'"),
        (("  knight: {kind", "  knigt: {kind"), "unknown type 'knight'"),
    ],
)
def test_mistakes_with_declared_records_are_located(
    write_ruleset: Callable[..., Path], change: tuple[str, str], message: str
) -> None:
    with pytest.raises(RulesetError) as caught:
        load_game(str(write_ruleset(RECORDS.replace(*change))), 2)
    assert message in str(caught.value)


ENUMS = """\
ruleset: paint
players: {min: 2, max: 2}
enums:
  colour: [red, green, blue]
constants:
  START: {type: colour, value: green}
state:
  game:
    wall: {type: "colour?"}
    used: {type: "list[colour]"}
actions:
  paint:
    params: {c: "colour"}
    require: [{if: "c not in game.used", else: "that colour is used up"}]
    effect: |
      game.wall = c
      game.used += [c]
    ends_turn: true
flow:
  - repeat:
      until: len(game.used) == 3
      steps:
        - turn: player_at(1)
"""


def test_an_enumeration_is_a_typed_set_of_named_values(write_ruleset: Callable[..., Path]) -> None:
    """colour.red is a colour (not text); the bare name lists the values; actions name them."""
    game = load_game(str(write_ruleset(ENUMS)), 2)
    state = game.new_initial_state(0)
    assert state.legal_action_strings() == ["paint(red)", "paint(green)", "paint(blue)"]
    state.apply_action("paint(blue)")
    fn, _ = game.program.compile_expression("game.wall == colour.blue and START == colour.green")
    assert fn(state.fields, game.runtime, 0) is True
    _, type_ = game.program.compile_expression("[c for c in colour if c != game.wall]")
    assert str(type_) == "list[colour]"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("game.wall = c", "game.wall = colour.purple"), "colour has no value 'purple'"),
        (("game.wall = c", 'game.wall = "red"'), "the value of game.wall must be colour, not str"),
        (("c not in game.used", "c != 'red'"), "comparing a colour with a str is always true"),
        (("value: green", "value: grene"), "'grene' is not a colour (one of red, green, blue)"),
    ],
)
def test_enumeration_mistakes_are_located(
    write_ruleset: Callable[..., Path], change: tuple[str, str], message: str
) -> None:
    with pytest.raises(RulesetError) as caught:
        load_game(str(write_ruleset(ENUMS.replace(*change))), 2)
    assert message in str(caught.value)
