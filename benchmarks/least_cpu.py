"""The least CPU time of a fixed amount of play in two source trees, alternating: a steadier
before/after figure than playouts per second on a loaded machine (a repetition that a
neighbour slowed down is simply not the least).  Usage (from the repository root):

    git archive <commit> rulekit rulesets | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    .venv/bin/python benchmarks/least_cpu.py --rounds 3 /tmp/before . \
        el_capitan --players 4 --with porto,lisboa,islas_canarias --games 4 --reps 4

Each round runs one process per tree (order alternating); a process plays the same seeded
random games (seeds 0, 1, ...) ``--reps`` times after one warm-up and prints its least CPU time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

_PLAY = """
import random, sys, time
from rulekit.load import load_game
name, modules = sys.argv[1], sys.argv[3]
players, games, reps = int(sys.argv[2]), int(sys.argv[4]), int(sys.argv[5])
game = load_game(name, players, tuple(m for m in modules.split(",") if m))
def play():
    actions = 0
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    return actions
play()
least = float("inf")
for _ in range(reps):
    start = time.process_time()
    actions = play()
    least = min(least, time.process_time() - start)
print(least, actions)
"""


def run(tree: Path, args: argparse.Namespace) -> tuple[float, int]:
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
    command = [sys.executable, "-c", _PLAY, args.ruleset, str(args.players), args.modules, str(args.games)]
    out = subprocess.run(
        [*command, str(args.reps)], env=env, cwd=tree, check=True, capture_output=True, text=True
    )
    seconds, actions = out.stdout.split()
    return float(seconds), int(actions)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("ruleset")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--with", dest="modules", default="")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    least = {"before": float("inf"), "after": float("inf")}
    for r in range(args.rounds):
        order = [("before", args.before), ("after", args.after)]
        if r % 2:
            order.reverse()
        for name, tree in order:
            seconds, actions = run(tree, args)
            least[name] = min(least[name], seconds)
            print(f"round {r + 1}: {name} {seconds:.4f} s for {actions} actions")
    print(f"least CPU s: before {least['before']:.4f}, after {least['after']:.4f}")
    print(f"after/before speed: {least['before'] / least['after']:.2f}x")


if __name__ == "__main__":
    main()
