"""``rulekit simulate`` on the command line: options, the --against configuration, the run."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rulekit.engine.game import Game
from rulekit.errors import Diagnostic, UsageError
from rulekit.load import load_program
from rulekit.tools.bots import make_bots
from rulekit.tools.cores import all_cores
from rulekit.tools.options import add_bot_option, add_rules_options, module_names
from rulekit.tools.progress import Progress
from rulekit.tools.runner import EXECUTORS, ResultsDB
from rulekit.tools.simulate.play import Config, simulate
from rulekit.tools.simulate.report import render, to_json


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
        default=all_cores(),
        metavar="N",
        help=f"processes to play games in (default: all cores, {all_cores()} here); "
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
