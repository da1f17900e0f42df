"""The rules-format.md examples of ``enums``, ``records``, ``procedures`` and ``requirements``
load and do what the text around them says (each marked ``<!-- example: NAME -->``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.dsl import types as t
from rulekit.errors import IllegalActionError, RulesetError
from rulekit.load import load_game, load_program

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules-format.md"


def _example(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    return text.split(f"<!-- example: {name} -->\n```yaml\n", 1)[1].split("```", 1)[0]


def _ruleset(body: str) -> str:
    return f"ruleset: example\nplayers: {{min: 2, max: 2}}\n{body}"


ENUM_GAME = """
actions:
  paint:
    params: {c: colour}
    effect: game.wall = c
    ends_turn: true
flow:
  - turn: player_at(1)
"""


def test_the_enums_example_is_a_typed_set_of_values_and_an_action_domain(
    write_ruleset: Callable[..., Path],
) -> None:
    """`colour` alone is the list of its values in order (the parameter's domain); a value reads
    as its name; comparing with text is an error."""
    directory = str(write_ruleset(_ruleset(_example("enums") + ENUM_GAME)))
    state = load_game(directory, 2).new_initial_state(0)
    assert [str(a) for a in state.legal_actions()] == ["paint(red)", "paint(green)", "paint(blue)"]
    state.apply_action("paint(green)")
    assert state.value("game", "wall") == "green"
    program = load_program(directory)
    fn, type_ = program.compile_expression("colour.blue")
    assert type_.kind == "colour" and fn({}, None, -1) == "blue"
    with pytest.raises(RulesetError, match="colour has no value 'purple'"):
        program.compile_expression("colour.purple")
    with pytest.raises(RulesetError, match="comparing a colour with a str is always false"):
        program.compile_expression('game.wall == "red"')


def test_the_records_example_knows_every_field(write_ruleset: Callable[..., Path]) -> None:
    """`game.posts[cell].guard.owner` is a player; `with` keeps the record's type; an unknown field
    is an error with a did-you-mean."""
    body = _example("records") + "flow:\n  - turn: player_at(1)\nactions:\n  wait: {effect: pass}\n"
    program = load_program(str(write_ruleset(_ruleset(body))))
    _, owner = program.compile_expression("game.posts[(0, 0)].guard.owner")
    assert owner == t.PLAYER
    _, kept = program.compile_expression('{kind: "knight", owner: me, strength: 2} with {strength: 3}')
    assert kept.is_record and kept.field("strength") == t.INT
    with pytest.raises(RulesetError, match="did you mean 'strength'"):
        program.compile_expression("game.posts[(0, 0)].guard.strenght")


PROCEDURE_GAME = """
money: money
components:
  city:
    collection: cities
    attributes: {income: int}
    items:
      - {id: lisboa, income: 3}
state:
  player:
    money: {type: int}
actions:
  payday:
    effect: pay_off_board(cities.lisboa)
    ends_turn: true
flow:
  - turn: player_at(1)
"""


def test_the_procedures_example_runs_where_it_is_called(write_ruleset: Callable[..., Path]) -> None:
    directory = str(write_ruleset(_ruleset(_example("procedures") + PROCEDURE_GAME)))
    state = load_game(directory, 2).new_initial_state(0)
    state.apply_action("payday")
    assert [state.value(p, "money") for p in (0, 1)] == [3, 3]
    misuse = _example("procedures") + PROCEDURE_GAME.replace(
        "effect: pay_off_board(cities.lisboa)", "effect: let x = pay_off_board(cities.lisboa)"
    )
    with pytest.raises(RulesetError):
        load_game(str(write_ruleset(_ruleset(misuse), name="misuse")), 2)


REQUIREMENT_GAME = """
state:
  turn:
    acted: {type: bool}
  player:
    supply: {type: int, initial: 1}
    anchored: {type: bool, initial: "seat(me) == 2"}
functions:
  at_harbor: {params: {p: player}, body: p.anchored}
flow:
  - turn: player_at(1)
  - turn: player_at(2)
"""


def test_the_requirements_example_refuses_with_the_groups_message(write_ruleset: Callable[..., Path]) -> None:
    """A failing requirement of the group explains the refusal as if written in the action."""
    example = _example("requirements").replace(
        '      - {if: "me.supply > 0", else: "no warehouse left"}',
        '      - {if: "me.supply > 0", else: "no warehouse left"}\n    effect: turn.acted = true\n'
        "  wait: {effect: pass, ends_turn: true}",
    )
    directory = str(write_ruleset(_ruleset(example + REQUIREMENT_GAME)))
    state = load_game(directory, 2).new_initial_state(0)
    with pytest.raises(IllegalActionError, match="the ship must be anchored on a harbor space"):
        state.apply_action("build")
    state.apply_action("wait")  # P2, anchored, builds
    state.apply_action("build")
    with pytest.raises(IllegalActionError, match="exactly one action per turn"):
        state.apply_action("build")
