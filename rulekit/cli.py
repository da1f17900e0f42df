"""The ``rulekit`` command: check, play, replay, scenario, rules, bench, cache (and the plugins: verify...).

Exit status: 0 success, 1 a user error (bad rules, illegal action, failed
scenario), 2 a usage error, 3 an internal error (a bug in rulekit).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from rulekit.engine.game import Game
from rulekit.errors import Diagnostic, RulekitError, UsageError, printable
from rulekit.limits import LIMITS
from rulekit.load import load_program
from rulekit.rules.compose import find_ruleset
from rulekit.tools import bench as bench_tool
from rulekit.tools.options import add_bot_option, add_rules_options, module_names, parse_seat
from rulekit.tools.render import compile_display, describe_rules, render_standings, render_state
from rulekit.tools.view import compile_view

# The tools that only some commands use (bots, logs, scenarios, the plugins) are imported by
# those commands: `rulekit check` starts without them (docs/performance.md, "Load").

#: Subcommands written in their own modules: each has add_parser(subparsers) and run(args) -> int.
PLUGIN_COMMANDS = (
    "rulekit.tools.verify",
    "rulekit.tools.diff",
    "rulekit.tools.simulate",
    "rulekit.tools.balance",
    "rulekit.tools.analyze",
    "rulekit.tools.view_cli",
    "rulekit.tools.upgrade",
    "rulekit.tools.compile_cli",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser, plugins = build_parser(plugins=_needs_plugins(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        return _run(args, plugins)
    finally:
        LIMITS.reset()  # --limit applies to this command only
        if argv is None:
            _ending()


def _ending() -> None:
    """The process ends with this command (``main()`` was called as the program): keep the
    garbage collector off every object it made. Python's shutdown would otherwise walk them
    all once more (~50 ms after loading a big ruleset) only to let the process exit."""
    import gc

    gc.freeze()


def _run(args: argparse.Namespace, plugins: dict[str, ModuleType]) -> int:
    try:
        for text in args.limit or ():
            try:
                LIMITS.set(text)
            except ValueError as error:
                raise UsageError(Diagnostic(f"--limit: {error}", hint="see docs/security.md")) from None
        if args.command in plugins:
            return int(plugins[args.command].run(args))
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except UsageError as error:
        print(printable(f"rulekit {args.command}: {error.render()}"), file=sys.stderr)
        return 2
    except RulekitError as error:
        print(printable(error.render()), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as error:  # a file the user named cannot be written or read (--log, --out...)
        where = f"{error.filename}: " if error.filename else ""
        print(f"error: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    except Exception:
        print(
            "internal error: this is a bug in rulekit; please report it with the traceback below",
            file=sys.stderr,
        )
        traceback.print_exc()
        return 3


# ------------------------------------------------------------------ parser


def _version() -> str:
    from importlib import metadata  # here: importing it costs more than parsing the arguments

    try:
        return metadata.version("rulekit")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "(not installed)"


class _VersionAction(argparse._VersionAction):
    """``--version``, asking the package metadata only when it is given."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        self.version = f"rulekit {_version()}"
        super().__call__(parser, *args, **kwargs)  # type: ignore[arg-type]


#: The subcommands :func:`build_parser` defines itself (the others come from PLUGIN_COMMANDS).
BUILTIN_COMMANDS = frozenset({"check", "play", "replay", "scenario", "rules", "bench", "cache", "lsp"})


def _needs_plugins(argv: Sequence[str]) -> bool:
    """Whether parsing ``argv`` needs the plugin subcommands: not when it names a built-in
    command after nothing but ``--limit`` options (``rulekit --help``, an unknown or plugin
    command, any other option first: yes)."""
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--limit":
            index += 2
        elif word.startswith("--limit="):
            index += 1
        else:
            return word not in BUILTIN_COMMANDS
    return True


def build_parser(*, plugins: bool = True) -> tuple[argparse.ArgumentParser, dict[str, ModuleType]]:
    """The argument parser, and the plugin module of each plugin subcommand (none when
    ``plugins`` is false: the parser then knows only :data:`BUILTIN_COMMANDS`)."""
    parser = argparse.ArgumentParser(
        prog="rulekit",
        description="Board-game rules as data: check, play, replay and test rulesets.",
    )
    parser.add_argument("--version", action=_VersionAction, version="rulekit")
    parser.add_argument(
        "--limit",
        action="append",
        metavar="NAME=VALUE",
        help="raise or lower a resource limit, e.g. --limit max_steps=10000000 (see docs/security.md)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("check", help="load and check a ruleset; print every problem")
    p.add_argument("ruleset", metavar="RULESET", help="a bundled ruleset's name or a directory")
    add_rules_options(p)
    p.add_argument(
        "--all-combinations",
        action="store_true",
        help="check every allowed combination of the ruleset's modules (with the given variants) "
        "and play a short random game with each",
    )
    p.add_argument(
        "--format",
        choices=("text", "json", "sarif"),
        default="text",
        help="text (default), or the diagnostics as JSON or SARIF 2.1.0 on stdout",
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="check again whenever a file of the ruleset (or a --variant file) is saved; Ctrl-C stops",
    )
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser(
        "lsp", help="a Language Server Protocol server on stdin/stdout, for editors (docs/editor.md)"
    )
    p.set_defaults(handler=cmd_lsp)

    p = sub.add_parser("play", help="play a game with bots (and optionally a person)")
    p.add_argument("ruleset", metavar="RULESET")
    p.add_argument("--players", type=int, metavar="N", help="number of players (default: the minimum)")
    p.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="random seed (default 0; with --human a fresh random one, shown when the game ends)",
    )
    p.add_argument("--log", metavar="FILE", help="write the game's action log (JSON Lines) to FILE")
    p.add_argument("--human", metavar="SEAT", help="a person plays this seat (1 or P1) in the terminal")
    p.add_argument(
        "--seat-log",
        metavar="FILE",
        help="with --human: also write the log of what that seat saw (--log is the referee's)",
    )
    add_bot_option(p)
    p.add_argument(
        "--max-actions", type=int, default=10_000, metavar="N", help="stop after N actions (default 10000)"
    )
    p.add_argument("--quiet", action="store_true", help="print only the final standings")
    add_rules_options(p)
    p.set_defaults(handler=cmd_play)

    p = sub.add_parser("replay", help="replay an action log and check its final state")
    p.add_argument("log", metavar="LOG")
    p.add_argument(
        "--ruleset", metavar="RULESET", help="load the rules from here instead of the log's ruleset"
    )
    p.add_argument("--show", action="store_true", help="print the final state")
    p.add_argument(
        "--force",
        action="store_true",
        help="replay even if the rules changed; report the first action whose outcome differs",
    )
    p.add_argument(
        "--html", metavar="FILE", help="also write a self-contained HTML page stepping through the game"
    )
    p.add_argument(
        "--seat",
        metavar="P",
        help="with --html or --seat-log: only what this seat may see (default: a spectator)",
    )
    p.add_argument(
        "--seat-log",
        metavar="FILE",
        help="also write the log of what --seat saw (no seed, no hidden cards; docs/hidden-information.md)",
    )
    add_rules_options(p, modules=False)
    p.set_defaults(handler=cmd_replay)

    p = sub.add_parser("scenario", help="run scenario files or directories of them")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--ruleset",
        metavar="RULESET",
        help="the ruleset of files that name none and are outside a ruleset's directory",
    )
    p.add_argument(
        "--coverage",
        action="store_true",
        help="report, per ruleset configuration, the rules and outcomes no scenario exercised",
    )
    p.add_argument("--coverage-json", metavar="FILE", help="write the coverage report as JSON to FILE")
    p.add_argument(
        "--require-coverage",
        action="store_true",
        help="exit 1 when a rule or outcome is not exercised by any scenario (implies --coverage)",
    )
    add_rules_options(p)
    p.set_defaults(handler=cmd_scenario)

    p = sub.add_parser("rules", help="list a ruleset's actions, triggers, modules and constants")
    p.add_argument("ruleset", metavar="RULESET")
    add_rules_options(p)
    p.set_defaults(handler=cmd_rules)

    p = sub.add_parser("bench", help="random playouts per CPU second, cost per action (and OpenSpiel's)")
    bench_tool.add_arguments(p)
    add_rules_options(p)
    p.set_defaults(handler=cmd_bench)

    p = sub.add_parser("cache", help="show or empty the program cache (info, clear)")
    p.add_argument(
        "what",
        choices=("info", "clear"),
        metavar="info|clear",
        help="info: directory, entries, size, oldest entry; clear: remove every entry",
    )
    p.set_defaults(handler=cmd_cache)

    found: dict[str, ModuleType] = {}
    for name in PLUGIN_COMMANDS if plugins else ():
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        before = set(sub.choices)
        module.add_parser(sub)
        for command in set(sub.choices) - before:
            found[command] = module
    return parser, found


# ---------------------------------------------------------------- commands


def _load_game(args: argparse.Namespace, players: int | None) -> Game:
    modules = module_names(getattr(args, "modules", None))
    program = load_program(args.ruleset, modules, args.variants, players=players)
    count = players if players is not None else program.rules.min_players
    return Game(program, count)


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        from rulekit.lsp.server import main as serve
    except ImportError as error:
        raise UsageError(
            Diagnostic(f"the language server needs pygls ({error})", hint="pip install 'rulekit[lsp]'")
        ) from None
    return serve()


def cmd_check(args: argparse.Namespace) -> int:
    if args.watch:
        from rulekit.tools.watch import watch

        if args.all_combinations:
            raise UsageError(Diagnostic("--watch checks one combination; drop --all-combinations"))
        paths = [find_ruleset(args.ruleset), *(Path(v) for v in args.variants if Path(v).is_file())]
        args.watch = False
        return watch(paths, lambda: cmd_check(args))
    if args.all_combinations:
        from rulekit.tools.combinations import run_all_combinations

        if args.modules:
            raise UsageError(Diagnostic("--all-combinations chooses the modules itself; drop --with"))
        if args.format != "text":
            raise UsageError(Diagnostic("--all-combinations prints text only; drop --format"))
        return run_all_combinations(args.ruleset, args.variants)
    if args.format != "text":
        return _check_for_machines(args)
    program = load_program(args.ruleset, module_names(args.modules), args.variants)
    compile_display(program)
    compile_view(program)
    rules = program.rules
    parts = [
        f"{len(rules.actions)} actions",
        f"{len(rules.triggers)} triggers",
        f"{len(rules.invariants)} invariants",
        f"{len(rules.functions)} functions",
        f"{len(rules.constants)} constants",
    ]
    modules = f", modules: {', '.join(rules.modules)}" if rules.modules else ""
    variants = f", variants: {', '.join(p for p, _ in rules.variants)}" if rules.variants else ""
    print(
        f"ok: {rules.name} (fingerprint {program.fingerprint}) {', '.join(parts)}; "
        f"{rules.min_players}-{rules.max_players} players{modules}{variants}"
    )
    return 0


def _check_for_machines(args: argparse.Namespace) -> int:
    """``check --format json|sarif``: every diagnostic on stdout; exit 1 if there is an error."""
    from rulekit.tools.diagnostics_format import check_json, check_sarif

    diagnostics: tuple[Diagnostic, ...] = ()
    fingerprint = None
    try:
        program = load_program(args.ruleset, module_names(args.modules), args.variants)
        compile_display(program)
        compile_view(program)
        fingerprint = program.fingerprint
    except RulekitError as error:
        diagnostics = error.diagnostics
    if args.format == "json":
        print(check_json(args.ruleset, diagnostics, fingerprint))
    else:
        print(check_sarif(diagnostics, _version()))
    return 1 if any(d.severity == "error" for d in diagnostics) else 0


def _source_of(ruleset: str) -> str | None:
    """The ruleset directory when RULESET was given as a path (for the log header)."""
    if "/" in ruleset or Path(ruleset).is_dir():
        return str(find_ruleset(ruleset).resolve())
    return None


def _seat(text: str, players: int) -> int:
    raw = text[1:] if text[:1] in ("P", "p") else text
    if not (raw.isascii() and raw.isdigit() and len(raw) < 10) or not 1 <= int(raw) <= players:
        raise UsageError(
            Diagnostic(f"--human takes a seat from 1 to {players} (or P1..P{players}), not {text!r}")
        )
    return int(raw) - 1


def cmd_play(args: argparse.Namespace) -> int:
    from rulekit.tools.bots import describe_bots, make_bots, play_game

    game = _load_game(args, args.players)
    compile_display(game.program)
    if args.max_actions < 0:
        raise UsageError(Diagnostic("--max-actions must not be negative"))
    source = _source_of(args.ruleset)
    if args.human is None and args.seed is None:
        args.seed = 0
    if args.seat_log is not None and args.human is None:
        raise UsageError(Diagnostic("--seat-log is the log of what the --human seat saw: give --human too"))
    if args.human is not None:
        from rulekit.tools.human import play_human
        from rulekit.tools.options import game_seed

        seed = game_seed(args.seed)
        return play_human(
            game,
            _seat(args.human, game.num_players),
            make_bots(game, args.bot, seed),
            seed=seed,
            max_actions=args.max_actions,
            source=source,
            log=args.log,
            seat_log=args.seat_log,
        )
    played = play_game(
        game, args.seed, make_bots(game, args.bot, args.seed), args.max_actions, source=source, log=args.log
    )
    played.log.close()
    state = played.state
    if not args.quiet:
        bots = describe_bots(args.bot, game.num_players)
        print(f"{game.program.rules.title}: {game.num_players} players, seed {args.seed}, {bots}")
        for number, (player, text) in enumerate(played.log.actions, start=1):
            print(f"{number:>5}. P{player + 1} {text}")
        print()
        print(render_state(state))
        print()
    if not played.finished:
        print(render_standings(state))
        raise RulekitError(
            Diagnostic(
                f"the game did not end within {args.max_actions} actions",
                hint="raise --max-actions, or check the rules' end conditions",
            )
        )
    print(f"final standings after {len(played.log.actions)} actions:")
    print(render_standings(state))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    if args.force and args.html:
        raise UsageError(Diagnostic("--html draws a game that replays exactly; drop --force"))
    if args.seat is not None and not (args.html or args.seat_log):
        raise UsageError(
            Diagnostic(
                "--seat chooses whose view is drawn or logged: give --html FILE or --seat-log FILE too"
            )
        )
    if args.force and args.seat_log:
        raise UsageError(Diagnostic("--seat-log writes a game that replays exactly; drop --force"))
    if args.force:
        from rulekit.tools.force import force_replay

        forced = force_replay(args.log, ruleset=args.ruleset, variants=args.variants or None)
        if args.show:
            print(render_state(forced.state))
        for line in forced.report():
            print(printable(line))  # action text from the log, escaped as replay's errors are
        return 0 if forced.same else 1
    from rulekit.tools.log import load_game_for, read_log, replay_actions

    log = read_log(args.log)
    state = replay_actions(load_game_for(log, args.ruleset, args.variants or None), log)
    if args.seat is not None:  # before any output: a seat the game does not have is a usage error
        parse_seat(args.seat, state.game.num_players)
    if log.truncated is not None:
        print(
            f"note: {log.truncated}: the log breaks off in this line (a game cut short); "
            f"replayed the {len(log.actions)} complete actions before it",
            file=sys.stderr,
        )
    program = state.game.program
    if args.show:
        print(render_state(state))
    print(
        f"ok: replayed {state.moves()} actions of {program.name} (fingerprint {program.fingerprint}); "
        f"final state hash {state.state_hash()}"
    )
    if state.is_terminal():
        print(render_standings(state))
    if args.html:
        from rulekit.tools.replay_html import write_replay_html

        steps = write_replay_html(
            args.log, args.html, ruleset=args.ruleset, variants=args.variants or None, seat=args.seat
        )
        print(f"wrote {args.html} ({steps} steps)")
    if args.seat_log:
        from rulekit.tools.log.seat import logged_actions, seat_name, write_seat_log

        seat = None if args.seat is None else parse_seat(args.seat, state.game.num_players)
        write_seat_log(args.seat_log, state.game, int(log.header["seed"]), logged_actions(log), seat)
        print(f"wrote {args.seat_log} (what {seat_name(seat)} saw)")
    return 0


def cmd_scenario(args: argparse.Namespace) -> int:
    from rulekit.tools.scenario import run_paths
    from rulekit.tools.scenario.coverage import Collector

    shown = args.coverage or args.require_coverage
    collector = Collector() if shown or args.coverage_json else None
    status = run_paths(
        args.paths,
        variants=args.variants,
        modules=module_names(args.modules),
        ruleset=args.ruleset,
        coverage=collector,
    )
    if collector is None:
        return status
    if shown:
        print(printable(collector.text()))
    if args.coverage_json:
        from rulekit.tools.files import atomic_write_text

        atomic_write_text(args.coverage_json, collector.json())
    if args.require_coverage and collector.uncovered():
        print(f"coverage required: {collector.uncovered()} rule(s) or outcome(s) no scenario exercised")
        return 1
    return status


def cmd_rules(args: argparse.Namespace) -> int:
    print(describe_rules(args.ruleset, module_names(args.modules), args.variants))
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from rulekit.tools.cache_cli import run

    for line in run(args.what):
        print(printable(line))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    bench_tool.check_arguments(args)
    game = None if args.all else _load_game(args, args.players)
    for line in bench_tool.run_command(args, game):
        print(line, flush=True)
    return 0
