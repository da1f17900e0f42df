"""El Capitan's rules rewritten for speed only give the answers of their plain form.

``pirate_can_go`` counts the harbor spaces the ships take instead of asking ``can_anchor``
space by space, and ``pirate_destinations`` asks it only about the cities where a ship
is; both are compared with the plain formulas on states of random games and on states
with the ships put anywhere (two on one space, beyond a city's spaces, at the bank).
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

PLAIN_CAN_GO = "c != game.pirate and any(can_anchor(c, s) for s in between(1, harbor_spaces(c)))"
CITY = [("c", t.entity("city"))]


@cache
def _game() -> Game:
    return load_game("el_capitan", 4, ("porto", "lisboa", "islas_canarias"))


def _states(seed: int) -> list[Any]:
    return sampled_states(_game(), seed, 0.05)


def _scrambled(state: Any, rng: random.Random) -> Any:
    """The state with every ship and the pirate put anywhere, rules or not."""
    cities = _game().program.collections["city"]
    for p in range(4):
        state.fields[(p, "ship")] = rng.choice([*cities[:4], None])
        state.fields[(p, "berth")] = rng.randint(0, 5)
    state.fields[("game", "pirate")] = rng.choice(cities[:5])
    state.fields[("game", "pirate_berth")] = rng.randint(1, 3)
    return state


@pytest.mark.parametrize("seed", range(3))
def test_the_pirates_destinations_are_the_cities_the_plain_rule_allows(seed: int) -> None:
    game = _game()
    program = game.program
    can_go, _ = program.compile_expression("pirate_can_go(c)", params=CITY)
    plain, _ = program.compile_expression(PLAIN_CAN_GO, params=CITY)
    destinations, _ = program.compile_expression("pirate_destinations()")
    rng = random.Random(seed)
    cities = program.collections["city"]
    states = _states(seed)
    states += [_scrambled(s.clone(), rng) for s in states]
    assert len(states) > 20
    for state in states:
        F, R = state.fields, game.runtime
        R.reset_steps()
        expected = tuple(c for c in cities if plain(F, R, 0, c))
        assert tuple(c for c in cities if can_go(F, R, 0, c)) == expected
        assert destinations(F, R, 0) == expected
