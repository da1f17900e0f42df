"""How strong the bots of a balance run are: each bot's win rate against random bots.

A balance report is only as good as its bots: random bots say little about a strategic rule.
For every kind of non-random bot seated in the run, its win rate against random bots is

* taken from the run when random bots hold the other seats: the base side's (A) games, the
  share of the wins that went to that bot's seats; or else
* measured: ``games`` extra games of the base side, the bot in one seat (P1, P2, ... in
  turn), random bots in the others, on the run's first seeds.

Random play wins ``seats / players`` of the games: a bot near that plays no better than chance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.tools.balance.compare import Balance
from rulekit.tools.balance.stats import win_shares
from rulekit.tools.bots import parse_bots, seat_specs
from rulekit.tools.runner import GameRecord, GameTask, ResultsDB, play_all
from rulekit.tools.simulate.intervals import wilson_interval

#: Bots that choose at random (no strength to measure).
RANDOM_KINDS = ("random", "uniform")


def seat_bots(result: Balance) -> list[str]:
    """The bot of each seat, P1 first."""
    return [str(s) for s in seat_specs(parse_bots(result.bots), result.players)]


def all_random(result: Balance) -> bool:
    """Whether every seat is a random bot."""
    return all(s.kind in RANDOM_KINDS for s in seat_specs(parse_bots(result.bots), result.players))


def bot_strength(
    result: Balance,
    *,
    games: int,
    seed: int = 0,
    max_actions: int = 10_000,
    workers: int = 1,
    executor: str = "local",
    address: str | None = None,
    db: ResultsDB | None = None,
    resume: bool = False,
    progress: Callable[[GameRecord, bool], None] | None = None,
) -> list[dict[str, Any]]:
    """Each non-random bot's win rate against random bots (see the module's docstring)."""
    n = result.players
    specs = seat_specs(parse_bots(result.bots), n)
    seats = [str(s) for s in specs]
    randoms = [i for i, s in enumerate(specs) if s.kind in RANDOM_KINDS]
    found = []
    playing = [s for s, spec in zip(seats, specs, strict=True) if spec.kind not in RANDOM_KINDS]
    for bot in dict.fromkeys(playing):
        own = [i for i, s in enumerate(seats) if s == bot]
        entry: dict[str, Any] = {"bot": bot, "seats": [f"P{i + 1}" for i in own], "chance": len(own) / n}
        if result.cooperative:  # every seat shares the result: there is no win against random bots
            entry["how"] = "not measured: in a cooperative game the seats share one result"
            found.append({**entry, "games": 0, "win_rate": None, "win_rate_95": None})
            continue
        if randoms:
            records = result.games_a
            wins = sum(sum(win_shares(r, n)[i] for i in own) for r in records)
            entry["how"] = f"from the run: the base side's {len(records)} games, random bots in " + ", ".join(
                f"P{i + 1}" for i in randoms
            )
        elif games > 0:
            entry["chance"] = 1 / n
            records = _measure(
                result, bot, games, seed, max_actions, workers, executor, address, db, resume, progress
            )
            wins = sum(win_shares(r, n)[(r.seed - seed) % n] for r in records)
            entry["how"] = (
                f"measured: {games} games of the base side, the bot in one seat (P1, P2, ... in turn) "
                f"and random bots in the others, seeds {seed}-{seed + games - 1}"
            )
        else:
            entry["how"] = "not measured (--strength-games 0)"
            found.append({**entry, "games": 0, "win_rate": None, "win_rate_95": None})
            continue
        entry["games"] = len(records)
        entry["win_rate"] = wins / len(records) if records else None
        entry["win_rate_95"] = list(wilson_interval(wins, len(records))) if records else None
        found.append(entry)
    return found


def _measure(
    result: Balance,
    bot: str,
    games: int,
    seed: int,
    max_actions: int,
    workers: int,
    executor: str,
    address: str | None,
    db: ResultsDB | None,
    resume: bool,
    progress: Callable[[GameRecord, bool], None] | None,
) -> list[GameRecord]:
    """``games`` games of side A with ``bot`` in seat ``game % players`` and random bots elsewhere."""
    n = result.players
    config = result.a
    records: list[GameRecord] = []
    for seat in range(n):
        seeds = [s for s in range(seed, seed + games) if (s - seed) % n == seat]
        if not seeds:
            continue
        bots = ",".join(bot if i == seat else "random" for i in range(n))
        tasks = [
            GameTask(config.ruleset, tuple(config.modules), tuple(config.variants), n, s, bots, max_actions)
            for s in seeds
        ]
        records += play_all(
            tasks,
            result.fingerprints[0],
            workers=workers,
            executor=executor,
            address=address,
            db=db,
            resume=resume,
            progress=progress,
        )
    return records
