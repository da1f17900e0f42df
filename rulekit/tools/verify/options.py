"""What to verify and how hard (the command line's options), and what the exploration did."""

from __future__ import annotations

import time
from pathlib import Path

from attrs import define, field

DEFAULT_EXAMPLES = 200
DEFAULT_MAX_ACTIONS = 1000
DEFAULT_SHRINK_SECONDS = 60.0
MAX_SEED = 1_000_000
#: Independent explorers the games are dealt to (lanes.py): the result does not depend on --workers.
DEFAULT_LANES = 4
#: The costlier engine properties are checked every this many actions (and at each game's end).
HEAVY_EVERY = 8
#: Shrinking's budget: the rules' steps (the step budget's charges) counted as one second of
#: --shrink-seconds (the largest shipped ruleset's replays charged 365,000-605,000 a CPU
#: second at a load of 12, where a step costs more CPU than on an idle machine).
STEPS_PER_SECOND = 1_000_000
#: Shrinking also stops after this many times --shrink-seconds of CPU time.
CPU_CAP = 4.0
#: Counterexamples up to this long are also shortened by dropping two separate actions.
MAX_PAIR_SEARCH = 30


@define
class VerifyOptions:
    """What to verify and how hard (the command line's arguments)."""

    ruleset: str
    modules: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    examples: int = DEFAULT_EXAMPLES
    max_actions: int = DEFAULT_MAX_ACTIONS
    seed: int = 0
    players: int | None = None
    #: Collect rule coverage (it also guides the exploration) and report it.
    coverage: bool = True
    #: Every game follows the ruleset's bots.weights (else half of them do).
    weighted: bool = False
    out: Path | None = Path("verify-out")
    shrink: bool = True
    #: The work shrinking may do (seconds of STEPS_PER_SECOND rule steps); the best so far is kept on disk.
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS
    progress: bool = False
    #: A game still running after max_actions is a violation ("every game ends").
    must_end: bool = True
    #: Processes exploring games side by side (the result does not depend on it).
    workers: int = 1
    #: Independent explorers the games are dealt to (lanes.py): game n is lane n mod lanes's.
    lanes: int = DEFAULT_LANES
    #: Bot specifications (tools/bots.py) that play a share of the games as explorers.
    bots: tuple[str, ...] = ()
    #: Where the lanes run: "local" (``workers`` processes) or "ray" (a task per lane).
    executor: str = "local"
    #: With ``executor="ray"``: the cluster to join (None: a local Ray on 127.0.0.1).
    address: str | None = None


@define
class Stats:
    """What the exploration did."""

    games: int = 0
    actions: int = 0
    invariant_checks: int = 0
    property_checks: int = 0
    started: float = field(factory=time.perf_counter)
    seconds: float = 0.0
    found_after_games: int | None = None
    found_after_seconds: float = 0.0
    shrink_seconds: float = 0.0
    #: Actions of the longest game that ended (a game running much longer than the others
    #: shows a phase or round that does not end, even below ``max_actions``).
    longest: int = 0
    #: Other checks' counts by name (``engine:scenarios-generalised``: states tried, ...).
    counts: dict[str, int] = field(factory=dict)

    def per_minute(self, count: int) -> float:
        return count * 60.0 / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        text = (
            f"{self.games} games, {self.actions} actions, {self.invariant_checks} invariant checks, "
            f"{self.property_checks} engine-property checks in {self.seconds:.1f}s "
            f"({self.per_minute(self.games):,.0f} games/min, "
            f"{self.per_minute(self.actions):,.0f} actions/min)"
        )
        if self.longest:
            text += f"; the longest game that ended took {self.longest} actions"
        if self.found_after_games is not None:
            text += (
                f"; the first violation came in game {self.found_after_games} after "
                f"{self.found_after_seconds:.1f}s"
            )
        return text
