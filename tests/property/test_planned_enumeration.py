"""The planned enumerators the compiler generates list exactly what the reference lists.

The reference enumerator tests every candidate of every domain against the compiled
requirement functions; the planned one narrows domains, hoists and inlines.  On random
states of every bundled ruleset (and the cards fixture), both give the same actions in
the same order.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.engine.game import Game, State
from rulekit.load import load_game

CARDS = str(Path(__file__).resolve().parents[1] / "data" / "cards")
CONFIGS = [
    ("tic_tac_toe", 2, ()),
    (CARDS, 3, ()),
    ("el_capitan", 2, ()),
    ("el_capitan", 4, ("porto", "lisboa", "islas_canarias")),
    ("el_caballero", 3, ()),
    ("el_caballero", 4, ()),
]
MAX_MOVES = 120


@cache
def _game(ruleset: str, players: int, modules: tuple[str, ...]) -> Game:
    return load_game(ruleset, players, modules)


def _reference(state: State) -> list[object]:
    game = state.game
    game.reference_enumeration = True
    try:
        return list(State(game, state.fields).legal_actions())
    finally:
        game.reference_enumeration = False


@pytest.mark.parametrize(("ruleset", "players", "modules"), CONFIGS, ids=lambda v: Path(str(v)).name)
@given(seed=st.integers(0, 2**32), picks=st.lists(st.integers(0, 1000), max_size=MAX_MOVES))
def test_planned_enumerator_lists_exactly_the_reference_legal_actions(
    ruleset: str, players: int, modules: tuple[str, ...], seed: int, picks: list[int]
) -> None:
    """At every state of a random game, planned and reference listings are equal, order included."""
    game = _game(ruleset, players, modules)
    state = game.new_initial_state(seed)
    for pick in picks:
        if state.is_terminal():
            break
        planned = state.legal_actions()
        assert planned == _reference(state)
        state.apply_action(planned[pick % len(planned)])


def test_a_membership_requirement_narrows_the_loop_to_the_members() -> None:
    """`card in game.route_display or card in ...` over a whole collection: the generated
    enumerator iterates the displays' members, not every card (read from the source)."""
    program = _game("el_capitan", 2, ()).program
    source = program.source
    start = source.index("def enum_buy_card")
    body = source[start : source.index("\n\n", start)]
    loop = next(line for line in body.splitlines() if line.lstrip().startswith("for v_card in"))
    assert "route_display" in loop
    assert "C_card" not in loop
