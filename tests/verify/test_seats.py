"""The seat-relabelling check (``engine:seat-symmetry``, ``rulekit/tools/verify/seats.py``):
rotating the seats in a state and an action rotates the outcome, in rules that single out no seat."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import Action, Game
from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, format_counterexample, verify
from rulekit.tools.verify.seats import Relabeller, asymmetry

# Players collect points; the most points wins. Nothing singles out a seat.
COLLECTING = """
ruleset: collecting
players: {min: 2, max: 3}
state:
  game:
    current: {type: player, initial: "player_at(1)"}
    moves: {type: int}
    last: {type: "player?"}
    given: {type: "map[player, int]"}
  player:
    points: {type: int}
actions:
  collect:
    params: {n: "[1, 2]"}
    effect: |
      me.points += n
      game.last = me
      game.given = put(game.given, me, get(game.given, me, 0) + n)
      game.moves += 1
    ends_turn: true
  give:
    params: {to: "[p for p in players if p != me]"}
    effect: |
      to.points += 1
      game.moves += 1
    ends_turn: true
flow:
  - repeat:
      until: game.moves >= 6
      steps:
        - turn: game.current
        - do: game.current = next_player(game.current)
scoring:
  score: player.points
"""
#: An author's edit: the first player in seat order gets a point more (a seat singled out
#: without naming it: ``first(players)``).
FIRST_SEAT_BONUS = COLLECTING.replace(
    "      me.points += n\n", "      me.points += n + (1 if me == first(players) else 0)\n"
)


def test_rules_that_name_no_seat_are_symmetric(write_ruleset: Callable[..., Path]) -> None:
    assert asymmetry(load_program(str(write_ruleset(COLLECTING)))) is None


def test_a_rule_calling_player_at_makes_the_rules_asymmetric(write_ruleset: Callable[..., Path]) -> None:
    text = COLLECTING.replace(
        "score: player.points", "score: player.points + (1 if player == player_at(2) else 0)"
    )
    assert asymmetry(load_program(str(write_ruleset(text)))) == "the scoring calls player_at()"


def test_a_function_only_the_display_uses_does_not_count(write_ruleset: Callable[..., Path]) -> None:
    text = COLLECTING + "functions:\n  label: {params: {p: player}, body: 'seat(p)'}\n"
    assert asymmetry(load_program(str(write_ruleset(text)))) is None


def test_the_relabeller_rotates_player_fields_values_and_the_decision(
    write_ruleset: Callable[..., Path],
) -> None:
    program = load_program(str(write_ruleset(COLLECTING)))
    state = Game(program, 3).new_initial_state(1)
    state.apply_action(Action("collect", (2,)))  # P1
    relabeller = Relabeller(program, 3)
    rotated = relabeller.state(state.fields)
    assert rotated is not None
    assert rotated[(1, "points")] == 2 and rotated[(0, "points")] == 0  # P1's points are P2's
    assert rotated[("game", "last")] == 1 and rotated[("game", "given")] == {1: 2}
    assert rotated[("game", "current")] == 2  # P2 decides in the real game: P3 rotated
    assert rotated[("_", "decision")][0] == 2
    assert relabeller.action(Action("give", (0,))) == Action("give", (1,))


def test_correct_symmetric_rules_pass_the_seat_check(write_ruleset: Callable[..., Path]) -> None:
    result = verify(VerifyOptions(str(write_ruleset(COLLECTING)), examples=40, out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.property_checks > 0


def test_a_seat_singled_out_without_naming_it_is_found(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    result = verify(VerifyOptions(str(write_ruleset(FIRST_SEAT_BONUS)), examples=40, out=tmp_path))
    example = result.counterexample
    assert example is not None and example.key == "engine:seat-symmetry", example
    assert len(example.actions) <= 2
    assert "points" in example.message and "seats rotated" in example.message


def test_verify_says_when_it_could_not_check_seat_symmetry(
    write_ruleset: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rulekit.cli import main

    text = COLLECTING.replace(
        "score: player.points", "score: player.points + (1 if player == player_at(2) else 0)"
    )
    status = main(["verify", str(write_ruleset(text)), "--examples", "5", "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert status == 0
    assert "seat symmetry not checked: the scoring calls player_at()" in out
    assert "1 derived from the rules" in out
