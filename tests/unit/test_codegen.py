"""The checker in the code generator: names, arity and types, each problem at its position."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program

TEMPLATE = """\
ruleset: c
players: {{min: 2, max: 2}}
money: coins
constants:
  LIMIT: 3
components:
  tile:
    attributes: {{size: int}}
    items: [{{id: t1, size: 1}}, {{id: t2, size: 2}}]
events:
  moved: {{tile: tile}}
state:
  game:
    n: {{type: int}}
    label: {{type: str}}
    who: {{type: "player?"}}
    pile: {{type: "list[tile]"}}
  player:
    coins: {{type: int}}
  tile:
    owner: {{type: "player?"}}
functions:
  double: {{params: {{x: int}}, body: x * 2}}
actions:
  act:
    params: {{t: tiles}}
    require:
      - if: {condition}
        else: never
    effect: |
{effect}
    ends_turn: true
setup: |
{setup}
flow:
  - turn: player_at(1)
"""


def _messages(
    write: Callable[..., Path], condition: str = "true", effect: str = "pass", setup: str = "pass"
) -> list[str]:
    text = TEMPLATE.format(
        condition=condition,
        effect=textwrap.indent(effect, " " * 6),
        setup=textwrap.indent(setup, "  "),
    )
    directory = write(text)
    try:
        load_program(str(directory))
    except RulesetError as error:
        return [d.message for d in error.diagnostics]
    return []


def test_template_is_valid(write_ruleset: Callable[..., Path]) -> None:
    """Everything the other tests change is valid to begin with."""
    assert _messages(write_ruleset) == []


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("game.m > 0", "unknown game field 'm'"),
        ("LIMTI > 0", "unknown name 'LIMTI'"),
        ("t1.size > 0", "unknown name 't1'"),
        ("tiles.t3.size > 0", "no tile 't3'"),
        ("t.colour == 1", "tile has no attribute or field 'colour'"),
        ("me.money > 0", "unknown player field 'money'"),
        ("game.n + 1", "a requirement must be bool, not int"),
        ("game.n == 'a'", "comparing an int with a str is always false"),
        ("game.label < 3", "the left side of '<' must be int, not str"),
        ("game.n and true", "the left side of 'and' must be bool, not int"),
        ("not game.n", "the operand of 'not' must be bool, not int"),
        ("game.n in 3", "'in' needs a list on its right, not an int"),
        ("t in [1, 2]", "a tile is never in a list[int]"),
        ("double(1, 2) > 0", "function 'double' takes 1 argument(s), not 2"),
        ("double('x') > 0", "argument 'x' of double must be int, not str"),
        ("half(1, 2) > 0", "'half' takes 1 argument(s), not 2"),
        ("half(x=1) > 0", "'half' takes no keyword arguments"),
        ("nope(1)", "unknown function 'nope'"),
        ("count(game.pile) > 0", "count(...) takes a generator: count(x for x in xs)"),
        ("rank(x for x in game.pile) == []", "rank(...) needs a key: rank(x for x in xs by key)"),
        (
            "any(x for x in game.pile by x.size)",
            "'by' is only allowed in rank(...), sorted(...), distinct(...) and [...]",
        ),
        ("sum(x for x in game.pile) > 0", "what sum adds up must be int, not tile"),
        ("transfer(1, me, bank)", "'transfer' changes the game and can only be used in effects"),
        ("game", "'game' needs a field: game.FIELD"),
        ("bank.money > 0", "the bank has 'paid_out' and 'taken_in', not 'money'"),
    ],
)
def test_condition_mistakes_are_reported(
    write_ruleset: Callable[..., Path], condition: str, message: str
) -> None:
    """Each mistake in an expression is found at load time with a specific message."""
    assert message in _messages(write_ruleset, condition=condition)


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        ("game.n = 'x'", "the value of game.n must be int, not str"),
        ("game.label += 1", "'+=' target must be int, not str"),
        ("t.size = 3", "cannot assign to 't.size': only state fields change"),
        ("half(3)", "'half(...)' computes a value; as a statement it does nothing"),
        ("tranfer(1, me, bank)", "unknown effect 'tranfer'"),
        ("emit mooved(tile=t)", "unknown event 'mooved'"),
        ("emit moved(tile=t, extra=1)", "event 'moved' has no field 'extra'"),
        ("emit moved()", "emit moved is missing tile"),
        ("emit moved(tile=1)", "field 'tile' of event moved must be tile, not int"),
        ("let x = roll(6) + transfer(1, me, bank)", "'transfer' is a statement, not a value"),
        ("draw(game.n, game.pile)", "argument 'source' of draw must be list[any], not int"),
        ("draw([t], game.pile)", "argument 1 of 'draw' must be a state field, e.g. game.deck"),
        ("for x in game.n:\n    pass", "cannot loop over an int"),
        ("if game.n:\n    pass", "an if condition must be bool, not int"),
        ("if true:\n    let y = 1\ngame.n = y", "unknown name 'y'"),
    ],
)
def test_effect_mistakes_are_reported(write_ruleset: Callable[..., Path], effect: str, message: str) -> None:
    """Statements are checked as strictly as expressions."""
    assert message in _messages(write_ruleset, effect=effect)


def test_me_is_not_defined_in_setup(write_ruleset: Callable[..., Path]) -> None:
    """setup runs for nobody in particular, so 'me' is an error there."""
    assert "'me' means the acting player and is not defined here" in _messages(
        write_ruleset, setup="me.coins = 1"
    )


def test_valid_effects_compile(write_ruleset: Callable[..., Path]) -> None:
    """A block using lets, loops, list updates, events and effects passes the checker."""
    effect = (
        "let bonus = double(t.size)\n"
        "game.pile += [t]\n"
        "game.n += bonus + len(game.pile)\n"
        "for p in players:\n"
        "    if p != me:\n"
        "        transfer_up_to(1, p, me)\n"
        "t.owner = me\n"
        "emit moved(tile=t)\n"
        "game.who = first(p for p in players if p.coins > LIMIT)\n"
    )
    assert _messages(write_ruleset, effect=effect) == []


def test_recursive_functions_are_refused(write_ruleset: Callable[..., Path]) -> None:
    """Functions may not call each other in a cycle: every rule must terminate."""
    directory = write_ruleset(
        TEMPLATE.format(condition="true", effect="      pass", setup="  pass").replace(
            "  double: {params: {x: int}, body: x * 2}",
            "  double: {params: {x: int}, body: triple(x)}\n  triple: {params: {x: int}, body: double(x)}",
        )
    )
    with pytest.raises(RulesetError, match="functions call each other in a cycle"):
        load_program(str(directory))


def test_typed_constants_check_component_ids(write_ruleset: Callable[..., Path]) -> None:
    """A constant typed list[tile] may only hold tile ids."""
    directory = write_ruleset(
        TEMPLATE.format(condition="true", effect="      pass", setup="  pass").replace(
            "  LIMIT: 3", "  LIMIT: 3\n  START: {type: 'list[tile]', value: [t1, t9]}"
        )
    )
    with pytest.raises(RulesetError, match="constant 'START': 't9' is not a tile"):
        load_program(str(directory))


def test_chained_wheres_bind_the_last_name_first_as_dsl_md_says() -> None:
    """``a where y = ... where x = ...``: x is bound first, so y's value may use it."""
    game = load_game("tic_tac_toe", 2)
    state = game.new_initial_state(0)
    fn, _ = game.program.compile_expression("x + y where y = x * 3 where x = 2")
    assert fn(state.fields, game.runtime, 0) == 8
    with pytest.raises(RulesetError, match="unknown name 'x'"):
        game.program.compile_expression("x + y where x = 2 where y = x * 3")


def test_players_are_written_as_names_in_text() -> None:
    """str() and concat() write player values as P1, P2 because the checker knows their type."""
    from rulekit.load import load_game

    game = load_game("tic_tac_toe", 2)
    state = game.new_initial_state(0)
    for text, expected in [
        ("str(player_at(2))", "P2"),
        (
            'concat("order: ", players, ", bank: ", bank, ", n=", num_players)',
            "order: [P1, P2], bank: bank, n=2",
        ),
    ]:
        fn, _ = game.program.compile_expression(text)
        assert fn(state.fields, game.runtime, -1) == expected
