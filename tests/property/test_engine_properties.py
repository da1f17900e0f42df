"""Properties of play: legal play never raises; replays and JSON are exact; rejections change nothing."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.engine.game import TERMINAL, Action, Game, State
from rulekit.errors import IllegalActionError
from rulekit.load import load_game

CARDS = str(Path(__file__).resolve().parents[1] / "data" / "cards")
MAX_MOVES = 200


@cache
def _game(name: str, players: int) -> Game:
    return load_game(name, players)


GAMES = [("tic_tac_toe", 2), (CARDS, 2), (CARDS, 3)]
#: Short prefixes of bigger games: maps with tuple keys, hidden decks, many action kinds.
PREFIX_GAMES = [*GAMES, ("el_caballero", 3), ("el_capitan", 3)]
seeds = st.integers(0, 2**32)
choices = st.lists(st.integers(0, 1000), max_size=MAX_MOVES)


def _play(game: Game, seed: int, picks: list[int]) -> tuple[State, list[Action]]:
    """Play from ``seed``, taking ``picks[i] % len(legal)`` at step i, then the first legal action."""
    state = game.new_initial_state(seed)
    played: list[Action] = []
    for step in range(MAX_MOVES):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        assert legal, "a non-terminal state must offer a legal action"
        assert 0 <= state.current_player() < game.num_players
        action = legal[picks[step] % len(legal)] if step < len(picks) else legal[0]
        state.apply_action(action)
        played.append(action)
    return state, played


@pytest.mark.parametrize(("ruleset", "players"), GAMES, ids=lambda v: Path(str(v)).name)
@given(seed=seeds, picks=choices)
def test_random_legal_play_never_raises_and_ends(
    ruleset: str, players: int, seed: int, picks: list[int]
) -> None:
    """Legal actions can always be applied, and every game ends with standings for all players."""
    game = _game(ruleset, players)
    state, _ = _play(game, seed, picks)
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert sorted(p for p, _ in state.standings()) == list(range(players))
    assert all(r in (-1.0, 0.0, 1.0) for r in state.returns())


@pytest.mark.parametrize(("ruleset", "players"), GAMES, ids=lambda v: Path(str(v)).name)
@given(seed=seeds, picks=choices)
def test_replaying_the_same_seed_and_actions_gives_the_same_state(
    ruleset: str, players: int, seed: int, picks: list[int]
) -> None:
    """Same seed, same actions (as text) -> same state hash, at every step."""
    game = _game(ruleset, players)
    state, played = _play(game, seed, picks)
    replay = game.new_initial_state(seed)
    for action in played:
        replay.apply_action(game.action_to_string(action))
    assert replay.state_hash() == state.state_hash()
    assert replay.fields == state.fields


@pytest.mark.parametrize(("ruleset", "players"), PREFIX_GAMES, ids=lambda v: Path(str(v)).name)
@given(seed=seeds, picks=st.lists(st.integers(0, 1000), max_size=30))
def test_json_round_trip_is_exact(ruleset: str, players: int, seed: int, picks: list[int]) -> None:
    """State.from_json(to_json) has the same fields and hash, through real JSON text, mid-game too."""
    game = _game(ruleset, players)
    state = game.new_initial_state(seed)
    for pick in picks:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[pick % len(legal)])
    restored = State.from_json(game, json.loads(json.dumps(state.to_json())))
    assert restored.fields == state.fields
    assert restored.state_hash() == state.state_hash()
    assert restored.legal_actions() == state.legal_actions()


@pytest.mark.parametrize(("ruleset", "players"), PREFIX_GAMES, ids=lambda v: Path(str(v)).name)
@given(seed=seeds, picks=st.lists(st.integers(0, 1000), max_size=30), bad=st.integers(0, 10_000))
def test_a_rejected_action_leaves_the_state_unchanged(
    ruleset: str, players: int, seed: int, picks: list[int], bad: int
) -> None:
    """An action that is not legal raises IllegalActionError and changes nothing."""
    game = _game(ruleset, players)
    state = game.new_initial_state(seed)
    for pick in picks:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[pick % len(legal)])
    before_hash, before_fields = state.state_hash(), dict(state.fields)
    before_legal = list(state.legal_actions())
    candidates = [
        Action(name, tuple(args))
        for name, compiled in game.program.actions.items()
        for args in _argument_tuples(game, compiled.params)
    ]
    illegal = [a for a in candidates if a not in before_legal]
    if not illegal:
        return
    with pytest.raises(IllegalActionError):
        state.apply_action(illegal[bad % len(illegal)])
    assert state.state_hash() == before_hash
    assert state.fields == before_fields
    assert state.legal_actions() == before_legal


def _argument_tuples(game: Game, params: tuple[str, ...]) -> list[tuple[object, ...]]:
    ids = [i for ids in game.program.collections.values() for i in ids]
    if not params:
        return [()]
    return [(i,) for i in ids] if len(params) == 1 else []
