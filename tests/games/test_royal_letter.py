"""Royal Letter (rulesets/royal_letter): a hidden-hand card game, and what each player may see.

The hands are ``owner``-visible, the deck and the set-aside card ``hidden``, and a Priest's
look goes to an ``owner``-visible field: two states that differ only in what a player may not
see must look the same to her, in the engine's view and through the OpenSpiel and PettingZoo
adapters, and different to the player who may see it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rulekit.engine.game import State
from rulekit.load import load_game
from rulekit.tools.bots import make_bots, play_game
from rulekit.tools.scenario import run_scenario
from tests.ecosystem.extras import require

RULESET_DIR = Path(__file__).resolve().parents[2] / "rulesets" / "royal_letter"
CARDS = 14


def test_without_distinct_two_guards_are_two_choices(tmp_path: Path) -> None:
    """The equivalent-choices scenario can fail: a plain list offers both Guards."""
    scenario = RULESET_DIR / "scenarios" / "two_guards_are_one_choice.yaml"
    assert run_scenario(scenario).passed
    variant = tmp_path / "no_distinct.yaml"
    variant.write_text(
        "variant: no_distinct\nruleset: royal_letter\nset:\n"
        '  actions.discard.params.card: "[c for c in me.hand if c.kind in TARGETED]"\n'
    )
    result = run_scenario(scenario, variants=[str(variant)])
    assert not result.passed and "discard(guard_2) to be not legal" in "\n".join(result.failures)


def _all_cards(state: State, players: int) -> list[str]:
    fields = state.fields
    places = [fields[("game", "deck")], fields[("game", "set_aside")]]
    places += [fields[(p, name)] for p in range(players) for name in ("hand", "played")]
    return sorted(card for place in places for card in place)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_with_a_winner_and_every_card_kept(players: int, seed: int) -> None:
    """A round ends (one player left, or the deck empty) with a winner who is still in."""
    game = load_game(str(RULESET_DIR), players)
    played = play_game(game, seed, make_bots(game, "random", seed), 200)
    state = played.state
    assert played.finished
    fields = state.fields
    assert len(_all_cards(state, players)) == CARDS == len(set(_all_cards(state, players)))
    in_round = [p for p in range(players) if not fields[(p, "out")]]
    assert fields[("game", "deck")] == () or len(in_round) == 1
    assert state.winners() and set(state.winners()) <= set(in_round)


def _mid_game(players: int, seed: int, moves: int) -> State:
    game = load_game(str(RULESET_DIR), players)
    state = game.new_initial_state(seed)
    bots = make_bots(game, "random", seed)
    for _ in range(moves):
        state.apply_action(bots[state.current_player()].choose(state))
    assert not state.is_terminal()
    return state


def _swap_hand_with_deck(state: State, player: int) -> State:
    """A copy of state in which `player`'s first card and the deck's last card trade places."""
    other = state.clone()
    hand, deck = other.fields[(player, "hand")], other.fields[("game", "deck")]
    assert hand and deck and hand[0] != deck[-1]
    other.fields[(player, "hand")] = (deck[-1], *hand[1:])
    other.fields[("game", "deck")] = (*deck[:-1], hand[0])
    return other


def _with_priest_look(state: State, looker: int, target: int) -> tuple[State, State]:
    """Two copies where `looker` has seen `target`'s card, which differs between them."""
    first = state.clone()
    first.fields[(looker, "seen")] = first.fields[(target, "hand")][0]
    second = _swap_hand_with_deck(state, target)
    second.fields[(looker, "seen")] = second.fields[(target, "hand")][0]
    return first, second


def test_the_engine_view_hides_other_hands_and_the_deck() -> None:
    state = _mid_game(3, 1, 2)
    mover = state.current_player()
    other = _swap_hand_with_deck(state, mover)
    for player in range(3):
        same = state.view(player) == other.view(player)
        assert same == (player != mover), f"P{player + 1} sees the change: {not same}"
    assert state.view(None) == other.view(None), "a spectator sees no hand"


def test_a_priest_look_is_seen_by_the_looker_only() -> None:
    state = _mid_game(3, 2, 1)
    first, second = _with_priest_look(state, 0, 1)
    assert first.view(0) != second.view(0), "P1 sees the card the Priest showed her"
    assert first.view(1) != second.view(1), "P2 sees her own card"
    assert first.view(2) == second.view(2), "P3 sees neither"


def test_the_priest_action_stores_the_look_for_the_looker() -> None:
    """Playing a Priest puts the target's card in the looker's own `seen` field."""
    game = load_game(str(RULESET_DIR), 2)
    for seed in range(50):
        state = game.new_initial_state(seed)
        priests = [a for a in state.legal_actions() if a.name == "priest"]
        if priests:
            break
    else:
        pytest.fail("no seed of 0..49 deals P1 a Priest")
    target_card = state.fields[(1, "hand")][0]
    state.apply_action(priests[0])
    assert state.fields[(0, "seen")] == target_card
    assert "seen" in str(state.view(0)) and target_card in str(state.view(0)["P1.seen"])
    assert state.view(1)["P1.seen"] == {"hidden": 1}


def _openspiel_pair(players: int, change: Any) -> tuple[Any, Any]:
    pyspiel = require("pyspiel", "openspiel")
    from rulekit import openspiel

    openspiel.register(str(RULESET_DIR), players=players)
    game = pyspiel.load_game(f"rulekit_royal_letter(players={players})")
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = game.new_initial_state()
    state.apply_action(7)  # the chance node: the seed that shuffles the deck
    for _ in range(2):
        state.apply_action(state.legal_actions()[0])
    other = state.clone()
    change(state.engine_state, other.engine_state)
    return state, other


def _same_to(a: Any, b: Any, player: int) -> bool:
    return bool(
        a.observation_string(player) == b.observation_string(player)
        and a.observation_tensor(player) == b.observation_tensor(player)
        and a.information_state_string(player) == b.information_state_string(player)
        and a.information_state_tensor(player) == b.information_state_tensor(player)
    )


def test_openspiel_observations_hide_other_hands() -> None:
    """Observations and information states differ only for the player who holds the card."""

    def swap(original: State, copy: State) -> None:
        copy.fields.update(_swap_hand_with_deck(original, 2).fields)

    state, other = _openspiel_pair(3, swap)
    assert str(state) != str(other)
    assert [_same_to(state, other, p) for p in range(3)] == [True, True, False]


def test_openspiel_observations_show_a_priest_look_to_the_looker_only() -> None:
    def look(original: State, copy: State) -> None:
        first, second = _with_priest_look(original, 0, 1)
        original.fields.update(first.fields)
        copy.fields.update(second.fields)

    state, other = _openspiel_pair(3, look)
    assert [_same_to(state, other, p) for p in range(3)] == [False, False, True]


def test_pettingzoo_observations_hide_other_hands() -> None:
    np = require("numpy", "pettingzoo")
    require("pettingzoo", "pettingzoo")
    from rulekit import pettingzoo

    env = pettingzoo.raw_env(str(RULESET_DIR), players=3)
    env.reset(seed=3)
    before = {agent: env.observe(agent)["observation"].copy() for agent in env.possible_agents}
    assert env.game_state is not None
    env.game_state = _swap_hand_with_deck(env.game_state, 1)
    after = {agent: env.observe(agent)["observation"] for agent in env.possible_agents}
    same = [bool(np.array_equal(before[a], after[a])) for a in env.possible_agents]
    assert same == [True, False, True]


@pytest.mark.slow
def test_mcts_beats_random_bots_without_seeing_their_hands() -> None:
    """MCTS searches determinized states (the hidden cards dealt again) and still wins most games."""
    game = load_game(str(RULESET_DIR), 2)
    games, wins = 12, 0
    for seed in range(games):
        seat = seed % 2
        spec = "mcts:iterations=100,random" if seat == 0 else "random,mcts:iterations=100"
        played = play_game(game, seed, make_bots(game, spec, seed), 200)
        assert played.finished
        wins += played.state.winners() == [seat]
    assert wins > games // 2, f"MCTS won {wins} of {games}"
