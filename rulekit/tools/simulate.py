"""``rulekit simulate``: many seeded bot games, and what they say about the balance between seats.

Plays ``--games`` games (game *i* with seed ``--seed`` + *i*, bots from :func:`make_bots`,
so game *i* is ``rulekit play --seed S+i``) and reports, per seat, the win rate with a
95% Wilson interval and the mean score with a 95% interval, and for all games how many
finished, their length, the mean winning score, how often first place was shared, the
speed, and a balance figure.  ``--against`` plays the same seeds with another
configuration and prints both side by side with the differences.

    rulekit simulate tic_tac_toe --games 500 --against --variant misere
    rulekit simulate my_game --players 4 --games 100 --against --variant house_rule.yaml

Everything but the timing is a function of the arguments: the same command prints the
same report.  ``--json`` prints the same figures for tools.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, field

from rulekit.engine.game import Game
from rulekit.errors import Diagnostic, UsageError
from rulekit.load import load_program
from rulekit.tools.bots import describe_bots, make_bots
from rulekit.tools.options import add_bot_option, add_rules_options, module_names
from rulekit.tools.progress import Progress
from rulekit.tools.runner import EXECUTORS, GameRecord, GameTask, ResultsDB, default_workers, play_all

#: The normal quantile for a two-sided 95% interval, as the report states it (1.96).
Z95 = 1.96

# ---------------------------------------------------------------- statistics


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion: ``successes`` out of ``trials``.

    With ``p = successes / trials`` and ``n = trials``::

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z · sqrt(p(1 - p)/n + z²/4n²) / (1 + z²/n)

    Unlike the normal approximation p ± z·sqrt(p(1 - p)/n) it stays inside [0, 1] and does
    not collapse to a point at 0 or n successes, so it behaves with few games and with
    lopsided rates.  ``successes`` may be fractional (a shared win counts 1/k); ``z`` = 1.96
    gives a 95% interval.  With no trials nothing is known: (0, 1).

    >>> [round(x, 4) for x in wilson_interval(81, 263)]
    [0.2553, 0.3662]
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    n = trials
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """The mean of ``values`` and its interval by the normal approximation: (mean, low, high).

    ``low, high = mean ∓ z · sd / √n`` with the sample standard deviation (n - 1 in the
    denominator); ``z`` = 1.96 gives a 95% interval.  The approximation is fair for a few
    dozen values or more.  One value says nothing about the spread: its interval is
    (-inf, inf).

    Raises:
        ValueError: ``values`` is empty.
    """
    n = len(values)
    if n == 0:
        raise ValueError("the mean of no values")
    mean = math.fsum(values) / n
    if n == 1:
        return mean, -math.inf, math.inf
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance) / math.sqrt(n)
    return mean, mean - half, mean + half


def intervals_overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two closed intervals (low, high) share a point.

    Two 95% intervals that do not overlap mean a significant difference; the converse does
    not hold (overlapping intervals can still hide a real difference), so this is a
    conservative test.
    """
    return a[0] <= b[1] and b[0] <= a[1]


# ---------------------------------------------------------------- simulating


@define
class Config:
    """One configuration to simulate: a ruleset with modules and variants."""

    ruleset: str
    modules: list[str] = field(factory=list)
    variants: list[str] = field(factory=list)

    def describe(self) -> str:
        text = self.ruleset
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
    records: list[GameRecord] = field(factory=list)

    @property
    def games(self) -> int:
        return self.finished + self.cut_off

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

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
            "mean_winning_score": _mean(self.winning_scores),
            "shared_first": self.shared_first,
            "shared_first_share": self.shared_first / self.finished if self.finished else None,
            "balance": None if balance is None else balance[0],
            "largest_gap": None if balance is None else 1.0 - balance[0],
            "largest_gap_seats": None if balance is None else [f"P{balance[1] + 1}", f"P{balance[2] + 1}"],
            "timing": {"seconds": self.seconds, "games_per_second": self.games_per_second},
        }


def simulate(
    game: Game,
    config: Config,
    games: int,
    seed: int = 0,
    bot: str = "random",
    max_actions: int = 10_000,
    progress: Callable[[int, int], None] | None = None,
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
    wins, scores and lengths.  ``progress(done, games)`` is called after each game.  The
    games run as :func:`rulekit.tools.runner.play_all` says (``workers`` processes, or
    Ray; stored in ``db``, resumed with ``resume``); the figures do not depend on how.
    """
    n = game.num_players
    seeds = range(seed, seed + games)
    tasks = [
        GameTask(config.ruleset, tuple(config.modules), tuple(config.variants), n, s, bot, max_actions)
        for s in seeds
    ]
    done = 0

    def step(_: GameRecord) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, games)

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
    result = summarize(config, game.program.fingerprint, n, seeds, bot, max_actions, records)
    result.seconds = time.perf_counter() - start
    return result


def summarize(
    config: Config,
    fingerprint: str,
    players: int,
    seeds: range,
    bot: str,
    max_actions: int,
    records: Sequence[GameRecord],
) -> Simulation:
    """The figures of a configuration's games (records in seed order)."""
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
        for seat in winners:
            result.wins[seat] += 1 / len(winners)
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


# ---------------------------------------------------------------- rendering


SHARED_NOTE = "a win shared by k players tied for first counts 1/k for each"
SIGNIFICANT_NOTE = (
    "* the two 95% intervals do not overlap: a significant difference. A conservative test:\n"
    "  overlapping intervals can still hide a real difference, so no * does not mean no difference"
)


def render(sims: Sequence[Simulation]) -> str:
    """The report as text: one column per configuration, and B - A when there are two."""
    first = sims[0]
    labels = ["A", "B"][: len(sims)] if len(sims) > 1 else [""]
    seeds = first.seeds
    played = (
        f"1 game per configuration (seed {seeds.start})"
        if len(seeds) == 1
        else f"{len(seeds)} games per configuration (seeds {seeds.start}-{seeds.stop - 1})"
    )
    bots = describe_bots(first.bot, first.players)
    lines = [
        f"{first.config.ruleset}: {first.players} players, {played}, {bots}, "
        f"at most {first.max_actions} actions a game",
    ]
    if len(sims) > 1:
        for label, sim in zip(labels, sims, strict=True):
            lines.append(f"  {label}: {sim.config.describe()}  (fingerprint {sim.fingerprint})")
    else:
        lines.append(f"  {first.config.describe()}  (fingerprint {first.fingerprint})")
    diffs = differences(sims[0], sims[1]) if len(sims) == 2 else None
    seats = [sim.seat_results() for sim in sims]
    head = [[""] + labels + (["B - A"] if diffs is not None else [])] if len(sims) > 1 else []

    def seat_rows(cell: Callable[[Any], str], difference: Callable[[Any], str]) -> list[list[str]]:
        rows = list(head)
        for seat in range(first.players):
            row = [f"P{seat + 1}"] + [cell(results[seat]) for results in seats]
            if diffs is not None:
                row.append(difference(diffs[seat]))
            rows.append(row)
        return rows

    lines += ["", f"win rate, % of finished games [95% Wilson interval]; {SHARED_NOTE}"]
    lines += _table(
        seat_rows(
            _rate_cell,
            lambda d: _signed(d.win_rate, 100, 1, " pts") + (" *" if d.win_rate_significant else ""),
        )
    )
    rows = seat_rows(
        _score_cell, lambda d: _signed(d.mean_score, 1, 2, "") + (" *" if d.mean_score_significant else "")
    )
    lines += ["", "mean score of finished games [95% interval: mean ± 1.96·sd/√n]"]
    lines += _table(rows)

    rows = [["", *labels]] if len(sims) > 1 else []
    rows.append(["games finished / cut off"] + [f"{s.finished} / {s.cut_off}" for s in sims])
    rows.append(["length in actions: mean (min-max)"] + [_length_cell(s.lengths) for s in sims])
    rows.append(["mean winning score"] + [_fixed(_mean(s.winning_scores), 2) for s in sims])
    rows.append(["tie for first (a draw counts)"] + [_share_cell(s.shared_first, s.finished) for s in sims])
    rows.append(["balance (1 - largest win-rate gap)"] + [_balance_cell(s) for s in sims])
    lines.append("")
    lines += _table(rows)
    if diffs is not None:
        lines += ["", SIGNIFICANT_NOTE]
    lines += ["", _timing(sims, labels)]
    return "\n".join(lines)


def to_json(sims: Sequence[Simulation]) -> dict[str, Any]:
    """The report as JSON-compatible data (non-finite numbers become null)."""
    first = sims[0]
    data: dict[str, Any] = {
        "players": first.players,
        "games": len(first.seeds),
        "seeds": [first.seeds.start, first.seeds.stop - 1],
        "bot": first.bot,
        "max_actions": first.max_actions,
        "shared_wins": SHARED_NOTE,
        "configurations": [sim.to_json() for sim in sims],
    }
    if len(sims) == 2:
        data["differences"] = [d.to_json() for d in differences(sims[0], sims[1])]
        data["significance"] = "the two 95% intervals do not overlap (a conservative test)"
    return finite_json(data)


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite float (an undefined statistic) as None, for JSON output."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value


def _pair(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else [interval[0], interval[1]]


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _summary(values: Sequence[int]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "min": None, "max": None}
    return {"mean": _mean(values), "min": min(values), "max": max(values)}


def _fixed(value: float | None, digits: int) -> str:
    if value is None:
        return "n/a"
    if not math.isfinite(value):
        return "-inf" if value < 0 else "inf"
    text = f"{value:.{digits}f}"
    return "0." + "0" * digits if text.strip("-0.") == "" else text  # no "-0.00"


def _signed(value: float | None, scale: float, digits: int, unit: str) -> str:
    if value is None:
        return "n/a"
    text = _fixed(value * scale, digits)
    return (text if text.startswith("-") else "+" + text) + unit


def _rate_cell(r: SeatResult) -> str:
    if r.win_rate is None or r.win_interval is None:
        return "n/a"
    low, high = r.win_interval
    return f"{_fixed(100 * r.win_rate, 1)}% [{_fixed(100 * low, 1)}, {_fixed(100 * high, 1)}]"


def _score_cell(r: SeatResult) -> str:
    if r.mean_score is None or r.score_interval is None:
        return "n/a"
    low, high = r.score_interval
    return f"{_fixed(r.mean_score, 2)} [{_fixed(low, 2)}, {_fixed(high, 2)}]"


def _length_cell(lengths: Sequence[int]) -> str:
    mean = _mean(lengths)
    return "n/a" if mean is None else f"{mean:.1f} ({min(lengths)}-{max(lengths)})"


def _share_cell(count: int, total: int) -> str:
    return "n/a" if total == 0 else f"{_fixed(100 * count / total, 1)}% ({count})"


def _balance_cell(sim: Simulation) -> str:
    balance = sim.balance()
    if balance is None:
        return "n/a"
    value, best, worst = balance
    return f"{value:.3f} (gap {_fixed(100 * (1 - value), 1)} pts: P{best + 1} over P{worst + 1})"


def _timing(sims: Sequence[Simulation], labels: Sequence[str]) -> str:
    parts = []
    for label, sim in zip(labels, sims, strict=True):
        name = f"{label}: " if label else ""
        parts.append(f"{name}{sim.games_per_second:,.1f} games/s ({sim.seconds:.2f}s)")
    return "speed: " + ", ".join(parts)


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


# ---------------------------------------------------------------- command line


def _against_parser() -> argparse.ArgumentParser:
    """Reads what follows ``--against`` (the same approach as ``rulekit diff``)."""
    parser = argparse.ArgumentParser(prog="rulekit simulate ... --against", add_help=False)
    parser.add_argument("ruleset", nargs="?", default=None)
    add_rules_options(parser)
    parser.add_argument("--json", action="store_true")
    return parser


def add_parser(subparsers: Any) -> None:
    """Add the ``simulate`` subcommand."""
    p = subparsers.add_parser(
        "simulate",
        help="play many seeded bot games; win rates per seat, scores, balance",
        description=(
            "Play many seeded games with bots (game i uses seed S+i, as rulekit play --seed S+i does)\n"
            "and report per seat the win rate (95% Wilson interval; a win shared by k players tied\n"
            "for first counts 1/k for each) and the mean score (95% interval), and the games'\n"
            "lengths, ties and balance. With --against, play the same seeds with another\n"
            "configuration and show both, and the differences."
        ),
        epilog=(
            "examples:\n"
            "  rulekit simulate tic_tac_toe --games 500 --against --variant misere\n"
            "  rulekit simulate my_game --players 4 --games 100 --against --variant house_rule.yaml\n"
            "  rulekit simulate my_game --players 3 --with tile_a --against --with tile_a,tile_b\n"
            "\n"
            "everything after --against describes the other configuration: [RULESET] [--with MOD,...] "
            "[--variant FILE]...;\nput the other options before it."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("ruleset", metavar="RULESET", help="a bundled ruleset's name or a directory")
    p.add_argument("--players", type=int, metavar="N", help="number of players (default: the minimum)")
    p.add_argument(
        "--games", type=int, default=200, metavar="G", help="games per configuration (default 200)"
    )
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first game (default 0)")
    add_rules_options(p)
    add_bot_option(p)
    p.add_argument(
        "--max-actions",
        type=int,
        default=10_000,
        metavar="M",
        help="cut a game off after M actions; it counts as unfinished (default 10000)",
    )
    p.add_argument("--json", action="store_true", help="print JSON for tools")
    add_run_options(p)
    p.add_argument(
        "--against",
        nargs=argparse.REMAINDER,
        metavar="[RULESET] [--with M] [--variant V]",
        help="the other configuration (everything after it): its own --with/--variant, "
        "and optionally another ruleset",
    )


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``--workers``, ``--executor``, ``--address``, ``--db`` and ``--resume`` (simulate, balance)."""
    parser.add_argument(
        "--workers",
        type=int,
        default=default_workers(),
        metavar="N",
        help=f"processes to play games in (default: all cores, {default_workers()} here); "
        "the results do not depend on it",
    )
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="local processes (default) or a Ray cluster (pip install 'rulekit[ray]')",
    )
    parser.add_argument(
        "--address",
        metavar="ADDR",
        help="with --executor ray: the cluster to join (ray.init(address=...)); default a local Ray",
    )
    parser.add_argument(
        "--db", metavar="FILE", help="store one row per game in this SQLite file (see docs/bots.md)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --db: play only the games the file does not hold yet (continue a killed run)",
    )


def check_run_options(args: argparse.Namespace) -> None:
    """Raises UsageError for run options that do not go together."""
    if args.workers < 1:
        raise UsageError(Diagnostic("--workers must be at least 1"))
    if args.resume and not args.db:
        raise UsageError(Diagnostic("--resume needs --db FILE (the run to continue)"))
    if args.address and args.executor != "ray":
        raise UsageError(Diagnostic("--address is for --executor ray"))


def configs_from_args(args: argparse.Namespace) -> list[Config]:
    """The configurations named on the command line: one, or two with ``--against``.

    Raises:
        UsageError: a bad count, or the --against part cannot be read.
    """
    if args.games < 1:
        raise UsageError(Diagnostic("--games must be at least 1"))
    if args.max_actions < 1:
        raise UsageError(Diagnostic("--max-actions must be at least 1"))
    check_run_options(args)
    configs = [Config(args.ruleset, module_names(args.modules), list(args.variants or ()))]
    if args.against is None:
        return configs
    try:
        other, unknown = _against_parser().parse_known_args(args.against)
    except SystemExit:
        raise UsageError(Diagnostic("cannot read the arguments after --against")) from None
    if unknown:
        raise UsageError(
            Diagnostic(
                f"unknown arguments after --against: {' '.join(unknown)}",
                hint="after --against only [RULESET] --with and --variant; put the other options before it",
            )
        )
    if other.json:
        args.json = True
    configs.append(Config(other.ruleset or args.ruleset, module_names(other.modules), list(other.variants)))
    return configs


def run(args: argparse.Namespace) -> int:
    """Run ``rulekit simulate``; 0 once the games are played (whatever they show)."""
    configs = configs_from_args(args)
    games = []
    for config in configs:
        program = load_program(config.ruleset, config.modules, config.variants, players=args.players)
        games.append(Game(program, args.players if args.players is not None else program.rules.min_players))
    if len({g.num_players for g in games}) > 1:
        raise UsageError(
            Diagnostic(
                "the two configurations have different minimum player counts",
                hint="give --players N",
            )
        )
    for game in games:
        make_bots(game, args.bot, args.seed)  # a bad --bots is a usage error before any game
    sims = []
    db = ResultsDB(args.db) if args.db else None
    try:
        for index, (config, game) in enumerate(zip(configs, games, strict=True)):
            progress = Progress(f"{'AB'[index]}: " if len(configs) > 1 else "")
            try:
                sims.append(
                    simulate(
                        game,
                        config,
                        args.games,
                        args.seed,
                        args.bot,
                        args.max_actions,
                        progress,
                        workers=args.workers,
                        executor=args.executor,
                        address=args.address,
                        db=db,
                        resume=args.resume,
                    )
                )
            finally:
                progress.close()
    finally:
        if db is not None:
            db.close()
    if args.json:
        print(json.dumps(to_json(sims), indent=2, ensure_ascii=False))
    else:
        print(render(sims))
    return 0


__all__ = [
    "Config",
    "Difference",
    "SeatResult",
    "Simulation",
    "add_parser",
    "differences",
    "intervals_overlap",
    "mean_interval",
    "render",
    "run",
    "simulate",
    "to_json",
    "wilson_interval",
]
