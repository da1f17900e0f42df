"""``rulekit analyze`` on the command line: play traced games, compute the metrics, write the report."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rulekit.engine.game import Game
from rulekit.errors import Diagnostic, RulekitError, UsageError
from rulekit.load import load_program
from rulekit.tools.analyze.figures import analyze
from rulekit.tools.analyze.report import Section, render_html, sections, to_markdown, write_plots
from rulekit.tools.bots import describe_bots, make_bots
from rulekit.tools.cores import all_cores
from rulekit.tools.files import atomic_write_text
from rulekit.tools.options import add_bot_option, add_rules_options, module_names
from rulekit.tools.progress import Progress
from rulekit.tools.runner import GameRecord, GameTask, play_all
from rulekit.tools.simulate.play import Config


def add_parser(subparsers: Any) -> None:
    """Add the ``analyze`` subcommand."""
    p = subparsers.add_parser(
        "analyze",
        help="game metrics from bot games: length, branching, lead changes, decisiveness, seats, "
        "rules that never fire",
        description=(
            "Play seeded bot games (game i uses seed S+i) recording every decision, and report the game\n"
            "metrics of docs/balance.md: length distribution, branching factor over the game, lead\n"
            "changes, decisiveness, seats out of the race, first-player advantage, draws, and how often\n"
            "each action and trigger fired. Writes report.md, report.html, report.json and PNG plots."
        ),
        epilog=(
            "examples:\n"
            "  rulekit analyze tic_tac_toe --games 200 --out report/\n"
            "  rulekit analyze RULESET --players 4 --with MODULE,... --games 200"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("ruleset", metavar="RULESET", help="a bundled ruleset's name or a directory")
    p.add_argument("--players", type=int, metavar="N", help="number of players (default: the minimum)")
    p.add_argument("--games", type=int, default=100, metavar="G", help="games to play (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first game (default 0)")
    p.add_argument(
        "--max-actions", type=int, default=10_000, metavar="M", help="cut a game off after M actions"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=all_cores(),
        metavar="N",
        help=f"processes to play games in (default: all cores, {all_cores()} here); "
        "the results do not depend on it",
    )
    p.add_argument(
        "--out", metavar="DIR", default="analyze-report", help="report directory (default analyze-report)"
    )
    p.add_argument("--json", action="store_true", help="print the JSON report instead of the Markdown")
    add_rules_options(p)
    add_bot_option(p)


def play_traced(
    game: Game,
    config: Config,
    games: int,
    *,
    seed: int = 0,
    bots: str = "random",
    max_actions: int = 10_000,
    workers: int = 1,
    progress: Callable[[GameRecord, bool], None] | None = None,
) -> list[GameRecord]:
    """Play ``games`` traced games with the runner (seeded, on ``workers`` processes), in seed order."""
    tasks = [
        GameTask(
            config.ruleset,
            tuple(config.modules),
            tuple(config.variants),
            game.num_players,
            s,
            bots,
            max_actions,
            trace=True,
        )
        for s in range(seed, seed + games)
    ]
    return play_all(tasks, game.program.fingerprint, workers=workers, progress=progress)


def report_files(
    out: Path,
    title: str,
    intro: Sequence[str],
    columns: Sequence[tuple[str, dict[str, Any]]],
    lengths: Sequence[Sequence[int]],
    data: dict[str, Any],
    *,
    extra: Sequence[Section] = (),
) -> tuple[str, list[Path]]:
    """Write report.md, report.html, report.json and the plots into ``out``; the Markdown."""
    plots: list[Path] = []
    try:
        plots = write_plots(columns, lengths, out)
    except ImportError:
        print("analyze: no plots (pip install 'rulekit[plots]' for matplotlib)", file=sys.stderr)
    parts = [*extra, *sections(columns)]
    lines = [f"# {title}", "", *(f"* {line}" for line in intro), *to_markdown(parts)]
    if plots:
        lines += ["## Plots", "", *(f"![{p.stem}]({p.name})" for p in plots), ""]
    markdown = "\n".join(lines).rstrip("\n") + "\n"
    atomic_write_text(out / "report.md", markdown)
    atomic_write_text(out / "report.html", render_html(title, intro, parts, plots))
    atomic_write_text(out / "report.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return markdown, plots


def run(args: argparse.Namespace) -> int:
    """Run ``rulekit analyze``; 0 once the report is written."""
    if args.games < 1:
        raise UsageError(Diagnostic("--games must be at least 1"))
    if args.max_actions < 1:
        raise UsageError(Diagnostic("--max-actions must be at least 1"))
    if args.workers < 1:
        raise UsageError(Diagnostic("--workers must be at least 1"))
    config = Config(args.ruleset, module_names(args.modules), list(args.variants or ()))
    program = load_program(config.ruleset, config.modules, config.variants, players=args.players)
    game = Game(program, args.players if args.players is not None else program.rules.min_players)
    make_bots(game, args.bot, args.seed)  # a bad --bots is a usage error before any game
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RulekitError(
            Diagnostic(f"{out}: cannot make the report directory ({error.strerror})")
        ) from None
    progress = Progress("")
    done = 0

    def step(_: GameRecord, __: bool) -> None:
        nonlocal done
        done += 1
        progress(done, args.games, 0)

    try:
        records = play_traced(
            game,
            config,
            args.games,
            seed=args.seed,
            bots=args.bot,
            max_actions=args.max_actions,
            workers=args.workers,
            progress=step,
        )
    finally:
        progress.close()
    metrics = analyze(records, game)
    label = config.describe()
    data = {
        "configuration": label,
        "fingerprint": program.fingerprint,
        "bots": args.bot,
        "seeds": [args.seed, args.seed + args.games - 1],
        "max_actions": args.max_actions,
        "metrics": metrics,
    }
    intro = [
        f"{label} (fingerprint {program.fingerprint})",
        f"{game.num_players} players, {describe_bots(args.bot, game.num_players)}; "
        f"{args.games} games, seeds {args.seed}-{args.seed + args.games - 1}, cut off after "
        f"{args.max_actions} actions",
        'Definitions and sources of every metric: docs/balance.md, "Game metrics".',
    ]
    try:
        markdown, plots = report_files(
            out,
            f"Analysis: {label}",
            intro,
            [(label, metrics)],
            [[r.length for r in records if r.finished]],
            data,
        )
    except OSError as error:
        raise RulekitError(Diagnostic(f"{out}: cannot write the report ({error.strerror})")) from None
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(markdown, end="")
        print(
            f"report written to {out}/report.md, report.html, report.json" + (" and plots" if plots else "")
        )
    return 0
