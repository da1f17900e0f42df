"""`rulekit check` from cold and from the program cache, side by side for one or more source
trees, in one command.  Usage (from the repository root):

    git archive <commit> rulekit rulesets | (mkdir -p /tmp/before && tar -x -C /tmp/before)
    .venv/bin/python benchmarks/check_time.py --rounds 5 /tmp/before . \
        --args "el_capitan --with porto,lisboa,islas_canarias"

Cold means no program cache entry (as after installing rulekit or editing the rules), with
bytecode present: each tree's imports are compiled once into a private bytecode directory
first (``PYTHONPYCACHEPREFIX``; ``PYTHONDONTWRITEBYTECODE`` is dropped), and every cold run
starts from an empty program cache.  Each round runs every tree once cold and once cached,
alternating the order of the trees; the script prints wall and CPU (user + system) seconds
per run and, per tree, the min/median/max.  On a busy machine wall time is mostly waiting for
a core: compare the CPU figures there.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _run(tree: Path, check_args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one ``rulekit check`` (the child's CPU, user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rulekit", "check", *check_args],
        env=env,
        cwd=tree,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _clear(cache: Path) -> None:
    for entry in cache.glob("program-*"):
        entry.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("trees", nargs="+", type=Path, help="source trees (rulekit/ and rulesets/ in each)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--args",
        default="el_capitan --with porto,lisboa,islas_canarias",
        help="the arguments of rulekit check (default: %(default)s)",
    )
    args = parser.parse_args()
    check_args = shlex.split(args.args)
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="rulekit-check-time-") as scratch:
        envs = {}
        for number, tree in enumerate(args.trees):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env.update(
                PYTHONPATH=str(tree.resolve()),
                PYTHONPYCACHEPREFIX=str(Path(scratch) / f"pyc-{number}"),
                RULEKIT_CACHE_DIR=str(Path(scratch) / f"cache-{number}"),
            )
            envs[tree] = env
            _run(tree, check_args, env)  # writes the bytecode and lark's grammar cache
        for round_ in range(args.rounds):
            order = args.trees if round_ % 2 == 0 else list(reversed(args.trees))
            for tree in order:
                env = envs[tree]
                _clear(Path(env["RULEKIT_CACHE_DIR"]))
                for kind in ("cold", "cached"):
                    wall, cpu = _run(tree, check_args, env)
                    figures.setdefault((str(tree), kind), []).append((wall, cpu))
                    print(f"{tree} {kind:6s} wall {wall:.3f} s  cpu {cpu:.3f} s", flush=True)
    print()
    for (tree, kind), runs in figures.items():
        walls = sorted(w for w, _ in runs)
        cpus = sorted(c for _, c in runs)
        print(
            f"{tree} {kind:6s} wall {walls[0]:.3f}/{statistics.median(walls):.3f}/{walls[-1]:.3f} s"
            f"  cpu {cpus[0]:.3f}/{statistics.median(cpus):.3f}/{cpus[-1]:.3f} s (min/median/max)"
        )


if __name__ == "__main__":
    main()
