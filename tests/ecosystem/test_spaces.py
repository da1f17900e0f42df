"""Stable integer actions and per-player observations, derived from the ruleset alone."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.engine.game import Action, Game, State
from rulekit.engine.spaces import ActionSpace, ObservationEncoder, observation_text, uses_randomness
from rulekit.errors import RulekitError
from rulekit.load import load_game

ALL_TILES = ["porto", "lisboa", "islas_canarias"]
GAMES = [
    ("tic_tac_toe", 2, []),
    ("el_capitan", 3, ALL_TILES),
    ("el_caballero", 3, []),
]


def _playout(game: Game, seed: int, moves: int = 10_000) -> list[State]:
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal() and len(states) <= moves:
        state.apply_action(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return states


@pytest.mark.parametrize(("ruleset", "players", "modules"), GAMES, ids=[g[0] for g in GAMES])
def test_every_legal_action_has_one_integer_that_decodes_back(
    ruleset: str, players: int, modules: list[str]
) -> None:
    """Along a random game, every legal move has an integer in range that decodes back to it."""
    game = load_game(ruleset, players, modules)
    space = ActionSpace(game)
    seen: dict[int, Action] = {}
    for state in _playout(game, seed=3):
        ids = space.legal_ids(state)
        assert ids == sorted(set(ids))
        assert all(0 <= i < space.size for i in ids)
        for action in state.legal_actions():
            number = space.encode(action)
            assert space.decode(number) == action
            # The same integer is the same move in every state.
            assert seen.setdefault(number, action) == action


def test_a_component_parameter_ranges_over_its_collection_in_declaration_order() -> None:
    """A parameter typed by a component kind takes that kind's ids, in the order the rules list them."""
    game = load_game("tic_tac_toe", 2)
    space = ActionSpace(game)
    assert space.size == 9
    assert [str(space.decode(i)) for i in range(9)] == [
        f"place({c})" for c in ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")
    ]


def test_a_domain_that_reads_no_state_is_evaluated_once() -> None:
    """A parameter domain built from constants is evaluated once and becomes the universe."""
    game = load_game("el_capitan", 3)
    space = ActionSpace(game)
    (amount,) = space.universes["take_loan"]
    assert amount.source == "constant"
    assert list(amount.values) == list(game.program.namespace["K_LOAN_AMOUNTS"])


def test_actions_are_numbered_in_declaration_order_without_gaps() -> None:
    """Every integer below the size decodes to an action, in the order the rules declare them."""
    game = load_game("el_capitan", 2, ALL_TILES)
    space = ActionSpace(game)
    names = [space.decode(i).name for i in range(space.size)]
    assert list(dict.fromkeys(names)) == list(game.program.actions)
    assert space.size == len(names)


def test_a_move_outside_the_open_box_is_an_error_naming_it() -> None:
    """A legal move with an open value beyond the bound is an error naming the move, never dropped."""
    game = load_game("el_caballero", 2)
    space = ActionSpace(game, bound=0)
    state = game.new_initial_state(0)
    rng = random.Random(0)
    with pytest.raises(RulekitError, match="outside the integer action space"):
        while not state.is_terminal():
            space.legal_ids(state)
            state.apply_action(rng.choice(state.legal_actions()))


def test_the_ruleset_declares_how_far_open_values_reach() -> None:
    """``spaces.bound`` in the rules is the default box; an explicit bound overrides it."""
    game = load_game("el_caballero", 4)
    assert game.program.rules.space_bound == 16
    assert ActionSpace(game).bound == 16
    assert ActionSpace(game, bound=3).bound == 3
    assert ActionSpace(load_game("tic_tac_toe", 2)).bound == 12


def test_randomness_is_detected_from_the_rules() -> None:
    """Rules that shuffle or roll are found to use the RNG; tic-tac-toe is not."""
    assert not uses_randomness(load_game("tic_tac_toe", 2).program)
    assert uses_randomness(load_game("el_capitan", 2).program)
    assert uses_randomness(load_game("el_caballero", 2).program)


def _shuffled_hidden(state: State) -> State:
    """The same state with every hidden list field in another order."""
    other = state.clone()
    rules = state.game.program.rules
    changed = False
    for scope, fields in rules.fields.items():
        for name, decl in fields.items():
            if decl.visibility != "hidden":
                continue
            for owner in state.game.owners(scope):
                value = other.fields[(owner, name)]
                if len(set(value)) > 1:
                    other.fields[(owner, name)] = tuple(reversed(value))
                    changed = True
    assert changed, "the state has no hidden list to change"
    return other


@pytest.mark.parametrize(("ruleset", "players", "modules"), GAMES[1:], ids=[g[0] for g in GAMES[1:]])
def test_states_differing_only_in_hidden_fields_look_the_same_to_every_player(
    ruleset: str, players: int, modules: list[str]
) -> None:
    """States that differ only in hidden fields give every player the same observation."""
    game = load_game(ruleset, players, modules)
    encoder = ObservationEncoder(game)
    state = _playout(game, seed=1, moves=15)[-1]
    other = _shuffled_hidden(state)
    assert other.state_hash() != state.state_hash()
    for player in range(players):
        assert observation_text(other, player) == observation_text(state, player)
        assert encoder.encode(other, player) == encoder.encode(state, player)


def test_a_public_change_is_seen() -> None:
    """Changing a public field changes the observation text and tensor."""
    game = load_game("el_capitan", 2)
    encoder = ObservationEncoder(game)
    state = game.new_initial_state(0)
    other = state.clone()
    other.fields[(1, "money")] += 5
    assert observation_text(other, 0) != observation_text(state, 0)
    assert encoder.encode(other, 0) != encoder.encode(state, 0)


OWNER_RULES = """
ruleset: secrets
title: Secrets
players: {min: 2, max: 2}
state:
  game:
    mover: "player?"
  player:
    secret: {type: int, visibility: owner}
    shown: int
actions:
  bump:
    effect: me.secret += 1
    ends_turn: true
flow:
  - repeat:
      until: sum(p.secret for p in players) >= 4
      steps:
        - for_each: {in: players, as: mover, steps: [{turn: game.mover}]}
"""


def test_an_owner_field_is_seen_by_its_owner_only(write_ruleset: Callable[..., Path]) -> None:
    """An owner-visible field shows in its owner's observation and in nobody else's."""
    game = load_game(str(write_ruleset(OWNER_RULES)), 2)
    encoder = ObservationEncoder(game)
    state = game.new_initial_state(0)
    other = state.clone()
    other.fields[(0, "secret")] = 7
    assert observation_text(other, 1) == observation_text(state, 1)
    assert encoder.encode(other, 1) == encoder.encode(state, 1)
    assert observation_text(other, 0) != observation_text(state, 0)
    assert encoder.encode(other, 0) != encoder.encode(state, 0)


def test_the_observation_layout_is_described_slot_by_slot() -> None:
    """describe() lists every slot of the observation vector, adding up to its size."""
    game = load_game("tic_tac_toe", 2)
    encoder = ObservationEncoder(game)
    lines = list(encoder.describe())
    assert any("a1.mark (one_hot)" in line for line in lines)
    widths = [int(line.split()[1]) for line in lines]
    assert sum(widths) == encoder.size


def test_a_parsed_action_has_the_integer_of_the_enumerated_one() -> None:
    """An action read from text gets the same integer as the enumerated action."""
    game = load_game("el_capitan", 2)
    space = ActionSpace(game)
    state = game.new_initial_state(0)
    for action in state.legal_actions():
        parsed = game.parse_action(game.action_to_string(action))
        assert space.encode(parsed) == space.encode(action)


@pytest.fixture(scope="module")
def caballero_space() -> ActionSpace:
    return ActionSpace(load_game("el_caballero", 3))


@given(data=st.data())
def test_integers_and_moves_correspond_one_to_one(caballero_space: ActionSpace, data: st.DataObject) -> None:
    """decode then encode gives back any integer of the space."""
    number = data.draw(st.integers(0, caballero_space.size - 1))
    action = caballero_space.decode(number)
    assert caballero_space.encode(action) == number
