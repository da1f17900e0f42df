"""El Capitan expansion city tiles (Porto, Lisboa, Islas Canarias + pirate ship).

Each tile is a module of the el_capitan ruleset.  These tests check that every
one of the 8 tile combinations loads, checks and plays to the end with random
bots for 2-5 players, and that the tile scenarios in
rulesets/el_capitan/scenarios/expansions/ cover each tile (tests/contract runs them).
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulekit.load import load_game, load_program

RULESET_DIR = Path(__file__).resolve().parents[2] / "rulesets" / "el_capitan"
SCENARIO_DIR = RULESET_DIR / "scenarios" / "expansions"
TILES = ("porto", "lisboa", "islas_canarias")
COMBINATIONS = [combo for n in range(4) for combo in itertools.combinations(TILES, n)]
MAX_MOVES = 20_000


def _combo_id(combo: tuple[str, ...]) -> str:
    return "+".join(combo) or "base"


# ------------------------------------------------------------ random games


def play_random(modules: tuple[str, ...], players: int, seed: int) -> Any:
    game = load_game(str(RULESET_DIR), players, modules)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    moves = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal, "a decision with no legal action"
        state.apply_action(rng.choice(legal))
        moves += 1
        assert moves < MAX_MOVES, f"no end after {MAX_MOVES} moves"
    return state


@pytest.mark.parametrize("modules", COMBINATIONS, ids=_combo_id)
def test_every_tile_combination_loads_and_checks(modules: tuple[str, ...]) -> None:
    program = load_program(str(RULESET_DIR), modules)
    cities = program.collections["city"]
    assert len(cities) == 9 + len(modules)
    for tile in modules:
        assert tile in cities


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("modules", COMBINATIONS, ids=_combo_id)
def test_every_tile_combination_plays_to_the_end(modules: tuple[str, ...], players: int) -> None:
    state = play_random(modules, players, seed=players * 101 + len(modules))
    assert state.is_terminal()
    assert len(state.standings()) == players


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_all_three_tiles_play_to_the_end_with_more_seeds(seed: int) -> None:
    state = play_random(TILES, 4 + seed % 2, seed=seed)
    assert state.is_terminal()


# --------------------------------------------------------------- scenarios


SCENARIOS = sorted(SCENARIO_DIR.glob("*.yaml"))


def test_there_are_at_least_thirty_tile_scenarios_covering_each_tile() -> None:
    assert len(SCENARIOS) >= 30
    for tile in TILES:
        assert any(tile in (yaml.safe_load(p.read_text())["modules"] or ()) for p in SCENARIOS), tile


def test_every_tile_scenario_cites_its_section() -> None:
    for path in SCENARIOS:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert "§12" in str(data.get("cite")), path.name


def test_no_two_tiles_override_the_same_entry() -> None:
    """Tiles compose in any combination only if no two of them replace the same base entry."""
    seen: dict[str, str] = {}
    for tile in TILES:
        data = yaml.safe_load((RULESET_DIR / "modules" / f"{tile}.yaml").read_text(encoding="utf-8"))
        for section, entries in (data.get("override") or {}).items():
            for name in entries:
                key = f"{section}.{name}"
                assert key not in seen, f"{tile} and {seen.get(key)} both override {key}"
                seen[key] = tile
