"""Two-state properties: ``properties:`` over an action or a turn, and actions' ``ensures:``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, format_counterexample, verify
from rulekit.tools.verify.properties import compile_properties

PAYING = """
ruleset: props
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
    who: {type: player, initial: "player_at(1)"}
  player:
    money: {type: int, initial: 10}
actions:
  pay:
    params: {amount: "[1, 2, 3]"}
    require:
      - if: "me.money >= amount"
        else: not enough
    effect: |
      me.money -= amount
      game.n += 1
    ends_turn: true
    ensures:
      - holds: "after(me.money) == before(me.money) - amount"
        message: paying costs the amount
  rest:
    effect: game.n += 1
    ends_turn: true
flow:
  - repeat:
      until: game.n >= 10
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
properties:
  n_grows:
    holds: after.game.n == before.game.n + 1
    message: every action counts once
  money_never_rises:
    over: turn
    holds: "all(after(p.money) <= before(p.money) for p in players)"
    message: nobody gains money
"""


def test_properties_hold_on_correct_rules(write_ruleset: Callable[..., Path], tmp_path: Path) -> None:
    result = verify(VerifyOptions(str(write_ruleset(PAYING)), examples=50, out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.property_checks > result.stats.actions * 2


def test_an_ensures_that_fails_names_the_action_and_the_values(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(PAYING.replace("me.money -= amount", "me.money -= 1"))
    result = verify(VerifyOptions(str(directory), examples=50, out=tmp_path))
    example = result.counterexample
    assert example is not None and example.key == "property:pay.ensures[1]"
    text = format_counterexample(example)
    assert "property 'pay.ensures[1]' violated" in text and "paying costs the amount" in text
    assert "holds: after(me.money) == before(me.money) - amount" in text
    assert "before(me.money) - amount = " in text
    assert len(example.actions) == 1 and example.actions[0][1] in ("pay(2)", "pay(3)")


def test_a_property_over_an_action_compares_before_and_after(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(PAYING.replace("    effect: game.n += 1", "    effect: game.n += 2"))
    result = verify(VerifyOptions(str(directory), examples=50, out=tmp_path))
    example = result.counterexample
    assert example is not None and example.key == "property:n_grows"
    assert [text for _, text in example.actions] == ["rest"]
    assert "after.game.n = 2" in format_counterexample(example)


def test_a_property_over_a_turn_sees_the_whole_turn(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    broken = PAYING.replace(
        "me.money -= amount", "me.money -= amount\n      player_at(2).money += 1"
    ).replace("after(me.money) == before(me.money) - amount", "true")
    result = verify(VerifyOptions(str(write_ruleset(broken)), examples=50, out=tmp_path))
    example = result.counterexample
    assert example is not None and example.key == "property:money_never_rises"


def test_before_dot_is_short_for_before_of_the_rest() -> None:
    from rulekit.dsl.parser import parse_expression as parse_expr
    from rulekit.tools.verify.explain import unparse
    from rulekit.tools.verify.properties import two_state

    assert unparse(two_state(parse_expr("after.game.n == before.game.n + 1"))) == (
        "after(game.n) == before(game.n) + 1"
    )
    assert unparse(two_state(parse_expr("all(after.p.money >= 0 for p in players)"))) == (
        "all(after(p.money) >= 0 for p in players)"
    )


def test_a_property_that_does_not_type_check_is_a_located_error(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(PAYING.replace("after.game.n == before.game.n + 1", "after.game.nn == 1"))
    with pytest.raises(RulesetError) as caught:
        compile_properties(load_program(str(directory)))
    assert "ruleset.yaml:" in caught.value.render() and "nn" in caught.value.render()


def test_two_turns_of_one_player_in_a_row_are_two_turns(write_ruleset: Callable[..., Path]) -> None:
    solo = (
        PAYING.replace("players: {min: 2, max: 2}", "players: {min: 1, max: 1}")
        .replace("me.money -= amount", "me.money -= amount\n      me.money += 0")
        .replace(
            'holds: "all(after(p.money) <= before(p.money) for p in players)"',
            'holds: "before(game.n) + 1 >= after(game.n)"',
        )
    )
    result = verify(VerifyOptions(str(write_ruleset(solo)), examples=20, out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]


POSTCONDITIONS = """
postconditions:
  rest:
    - holds: "after(game.n) == before(game.n) + 1"
      message: resting counts once
  pay:
    - holds: "all(after(p.money) == before(p.money) for p in players if p != me)"
      message: paying costs nobody else
"""


def test_a_postconditions_section_in_an_included_file_appends_to_the_actions_ensures(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(
        PAYING.replace("players: {min: 2, max: 2}", "players: {min: 2, max: 2}\ninclude: [mined.yaml]")
    )
    (directory / "mined.yaml").write_text(POSTCONDITIONS, encoding="utf-8")
    program = load_program(str(directory))
    assert [p.name for p in program.rules.actions["pay"].ensures] == ["pay.ensures[1]", "pay.ensures[2]"]
    assert [p.name for p in program.rules.actions["rest"].ensures] == ["rest.ensures[1]"]
    assert verify(VerifyOptions(str(directory), examples=30, out=None)).ok
    (directory / "mined.yaml").write_text(POSTCONDITIONS.replace("+ 1", "+ 2"), encoding="utf-8")
    result = verify(VerifyOptions(str(directory), examples=30, out=tmp_path))
    assert result.counterexample is not None and result.counterexample.key == "property:rest.ensures[1]"
    assert "mined.yaml:" in format_counterexample(result.counterexample)


def test_postconditions_of_an_unknown_action_are_a_located_error(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(PAYING + POSTCONDITIONS.replace("  rest:", "  sleep:"))
    with pytest.raises(RulesetError) as raised:
        load_program(str(directory))
    assert "postconditions of an unknown action or trigger 'sleep'" in str(raised.value)
    assert "ruleset.yaml:" in str(raised.value)
