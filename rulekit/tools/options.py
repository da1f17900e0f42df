"""Command-line options shared by every command that loads rules: ``--with``, ``--variant``, ``--against``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rulekit.errors import Diagnostic, UsageError
from rulekit.rules.parameters import setting_ref
from rulekit.tools.bots import parse_bots


def add_rules_options(parser: argparse.ArgumentParser, *, modules: bool = True) -> None:
    """Add ``--with MOD,...`` (unless ``modules`` is false), ``--variant FILE`` and
    ``--param NAME=VALUE``, all repeatable.

    They land in ``args.modules`` (read it with :func:`module_names`) and ``args.variants`` (a
    parameter setting as the reference ``param:NAME=VALUE``, see :mod:`rulekit.rules.parameters`).
    """
    if modules:
        parser.add_argument(
            "--with",
            dest="modules",
            action="append",
            default=[],
            metavar="MOD,...",
            help="modules to add (comma-separated; repeatable)",
        )
    parser.add_argument(
        "--variant",
        dest="variants",
        action="append",
        default=[],
        metavar="FILE",
        help="a variant file, or the name of a variant shipped with the ruleset (repeatable)",
    )
    parser.add_argument(
        "--param",
        dest="variants",
        action="append",
        type=setting_ref,
        metavar="NAME=VALUE",
        help="set one of the ruleset's parameters (rulekit rules lists them; repeatable)",
    )


def add_bot_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--bots SPEC`` (alias ``--bot``; into ``args.bot``; default random): one bot per
    seat, comma-separated, or one for all seats (see :func:`rulekit.tools.bots.parse_bots`)."""
    parser.add_argument(
        "--bots",
        "--bot",
        dest="bot",
        type=_bots_value,
        default="random",
        metavar="SPEC",
        help="bots per seat, comma-separated (or one for all): random (weighted by the ruleset's "
        "bots.weights), uniform, first, heuristic, mcts[:iterations=N][:ms=T][:cutoff=D][:c=X]; "
        "e.g. mcts:iterations=400,heuristic,random,random (default random)",
    )


def _bots_value(text: str) -> str:
    try:
        parse_bots(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(error.diagnostics[0].message) from None
    return text


def ruleset_label(ruleset: str) -> str:
    """How a report names the ruleset given on the command line: as given, except a path that
    ends in ``.``, ``..`` or ``/`` (``simulate .``), which is named by its directory."""
    path = Path(ruleset)
    if ruleset.endswith(("/", "\\")) or path.name in ("", ".", ".."):
        return path.resolve().name or ruleset
    return ruleset


def module_names(values: Sequence[str] | None) -> list[str]:
    """The module names of repeated ``--with`` options: ``["a,b", "c"]`` gives ``a``, ``b``, ``c``."""
    return [name.strip() for value in values or () for name in value.split(",") if name.strip()]


def parse_against(command: str, words: Sequence[str], *, hint: str | None = None) -> argparse.Namespace:
    """Read the words after ``--against``: ``[RULESET] [--with MOD,...] [--variant FILE]...
    [--param NAME=VALUE]... [--json]``.

    Commands that compare two configurations (``diff``, ``simulate``) take everything
    after ``--against`` as the other side.  The result has ``ruleset`` (None: the same),
    ``modules``, ``variants`` and ``json``.

    Raises:
        UsageError: the words cannot be read, or include other options.
    """
    parser = argparse.ArgumentParser(prog=f"rulekit {command} ... --against", add_help=False)
    parser.add_argument("ruleset", nargs="?", default=None)
    add_rules_options(parser)
    parser.add_argument("--json", action="store_true")
    try:
        other, unknown = parser.parse_known_args(list(words))
    except SystemExit:
        raise UsageError(Diagnostic("cannot read the arguments after --against")) from None
    if unknown:
        raise UsageError(Diagnostic(f"unknown arguments after --against: {' '.join(unknown)}", hint=hint))
    return other


def parse_seat(text: str, players: int, option: str = "--seat") -> int:
    """A seat written 1 or P1, as an index."""
    raw = text[1:] if text[:1] in ("P", "p") else text
    if not raw.isdigit() or not 1 <= int(raw) <= players:
        raise UsageError(
            Diagnostic(f"{option} takes a seat from 1 to {players} (or P1..P{players}), not {text!r}")
        )
    return int(raw) - 1


def game_seed(given: int | None) -> int:
    """The seed a game with people is dealt from: the one given, else a fresh random one
    (``secrets``), so that no two games deal the same cards and no player can know the deal."""
    if given is not None:
        return given
    import secrets

    return secrets.randbelow(2**31)
