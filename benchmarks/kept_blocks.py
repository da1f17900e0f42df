"""How much listing time keeping each action's listed actions across listings could save:
an upper bound, measured before building it.  Usage (from the repository root):

    python benchmarks/kept_blocks.py el_capitan 4 --with porto,lisboa,islas_canarias
    python benchmarks/kept_blocks.py el_caballero 4

The ruleset is compiled afresh (no program cache) so that the fields each planned
enumerator reads, with the rules functions it calls, are known (``planner.field_reads``:
what the memo of rules functions across listings keys on).  Seeded random games are then
played; at each decision every action's enumerator is also called on its own and timed,
and counted as a *hit* when the fields it reads hold the same values as at its last run
for the same acting player (or for any player, when it does not read ``me``): the listing
it would have taken from the last one.  An enumerator whose reads are not known (it calls a
service that reads the whole state) never hits.  The script prints, per action, its share of
the enumerators' time, its hits and the share of its time they took, and the total: what a
perfect keeper, comparing the fields for free, would save of the listing's time.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import defaultdict
from typing import Any

from rulekit.compiler import build, planner
from rulekit.engine.action import make_action
from rulekit.engine.slots import DECISION

#: Per action name: (the fields its enumerator reads, None if unknown; whether it reads ``me``).
READS: dict[str, tuple[frozenset[Any] | None, bool]] = {}


def _record_reads() -> None:
    """Have the compiler record each planned enumerator's reads in READS as it plans it."""
    original = build._Compiler.enumerator

    def enumerator(self: Any, decl: Any, *args: Any, **kwargs: Any) -> str | None:
        fname = original(self, decl, *args, **kwargs)
        if fname is not None:
            facts = self.enumerators[decl.name][0].facts
            READS[decl.name] = (
                (None, True)
                if facts is None
                else (planner.field_reads(facts, self.fn_reads), planner.reads_me(facts, self.fn_mine))
            )
        return fname

    build._Compiler.enumerator = enumerator  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("ruleset")
    parser.add_argument("players", type=int)
    parser.add_argument("--with", dest="modules", default="")
    parser.add_argument("--games", type=int, default=30)
    args = parser.parse_args()
    os.environ["RULEKIT_NO_CACHE"] = "1"
    _record_reads()
    from rulekit.load import load_game

    game = load_game(args.ruleset, args.players, tuple(m for m in args.modules.split(",") if m))
    R = game.runtime
    actions = game.program.actions
    last: dict[tuple[str, Any], tuple[tuple[Any, ...], tuple[Any, ...]]] = {}
    spent: dict[str, float] = defaultdict(float)
    saved: dict[str, float] = defaultdict(float)
    runs: dict[str, int] = defaultdict(int)
    hits: dict[str, int] = defaultdict(int)
    for seed in range(args.games):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            F = state.fields
            decision = F[DECISION]
            if decision is not None:
                me, names = decision[0], decision[1]
                for name in names:
                    enumerate_ = actions[name].enumerate
                    if enumerate_ is None:
                        continue
                    R.memo, R.persist = {}, None  # nothing kept: the enumerator's own cost
                    start = time.perf_counter()
                    enumerate_(F, R, me, make_action, [])
                    took = time.perf_counter() - start
                    R.memo, R.persist = None, {}
                    spent[name] += took
                    runs[name] += 1
                    reads, mine = READS.get(name, (None, True))
                    if reads is None:
                        continue
                    keys = tuple(k for k in F if k in reads or (type(k) is tuple and (None, k[-1]) in reads))
                    seen = (keys, tuple(F[k] for k in keys))
                    who = (name, me if mine else None)
                    if last.get(who) == seen:
                        saved[name] += took
                        hits[name] += 1
                    last[who] = seen
            state.apply_action(rng.choice(state.legal_actions()))
    total = sum(spent.values())
    for name in sorted(spent, key=lambda n: -spent[n]):
        known = "reads unknown" if READS.get(name, (None, True))[0] is None else ""
        print(
            f"{name:28s} {spent[name] / total:6.1%} of the enumerators' time, "
            f"hits {hits[name]}/{runs[name]}, {saved[name] / spent[name]:6.1%} of its time {known}"
        )
    print(f"at most {sum(saved.values()) / total:.1%} of the enumerators' time kept ({args.games} games)")


if __name__ == "__main__":
    main()
