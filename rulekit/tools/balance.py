"""``rulekit balance``: does a house rule change how the game plays?  Paired, sequential.

Both sides, the base configuration (A) and the base with the variant (B), play the same
seeds with the same bots (common random numbers): game *i* of A and game *i* of B differ
only by the rule change, so every figure is compared *per seed* (a paired difference),
which removes most of the noise of the deal and of the bots' own randomness.

Figures, per side: win rate per seat (95% Wilson interval), scores, the winning margin
(first minus second score), game length, how often each action and trigger fired per
game.  Differences, B - A: the mean of the per-seed differences with its 95% interval
(normal approximation), and a verdict:

* ``*`` the 95% interval excludes 0 (significant on its own);
* ``**`` still significant after the Holm-Bonferroni correction over every difference in
  the report (so a report with many rows does not "find" chance differences).

Sequential test (early stopping).  The games are played in batches; after each batch
(each *look*), the primary question, "does the variant change any seat's win rate?", is
tested on the per-seat paired win-share differences with the Bonferroni-corrected
critical value ``z* = Φ⁻¹(1 - alpha / (2 · K · S))`` for K planned looks and S seats,
which keeps the chance of a false alarm over all looks and seats below alpha (a conservative
version of a Pocock design).  The run stops early when

* some seat's difference is beyond ``z*`` (the variant changes the balance), or
* every seat's ``z*``-interval lies inside ±``margin`` (no change bigger than the margin:
  the answer is clear the other way);

else it plays all the games.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import NormalDist
from typing import Any

from attrs import define, field

from rulekit.engine.game import Game
from rulekit.errors import Diagnostic, UsageError
from rulekit.load import load_program
from rulekit.tools.bots import describe_bots, make_bots
from rulekit.tools.options import add_bot_option, add_rules_options, module_names
from rulekit.tools.progress import Progress
from rulekit.tools.runner import GameRecord, GameTask, ResultsDB, play_all
from rulekit.tools.simulate import Config, add_run_options, check_run_options, finite_json, wilson_interval

_NORMAL = NormalDist()
Z95 = 1.96


# ---------------------------------------------------------------- statistics


@define
class Paired:
    """The mean of per-seed differences B - A with its 95% interval and p-value."""

    name: str
    mean_a: float
    mean_b: float
    diff: float
    low: float
    high: float
    p: float
    n: int
    holm: bool = False

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "a": self.mean_a,
            "b": self.mean_b,
            "difference": self.diff,
            "difference_95": [self.low, self.high],
            "p": self.p,
            "n": self.n,
            "significant": self.significant,
            "significant_holm": self.holm,
        }


def paired(name: str, a: Sequence[float], b: Sequence[float], z: float = Z95) -> Paired:
    """The paired difference of two equally long series (the same seeds on both sides).

    ``d_i = b_i - a_i``; mean ± z·sd/√n, two-sided p-value from the normal distribution.
    With no spread (all differences equal) the interval is the point and p is 1 when
    the difference is 0, else 0.
    """
    n = len(a)
    if n != len(b) or n == 0:
        raise ValueError("paired series must be equally long and not empty")
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    mean = math.fsum(diffs) / n
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    se = sd / math.sqrt(n)
    if se == 0:
        p = 1.0 if mean == 0 else 0.0
        low = high = mean
    else:
        p = 2 * (1 - _NORMAL.cdf(abs(mean) / se))
        low, high = mean - z * se, mean + z * se
    return Paired(name, math.fsum(a) / n, math.fsum(b) / n, mean, low, high, p, n)


def holm(tests: Sequence[Paired], alpha: float = 0.05) -> None:
    """Mark the tests that stay significant under the Holm-Bonferroni correction."""
    order = sorted(range(len(tests)), key=lambda i: tests[i].p)
    m = len(tests)
    for rank, index in enumerate(order):
        if tests[index].p > alpha / (m - rank):
            break
        tests[index].holm = True


def win_shares(record: GameRecord, players: int) -> list[float]:
    """Each seat's share of the win of one game (1/k each for k tied winners; 0 when cut off)."""
    if not record.finished or not record.winners:
        return [0.0] * players
    return [1 / len(record.winners) if s in record.winners else 0.0 for s in range(players)]


def margin(record: GameRecord) -> float:
    """The winning margin: the best score minus the second best (0 for one player)."""
    ordered = sorted(record.scores, reverse=True)
    return float(ordered[0] - ordered[1]) if len(ordered) > 1 else 0.0


# ---------------------------------------------------------------- the comparison


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
        return _NORMAL.inv_cdf(1 - self.alpha / (2 * self.planned_looks * self.players))

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
    progress: Callable[[int, int], None] | None = None,
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
    done = 0

    def step(_: GameRecord) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, 2 * planned)

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


# ---------------------------------------------------------------- the report


def render_markdown(result: Balance, plots: Sequence[str] = ()) -> str:
    """The report as Markdown."""
    n = result.players
    data = result.to_json()
    lines = [
        f"# Balance: {result.b.describe()} against {result.a.describe()}",
        "",
        f"* A: {result.a.describe()} (fingerprint {result.fingerprints[0]})",
        f"* B: {result.b.describe()} (fingerprint {result.fingerprints[1]})",
        f"* {n} players, {describe_bots(result.bots, n)}; the same seeds and bots on both sides "
        f"({result.games} games each, seeds {data['seeds'][0]}-{data['seeds'][1]})"
        if result.games
        else "* no games",
        f"* {result.stopped} (sequential test: {result.planned_looks} planned looks of {result.batch} games, "
        f"critical |z| {result.critical():.2f}, margin {100 * result.margin:.0f} points)",
        "",
        "## Win rate per seat",
        "",
        "95% Wilson intervals; a win shared by k players counts 1/k each.",
        "",
        "| seat | A | B |",
        "|---|---|---|",
    ]
    a, b = data["a"], data["b"]
    for s in range(n):
        lines.append(f"| P{s + 1} | {_rate(a, s)} | {_rate(b, s)} |")
    lines += [
        "",
        "## Scores, margins and length",
        "",
        "| | A mean (min-max) | B mean (min-max) |",
        "|---|---|---|",
    ]
    for s in range(n):
        lines.append(f"| P{s + 1} score | {_spread(a['scores'][s])} | {_spread(b['scores'][s])} |")
    lines.append(f"| winning margin | {_spread(a['margins'])} | {_spread(b['margins'])} |")
    lines.append(f"| game length (actions) | {_spread(a['lengths'])} | {_spread(b['lengths'])} |")
    lines.append(f"| finished / played | {a['finished']} / {a['games']} | {b['finished']} / {b['games']} |")
    differences = result.differences()
    lines += [
        "",
        "## Paired differences (B - A, per seed)",
        "",
        "Mean of the per-seed differences [95% interval]. `*`: the interval excludes 0; "
        "`**`: still significant after the Holm-Bonferroni correction over all rows.",
        "",
        "| | A | B | B - A [95%] | p | |",
        "|---|---|---|---|---|---|",
    ]
    for d in differences:
        mark = "**" if d.holm else "*" if d.significant else ""
        lines.append(
            f"| {d.name} | {d.mean_a:.3f} | {d.mean_b:.3f} | {d.diff:+.3f} [{d.low:+.3f}, {d.high:+.3f}] | "
            f"{_p(d.p)} | {mark} |"
        )
    significant = [d.name for d in differences if d.holm]
    lines += ["", "## Verdict", ""]
    if significant:
        lines.append("Significant after correction: " + ", ".join(significant) + ".")
    else:
        lines.append("No difference is significant after correction.")
    if plots:
        lines += ["", "## Plots", ""] + [f"![{Path(p).stem}]({Path(p).name})" for p in plots]
    return "\n".join(lines) + "\n"


def write_plots(result: Balance, directory: Path) -> list[str]:
    """Win rate per seat, score and length distributions as PNG files (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = result.to_json()
    n = result.players
    written = []

    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.38
    for offset, key, label in ((-width / 2, "a", "A (base)"), (width / 2, "b", "B (variant)")):
        rates = [r or 0.0 for r in data[key]["win_rate"]]
        lows = [rate - iv[0] for rate, iv in zip(rates, data[key]["win_rate_95"], strict=True)]
        highs = [iv[1] - rate for rate, iv in zip(rates, data[key]["win_rate_95"], strict=True)]
        ax.bar([s + offset for s in range(n)], rates, width, yerr=[lows, highs], capsize=3, label=label)
    ax.set_xticks(range(n), [f"P{s + 1}" for s in range(n)])
    ax.set_ylabel("win rate (95% Wilson)")
    ax.legend()
    written.append(_save(fig, directory / "win_rate.png"))

    fig, axes = plt.subplots(1, n, figsize=(3 * n, 3), sharey=True, squeeze=False)
    for s in range(n):
        axis = axes[0][s]
        axis.boxplot([data["a"]["scores"][s], data["b"]["scores"][s]])
        axis.set_xticks([1, 2], ["A", "B"])
        axis.set_title(f"P{s + 1} score")
    written.append(_save(fig, directory / "scores.png"))

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist([data["a"]["lengths"], data["b"]["lengths"]], bins=20, label=["A (base)", "B (variant)"])
    ax.set_xlabel("game length (actions)")
    ax.set_ylabel("games")
    ax.legend()
    written.append(_save(fig, directory / "length.png"))
    plt.close("all")
    return written


def _save(fig: Any, path: Path) -> str:
    fig.tight_layout()
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".png", delete=False) as tmp:
        fig.savefig(tmp, format="png", dpi=90)
    os.replace(tmp.name, path)
    return str(path)


def _write_text(path: Path, text: str) -> None:
    """Write a whole file or nothing (a temporary file renamed into place)."""
    with tempfile.NamedTemporaryFile(
        "w", dir=path.parent, delete=False, encoding="utf-8", suffix=".tmp"
    ) as tmp:
        tmp.write(text)
    os.replace(tmp.name, path)


def _rate(side: dict[str, Any], seat: int) -> str:
    rate = side["win_rate"][seat]
    if rate is None:
        return "n/a"
    low, high = side["win_rate_95"][seat]
    return f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "n/a"
    return f"{math.fsum(values) / len(values):.2f} ({min(values):g}-{max(values):g})"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


# ---------------------------------------------------------------- command line


def add_parser(subparsers: Any) -> None:
    """Add the ``balance`` subcommand."""
    p = subparsers.add_parser(
        "balance",
        help="compare a variant with the base game on the same seeds and bots; a report with plots",
        description=(
            "Play the base configuration (A) and the same with --variant (B) on the same seeds with the\n"
            "same bots, compare them game by game (paired differences), stop early when the answer is\n"
            "clear (sequential test, docs/balance.md), and write a Markdown + JSON report with PNG plots."
        ),
        epilog=(
            "example:\n"
            "  rulekit balance my_game --players 4 --variant my_house_rule.yaml --bots heuristic --games 400"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("ruleset", metavar="RULESET", help="a bundled ruleset's name or a directory")
    p.add_argument("--players", type=int, metavar="N", help="number of players (default: the minimum)")
    p.add_argument("--games", type=int, default=400, metavar="G", help="most games per side (default 400)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first game (default 0)")
    p.add_argument(
        "--batch", type=int, default=50, metavar="B", help="games per side between looks (default 50)"
    )
    p.add_argument("--alpha", type=float, default=0.05, help="false-alarm rate of the tests (default 0.05)")
    p.add_argument(
        "--margin",
        type=float,
        default=0.05,
        help="stop early when no seat's win rate can change by this much (default 0.05)",
    )
    p.add_argument(
        "--no-early-stop", action="store_true", help="play all --games even when the answer is clear"
    )
    p.add_argument(
        "--max-actions", type=int, default=10_000, metavar="M", help="cut a game off after M actions"
    )
    p.add_argument(
        "--out", metavar="DIR", default="balance-report", help="report directory (default balance-report)"
    )
    p.add_argument("--json", action="store_true", help="print the JSON report instead of the Markdown")
    add_rules_options(p)
    add_bot_option(p)
    add_run_options(p)


def run(args: argparse.Namespace) -> int:
    """Run ``rulekit balance``; 0 once the report is written (whatever it says)."""
    if not args.variants:
        raise UsageError(Diagnostic("balance needs --variant V (the change to measure)"))
    if args.games < 2 or args.batch < 2:
        raise UsageError(Diagnostic("--games and --batch must be at least 2"))
    if not 0 < args.alpha < 1 or not 0 < args.margin < 1:
        raise UsageError(Diagnostic("--alpha and --margin must be between 0 and 1"))
    if args.max_actions < 1:
        raise UsageError(Diagnostic("--max-actions must be at least 1"))
    check_run_options(args)
    modules = module_names(args.modules)
    configs = (Config(args.ruleset, modules, []), Config(args.ruleset, modules, list(args.variants)))
    loaded = []
    for config in configs:
        program = load_program(config.ruleset, config.modules, config.variants, players=args.players)
        loaded.append(Game(program, args.players if args.players is not None else program.rules.min_players))
    games = (loaded[0], loaded[1])
    if games[0].num_players != games[1].num_players:
        raise UsageError(Diagnostic("the variant changes the minimum player count", hint="give --players N"))
    for game in games:
        make_bots(game, args.bot, args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    db = ResultsDB(args.db) if args.db else None
    progress = Progress("A+B: ")
    try:
        result = run_balance(
            games,
            configs,
            args.games,
            seed=args.seed,
            bots=args.bot,
            max_actions=args.max_actions,
            batch=args.batch,
            alpha=args.alpha,
            margin=args.margin,
            early_stop=not args.no_early_stop,
            workers=args.workers,
            executor=args.executor,
            address=args.address,
            db=db,
            resume=args.resume,
            progress=progress,
        )
    finally:
        progress.close()
        if db is not None:
            db.close()
    plots: list[str] = []
    try:
        plots = write_plots(result, out)
    except ImportError:
        print("balance: no plots (pip install 'rulekit[plots]' for matplotlib)", file=sys.stderr)
    markdown = render_markdown(result, plots)
    data = result.to_json()
    _write_text(out / "report.md", markdown)
    _write_text(out / "report.json", json.dumps(data, indent=2) + "\n")
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(markdown, end="")
        print(f"report written to {out}/report.md, report.json" + (" and plots" if plots else ""))
    return 0


__all__ = ["Balance", "Paired", "add_parser", "holm", "paired", "render_markdown", "run", "run_balance"]
