"""Random games through the OpenSpiel adapter: the longest game and the most chance nodes per
shipped ruleset and player count (the figures of docs/ecosystem.md's table of bounds).

Run: ``PYTHONPATH=. python -m tests.ecosystem.game_lengths [GAMES]`` (default 200 per configuration).
A measurement, not a test (the slow test of the bounds plays 20 games of each).
"""

from __future__ import annotations

import sys

import numpy as np
import pyspiel

from rulekit import openspiel

ALL_TILES = ["porto", "lisboa", "islas_canarias"]
CONFIGURATIONS = (
    [("tic_tac_toe", 2, [])]
    + [("el_capitan", n, ALL_TILES) for n in (2, 3, 4, 5)]
    + [("el_caballero", n, []) for n in (2, 3, 4)]
    + [("pig", 2, []), ("connect_four", 2, []), ("royal_letter", 2, []), ("royal_letter", 4, [])]
)


def main(games: int) -> None:
    for name, players, modules in CONFIGURATIONS:
        game = openspiel.register(name, players=players, modules=modules)
        rng = np.random.RandomState(0)
        longest = most_chance = horizon = 0
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                else:
                    state.apply_action(int(rng.choice(state.legal_actions())))
            history = state.full_history()
            chance = sum(1 for item in history if item.player == pyspiel.PlayerId.CHANCE)
            longest = max(longest, len(history) - chance)
            most_chance = max(most_chance, chance)
            horizon += not state.engine_state.is_terminal()
        print(
            f"{name} {players}p {'+'.join(modules) or '-'}: {games} games, longest {longest} moves "
            f"(max_game_length {game.max_game_length()}), most chance nodes {most_chance} "
            f"(max {game.max_chance_nodes_in_history()}), ended by the horizon: {horizon}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
