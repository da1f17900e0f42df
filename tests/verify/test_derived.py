"""Properties derived from the rules' declarations (``rulekit/tools/verify/derived.py``): the
turn order a flow declares is checked in rules that write no property."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rulekit.dsl.printer import print_expr
from rulekit.load import load_program
from rulekit.tools.scenario import run_scenario
from rulekit.tools.verify import VerifyOptions, format_counterexample, verify
from rulekit.tools.verify.derived import derived_properties
from rulekit.tools.verify.properties import compile_properties

# Three players take turns adding 1 or 2 to a shared count; no invariant, no property.
COUNTING = """
ruleset: counting
players: {min: 2, max: 3}
state:
  game:
    current: {type: player, initial: "player_at(1)"}
    count: {type: int}
  player:
    added: {type: int}
actions:
  add:
    params: {n: "[1, 2]"}
    effect: |
      game.count += n
      me.added += n
    ends_turn: true
flow:
  - repeat:
      until: game.count >= 12
      steps:
        - turn: game.current
        - do: game.current = next_player(game.current)
scoring:
  score: player.added
"""
#: An author's edit: the action hands the turn on too, so the flow hands it on a second time.
HANDS_ON_TWICE = COUNTING.replace(
    "      me.added += n\n", "      me.added += n\n      game.current = next_player(me)\n"
)


def test_a_repeat_of_a_turn_and_a_do_that_sets_its_player_declares_the_turn_order(
    write_ruleset: Callable[..., Path],
) -> None:
    program = load_program(str(write_ruleset(COUNTING)))
    [derived] = derived_properties(program)
    assert derived.decl.name == "derived:turn_order" and derived.decl.over == "turn"
    assert print_expr(derived.decl.condition) == "after(game.current) == next_player(before(game.current))"
    assert [p.decl.name for p in compile_properties(program).over_turn] == ["derived:turn_order"]
    assert compile_properties(program, derived=False).over_turn == []


def test_a_flow_without_that_pattern_declares_no_turn_order(write_ruleset: Callable[..., Path]) -> None:
    # the turn's player is set by a for_each, not by a do after the turn
    text = COUNTING.replace(
        "        - turn: game.current\n        - do: game.current = next_player(game.current)\n",
        "        - for_each: {in: players, as: current, steps: [{turn: game.current}]}\n",
    )
    assert derived_properties(load_program(str(write_ruleset(text)))) == []


def test_the_derived_turn_order_holds_on_correct_rules(write_ruleset: Callable[..., Path]) -> None:
    result = verify(VerifyOptions(str(write_ruleset(COUNTING)), examples=40, out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]


def test_an_action_that_also_hands_the_turn_on_breaks_the_derived_turn_order(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    result = verify(VerifyOptions(str(write_ruleset(HANDS_ON_TWICE)), examples=40, out=tmp_path))
    example = result.counterexample
    assert example is not None and example.key == "property:derived:turn_order"
    assert len(example.actions) <= 2
    text = format_counterexample(example)
    assert "after(game.current) == next_player(before(game.current)) is false" in text


def test_the_scenario_of_a_derived_property_fails_until_the_rules_are_fixed(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    buggy = write_ruleset(HANDS_ON_TWICE)
    result = verify(VerifyOptions(str(buggy), examples=40, out=tmp_path / "out"))
    assert result.counterexample is not None
    [scenario] = sorted((tmp_path / "out").glob("*.yaml"))
    assert "expect_properties:\n- derived:turn_order" in scenario.read_text()
    assert run_scenario(scenario).failures
    (buggy / "ruleset.yaml").write_text(COUNTING)  # fixed
    assert not run_scenario(scenario).failures
