"""Time per move of random playouts: the engine alone, then the same seeds through the
OpenSpiel adapter, interleaved game by game (the figure of docs/ecosystem.md, *Speed*).

Run: ``PYTHONPATH=. python -m tests.ecosystem.bench_adapter [GAMES]`` (default 20 per ruleset).
A measurement, not a test: the ratio is what to quote; absolute times vary with the machine.
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np

from rulekit import openspiel

CASES = {"el_capitan": (3, ["porto", "lisboa", "islas_canarias"]), "el_caballero": (3, [])}


def main(games: int) -> None:
    for name, (players, modules) in CASES.items():
        game = openspiel.register(name, players=players, modules=modules)
        engine_time = adapter_time = 0.0
        engine_moves = adapter_moves = 0
        for seed in range(games):
            rng = random.Random(seed)
            start = time.perf_counter()
            state = game.engine.new_initial_state(seed)
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
                engine_moves += 1
            engine_time += time.perf_counter() - start
            nrng = np.random.RandomState(seed)
            start = time.perf_counter()
            spiel = game.new_initial_state()
            while not spiel.is_terminal():
                if spiel.is_chance_node():
                    outcomes, probabilities = zip(*spiel.chance_outcomes(), strict=True)
                    spiel.apply_action(int(nrng.choice(outcomes, p=probabilities)))
                else:
                    spiel.apply_action(int(nrng.choice(spiel.legal_actions())))
                    adapter_moves += 1
            adapter_time += time.perf_counter() - start
        per_engine, per_adapter = engine_time / engine_moves, adapter_time / adapter_moves
        print(
            f"{name} ({players} players{', ' + '+'.join(modules) if modules else ''}): "
            f"engine {1e6 * per_engine:.0f} us/move, adapter {1e6 * per_adapter:.0f} us/move, "
            f"ratio {per_adapter / per_engine:.2f}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
