"""Every evaluation starts with a whole step budget: what an earlier one charged (a long
listing, another panel) never makes a later one fail with "ran more than N steps"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rulekit.engine.game import Game, State
from rulekit.load import load_game
from rulekit.tools.evaluation import evaluate
from rulekit.tools.render import render_state
from rulekit.tools.scenario import run_scenario
from rulekit.tools.verify.explain import explain_invariant, unparse


def _spent(state: State) -> State:
    state.game.runtime.left = 0  # spent, as after a long listing
    return state


def test_each_panel_gets_a_whole_step_budget() -> None:
    state = load_game("el_capitan", 4).new_initial_state(0)
    whole = render_state(state)
    assert "panel failed" not in whole
    assert render_state(_spent(state)) == whole


def test_the_bots_evaluation_gets_a_whole_step_budget() -> None:
    state = load_game("el_capitan", 4).new_initial_state(0)
    value = evaluate(state, 0)
    assert evaluate(_spent(state), 0) == value


SCENARIO = """\
scenario: every evaluation has a whole budget
ruleset: el_capitan
players: 3
seed: 0
check_invariants: false   # the effects below hand out money; and invariants would reset the budget
setup_effect: |
  for p in players:
      p.money = p.money + len([c for c in cities if c.x >= 0])
actions:
  - buy_card(l_venezia_athen)
  - effect: |
      for p in players:
          p.money = p.money + len([c for c in cities if c.x >= 0])
  - buy_card(r_marseille_1)
expect:
  - sum(expected_income(p) for p in players) >= 0
  - len([c for c in cities if c.x >= 0]) == 9
"""


def test_a_scenario_evaluates_with_a_whole_budget_after_each_action(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its setup effect, effect steps and expectations, evaluated after an action whose last
    listing (of the next decision) may have used most of the budget, get budgets of their own."""
    real_apply, real_start = State.apply_action, Game.new_initial_state

    def spending(state: State, action: Any) -> None:
        real_apply(state, action)
        state.game.runtime.left = 0

    def spent_start(game: Game, seed: int = 0, **options: Any) -> State:
        state = real_start(game, seed, **options)
        game.runtime.left = 0
        return state

    path = tmp_path / "budget.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    assert run_scenario(path).failures == []
    monkeypatch.setattr(State, "apply_action", spending)
    monkeypatch.setattr(Game, "new_initial_state", spent_start)
    assert run_scenario(path).failures == []


def test_a_scenario_start_evaluates_the_turn_fields_with_a_whole_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_start = Game.new_initial_state

    def spent_start(game: Game, seed: int = 0, **options: Any) -> State:
        state = real_start(game, seed, **options)
        game.runtime.left = 0
        return state

    path = tmp_path / "start.yaml"
    path.write_text(
        "scenario: a start with a whole budget\nruleset: el_capitan\nplayers: 3\nseed: 0\n"
        "check_invariants: false\nstart: {player: P2}\nactions: [buy_card(l_venezia_athen)]\n"
        "expect: [player_at(2).money < 20]\n",
        encoding="utf-8",
    )
    assert run_scenario(path).failures == []
    monkeypatch.setattr(Game, "new_initial_state", spent_start)
    assert run_scenario(path).failures == []


def test_verify_explains_an_invariant_with_a_whole_budget() -> None:
    """The values of a failed invariant's parts are evaluated afresh, not with what is left."""
    state = load_game("el_capitan", 3).new_initial_state(0)
    program = state.game.program
    invariant = next(i for i in program.invariants if "sum(" in unparse(i.decl.condition))
    lines = explain_invariant(program, invariant, state)
    assert lines and not any("steps" in line for line in lines)
    assert explain_invariant(program, invariant, _spent(state)) == lines


def test_verify_checks_a_property_with_a_whole_budget() -> None:
    """A transition property is evaluated afresh, not with what the action before it left."""
    from rulekit.tools.verify import Checker
    from rulekit.tools.verify.options import Stats

    checker = Checker(load_game("el_capitan", 2).program, Stats(), focus="property:one_piece_per_turn")
    state = checker.start(2, 0)
    checker.check_turn(dict(state.fields), _spent(state))  # its sum over the players is charged
    assert checker.stats.property_checks == 1
