"""The OpenSpiel adapter's ``explicit_setup``: the setup's draws are chance nodes with their
probabilities (no seed node); and a game played for chips (``scoring.returns``) declares its
utility bounds and sum."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402

RULES = """\
ruleset: {name}
players: {{min: 2, max: 2}}
state:
  game:
    bag: {{type: "list[int]", initial: "[1, 2, 3]", visibility: hidden}}
    weather: {{type: int}}
  player:
    token: {{type: "list[int]", visibility: owner}}
setup: |
{setup}
actions:
  go:
    effect: game.weather += roll(2)
    ends_turn: true
flow:
  - turn: player_at(1)
scoring:
  score: "first(player.token) - 2 if len(player.token) > 0 else 0"
  returns: {{min: -1, max: 1}}
"""

DRAWING = """\
  game.weather = pick([10, 20], [1, 3])
  for p in players:
      let t = pick(game.bag)
      move(t, game.bag, p.token)"""


def _register(write_ruleset: Callable[..., Path], name: str, setup: str, **params: Any) -> Any:
    directory = write_ruleset(RULES.format(name=name, setup=setup), name=name)
    return rk.register(str(directory), **params)


def test_the_setup_s_draws_are_chance_nodes_with_their_probabilities(
    write_ruleset: Callable[..., Path],
) -> None:
    game = _register(write_ruleset, "dealt", DRAWING, explicit_setup=True)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(0, 0.25), (1, 0.75)]
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["pick = 10", "pick = 20"]
    state.apply_action(1)
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    state.apply_action(2)  # P1 gets 3
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(copy) == str(state)
    state.apply_action(0)  # P2 gets 1
    copy.apply_action(0)
    assert state.current_player() == copy.current_player() == 0
    assert state.engine_state.value("game", "weather") == 20
    assert state.engine_state.value(0, "token") == (3,)
    assert state.engine_state.value(1, "token") == (1,)
    assert str(copy) == str(state)
    state.apply_action(state.legal_actions()[0])  # go: its roll is a chance node after it
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    state.apply_action(0)
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]


def test_without_explicit_setup_the_setup_draws_from_a_seed_node(write_ruleset: Callable[..., Path]) -> None:
    game = _register(write_ruleset, "seeded", DRAWING, seeds=7)
    state = game.new_initial_state()
    assert len(state.chance_outcomes()) == 7
    assert state.action_to_string(3) == "seed 3"
    state.apply_action(3)
    assert state.current_player() == 0


def test_a_setup_that_draws_nothing_starts_at_the_first_decision(write_ruleset: Callable[..., Path]) -> None:
    game = _register(write_ruleset, "quiet", "  game.weather = 1", explicit_setup=True)
    state = game.new_initial_state()
    assert state.current_player() == 0
    state.apply_action(state.legal_actions()[0])
    assert state.is_chance_node()  # the action's roll


def test_a_game_played_for_chips_declares_its_utility(write_ruleset: Callable[..., Path]) -> None:
    game = _register(write_ruleset, "chips", DRAWING, explicit_setup=True)
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM  # no sum declared
    kuhn = rk.register("kuhn_poker", explicit_setup=True)
    assert kuhn.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (kuhn.min_utility(), kuhn.max_utility(), kuhn.utility_sum()) == (-2.0, 2.0, 0.0)


@pytest.mark.parametrize("explicit", [True, False])
def test_random_sim_test_passes_with_and_without_explicit_setup(
    write_ruleset: Callable[..., Path], explicit: bool
) -> None:
    game = _register(write_ruleset, f"sim{int(explicit)}", DRAWING, explicit_setup=explicit)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
