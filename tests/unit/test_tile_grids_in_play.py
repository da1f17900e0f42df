"""What the tile-grid built-ins keep for the maps of a real game equals what they would
compute from scratch: in play every new map inherits the answers of its parent's cells that
a change cannot affect (rulekit.runtime.tile_grid), and a wrong inheritance shows up here as
a kept answer that differs from the rebuilt one."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.engine.game import Game
from rulekit.load import load_game
from rulekit.runtime import tiles
from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.memory import Memory
from rulekit.runtime.tile_grid import Derived
from tests.rulesets import Setup, setups, shipped_rulesets

#: The built-ins of the tile-grid module, by name.
_TILE_BUILTINS = sorted(name for name, b in BUILTINS.items() if b.impl.__module__ == tiles.__name__)


def _uses_tile_grids(ruleset: Path) -> bool:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(ruleset.rglob("*.yaml")))
    return any(re.search(rf"\b{name}\(", text) for name in _TILE_BUILTINS)


_SETUPS = [s for r in shipped_rulesets() if _uses_tile_grids(r) for s in setups(r)]


@cache
def _game(setup: Setup) -> Game:
    return load_game(str(setup.ruleset), setup.players, setup.modules)


def _mismatches(entry: Derived) -> list[str]:
    """Every answer ``entry`` keeps that differs from one computed afresh for its grid."""
    grid, kind = entry.grid, entry.kind
    fresh = Derived(grid, kind)  # no parent, no shared memo: everything from scratch
    wrong = []
    if entry.frontier is not None and entry.frontier != tuple(tiles._compute_frontier(grid, kind)):
        wrong.append(f"frontier {entry.frontier}")
    wrong += [f"edges at {c}" for c, kept in entry.edges.items() if fresh.edges_at(c) != kept]
    wrong += [f"needs at {c}" for c, kept in entry.needs.items() if fresh.needs_at(c) != kept]
    for cell, answers in entry.masks.items():
        for key, kept in answers.items():
            edges, adjacent = (key[0], False) if len(key) == 2 else (key, True)
            if fresh.fits_at(cell, edges, adjacent) != kept:
                wrong.append(f"fits of {edges} at {cell}")
    for cell, by_label in entry.facing.items():
        wrong += [
            f"facing {lb} at {cell}"
            for lb, kept in by_label.items()
            if tiles._compute_facing(fresh, cell, lb) != kept
        ]
    for label, kept_regions in entry.regions.items():
        if tiles._compute_regions(grid, kind, label) != kept_regions:
            wrong.append(f"regions of {label}")
    for edges, kept_placements in entry.placements.items():
        if tiles._compute_placements(Memory(), grid, edges, kind) != kept_placements:
            wrong.append(f"placements of {edges}")
    for edges, kept_anywhere in entry.anywhere.items():
        if bool(tiles._compute_placements(Memory(), grid, edges, kind)) is not kept_anywhere:
            wrong.append(f"anywhere of {edges}")
    return wrong


def test_some_shipped_ruleset_lays_tiles() -> None:
    assert _SETUPS, "no shipped ruleset calls a tile-grid built-in: the property below checks nothing"


@pytest.mark.parametrize("setup", _SETUPS, ids=lambda s: s.name)
@settings(max_examples=max(2, settings().max_examples // 20))
@given(seed=st.integers(0, 2**32 - 1))
def test_the_answers_kept_for_each_map_of_a_game_equal_the_answers_rebuilt(setup: Setup, seed: int) -> None:
    """A seeded random game; after every action, the maps the program made last (each
    inherited from the one before it) and asked last."""
    game = _game(setup)
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    checked = 0
    played: list[Any] = []
    for _ in range(150):
        if state.is_terminal():
            break
        played.append(rng.choice(state.legal_actions()))
        state.apply_action(played[-1])
        kept = game.memory.tiles
        for entry in {id(e): e for e in [*kept.parent.values(), kept.last] if e is not None}.values():
            assert _mismatches(entry) == [], f"after {played}"
            checked += len(entry.masks) + len(entry.facing)
    assert checked > 0, "the game kept nothing for its tile grids"
