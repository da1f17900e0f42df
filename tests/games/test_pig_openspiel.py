"""Pig's ``openspiel`` variant is OpenSpiel's ``pig``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter):
at every state the player to move, the terminal flag, the legal actions (rulekit's ``hold``
is OpenSpiel's ``stop``), the chance outcomes with their probabilities (rulekit's
``roll(6) = k`` is OpenSpiel's outcome ``k - 1``) and, at the end, the returns must agree.
The one node only rulekit has is the adapter's first chance node, which draws the engine's
seed: it is played first (any outcome; every roll is an explicit chance node after it).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402

NAMES = {"roll": "roll", "hold": "stop"}


def _outcomes(state: Any) -> dict[int, float]:
    """rulekit's chance outcomes keyed by OpenSpiel's outcome (the face minus one)."""
    found = {}
    for action, probability in state.chance_outcomes():
        face = int(state.action_to_string(action).rsplit("=", 1)[1])
        found[face - 1] = probability
    return found


def _lockstep(ours: Any, theirs: Any, seed: int) -> int:
    """Play one random game in both; return how many states were compared."""
    rng = random.Random(seed)
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    assert a.is_chance_node()  # the adapter's seed
    a.apply_action(a.chance_outcomes()[seed % len(a.chance_outcomes())][0])
    compared = 0
    while True:
        compared += 1
        assert a.is_terminal() == b.is_terminal(), (a.history(), b.history())
        if b.is_terminal():
            assert a.returns() == b.returns()
            return compared
        assert a.current_player() == b.current_player()
        if b.is_chance_node():
            assert _outcomes(a) == dict(b.chance_outcomes())
            face = rng.choice([o for o, _ in b.chance_outcomes()])
            b.apply_action(face)
            a.apply_action(next(x for x in a.legal_actions() if _outcomes_face(a, x) == face))
            continue
        mine = {NAMES[a.action_to_string(x)]: x for x in a.legal_actions()}
        theirs_legal = {b.action_to_string(x): x for x in b.legal_actions()}
        assert set(mine) == set(theirs_legal)
        name = rng.choice(sorted(mine))
        a.apply_action(mine[name])
        b.apply_action(theirs_legal[name])


def _outcomes_face(state: Any, action: int) -> int:
    return int(state.action_to_string(action).rsplit("=", 1)[1]) - 1


@pytest.fixture(scope="module")
def games() -> tuple[Any, Any]:
    return rk.register("pig", players=2, variants=["openspiel"]), pyspiel.load_game("pig")


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_of_the_openspiel_variant_matches_openspiel_pig(
    games: tuple[Any, Any], seed: int
) -> None:
    assert _lockstep(*games, seed) > 1


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel_pig(games: tuple[Any, Any]) -> None:
    assert sum(_lockstep(*games, seed) for seed in range(50, 1050)) > 1000


def test_the_horizon_ends_the_game_as_openspiel_s_does(tmp_path: Path) -> None:
    """With a horizon of 7 decisions, games are cut off in both at the same state, all 0."""
    short = tmp_path / "short.yaml"
    short.write_text("variant: short\nruleset: pig\nset:\n  constants.HORIZON: 7\n", encoding="utf-8")
    ours = rk.register("pig", players=2, variants=["openspiel", str(short)])
    theirs = pyspiel.load_game("pig", {"horizon": 7})
    for seed in range(20):
        _lockstep(ours, theirs, seed)
