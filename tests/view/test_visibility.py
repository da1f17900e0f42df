"""A seat's picture shows only what that seat may see, for every shipped view.

The check does not trust the view's own masking: it changes everything the seat may not see
(the unseen cards dealt again among the places they could be, with the engine's
``determinize``; any other unseen value cleared) and asserts that the seat's picture does
not change by a single byte. A view that read a hidden field, or a mask that let one through,
would draw the two states differently.
"""

from __future__ import annotations

import random

import pytest

from rulekit.engine.game import State
from rulekit.engine.information import determinize, hidden_places
from rulekit.load import load_game
from rulekit.tools.svg import to_svg
from rulekit.tools.view import caption, draw

# (ruleset, players, modules): every shipped ruleset with a view, and the rulesets with hidden
# fields at the player counts where a seat cannot see other players' hands.
SHIPPED = [
    ("tic_tac_toe", 2, ()),
    ("connect_four", 2, ()),
    ("pig", 2, ()),
    ("royal_letter", 2, ()),
    ("royal_letter", 4, ()),
    ("el_capitan", 3, ("porto", "lisboa", "islas_canarias")),
    ("el_caballero", 3, ()),
]


def _picture(state: State, seat: int | None) -> str:
    return to_svg(draw(state, seat), caption=caption(state, seat))


def _unseen_changed(state: State, seat: int | None, rng: random.Random) -> State:
    """A state the seat cannot tell from ``state``: what it may not see is changed."""
    other = determinize(state, seat, rng)
    for place in hidden_places(state, seat).kept:
        other.fields[place] = None  # what a masked value reads as
    return other


def _states(ruleset: str, players: int, modules: tuple[str, ...]) -> list[State]:
    """States along two random games, every few actions."""
    game = load_game(ruleset, players, modules)
    found = []
    for seed in (1, 2):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        for moves in range(200):
            if state.is_terminal():
                break
            if moves % 17 == 0:
                found.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
        found.append(state.clone())
    return found


@pytest.mark.parametrize(("ruleset", "players", "modules"), SHIPPED)
def test_a_seats_picture_does_not_change_when_what_it_may_not_see_changes(
    ruleset: str, players: int, modules: tuple[str, ...]
) -> None:
    rng = random.Random(0)
    for state in _states(ruleset, players, modules):
        for seat in (None, *range(players)):
            other = _unseen_changed(state, seat, rng)
            assert _picture(other, seat) == _picture(state, seat), (state.moves(), seat)


@pytest.mark.parametrize("ruleset", ["royal_letter", "el_capitan", "el_caballero"])
def test_the_hidden_parts_of_the_shipped_games_are_really_changed_by_the_check(ruleset: str) -> None:
    """The check above is not empty: for these games it changes the state (the decks, the hands)."""
    rng, players, changed = random.Random(0), 3, 0
    for state in _states(ruleset, players, ()):
        for seat in (None, *range(players)):
            other = _unseen_changed(state, seat, rng)
            changed += other.fields != state.fields
    assert changed > 0


def test_a_player_sees_her_own_hidden_cards_and_only_the_backs_of_the_others() -> None:
    """Royal Letter: in a seat's picture its own cards show their kind, the others' read 'a hidden card'."""
    state = load_game("royal_letter", 3).new_initial_state(5)
    for seat in range(3):
        rows: dict[float, list[str]] = {}
        for shape in draw(state, seat).shapes:
            if shape.layer == "hands" and shape.kind == "rect":
                rows.setdefault(shape.props["y"], []).append(shape.props["title"])
        by_player = [titles for _, titles in sorted(rows.items())]
        hands = [state.value(p, "hand") for p in range(3)]
        assert [len(titles) for titles in by_player] == [len(hand) for hand in hands]
        for player, (titles, hand) in enumerate(zip(by_player, hands, strict=True)):
            # the card ids of Royal Letter are KIND or KIND_N
            kinds = [card.split("_")[0] for card in hand]
            expected = kinds if player == seat else ["a hidden card"] * len(hand)
            assert titles == expected, (seat, player)
