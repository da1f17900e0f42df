"""El Caballero (basic game): random games to the end, views, invariants (replay and scenarios:
tests/contract)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulekit.dsl import types as t
from rulekit.engine.game import State
from rulekit.errors import IllegalActionError
from rulekit.load import load_game
from rulekit.tools.scenario import find_scenarios

RULESET_DIR = Path(__file__).resolve().parents[2] / "rulesets" / "el_caballero"
MAX_MOVES = 5_000
SEEDS = (0, 1, 2, 3)


def play_random(players: int, seed: int) -> tuple[State, list[str]]:
    game = load_game(str(RULESET_DIR), players)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    log: list[str] = []
    while not state.is_terminal():
        legal = state.legal_action_strings()
        assert legal, f"a decision with no legal action after {log[-5:]}"
        action = rng.choice(legal)
        state.apply_action(action)
        log.append(action)
        assert len(log) < MAX_MOVES, "the game does not end"
    return state, log


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_game_ends_after_two_scorings(players: int, seed: int) -> None:
    state, _ = play_random(players, seed)
    assert state.value("game", "round") == 7
    for p in range(players):
        scorings = state.value(p, "scorings")
        assert len(scorings) == 2, "scored after rounds 4 and 7"
        assert state.value(p, "score") == sum(scorings)
        assert len(state.value(p, "hand")) == 13 - 7
    best = max(state.scores())
    assert state.winners() == [p for p in range(players) if state.scores()[p] == best], "ties share the win"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_invariants_hold_throughout_a_random_game(players: int) -> None:
    game = load_game(str(RULESET_DIR), players)
    state = game.new_initial_state(99)
    rng = random.Random(99)
    invariants = game.program.invariants
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        for invariant in invariants:
            assert invariant.check(state.fields, game.runtime, -1) is True, invariant.decl.message


def test_legal_actions_are_accepted_and_other_actions_change_nothing() -> None:
    game = load_game(str(RULESET_DIR), 3)
    state = game.new_initial_state(5)
    rng = random.Random(5)
    checked = 0
    while not state.is_terminal() and checked < 40:
        legal = state.legal_action_strings()
        if state.allowed_action_names() != ("play_power",):
            before = state.state_hash()
            for probe in ("end_turn", "supply(1)", "place_area(water_01, (40, 40), 0)"):
                if probe not in legal:
                    with pytest.raises(IllegalActionError):
                        state.apply_action(probe)
                    assert state.state_hash() == before
            checked += 1
        for text in legal[:3]:
            clone = state.clone()
            clone.apply_action(text)
        state.apply_action(rng.choice(legal))


def test_placement_actions_enumerate_only_fitting_cells_and_rotations() -> None:
    game = load_game(str(RULESET_DIR), 2)
    state = game.new_initial_state(1)
    state.apply_action("play_power(10)")
    state.apply_action("play_power(3)")
    program = game.program
    fits, _ = program.compile_expression(
        "tile_fits(game.map, cell, card.edges, rotation, AREA)",
        params=[("card", t.entity("area_card")), ("cell", t.TUPLE), ("rotation", t.INT)],
    )
    placements = [a for a in state.legal_actions() if a.name == "place_area"]
    assert placements
    for action in placements:
        card, cell, rotation = action.args
        assert fits(state.fields, game.runtime, 0, card, cell, rotation)
    # every fitting (display card, frontier cell, rotation) is offered
    frontier, _ = program.compile_expression("tile_frontier(game.map, AREA)")
    expected = {
        (card, cell, r)
        for card in state.value("game", "display")
        for cell in frontier(state.fields, game.runtime, 0)
        for r in range(4)
        if fits(state.fields, game.runtime, 0, card, cell, r)
    }
    assert {a.args for a in placements} == expected


def test_a_players_view_hides_the_stack_order() -> None:
    state = load_game(str(RULESET_DIR), 3).new_initial_state(2)
    for viewer in (0, 1, 2, None):
        view = state.view(viewer)
        assert view["game.stack"] == {"hidden": 42}
        assert "game.display" in view and "game.map" in view


def test_there_are_at_least_thirty_scenarios() -> None:
    assert len(find_scenarios([RULESET_DIR / "scenarios"])) >= 30


def test_a_finished_game_survives_json() -> None:
    state, _ = play_random(3, 4)
    copy = State.from_json(state.game, state.to_json())
    assert copy.state_hash() == state.state_hash()
    assert copy.scores() == state.scores()


def test_a_final_tie_is_a_shared_victory() -> None:
    state, _ = play_random(3, 1)
    for p in range(3):
        state.fields[(p, "score")] = 30 if p < 2 else 10
    assert state.winners() == [0, 1]
    assert state.returns() == [1.0, 1.0, -1.0]
