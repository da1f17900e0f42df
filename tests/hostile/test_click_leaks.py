"""Actions built by clicks tell a seat nothing it may not know: what ``/api/choose`` answers
(the candidates, the highlights, a refusal, the preview of the state after the action) is the
same for a state and a resample of what the seat cannot see (Royal Letter: the other hands and
the deck)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rulekit.engine.game import State
from rulekit.engine.information import determinize
from rulekit.load import load_game
from rulekit.tools import clicks
from rulekit.tools.bots import RandomBot
from rulekit.tools.view import compile_view


def _states(players: int, seed: int, moves: int) -> list[State]:
    state = load_game("royal_letter", players).new_initial_state(seed)
    bot, found = RandomBot(seed), []
    for _ in range(moves):
        if state.is_terminal():
            break
        found.append(state.clone())
        state.apply_action(bot.choose(state))
    return found


def _clicks(state: State) -> list[list[dict[str, str]]]:
    """No click, a click on each legal action's name, and a refused one (a target not on offer)."""
    names = sorted({a.name for a in state.legal_actions()})
    return [[], *([{"action": name}] for name in names), [{"guard.target": "P1", "prince.target": "P9"}]]


def _answers(state: State, seat: int, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    view = compile_view(state.game.program)
    monkeypatch.setattr(clicks.secrets, "randbits", lambda bits: 12345)  # the preview's deal
    return [clicks.choose(state, seat, choices, view) for choices in _clicks(state)]


@pytest.mark.parametrize("players", [2, 3])
def test_what_clicks_answer_is_the_same_for_every_world_the_seat_cannot_tell_apart(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared = 0
    for n, state in enumerate(_states(players, 3, 14)):
        seat = state.current_player()
        other = determinize(state, seat, random.Random(n))
        if other.fields == state.fields:
            continue
        mine = _answers(state, seat, monkeypatch)
        assert mine == _answers(other, seat, monkeypatch), f"move {n}"
        compared += 1
    assert compared >= 3


def test_the_preview_differs_when_the_seat_sees_a_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above can fail: the preview shows the seat's own new card."""
    state = _states(2, 3, 1)[0]
    seat = state.current_player()
    answers = _answers(state, seat, monkeypatch)
    previews = [a["preview"] for a in answers if a["preview"] is not None]
    assert previews and all("<svg" in p["svg"] for p in previews)
    other = state.clone()
    hand, deck = other.value(seat, "hand"), other.value("game", "deck")
    kinds = {str(c).split("_")[0] for c in hand}  # ids are KIND_N (the princess: princess)
    swap = next(i for i, c in enumerate(deck) if str(c).split("_")[0] not in kinds)
    other.fields[(seat, "hand")] = (deck[swap], *hand[1:])
    other.fields[("game", "deck")] = (*deck[:swap], hand[0], *deck[swap + 1 :])
    other.listed = None
    assert _answers(other, seat, monkeypatch) != answers
