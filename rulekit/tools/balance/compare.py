"""Play both sides of a balance comparison on the same seeds in batches, with the sequential test."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from attrs import define, field

from rulekit.engine.game import Game
from rulekit.tools.balance.stats import NORMAL, Paired, holm, margin, paired, win_shares
from rulekit.tools.runner import GameRecord, GameTask, ResultsDB, play_all
from rulekit.tools.simulate.intervals import Z95, wilson_interval
from rulekit.tools.simulate.play import Config
from rulekit.tools.simulate.report import finite_json


@define
class Balance:
    """The games of both sides so far (in seed order) and the stopping decision."""

    a: Config
    b: Config
    fingerprints: tuple[str, str]
    players: int
    bots: str
    planned: int
    batch: int
    alpha: float
    margin: float
    games_a: list[GameRecord] = field(factory=list)
    games_b: list[GameRecord] = field(factory=list)
    looks: list[dict[str, Any]] = field(factory=list)
    stopped: str = "all planned games played"

    @property
    def games(self) -> int:
        return len(self.games_a)

    @property
    def planned_looks(self) -> int:
        return max(1, math.ceil(self.planned / self.batch))

    def critical(self) -> float:
        """The sequential test's critical z (Bonferroni over planned looks and seats)."""
        return NORMAL.inv_cdf(1 - self.alpha / (2 * self.planned_looks * self.players))

    def seat_wins(self) -> list[Paired]:
        n = self.players
        shares_a = [win_shares(r, n) for r in self.games_a]
        shares_b = [win_shares(r, n) for r in self.games_b]
        return [
            paired(f"P{s + 1} win share", [x[s] for x in shares_a], [y[s] for y in shares_b])
            for s in range(n)
        ]

    def look(self) -> bool:
        """Test after a batch; True to stop now."""
        z = self.critical()
        wins = self.seat_wins()
        record: dict[str, Any] = {"games": self.games, "critical_z": z, "seats": []}
        changed = unchanged = False
        if self.games > 1:
            widths = []
            for test in wins:
                se = (test.high - test.low) / (2 * Z95)
                zi = abs(test.diff) / se if se > 0 else (math.inf if test.diff else 0.0)
                widths.append((test.diff - z * se, test.diff + z * se))
                record["seats"].append({"seat": test.name, "difference": test.diff, "z": finite_json(zi)})
                changed = changed or zi >= z
            unchanged = all(-self.margin < low and high < self.margin for low, high in widths)
        self.looks.append(record)
        if changed:
            self.stopped = (
                f"stopped early after {self.games} games: a seat's win rate changed (|z| >= {z:.2f})"
            )
            return True
        if unchanged:
            self.stopped = (
                f"stopped early after {self.games} games: no seat's win rate changes by "
                f"{100 * self.margin:.0f} points or more"
            )
            return True
        return False

    def differences(self) -> list[Paired]:
        """Every paired difference of the report, Holm-corrected together."""
        n = self.players
        a, b = self.games_a, self.games_b
        tests = self.seat_wins()
        tests += [
            paired(f"P{s + 1} score", [r.scores[s] for r in a], [r.scores[s] for r in b]) for s in range(n)
        ]
        tests.append(paired("winning margin", [margin(r) for r in a], [margin(r) for r in b]))
        tests.append(paired("game length", [r.length for r in a], [r.length for r in b]))
        names = sorted({k for r in (*a, *b) for k in r.fired})
        tests += [
            paired(f"fired {name}", [r.fired.get(name, 0) for r in a], [r.fired.get(name, 0) for r in b])
            for name in names
        ]
        holm(tests, self.alpha)
        return tests

    def to_json(self) -> dict[str, Any]:
        n = self.players
        sides = []
        for config, fingerprint, games in (
            (self.a, self.fingerprints[0], self.games_a),
            (self.b, self.fingerprints[1], self.games_b),
        ):
            finished = [r for r in games if r.finished]
            wins = [sum(win_shares(r, n)[s] for r in finished) for s in range(n)]
            sides.append(
                {
                    "configuration": config.describe(),
                    "fingerprint": fingerprint,
                    "games": len(games),
                    "finished": len(finished),
                    "win_rate": [w / len(finished) if finished else None for w in wins],
                    "win_rate_95": [list(wilson_interval(w, len(finished))) for w in wins],
                    "scores": [[r.scores[s] for r in finished] for s in range(n)],
                    "lengths": [r.length for r in finished],
                    "margins": [margin(r) for r in finished],
                }
            )
        return finite_json(
            {
                "players": n,
                "bots": self.bots,
                "seeds": [self.games_a[0].seed, self.games_a[-1].seed] if self.games_a else None,
                "games": self.games,
                "planned": self.planned,
                "stopped": self.stopped,
                "sequential": {
                    "alpha": self.alpha,
                    "batch": self.batch,
                    "planned_looks": self.planned_looks,
                    "critical_z": self.critical(),
                    "margin": self.margin,
                    "looks": self.looks,
                },
                "a": sides[0],
                "b": sides[1],
                "differences": [d.to_json() for d in self.differences()],
            }
        )


def run_balance(
    games: tuple[Game, Game],
    configs: tuple[Config, Config],
    planned: int,
    *,
    seed: int = 0,
    bots: str = "random",
    max_actions: int = 10_000,
    batch: int = 50,
    alpha: float = 0.05,
    margin: float = 0.05,
    early_stop: bool = True,
    workers: int = 1,
    executor: str = "local",
    address: str | None = None,
    db: ResultsDB | None = None,
    resume: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
) -> Balance:
    """Play both sides batch by batch on the same seeds until the sequential test stops."""
    players = games[0].num_players
    result = Balance(
        configs[0],
        configs[1],
        (games[0].program.fingerprint, games[1].program.fingerprint),
        players,
        bots,
        planned,
        batch,
        alpha,
        margin,
    )
    done = resumed = 0

    def step(_: GameRecord, stored: bool) -> None:
        nonlocal done, resumed
        done += 1
        resumed += stored
        if progress is not None:
            progress(done, 2 * planned, resumed)

    for start in range(seed, seed + planned, batch):
        seeds = range(start, min(start + batch, seed + planned))
        for config, game, into in zip(configs, games, (result.games_a, result.games_b), strict=True):
            tasks = [
                GameTask(
                    config.ruleset,
                    tuple(config.modules),
                    tuple(config.variants),
                    players,
                    s,
                    bots,
                    max_actions,
                )
                for s in seeds
            ]
            into += play_all(
                tasks,
                game.program.fingerprint,
                workers=workers,
                executor=executor,
                address=address,
                db=db,
                resume=resume,
                progress=step,
            )
        if result.look() and early_stop:
            break
    return result
