"""Before/after ratios measured side by side: the same configuration, alternating between two
source trees, in one command.  Usage (from the repository root):

    git archive <commit> rulekit rulesets | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    .venv/bin/python benchmarks/ab.py --rounds 3 /tmp/before . \
        el_capitan --players 4 --with porto,lisboa,islas_canarias

Each round runs ``rulekit bench ... --json`` once per tree (order alternating) and the
script prints, per figure, the after/before factor (> 1: after is better) with min/median/max.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

FIGURES = ("playouts_per_s", "us_per_action", "legal_us", "clone_us")
SMALLER = {"us_per_action", "legal_us", "clone_us"}


def run(tree: Path, bench_args: list[str], seconds: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "b.json"
        env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
        subprocess.run(
            [sys.executable, "-m", "rulekit", "bench", *bench_args, "--seconds", seconds, "--json", str(out)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=tree,
        )
        return json.loads(out.read_text())["rows"][0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", default="2")
    parser.add_argument("bench", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    bench_args = [a for a in args.bench if a != "--"]
    factors: dict[str, list[float]] = {f: [] for f in FIGURES}
    for r in range(args.rounds):
        order = [("before", args.before), ("after", args.after)]
        if r % 2:
            order.reverse()
        rows = {name: run(tree, bench_args, args.seconds) for name, tree in order}
        for f in FIGURES:
            old, new = rows["before"][f], rows["after"][f]
            if old and new:
                factors[f].append(old / new if f in SMALLER else new / old)
        print(
            f"round {r + 1}: playouts/s before {rows['before']['playouts_per_s']:.1f} "
            f"after {rows['after']['playouts_per_s']:.1f}",
            flush=True,
        )
    print(" ".join(bench_args))
    for f, values in factors.items():
        if values:
            values.sort()
            print(
                f"  {f:16} {statistics.median(values):6.2f}x  (min {values[0]:.2f}x, max {values[-1]:.2f}x)"
            )


if __name__ == "__main__":
    main()
