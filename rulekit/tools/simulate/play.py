"""Play a configuration's seeded bot games and derive its figures: per-seat wins, win
rates and scores with their intervals, lengths, shared firsts, balance; B - A per seat."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, field

from rulekit.engine.game import Game
from rulekit.tools.options import ruleset_label
from rulekit.tools.runner import GameRecord, GameTask, ResultsDB, play_all
from rulekit.tools.simulate.intervals import intervals_overlap, mean_interval, mean_or_none, wilson_interval
from rulekit.tools.simulate.shared import shared_json


@define
class Config:
    """One configuration to simulate: a ruleset with modules and variants."""

    ruleset: str
    modules: list[str] = field(factory=list)
    variants: list[str] = field(factory=list)

    def describe(self) -> str:
        text = ruleset_label(self.ruleset)
        if self.modules:
            text += " with " + ", ".join(self.modules)
        if self.variants:
            text += " + variant " + ", ".join(self.variants)
        return text


@define
class SeatResult:
    """One seat's figures over the finished games (None when no game finished)."""

    seat: int
    wins: float
    win_rate: float | None
    win_interval: tuple[float, float] | None
    mean_score: float | None
    score_interval: tuple[float, float] | None

    @property
    def name(self) -> str:
        return f"P{self.seat + 1}"


@define
class Simulation:
    """The raw outcome of the games played with one configuration, and the figures derived."""

    config: Config
    fingerprint: str
    players: int
    seeds: range
    bot: str
    max_actions: int
    finished: int = 0
    cut_off: int = 0
    wins: list[float] = field(factory=list)
    scores: list[list[int]] = field(factory=list)
    lengths: list[int] = field(factory=list)
    winning_scores: list[int] = field(factory=list)
    shared_first: int = 0
    seconds: float = 0.0
    #: games read back from the results file (--resume), not played in this run
    resumed: int = 0
    records: list[GameRecord] = field(factory=list)
    #: A cooperative game's success threshold (None: not cooperative): then a game is a
    #: success or not, and ``scores[0]`` is the shared score.
    success: int | None = None
    successes: int = 0

    @property
    def cooperative(self) -> bool:
        return self.success is not None

    @property
    def games(self) -> int:
        return self.finished + self.cut_off

    @property
    def games_per_second(self) -> float:
        """The speed of this run: the games it played (not those read back) per second."""
        played = self.games - self.resumed
        return played / self.seconds if self.seconds > 0 else 0.0

    def seat_results(self) -> list[SeatResult]:
        """Per seat: wins (shared wins as 1/k), win rate with its Wilson interval, mean score."""
        results = []
        for seat in range(self.players):
            wins = self.wins[seat]
            if self.finished == 0:
                results.append(SeatResult(seat, wins, None, None, None, None))
                continue
            mean, low, high = mean_interval(self.scores[seat])
            results.append(
                SeatResult(
                    seat,
                    wins,
                    wins / self.finished,
                    wilson_interval(wins, self.finished),
                    mean,
                    (low, high),
                )
            )
        return results

    def balance(self) -> tuple[float, int, int] | None:
        """Ludii's Balance, 1 - the largest gap in win rate between two seats, with the seats
        of the highest and the lowest win rate; None when no game finished."""
        if self.finished == 0:
            return None
        rates = [w / self.finished for w in self.wins]
        best = max(range(self.players), key=lambda s: (rates[s], -s))
        worst = min(range(self.players), key=lambda s: (rates[s], s))
        return 1.0 - (rates[best] - rates[worst]), best, worst

    def to_json(self) -> dict[str, Any]:
        if self.cooperative:
            return shared_json(self)
        balance = self.balance()
        return {
            "ruleset": self.config.ruleset,
            "modules": self.config.modules,
            "variants": self.config.variants,
            "fingerprint": self.fingerprint,
            "games": self.games,
            "finished": self.finished,
            "cut_off": self.cut_off,
            "seats": [
                {
                    "seat": r.name,
                    "wins": r.wins,
                    "win_rate": r.win_rate,
                    "win_rate_95": _pair(r.win_interval),
                    "mean_score": r.mean_score,
                    "mean_score_95": _pair(r.score_interval),
                }
                for r in self.seat_results()
            ],
            "length": _summary(self.lengths),
            "mean_winning_score": mean_or_none(self.winning_scores),
            "shared_first": self.shared_first,
            "shared_first_share": self.shared_first / self.finished if self.finished else None,
            "balance": None if balance is None else balance[0],
            "largest_gap": None if balance is None else 1.0 - balance[0],
            "largest_gap_seats": None if balance is None else [f"P{balance[1] + 1}", f"P{balance[2] + 1}"],
            "timing": {
                "seconds": self.seconds,
                "games_per_second": self.games_per_second,
                "resumed": self.resumed,
            },
        }


def simulate(
    game: Game,
    config: Config,
    games: int,
    seed: int = 0,
    bot: str = "random",
    max_actions: int = 10_000,
    progress: Callable[[int, int, int], None] | None = None,
    *,
    workers: int = 1,
    executor: str = "local",
    address: str | None = None,
    db: ResultsDB | None = None,
    resume: bool = False,
) -> Simulation:
    """Play ``games`` games, game *i* with seed ``seed + i`` and :func:`make_bots` bots
    (``bot`` is a ``--bots`` value).

    A game that has not ended after ``max_actions`` actions is cut off and left out of the
    wins, scores and lengths.  ``progress(done, games, resumed)`` is called after each game
    (``resumed``: how many of those were read back from ``db``, not played).  The
    games run as :func:`rulekit.tools.runner.play_all` says (``workers`` processes, or
    Ray; stored in ``db``, resumed with ``resume``); the figures do not depend on how.
    """
    n = game.num_players
    seeds = range(seed, seed + games)
    tasks = [
        GameTask(config.ruleset, tuple(config.modules), tuple(config.variants), n, s, bot, max_actions)
        for s in seeds
    ]
    done = resumed = 0

    def step(_: GameRecord, stored: bool) -> None:
        nonlocal done, resumed
        done += 1
        resumed += stored
        if progress is not None:
            progress(done, games, resumed)

    start = time.perf_counter()
    records = play_all(
        tasks,
        game.program.fingerprint,
        workers=workers,
        executor=executor,
        address=address,
        db=db,
        resume=resume,
        progress=step,
    )
    scoring = game.program.rules.scoring
    success = (scoring.success or 1) if scoring.outcome == "cooperative" else None
    result = summarize(config, game.program.fingerprint, n, seeds, bot, max_actions, records, success)
    result.seconds = time.perf_counter() - start
    result.resumed = resumed
    return result


def summarize(
    config: Config,
    fingerprint: str,
    players: int,
    seeds: range,
    bot: str,
    max_actions: int,
    records: Sequence[GameRecord],
    success: int | None = None,
) -> Simulation:
    """The figures of a configuration's games (records in seed order); ``success``: the
    success threshold of a cooperative game (whose winners are every seat or none)."""
    result = Simulation(
        config,
        fingerprint,
        players,
        seeds,
        bot,
        max_actions,
        wins=[0.0] * players,
        scores=[[] for _ in range(players)],
        records=list(records),
        success=success,
    )
    for record in records:
        if not record.finished:
            result.cut_off += 1
            continue
        result.finished += 1
        result.lengths.append(record.length)
        winners = record.winners
        for seat in range(players):
            result.scores[seat].append(record.scores[seat])
        if success is not None:
            result.successes += bool(winners)
            continue
        for seat in winners:
            result.wins[seat] += 1 / len(winners)
        if winners:
            result.winning_scores.append(record.scores[winners[0]])
        if len(winners) > 1:
            result.shared_first += 1
    return result


@define
class Difference:
    """B - A for one seat, and whether the two 95% intervals are apart (a conservative test)."""

    seat: int
    win_rate: float | None
    win_rate_significant: bool
    mean_score: float | None
    mean_score_significant: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": f"P{self.seat + 1}",
            "win_rate": self.win_rate,
            "win_rate_significant": self.win_rate_significant,
            "mean_score": self.mean_score,
            "mean_score_significant": self.mean_score_significant,
        }


def differences(a: Simulation, b: Simulation) -> list[Difference]:
    """Per seat, B's win rate and mean score minus A's, flagged significant when the two 95%
    intervals do not overlap."""
    result = []
    for x, y in zip(a.seat_results(), b.seat_results(), strict=True):
        rate = sig_rate = None
        if x.win_rate is not None and y.win_rate is not None:
            rate = y.win_rate - x.win_rate
        if x.win_interval is not None and y.win_interval is not None:
            sig_rate = not intervals_overlap(x.win_interval, y.win_interval)
        score = sig_score = None
        if x.mean_score is not None and y.mean_score is not None:
            score = y.mean_score - x.mean_score
        if x.score_interval is not None and y.score_interval is not None:
            sig_score = not intervals_overlap(x.score_interval, y.score_interval)
        result.append(Difference(x.seat, rate, bool(sig_rate), score, bool(sig_score)))
    return result


def _pair(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else [interval[0], interval[1]]


def _summary(values: Sequence[int]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "min": None, "max": None}
    return {"mean": mean_or_none(values), "min": min(values), "max": max(values)}
