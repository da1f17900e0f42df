"""Machine instructions per action of the same seeded random games in one or more source trees,
counted by valgrind (``cachegrind``, no cache simulation): a before/after figure that does not
depend on the machine's load, for changes too small for CPU-time figures to show on a shared
machine. Usage (from the repository root; needs ``valgrind``):

    git archive <commit> rulekit rulesets | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    .venv/bin/python benchmarks/instructions.py /tmp/before . tic_tac_toe --players 2 --games 300

Per tree, the games are played once natively (filling the program cache, counting the
actions), then under valgrind with one and with three passes over them (``PYTHONHASHSEED=0``
both times); the difference of the two counts, over two passes, is one pass's instructions.
Instructions are not time (a cache miss or a mispredicted branch costs more than an add), but
for the same Python code paths the two move together.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

_PLAY = """
import random, sys
from rulekit.load import load_game
name, players, modules = sys.argv[1], int(sys.argv[2]), sys.argv[3]
games, passes = int(sys.argv[4]), int(sys.argv[5])
game = load_game(name, players, tuple(m for m in modules.split(",") if m))
actions = 0
for _ in range(passes):
    actions = 0
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
print(actions)
"""


def _run(tree: Path, args: argparse.Namespace, passes: int, valgrind: bool) -> tuple[int, int]:
    """(actions of one pass, instructions counted or 0)."""
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()), PYTHONHASHSEED="0")
    command = [sys.executable, "-c", _PLAY, args.ruleset, str(args.players), args.modules]
    command += [str(args.games), str(passes)]
    if valgrind:
        counting = ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        command = ["valgrind", *counting, *command]
    out = subprocess.run(command, env=env, cwd=tree, check=True, capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    return int(out.stdout.split()[-1]), int(found.group(1).replace(",", "")) if found else 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("ruleset")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--with", dest="modules", default="")
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    first = None
    for tree in args.trees:
        actions, _ = _run(tree, args, 1, valgrind=False)
        _, one = _run(tree, args, 1, valgrind=True)
        _, three = _run(tree, args, 3, valgrind=True)
        per_action = (three - one) / 2 / actions
        first = first or per_action
        ratio = per_action / first
        print(f"{tree}: {per_action:,.0f} instructions per action ({actions} actions), {ratio:.3f}")


if __name__ == "__main__":
    main()
