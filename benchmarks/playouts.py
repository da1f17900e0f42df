"""Random playouts of one configuration for a few CPU seconds, printing playouts/s and
µs/action: the quick loop used to compare two source trees alternately (the tree comes
from PYTHONPATH), and to profile (``--profile`` prints cProfile's top functions; for py-spy,
run it under ``py-spy record``).  Usage (from the repository root):

    for i in 1 2 3; do
      PYTHONPATH=/tmp/before python benchmarks/playouts.py el_caballero 4
      python benchmarks/playouts.py el_caballero 4
    done
    python benchmarks/playouts.py el_capitan 4 --with porto,lisboa,islas_canarias --seconds 5
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from rulekit.load import load_game


def run(ruleset: str, players: int, modules: tuple[str, ...], seconds: float) -> None:
    game = load_game(ruleset, players, modules)
    rng = random.Random(1)
    playouts = actions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state(playouts)
        playouts += 1
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    elapsed = time.process_time() - start
    print(
        f"{playouts / elapsed:.1f} playouts/s {elapsed / actions * 1e6:.1f} us/action "
        f"{actions / playouts:.0f} actions/playout"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("ruleset")
    parser.add_argument("players", type=int)
    parser.add_argument("--with", dest="modules", default="")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    modules = tuple(m for m in args.modules.split(",") if m)
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(run, args.ruleset, args.players, modules, args.seconds)
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
    else:
        run(args.ruleset, args.players, modules, args.seconds)


if __name__ == "__main__":
    main()
