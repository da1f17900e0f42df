"""States sampled from a random game: what the speed-rewrite tests compare formulas on."""

from __future__ import annotations

import random

from rulekit.engine.game import Game, State


def sampled_states(game: Game, seed: int, rate: float) -> list[State]:
    """Copies of the states of one random game (seeded), each kept with probability ``rate``."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    states = []
    while not state.is_terminal():
        if rng.random() < rate:
            states.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return states
