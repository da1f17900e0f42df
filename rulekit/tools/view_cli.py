"""The ``render`` and ``serve`` commands: a state as an SVG file, a game in the browser."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rulekit.engine.game import Game, State
from rulekit.errors import Diagnostic, Span, UsageError
from rulekit.load import load_program
from rulekit.tools.bots import make_bots
from rulekit.tools.files import write_output
from rulekit.tools.log import apply_logged, load_game_for, read_log
from rulekit.tools.options import add_bot_option, add_rules_options, module_names, parse_seat
from rulekit.tools.seat_view import seat_view
from rulekit.tools.view import compile_view


def add_parser(subparsers: Any) -> None:
    """Add the ``render`` and ``serve`` subcommands."""
    p = subparsers.add_parser(
        "render",
        help="draw a state as an SVG picture (the ruleset's view)",
        description=(
            "Draw the state of a game as SVG. RULESET draws the state after setup (or after --step N "
            "actions of bots); LOG draws the logged game after --step N actions (default: all)."
        ),
    )
    p.add_argument("source", metavar="RULESET|LOG", help="a ruleset (name or directory) or an action log")
    p.add_argument("--step", type=int, metavar="N", help="draw the state after N actions")
    p.add_argument("--seat", metavar="P", help="draw what this seat may see (1 or P1; default: a spectator)")
    p.add_argument("-o", "--out", metavar="FILE", required=True, help="the SVG file to write ('-': stdout)")
    p.add_argument(
        "--ruleset", metavar="RULESET", help="LOG only: load the rules from here instead of the log's ruleset"
    )
    p.add_argument("--players", type=int, metavar="N", help="number of players (RULESET only)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (RULESET only; default 0)")
    add_bot_option(p)
    add_rules_options(p)

    p = subparsers.add_parser(
        "serve",
        help="play in the browser against bots (a local web page; needs rulekit[web])",
        description="Serve a game on http://127.0.0.1:PORT/: people play their seats in the browser, "
        "bots the others; the log is saved as JSON Lines after every action.",
    )
    p.add_argument("ruleset", metavar="RULESET")
    p.add_argument("--players", type=int, metavar="N", help="number of players (default: the minimum)")
    p.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="random seed (default: a fresh random one, shown when serve stops)",
    )
    p.add_argument(
        "--human",
        action="append",
        metavar="SEATS",
        help="the seats people play, comma-separated or repeated (default 1; the others are bots); "
        "each gets its own address",
    )
    p.add_argument(
        "--hotseat",
        action="store_true",
        help="one address for every --human seat: they play in turn on one device, with a "
        "'pass the device' screen between them",
    )
    p.add_argument("--rated", action="store_true", help="rated play: no undo (the page has no undo button)")
    add_bot_option(p)
    p.add_argument(
        "--port", type=int, default=8000, metavar="PORT", help="port on 127.0.0.1 (0: any free port)"
    )
    p.add_argument(
        "--log",
        metavar="FILE",
        help="where to save the log: a new file, never overwritten (default game.jsonl, or the first "
        "free game-N.jsonl)",
    )
    add_rules_options(p)


def run(args: argparse.Namespace) -> int:
    if args.command == "render":
        return cmd_render(args)
    from rulekit.tools.serve import cmd_serve

    return cmd_serve(args)


def is_log(source: str) -> bool:
    """Whether RULESET|LOG names a log file (a file that is not a ruleset's YAML)."""
    path = Path(source)
    return path.is_file() and not path.name.endswith((".yaml", ".yml"))


def replay_to(
    path: str, step: int | None, variants: list[str] | None = None, ruleset: str | None = None
) -> State:
    """The state of a logged game after ``step`` actions (all of them if None).

    Raises:
        ReplayError: an action cannot be replayed (the line is named), or ``step`` is out of range.
    """
    log = read_log(path)
    game = load_game_for(log, ruleset, variants or None)
    count = len(log.actions) if step is None else step
    if not 0 <= count <= len(log.actions):
        raise UsageError(Diagnostic(f"--step must be from 0 to {len(log.actions)} for this log, not {step}"))
    state = game.new_initial_state(int(log.header["seed"]))
    for number, player, text in log.actions[:count]:
        apply_logged(state, Span(log.path, number, 1), player, text, log.chances.get(number, ()))
    return state


def cmd_render(args: argparse.Namespace) -> int:
    if args.step is not None and args.step < 0:
        raise UsageError(Diagnostic("--step must not be negative"))
    if is_log(args.source):
        if args.modules:
            raise UsageError(Diagnostic("a log names its own modules; drop --with"))
        state = replay_to(args.source, args.step, args.variants, args.ruleset)
    else:
        if args.ruleset:
            raise UsageError(Diagnostic("--ruleset is for drawing a LOG; give the ruleset itself instead"))
        program = load_program(args.source, module_names(args.modules), args.variants, players=args.players)
        compile_view(program)
        game = Game(program, args.players if args.players is not None else program.rules.min_players)
        state = game.new_initial_state(args.seed)
        bots = make_bots(game, args.bot, args.seed)
        for _ in range(args.step or 0):
            if state.is_terminal():
                break
            state.apply_action(bots[state.current_player()].choose(state))
    seat = None if args.seat is None else parse_seat(args.seat, state.game.num_players)
    view = seat_view(state, seat)  # what serve and replay --html --seat show the seat, too
    write_output(args.out, view.svg())
    if args.out != "-":
        print(f"wrote {args.out} ({len(view.picture.shapes)} shapes; {view.caption})")
    for error in view.picture.errors:
        print(f"warning: {error}")
    return 0
