"""``rulekit bench`` on the command line: options, one configuration or ``--all``, the report."""

from __future__ import annotations

import argparse
import json
import platform
from collections.abc import Iterator
from pathlib import Path

from rulekit.engine.game import Game
from rulekit.tools.bench.measure import all_cases, measure_game, run_cases
from rulekit.tools.bench.playouts import openspiel_note
from rulekit.tools.bench.report import compare, format_table, to_json, write_json
from rulekit.tools.cores import all_cores


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``rulekit bench``."""
    parser.add_argument("ruleset", metavar="RULESET", nargs="?", help="a ruleset name or directory")
    parser.add_argument("--all", action="store_true", help="every bundled ruleset at every player count")
    parser.add_argument("--players", type=int, metavar="N", help="number of players (default: the minimum)")
    parser.add_argument(
        "--seconds",
        type=float,
        metavar="S",
        help="CPU seconds of playouts per configuration (default 3; with --all 1)",
    )
    parser.add_argument(
        "--rounds", type=int, default=5, metavar="N", help="rounds per configuration (default 5)"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="first seed (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    parser.add_argument("--label", metavar="TEXT", help="a name for this run, kept in the JSON file")
    parser.add_argument(
        "--compare", metavar="FILE", help="show each figure's change against a file written by --json"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=all_cores(),
        metavar="N",
        help=f"with --all, measure N configurations at once in N processes (default: all cores, "
        f"{all_cores()} here); each figure is still one process's CPU time",
    )


def check_arguments(args: argparse.Namespace) -> None:
    """Raises:
    UsageError: contradictory or out-of-range options."""
    from rulekit.errors import Diagnostic, UsageError

    if args.all == (args.ruleset is not None):
        raise UsageError(Diagnostic("give a RULESET or --all (not both)"))
    if args.all and (args.players is not None or args.modules or args.variants):
        raise UsageError(
            Diagnostic("--all measures every configuration itself; drop --players/--with/--variant")
        )
    if (args.seconds is not None and args.seconds <= 0) or args.rounds < 1 or args.workers < 1:
        raise UsageError(Diagnostic("--seconds must be positive; --rounds and --workers at least 1"))


def run_command(args: argparse.Namespace, game: Game | None) -> Iterator[str]:
    """Run ``rulekit bench`` and yield its report lines.

    Raises:
        UsageError: contradictory or out-of-range options, an unreadable ``--compare`` file.
    """
    from rulekit.errors import Diagnostic, UsageError
    from rulekit.rules.compose import find_ruleset

    check_arguments(args)
    seconds = args.seconds if args.seconds is not None else (1.0 if args.all else 3.0)
    baseline = None
    if args.compare:
        try:
            baseline = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise UsageError(Diagnostic(f"cannot read --compare {args.compare}: {error}")) from None
    if args.all:
        cases = all_cases()
        dirs = sorted({find_ruleset(c.ruleset) for c in cases})
        yield (
            f"rulekit bench --all: {len(cases)} configurations, {seconds:g} CPU s each "
            f"in {args.rounds} rounds, {min(args.workers, len(cases))} worker(s)"
        )
        note = openspiel_note(dirs)
        if note:
            yield note
        rows = run_cases(cases, seconds, args.seed, args.rounds, args.workers)
    else:
        assert game is not None
        program = game.program
        directory = find_ruleset(args.ruleset)
        yield (
            f"rulekit {program.name} (fingerprint {program.fingerprint}), {game.num_players} players, "
            f"{seconds:g} CPU s of random playouts in {args.rounds} rounds"
        )
        note = openspiel_note([directory])
        if note:
            yield note
        rows = [measure_game(game, directory, seconds, args.seed, args.rounds)]
    yield from format_table(rows)
    if baseline is not None:
        yield ""
        yield from compare(rows, baseline)
    if args.json:
        meta = {
            "label": args.label or "",
            "seconds": seconds,
            "rounds": args.rounds,
            "seed": args.seed,
            "workers": min(args.workers, len(rows)) if args.all else 1,
            "python": platform.python_version(),
            "machine": platform.machine(),
            "rulekit": _version(),
        }
        write_json(Path(args.json), to_json(rows, meta))
        yield f"figures written to {args.json}"


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("rulekit")
    except metadata.PackageNotFoundError:
        return "unknown"
