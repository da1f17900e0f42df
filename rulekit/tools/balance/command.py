"""``rulekit balance`` on the command line: options, the run, the report files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rulekit.engine.game import Game
from rulekit.errors import Diagnostic, UsageError
from rulekit.load import load_program
from rulekit.tools.analyze.figures import analyze
from rulekit.tools.analyze.report import sections, to_markdown
from rulekit.tools.analyze.report import write_plots as write_metric_plots
from rulekit.tools.balance.advice import suggestions
from rulekit.tools.balance.changes import variant_changes
from rulekit.tools.balance.compare import run_balance
from rulekit.tools.balance.report import render_markdown, write_plots
from rulekit.tools.balance.strength import bot_strength
from rulekit.tools.bots import make_bots
from rulekit.tools.files import atomic_write_text
from rulekit.tools.options import add_bot_option, add_rules_options, module_names
from rulekit.tools.progress import Progress
from rulekit.tools.runner import ResultsDB
from rulekit.tools.simulate.command import add_run_options, check_run_options
from rulekit.tools.simulate.play import Config


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
        "--min-reached",
        type=int,
        default=10,
        metavar="K",
        help="games in which the variant must make a difference, and each rule it changes fire, "
        "before a verdict or an early stop (default 10)",
    )
    p.add_argument(
        "--strength-games",
        type=int,
        default=20,
        metavar="G",
        help="games measuring each non-random bot against random bots when the run has no random seat "
        "(default 20; 0: do not measure)",
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
    if args.min_reached < 1 or args.strength_games < 0:
        raise UsageError(Diagnostic("--min-reached must be at least 1 and --strength-games at least 0"))
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
    changes = variant_changes(configs[0], configs[1], games[0].num_players)
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
            changes=changes,
            min_reached=args.min_reached,
        )
        progress.close()
        result.advice = suggestions(result, games[0])
        strength_progress = Progress("bots' strength: ")
        done = 0

        def step(_: object, __: bool) -> None:
            nonlocal done
            done += 1
            strength_progress(done, args.strength_games, 0)

        try:
            result.strength = bot_strength(
                result,
                games=args.strength_games,
                seed=args.seed,
                max_actions=args.max_actions,
                workers=args.workers,
                executor=args.executor,
                address=args.address,
                db=db,
                resume=args.resume,
                progress=step,
            )
        finally:
            strength_progress.close()
    finally:
        progress.close()
        if db is not None:
            db.close()
    columns = [
        ("A (base)", analyze(result.games_a, games[0])),
        ("B (variant)", analyze(result.games_b, games[1])),
    ]
    plots: list[str] = []
    try:
        plots = write_plots(result, out)
        lengths = [[r.length for r in side if r.finished] for side in (result.games_a, result.games_b)]
        plots += [str(p) for p in write_metric_plots(columns, lengths, out, prefix="game_")]
    except ImportError:
        print("balance: no plots (pip install 'rulekit[plots]' for matplotlib)", file=sys.stderr)
    metrics_lines = [
        "",
        "## Game metrics, side by side",
        "",
        'Definitions and sources: docs/balance.md, "Game metrics"; measured on the games above.',
        *to_markdown(sections(columns), level=3),
    ]
    markdown = render_markdown(result, plots, metrics_lines)
    data = result.to_json()
    data["game_metrics"] = {"a": columns[0][1], "b": columns[1][1]}
    atomic_write_text(out / "report.md", markdown)
    atomic_write_text(out / "report.json", json.dumps(data, indent=2) + "\n")
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(markdown, end="")
        print(f"report written to {out}/report.md, report.json" + (" and plots" if plots else ""))
    return 0
