"""Modules relax base invariants: ``extend: {invariants: {NAME: {relax: [...]}}}``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program

BASE = """
ruleset: harbour_game
title: Harbour
players: {min: 2, max: 2}
constants:
  SHIPS: 3
state:
  game:
    supply: {type: int, initial: SHIPS}
    afloat: {type: int}
    sunk: {type: int}
actions:
  launch:
    doc: Launch a ship.
    require: [{if: game.supply > 0, else: no ship left}]
    effect: |
      game.supply -= 1
      game.afloat += 1
flow:
  - repeat:
      until: game.supply == 0
      steps:
        - turn: {player: player_at(1)}
invariants:
  ships_accounted:
    holds: game.supply + game.afloat == SHIPS
    message: every ship is in the supply or afloat
"""


def _documented_example() -> str:
    text = (Path(__file__).resolve().parents[2] / "docs" / "rules-format.md").read_text(encoding="utf-8")
    return text.split("<!-- example: relax -->\n```yaml\n", 1)[1].split("```", 1)[0]


HARBOUR = """
module: harbour
actions:
  sink:
    doc: Sink a ship.
    require: [{if: game.afloat > 0, else: nothing afloat}]
    effect: |
      game.afloat -= 1
      game.sunk += 1
""" + _documented_example()


def _broken(program_dir: Path, modules: list[str]) -> list[str]:
    """The invariants that fail after launch, launch, sink (or launch x3 without the module)."""
    game = load_game(str(program_dir), 2, modules)
    state = game.new_initial_state(0)
    for action in ("launch", "launch", "sink") if modules else ("launch", "launch", "launch"):
        state.apply_action(action)
    program = game.program
    return [i.decl.name for i in program.invariants if not i.check(state.fields, game.runtime, -1)]


def test_a_relaxed_invariant_holds_when_its_alternative_does(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(BASE, {"harbour": HARBOUR})
    assert _broken(directory, ["harbour"]) == []


def test_the_base_invariant_is_unchanged_without_the_module(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(BASE, {"harbour": HARBOUR})
    rules = load_program(str(directory)).rules
    assert rules.invariants["ships_accounted"].message == "every ship is in the supply or afloat"
    game = load_game(str(directory), 2)
    state = game.new_initial_state(0)
    state.fields[("game", "sunk")] = 1
    state.fields[("game", "afloat")] = -1  # what a sunk ship looks like without the module's alternative
    (invariant,) = game.program.invariants
    assert not invariant.check(state.fields, game.runtime, -1)


def test_the_message_of_a_relaxed_invariant_names_the_reason(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(BASE, {"harbour": HARBOUR})
    rules = load_program(str(directory), ["harbour"]).rules
    assert rules.invariants["ships_accounted"].message == (
        "every ship is in the supply or afloat (relaxed: a ship sunk in the harbour leaves the game)"
    )


def test_a_relaxation_without_a_reason_is_an_error_at_its_line(write_ruleset: Callable[..., Path]) -> None:
    module = HARBOUR.replace("          because: a ship sunk in the harbour leaves the game\n", "")
    directory = write_ruleset(BASE, {"harbour": module})
    with pytest.raises(
        RulesetError, match=r"harbour.yaml:\d+:\d+: error: a relaxation needs 'because: REASON'"
    ):
        load_program(str(directory), ["harbour"])


def test_relaxing_an_unknown_invariant_is_an_error_with_a_hint(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(BASE, {"harbour": HARBOUR.replace("ships_accounted:", "ship_accounted:")})
    with pytest.raises(
        RulesetError, match=r"cannot extend invariants 'ship_accounted': no such entry"
    ) as info:
        load_program(str(directory), ["harbour"])
    assert "ships_accounted" in str(info.value)


def test_a_type_error_in_a_relaxation_points_into_the_module(write_ruleset: Callable[..., Path]) -> None:
    module = HARBOUR.replace("- or: game.supply + game.afloat + game.sunk == SHIPS", "- or: game.sunk + 1")
    directory = write_ruleset(BASE, {"harbour": module})
    with pytest.raises(
        RulesetError, match=r"harbour\.yaml:\d+:\d+: error: the right side of 'or' must be bool"
    ):
        load_program(str(directory), ["harbour"])
