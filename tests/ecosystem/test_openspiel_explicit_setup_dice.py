"""``explicit_setup`` on a setup that rolls two dice and deals a card of copies: each chance
step of the setup is a chance node of its own (no seed node), with its outcomes and
probabilities; clones and serialized states keep the outcomes so far."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402

DEAL_RULES = """
ruleset: two_rolls_and_a_card
title: Two rolls and a card
players: {min: 2, max: 2}
components:
  card:
    attributes: {n: int}
    items:
      - {id: c, n: 1, copies: 3}
state:
  game:
    deck: {type: "list[card]", initial: cards, visibility: hidden}
    rolled: {type: "list[int]"}
  player:
    hand: {type: "list[card]", visibility: owner}
setup: |
  game.rolled = [roll(6), roll(4)]
  let card = pick(game.deck)
  move(card, game.deck, player_at(1).hand)
actions:
  stop: {ends_turn: true, effect: end_game()}
flow:
  - turn: player_at(1)
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> str:
    directory = tmp_path_factory.mktemp("rules") / "two_rolls_and_a_card"
    directory.mkdir()
    (directory / "ruleset.yaml").write_text(DEAL_RULES, encoding="utf-8")
    return str(directory)


def _outcomes(state: Any) -> list[tuple[str, float]]:
    return [(state.action_to_string(pyspiel.PlayerId.CHANCE, a), p) for a, p in state.chance_outcomes()]


def test_each_draw_of_the_setup_is_a_chance_node_in_order(rules: str) -> None:
    game = rk.register(rules, explicit_setup=True)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert _outcomes(state) == [(f"roll(6) = {f}", pytest.approx(1 / 6)) for f in range(1, 7)]
    state.apply_action(2)
    assert _outcomes(state) == [(f"roll(4) = {f}", pytest.approx(1 / 4)) for f in range(1, 5)]
    state.apply_action(3)
    assert [text for text, _ in _outcomes(state)] == ["pick = 'c_a'", "pick = 'c_b'", "pick = 'c_c'"]
    state.apply_action(1)
    assert state.current_player() == 0
    engine = state.engine_state
    assert engine.value("game", "rolled") == (3, 4)
    assert engine.value(0, "hand") == ("c_b",)
    assert [item.player for item in state.full_history()] == [pyspiel.PlayerId.CHANCE] * 3


def test_the_default_is_one_seed_node(rules: str) -> None:
    state = rk.register(rules).new_initial_state()
    assert len(state.chance_outcomes()) == rk.DEFAULT_SEEDS
    state.apply_action(7)
    assert not state.is_chance_node()


def test_a_setup_half_drawn_survives_clone_and_serialization(rules: str) -> None:
    game = rk.register(rules, explicit_setup=True)
    state = game.new_initial_state()
    state.apply_action(5)
    for copy in (state.clone(), game.deserialize_state(state.serialize())):
        assert copy.is_chance_node() and len(copy.chance_outcomes()) == 4
        copy.apply_action(0)
        copy.apply_action(2)
        assert copy.engine_state.value("game", "rolled") == (6, 1)
        assert copy.engine_state.value(0, "hand") == ("c_c",)


def test_random_sim_test_passes_with_the_setup_drawn_step_by_step(rules: str) -> None:
    pyspiel.random_sim_test(
        rk.register(rules, explicit_setup=True), num_sims=5, serialize=True, verbose=False
    )
