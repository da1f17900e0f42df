"""Playthrough goldens: a seeded random game of each shipped ruleset, written out as text.

As OpenSpiel keeps its playthroughs, each file records the game's setup, the players' views at
the start (P1's in full, the others' where they differ), every action with the player who took
it and how many actions were legal, and at the end the scores, the returns and the views again.
A change in behaviour shows up as a diff of ``tests/golden/playthroughs/*.txt``; when the change
is intended, regenerate them::

    python -m tests.golden.playthrough --update      # or: pytest tests/golden --update-goldens

and review the diff like code.  ``python -m tests.golden.playthrough`` compares and prints the
start of each difference.  The setups come from ``tests/rulesets.py``: each ruleset's base game
and the game with all its modules, at its fewest and most players.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Sequence
from typing import Any

from rulekit.load import load_game
from rulekit.tools.bots import make_bots
from tests.rulesets import ROOT, Setup, setups, shipped_rulesets

DIRECTORY = ROOT / "tests" / "golden" / "playthroughs"
SEED = 0
#: A longer game is cut here (the file says so); the shipped games end well before.
MAX_ACTIONS = 600
#: Engine bookkeeping whose encoding is not behaviour (the flow machine's program counters).
_INTERNAL = frozenset({"_.flow"})
REGENERATE = "python -m tests.golden.playthrough --update"


def all_setups() -> list[Setup]:
    """Every setup that has a playthrough file."""
    return [setup for ruleset in shipped_rulesets() for setup in setups(ruleset)]


def path_for(setup: Setup) -> Any:
    return DIRECTORY / f"{setup.name}.txt"


def _views(state: Any, players: int) -> list[str]:
    """P1's view in full, then what each other player sees differently (their hidden information)."""
    views = [
        {
            k: json.dumps(v, sort_keys=True, ensure_ascii=False)
            for k, v in state.view(p).items()
            if k not in _INTERNAL
        }
        for p in range(players)
    ]
    lines = ["view P1:", *(f"  {key}: {value}" for key, value in views[0].items())]
    for player in range(1, players):
        differs = [f"  {key}: {value}" for key, value in views[player].items() if views[0].get(key) != value]
        differs += [f"  {key}: (not shown)" for key in views[0] if key not in views[player]]
        lines.append(f"view P{player + 1}: as P1's" + (", except:" if differs else ""))
        lines += differs
    return lines


def playthrough(setup: Setup, seed: int = SEED) -> str:
    """The text of one seeded random game of ``setup``."""
    game = load_game(str(setup.ruleset), setup.players, setup.modules)
    bots = make_bots(game, "random", seed)
    state = game.new_initial_state(seed)
    lines = [
        f"# Playthrough of a seeded random game. Regenerate: {REGENERATE}",
        f"ruleset: {setup.ruleset.name}",
        f"modules: {', '.join(setup.modules) or '(none)'}",
        f"players: {setup.players}",
        f"seed: {seed} (the game's and the random bots')",
        "",
        "== start",
        *_views(state, setup.players),
        "",
        "== actions",
    ]
    taken = 0
    while not state.is_terminal() and taken < MAX_ACTIONS:
        player = state.current_player()
        legal = len(state.legal_actions())
        action = bots[player].choose(state)
        text = game.action_to_string(action)
        state.apply_action(action)
        taken += 1
        lines.append(f"{taken:4}. P{player + 1} ({legal} legal): {text}")
    ended = "the game ended" if state.is_terminal() else f"truncated after {MAX_ACTIONS} actions"
    lines += [
        "",
        f"== end: {ended}",
        f"scores: {state.scores()}",
        f"returns: {state.returns()}",
        f"winners: {[f'P{p + 1}' for p in state.winners()] if state.is_terminal() else '-'}",
        *_views(state, setup.players),
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden.playthrough", description=__doc__)
    parser.add_argument("--update", action="store_true", help="rewrite the golden files")
    args = parser.parse_args(argv)
    DIRECTORY.mkdir(exist_ok=True)
    changed = 0
    for setup in all_setups():
        path = path_for(setup)
        actual = playthrough(setup)
        expected = path.read_text(encoding="utf-8") if path.exists() else ""
        if actual == expected:
            continue
        changed += 1
        if args.update:
            path.write_text(actual, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
        else:
            diff = difflib.unified_diff(
                expected.splitlines(),
                actual.splitlines(),
                str(path.relative_to(ROOT)),
                "now",
                lineterm="",
                n=1,
            )
            print("\n".join(list(diff)[:30]))
    known = {path_for(setup) for setup in all_setups()}
    for stale in sorted(set(DIRECTORY.glob("*.txt")) - known):
        changed += 1
        if args.update:
            stale.unlink()
            print(f"removed {stale.relative_to(ROOT)} (no such setup any more)")
        else:
            print(f"{stale.relative_to(ROOT)}: no such setup any more")
    if not args.update and changed:
        print(f"{changed} playthrough(s) differ; if intended: {REGENERATE}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
