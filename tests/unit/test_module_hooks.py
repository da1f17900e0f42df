"""Module hooks: ``extend:`` appends requirements to base actions; ``offered_with`` adds a
module's action to a base ruleset's explicit turn lists."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import IllegalActionError, RulesetError
from rulekit.load import load_game, load_program

BASE = """\
ruleset: base
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
  turn:
    locked: {type: bool}
actions:
  step:
    require:
      - {if: "game.n < 10", else: "the count is full"}
    effect: game.n += 1
  done:
    ends_turn: true
flow:
  - repeat:
      times: 2
      steps:
        - turn: {player: player_at(1), actions: [step, done]}
scoring:
  score: game.n
"""
MODULES = {
    "lock": """\
module: lock
actions:
  lock:
    offered_with: [done]
    effect: turn.locked = true
extend:
  actions:
    step:
      require:
        - {if: "not turn.locked", else: "the step is locked this turn", cite: "§1"}
""",
    "typo": """\
module: typo
extend:
  actions:
    stpe:
      require: ["true"]
""",
    "badkey": """\
module: badkey
extend:
  actions:
    step:
      effect: game.n += 2
""",
    "badoffer": """\
module: badoffer
actions:
  extra:
    offered_with: [dnoe]
""",
}


@pytest.fixture
def ruleset(write_ruleset: Callable[..., Path]) -> str:
    return str(write_ruleset(BASE, MODULES))


def test_without_the_module_the_explicit_turn_list_is_kept(ruleset: str) -> None:
    state = load_game(ruleset, 2).new_initial_state(0)
    assert state.legal_action_strings() == ["step", "done"]


def test_offered_with_adds_a_module_action_to_explicit_turn_lists(ruleset: str) -> None:
    state = load_game(ruleset, 2, ["lock"]).new_initial_state(0)
    assert state.legal_action_strings() == ["step", "done", "lock"]


def test_extend_appends_a_requirement_to_a_base_action(ruleset: str) -> None:
    program = load_program(ruleset, ["lock"])
    messages = [r.message for r in program.rules.actions["step"].requires]
    assert messages == ["the count is full", "the step is locked this turn"]
    state = load_game(ruleset, 2, ["lock"]).new_initial_state(0)
    state.apply_action("step")
    state.apply_action("lock")
    with pytest.raises(IllegalActionError, match=r"the step is locked this turn \[§1\]"):
        state.apply_action("step")
    state.apply_action("done")
    state.apply_action("step")  # a new turn: unlocked again
    assert state.value("game", "n") == 2


def test_extend_of_a_missing_action_suggests_the_right_name(ruleset: str) -> None:
    with pytest.raises(RulesetError) as caught:
        load_program(ruleset, ["typo"])
    assert "cannot extend actions 'stpe': no such entry" in str(caught.value)
    assert "did you mean 'step'?" in str(caught.value)


def test_extend_only_appends_requirements(ruleset: str) -> None:
    with pytest.raises(RulesetError, match="cannot extend 'effect' of actions 'step'"):
        load_program(ruleset, ["badkey"])


def test_offered_with_an_unknown_action_is_reported(ruleset: str) -> None:
    with pytest.raises(RulesetError) as caught:
        load_program(ruleset, ["badoffer"])
    assert "action 'extra' is offered_with unknown action 'dnoe'" in str(caught.value)
    assert "did you mean 'done'?" in str(caught.value)
