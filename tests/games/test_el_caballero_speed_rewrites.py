"""El Caballero's rules rewritten for speed only give the answers of their plain form.

``my_cards(p)`` asks ``cells_where`` (kept per query, patched from one map to the next)
instead of filtering ``caballero_cells()`` by owner, and ``fits_somewhere(c)`` asks
``tile_fits_anywhere`` instead of trying every frontier cell and rotation with
``tile_fits``; both are compared with the plain formulas on states of random games and on
those states with the map scrambled (owners changed, records that are not caballero cards
given an owner, cells emptied), asking in turn about maps made from one another.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from rulekit.dsl import types as t
from rulekit.engine.game import Game
from rulekit.load import load_game
from tests.games.sampling import sampled_states

PLAIN_MY_CARDS = '[c for c in cells_of_kind(game.map, "caballero") if game.map[c].owner == p]'
PLAIN_FITS = (
    "any(tile_fits(game.map, cell, c.edges, r, AREA)"
    " for cell in tile_frontier(game.map, AREA) for r in range(0, 4))"
)


@cache
def _game() -> Game:
    return load_game("el_caballero", 4)


def _states(seed: int) -> list[Any]:
    return sampled_states(_game(), seed, 0.1)


def _scrambled(state: Any, rng: random.Random) -> Any:
    """The state with its map changed against the rules: owners moved, an area card given
    an owner, a cell emptied (each a new map made by changing the previous one)."""
    grid = dict(state.fields[("game", "map")])
    for cell in rng.sample(sorted(grid), k=min(3, len(grid))):
        choice = rng.random()
        if choice < 0.4:
            grid = {**grid, cell: {**grid[cell], "owner": rng.randrange(4)}}
        elif choice < 0.7:
            grid = {k: v for k, v in grid.items() if k != cell}
        else:
            grid = {**grid, cell: {"kind": "caballero", "owner": rng.randrange(4)}}
    state.fields[("game", "map")] = grid
    return state


@pytest.mark.parametrize("seed", range(3))
def test_my_cards_and_fits_somewhere_give_the_plain_rules_answers(seed: int) -> None:
    game = _game()
    program = game.program
    player = [("p", t.PLAYER)]
    card = [("c", t.entity("area_card"))]
    my_cards, _ = program.compile_expression("my_cards(p)", params=player)
    plain_cards, _ = program.compile_expression(PLAIN_MY_CARDS, params=player)
    fits, _ = program.compile_expression("fits_somewhere(c)", params=card)
    plain_fits, _ = program.compile_expression(PLAIN_FITS, params=card)
    rng = random.Random(seed)
    cards = program.collections["area_card"]
    states = _states(seed)
    states += [_scrambled(s.clone(), rng) for s in states]
    assert len(states) > 20
    for state in states:
        F, R = state.fields, game.runtime
        R.reset_steps()
        for p in range(4):
            assert tuple(my_cards(F, R, 0, p)) == tuple(plain_cards(F, R, 0, p))
        for c in rng.sample(cards, k=8):
            assert fits(F, R, 0, c) == plain_fits(F, R, 0, c)
