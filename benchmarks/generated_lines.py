"""Which lines of the generated module random playouts spend their time on, or run how often:
the view of the generated listing code that cProfile (one row per function) does not give.
Usage (from the repository root; the tree comes from PYTHONPATH):

    python benchmarks/generated_lines.py el_caballero 4 --sample --seconds 10
    python benchmarks/generated_lines.py el_capitan 4 --with porto,lisboa,islas_canarias --sample
    python benchmarks/generated_lines.py el_caballero 4 --count decide_n150 --games 4

``--sample``: a thread reads the main thread's frame every ~0.7 ms and gives each sample to the
line of the outermost generated frame (a built-in's time counts for the line calling it); it
prints the share of samples per line and per block of each fused decision function
(``for _ in P_once:``, named by the action it makes).  ``--count NAME``: the lines of the
generated function NAME run per call (``sys.settrace`` line events: slow, but the same
counts on any machine).  Print the module with ``rulekit compile RULESET --show`` to read
the lines.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import threading
import time
from types import FrameType
from typing import Any

from rulekit.load import load_game

_BLOCK = "    for _ in P_once:"


def _play(game: Any, seconds: float, games: int) -> int:
    """Seeded random playouts for ``seconds`` of CPU time or ``games`` games; the actions."""
    actions = 0
    start = time.process_time()
    seed = 0
    while (games and seed < games) or (not games and time.process_time() - start < seconds):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        seed += 1
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    return actions


def _blocks(source: list[str]) -> dict[int, str]:
    """The first line (1-based) of each block of a fused decision function -> its action."""
    found = {}
    for index, line in enumerate(source):
        if line == _BLOCK:
            name = "?"
            for later in source[index + 1 :]:
                if later.startswith("def ") or later == _BLOCK:
                    break
                if "add(mk(('" in later:
                    name = later.split("add(mk(('", 1)[1].split("'", 1)[0]
                    break
            found[index + 1] = name
    return found


def sample(game: Any, seconds: float, top: int) -> None:
    main = threading.get_ident()
    lines: collections.Counter[tuple[str, int]] = collections.Counter()
    total = 0
    done = threading.Event()

    def run() -> None:
        nonlocal total
        while not done.is_set():
            time.sleep(0.0007)
            frame: FrameType | None = sys._current_frames().get(main)
            total += 1
            outer = None
            while frame is not None:
                if frame.f_code.co_filename.startswith("<rulekit"):
                    outer = (frame.f_code.co_name, frame.f_lineno or 0)
                frame = frame.f_back
            if outer is not None:
                lines[outer] += 1

    switch = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)
    thread = threading.Thread(target=run)
    thread.start()
    try:
        _play(game, seconds, 0)
    finally:
        done.set()
        thread.join()
        sys.setswitchinterval(switch)
    source = game.program.source.splitlines()
    starts = _blocks(source)
    blocks: collections.Counter[str] = collections.Counter()
    for (name, line), count in lines.items():
        if name.startswith("decide_"):
            heads = [start for start in starts if start <= line]
            blocks[f"{name} {starts[max(heads)] if heads else 'head'}"] += count
    print(f"{total} samples; by line (outermost generated frame):")
    for (name, line), count in lines.most_common(top):
        code = source[line - 1].strip()[:100] if 0 < line <= len(source) else ""
        print(f"{100 * count / total:5.1f}% {name}:{line}  {code}")
    print("by block of a decision function:")
    for block, count in blocks.most_common(top):
        print(f"{100 * count / total:5.1f}% {block}")


def count(game: Any, name: str, games: int) -> None:
    runs: collections.Counter[int] = collections.Counter()
    calls = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            runs[frame.f_lineno] += 1
        return local

    def calls_of(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal calls
        if frame.f_code.co_name == name:
            calls += 1
            return local
        return None

    sys.settrace(calls_of)
    try:
        actions = _play(game, 0.0, games)
    finally:
        sys.settrace(None)
    if not calls:
        print(f"{name} was not called in {actions} actions")
        return
    source = game.program.source.splitlines()
    print(f"{name}: {calls} calls in {actions} actions, {sum(runs.values()) / calls:.1f} lines run per call")
    for line, n in sorted(runs.items()):
        print(f"{n / calls:8.2f} {line}: {source[line - 1][:110]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("ruleset")
    parser.add_argument("players", type=int)
    parser.add_argument("--with", dest="modules", default="")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--sample", action="store_true")
    mode.add_argument("--count", metavar="NAME")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    game = load_game(args.ruleset, args.players, tuple(m for m in args.modules.split(",") if m))
    if args.sample:
        sample(game, args.seconds, args.top)
    else:
        count(game, args.count, args.games)


if __name__ == "__main__":
    main()
