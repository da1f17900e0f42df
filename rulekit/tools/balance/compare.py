"""Play both sides of a balance comparison on the same seeds in batches, with the sequential test."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from attrs import define, field

from rulekit.engine.game import Game
from rulekit.tools.balance.changes import VariantChanges, Watched
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
    #: What the variant changes and the rules to watch (None: not computed, nothing watched).
    changes: VariantChanges | None = None
    #: Games in which the variant must have made a difference (and each directly changed rule
    #: fired) before the report gives a verdict or the sequential test may stop.
    min_reached: int = 10
    #: The bots' strength (:mod:`rulekit.tools.balance.strength`), filled after the run.
    strength: list[dict[str, Any]] = field(factory=list)
    #: Settings that may reach the change when the run did not (Markdown lines).
    advice: list[str] = field(factory=list)
    #: A cooperative game (``scoring.outcome``): the question is the success rate and the
    #: shared score, not a seat's win rate.
    cooperative: bool = False

    @property
    def games(self) -> int:
        return len(self.games_a)

    @property
    def planned_looks(self) -> int:
        return max(1, math.ceil(self.planned / self.batch))

    def critical(self) -> float:
        """The sequential test's critical z (Bonferroni over planned looks and seats, or over
        the looks alone for a cooperative game's one success rate)."""
        tests = 1 if self.cooperative else self.players
        return NORMAL.inv_cdf(1 - self.alpha / (2 * self.planned_looks * tests))

    def seat_wins(self) -> list[Paired]:
        """The sequential test's primary differences: each seat's win share, or a cooperative
        game's success (1 for a game whose shared score reached the threshold)."""
        if self.cooperative:
            return [
                paired("success", [_success(r) for r in self.games_a], [_success(r) for r in self.games_b])
            ]
        n = self.players
        shares_a = [win_shares(r, n) for r in self.games_a]
        shares_b = [win_shares(r, n) for r in self.games_b]
        return [
            paired(f"P{s + 1} win share", [x[s] for x in shares_a], [y[s] for y in shares_b])
            for s in range(n)
        ]

    def differing(self) -> int:
        """How many seeds' games differ between A and B in anything the report measures
        (finished, scores, winners, length, firing counts): where they do not, the variant
        made no difference to that game."""
        return sum(_figures(a) != _figures(b) for a, b in zip(self.games_a, self.games_b, strict=True))

    def watched(self) -> list[Watched]:
        return [] if self.changes is None else self.changes.watched

    def fired(self, key: str) -> dict[str, Any]:
        """How often a rule fired: per side, in how many games and how often in all."""
        a = [r.fired.get(key, 0) for r in self.games_a]
        b = [r.fired.get(key, 0) for r in self.games_b]
        return {
            "rule": key,
            "games_a": sum(1 for x in a if x),
            "games_b": sum(1 for x in b if x),
            "total_a": sum(a),
            "total_b": sum(b),
            "games_either": sum(1 for x, y in zip(a, b, strict=True) if x or y),
        }

    def unreached(self) -> list[tuple[Watched, int]]:
        """The directly changed rules that fired in fewer than ``min_reached`` games (on
        either side), with that number."""
        result = []
        for watched in self.watched():
            if watched.direct:
                games = self.fired(watched.key)["games_either"]
                if games < self.min_reached:
                    result.append((watched, games))
        return result

    def reached(self) -> bool:
        """Whether the games reached the change often enough to judge it: it made a difference
        in at least ``min_reached`` games and every directly changed rule fired in as many."""
        return self.differing() >= self.min_reached and not self.unreached()

    def look(self) -> bool:
        """Test after a batch; True to stop now (never while the change is not reached)."""
        z = self.critical()
        wins = self.seat_wins()
        reached = self.reached()
        record: dict[str, Any] = {
            "games": self.games,
            "critical_z": z,
            "differing_games": self.differing(),
            "reached": reached,
            "seats": [],
        }
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
        if not reached:  # too few games where the change mattered: neither answer is supported
            return False
        rate = "the success rate" if self.cooperative else "a seat's win rate"
        if changed:
            self.stopped = f"stopped early after {self.games} games: {rate} changed (|z| >= {z:.2f})"
            return True
        if unchanged:
            rate = "the success rate" if self.cooperative else "no seat's win rate"
            verb = "does not change" if self.cooperative else "changes"
            self.stopped = (
                f"stopped early after {self.games} games: {rate} {verb} by "
                f"{100 * self.margin:.0f} points or more"
            )
            return True
        return False

    def differences(self) -> list[Paired]:
        """Every paired difference of the report, Holm-corrected together."""
        n = self.players
        a, b = self.games_a, self.games_b
        tests = self.seat_wins()
        if self.cooperative:
            tests.append(paired("shared score", [r.scores[0] for r in a], [r.scores[0] for r in b]))
        else:
            tests += [
                paired(f"P{s + 1} score", [r.scores[s] for r in a], [r.scores[s] for r in b])
                for s in range(n)
            ]
            tests.append(paired("winning margin", [margin(r) for r in a], [margin(r) for r in b]))
        tests.append(paired("game length", [r.length for r in a], [r.length for r in b]))
        names = sorted({k for r in (*a, *b) for k in r.fired} | {w.key for w in self.watched()})
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
            if self.cooperative:
                successes = sum(_success(r) for r in finished)
                sides.append(
                    {
                        "configuration": config.describe(),
                        "fingerprint": fingerprint,
                        "games": len(games),
                        "finished": len(finished),
                        "success_rate": successes / len(finished) if finished else None,
                        "success_rate_95": list(wilson_interval(successes, len(finished))),
                        "shared_scores": [r.scores[0] for r in finished],
                        "lengths": [r.length for r in finished],
                    }
                )
                continue
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
                "outcome": "cooperative" if self.cooperative else "competitive",
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
                "variant": None if self.changes is None else self.changes.to_json(),
                "reach": {
                    "min_reached": self.min_reached,
                    "differing_games": self.differing(),
                    "reached": self.reached(),
                    "fired": [
                        {**self.fired(w.key), "direct": w.direct, "because": w.because}
                        for w in self.watched()
                    ],
                    "unreached": [w.key for w, _ in self.unreached()],
                },
                "strength": self.strength,
                "advice": self.advice,
                "verdict": self.verdict(),
            }
        )

    def verdict(self) -> dict[str, Any]:
        """The report's conclusion: the Holm-significant rows, or no verdict and why."""
        if self.reached():
            return {
                "given": True,
                "significant": [d.name for d in self.differences() if d.holm],
                "not_reached": [w.label for w, _ in self.unreached()],
            }
        return {
            "given": False,
            "differing_games": self.differing(),
            "not_reached": [w.label for w, _ in self.unreached()],
        }


def _success(record: GameRecord) -> float:
    """1 for a finished cooperative game that was a success (its winners are every seat)."""
    return 1.0 if record.finished and record.winners else 0.0


def _figures(record: GameRecord) -> tuple[Any, ...]:
    return (record.finished, record.scores, record.winners, record.length, record.fired)


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
    changes: VariantChanges | None = None,
    min_reached: int = 10,
) -> Balance:
    """Play both sides batch by batch on the same seeds until the sequential test stops
    (never before the change was reached in ``min_reached`` games, see :meth:`Balance.reached`)."""
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
        changes=changes,
        min_reached=min_reached,
        cooperative=games[0].program.rules.scoring.outcome == "cooperative",
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
                    trace=True,
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
