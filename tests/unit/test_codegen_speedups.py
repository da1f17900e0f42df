"""Speed-only shapes of the generated code: each is checked for the shape it promises and
for giving the same values as the plain form would."""

from __future__ import annotations

import re
from functools import cache

from rulekit.engine.game import Game
from rulekit.load import load_game

MODULES = ("porto", "lisboa", "islas_canarias")


@cache
def _capitan() -> Game:
    return load_game("el_capitan", 4, MODULES)


def _function(source: str, name: str) -> str:
    """The generated source of the function ``name`` (up to the next top-level line)."""
    match = re.search(rf"^def {re.escape(name)}\b.*?(?=^\S)", source + "\nEND", re.S | re.M)
    assert match, name
    return match.group(0)


def test_an_items_attribute_is_read_from_a_table_per_attribute() -> None:
    """``card.cost`` is ``A_cost[v_card]`` (the id's hash is kept by the string) instead of
    ``A[(v_card, 'cost')]`` (a new tuple hashed at every read), with the same values."""
    game = _capitan()
    source = game.program.source
    assert "A_cost[v_card]" in source
    assert "A[(v_card, 'cost')]" not in source
    attributes = game.program.attributes
    state = game.new_initial_state(0)
    for card in game.program.collections["card"][:12]:
        fn, _ = game.program.compile_expression(f"cards.{card}.cost + len(cards.{card}.kind)")
        expected = attributes[(card, "cost")] + len(attributes[(card, "kind")])
        assert fn(state.fields, game.runtime, 0) == expected
