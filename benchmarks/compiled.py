"""The generated module compiled to a C extension (Cython) against the same module run by
Python: the same seeded random playouts with each, alternating, in one process.  Usage (from
the repository root, Cython and a C compiler installed: ``pip install cython``):

    .venv/bin/python benchmarks/compiled.py el_capitan --players 4 \
        --with porto,lisboa,islas_canarias --games 4 --rounds 6
    .venv/bin/python benchmarks/compiled.py tic_tac_toe --players 2 --games 200 --rounds 6

The ruleset is compiled as usual (checked, planned, audited); then, instead of executing the
generated source, this script writes it to a module, compiles that with ``cythonize`` and puts
the extension's functions where the program would have put the executed ones.  What had to
change for that (here, not in rulekit):

* the module's globals: the generated code runs in a namespace rulekit builds
  (``runtime_namespace``: the helpers, the collections, the constants, a restricted
  ``__builtins__``); an extension module has globals of its own, so its first line copies the
  namespace in (``NAME = P_ns['NAME']`` for each, before the module's own lines, which wrap
  the memoized functions with ``P_memo``; Cython refuses a name no line of the module binds);
* the restricted ``__builtins__`` is lost: Cython binds ``len``, ``tuple``, ``sorted``... to
  Python's built-ins when the module is imported (the audit of the generated source still
  refuses every name it does not write, so nothing else is reachable, but the second fence is
  gone);
* a rule error is still raised with its message, but ``Program.rule_span`` finds the rule
  from the failing line of ``<rulekit:NAME>``, which a compiled frame does not have.

Each round plays the same games (seeds 0, 1, ...) with the pure and the compiled program
(the order alternating) and checks both made the same moves; the speed-up is pure CPU time
over compiled CPU time, its median and min-max over the rounds, and the ratio of the least
CPU times (steadier on a loaded machine).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import random
import statistics
import subprocess
import sys
import sysconfig
import time
import types
from pathlib import Path
from typing import Any

from rulekit.compiler import build
from rulekit.compiler.program import Program
from rulekit.engine.game import Game
from rulekit.load import load_program

_WORK = Path("/tmp/rulekit-compiled")


def _extension(source: str, runtime: dict[str, Any]) -> types.ModuleType:
    """``source`` compiled by Cython into an extension module whose globals start as
    ``runtime`` (the generated module's namespace)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    name = f"rk_generated_{digest}"
    holder = f"rk_namespace_{digest}"
    sys.modules[holder] = types.SimpleNamespace(NS=runtime)  # type: ignore[assignment]
    _WORK.mkdir(parents=True, exist_ok=True)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if not (_WORK / f"{name}{suffix}").exists():
        # (each name also assigned once, so that Cython knows it as a global of the module)
        declared = "".join(f"{key} = P_ns[{key!r}]\n" for key in runtime)
        (_WORK / f"{name}.py").write_text(
            f"P_ns = __import__({holder!r}).NS\n{declared}" + source, encoding="utf-8"
        )
        started = time.perf_counter()
        subprocess.run(
            [str(Path(sys.executable).parent / "cythonize"), "-i", "-3", "-q", f"{name}.py"],
            cwd=_WORK,
            check=True,
            capture_output=True,  # (C compiler warnings)
        )
        print(f"cythonize: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if str(_WORK) not in sys.path:
        sys.path.insert(0, str(_WORK))
    return importlib.import_module(name)


def compiled_program(pure: Program) -> Program:
    """``pure``'s rules compiled again, with the generated module run as a C extension."""
    compiler = build._Compiler(pure.rules)

    def run(code: Any, namespace: dict[str, Any]) -> None:
        source = "\n".join(compiler.lines)  # (what compile() made ``code`` of)
        runtime = {k: v for k, v in namespace.items() if k != "__builtins__"}
        module = _extension(source, runtime)
        namespace.update({k: v for k, v in vars(module).items() if not k.startswith("__")})

    build.exec = run  # type: ignore[attr-defined]  # (the one place the module is executed)
    try:
        return compiler.compile()
    finally:
        del build.exec  # type: ignore[attr-defined]


def play(game: Game, games: int) -> tuple[float, list[int]]:
    """CPU seconds for ``games`` seeded random games, and every game's moves (to compare)."""
    moves: list[int] = []
    started = time.process_time()
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            moves.append(action)
            state.apply_action(action)
    return time.process_time() - started, moves


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("ruleset")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--with", dest="modules", default="")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    modules = tuple(m for m in args.modules.split(",") if m)
    loaded = load_program(args.ruleset, modules, players=args.players)
    pure = Game(build.compile_rules(loaded.rules), args.players)
    compiled = Game(compiled_program(loaded), args.players)
    play(pure, 1), play(compiled, 1)  # (warm-up)
    ratios = []
    least = {"pure": float("inf"), "compiled": float("inf")}
    for r in range(args.rounds):
        order = [("pure", pure), ("compiled", compiled)]
        if r % 2:
            order.reverse()
        seconds: dict[str, float] = {}
        moves: dict[str, list[int]] = {}
        for name, game in order:
            seconds[name], moves[name] = play(game, args.games)
        assert moves["pure"] == moves["compiled"], "the compiled module played other moves"
        ratios.append(seconds["pure"] / seconds["compiled"])
        least = {name: min(least[name], seconds[name]) for name in least}
        print(
            f"round {r + 1}: pure {seconds['pure']:.3f} s, compiled {seconds['compiled']:.3f} s "
            f"for {len(moves['pure'])} actions: {ratios[-1]:.2f}x"
        )
    print(
        f"compiled/pure speed: median {statistics.median(ratios):.2f}x "
        f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x, {args.rounds} rounds); "
        f"least CPU s: pure {least['pure']:.3f}, compiled {least['compiled']:.3f} "
        f"({least['pure'] / least['compiled']:.2f}x)"
    )


if __name__ == "__main__":
    main()
