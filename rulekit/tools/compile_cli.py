"""The ``compile`` command: the Python module a ruleset compiles to, whole or one function.

Like Jinja's generated source, it shows what the compiler wrote (``#@N`` at a line's end
marks the rule text the line runs, see :mod:`rulekit.compiler.namespace`); nothing is run.
"""

from __future__ import annotations

import argparse
import ast
import re
from typing import Any

from rulekit.errors import Diagnostic, UsageError, did_you_mean
from rulekit.load import load_program
from rulekit.tools.options import add_rules_options, module_names

#: A generated function's name: its kind, the rule it comes from, a number (``req_buy_card_n7``).
_GENERATED = re.compile(r"(?P<kind>[a-z]+)_(?P<rule>\w+?)_n[0-9]+")


def add_parser(subparsers: Any) -> None:
    """Add the ``compile`` subcommand."""
    p = subparsers.add_parser(
        "compile",
        help="compile a ruleset and show the generated Python module (--show)",
        description=(
            "Compile a ruleset. With --show, print the generated Python module, or with --show NAME "
            "only the functions generated for NAME: a generated function's name (enum_buy_card_n21), "
            "that name without its number (enum_buy_card: all of them), or the name of a rules "
            "function, action, trigger or invariant (every function generated for it)."
        ),
    )
    p.add_argument("ruleset", metavar="RULESET")
    p.add_argument("--players", type=int, metavar="N", help="number of players (default: the minimum)")
    p.add_argument(
        "--show",
        nargs="?",
        const="",
        default=None,
        metavar="NAME",
        help="print the generated module, or the functions generated for NAME",
    )
    add_rules_options(p)


def run(args: argparse.Namespace) -> int:
    program = load_program(args.ruleset, module_names(args.modules), args.variants, players=args.players)
    source = program.source
    if args.show is None:
        functions = functions_of(source)
        print(
            f"ok: {program.name} compiles to {len(functions)} functions, "
            f"{source.count(chr(10))} lines, {len(source.encode())} bytes (--show prints them)"
        )
    elif args.show == "":
        print(source, end="" if source.endswith("\n") else "\n")
    else:
        print(show(source, args.show), end="")
    return 0


def functions_of(source: str) -> dict[str, str]:
    """Each top-level function of a generated module: its name -> its source."""
    lines = source.splitlines(keepends=True)
    return {
        node.name: "".join(lines[node.lineno - 1 : node.end_lineno])
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef) and node.end_lineno is not None
    }


def matches(function: str, wanted: str) -> bool:
    """Whether the generated ``function`` is one ``--show wanted`` asks for."""
    if function in (wanted, f"fn_{wanted}"):
        return True
    generated = _GENERATED.fullmatch(function)
    if generated is None:
        return False
    return wanted in (f"{generated['kind']}_{generated['rule']}", generated["rule"])


def show(source: str, wanted: str) -> str:
    """The functions of the generated ``source`` that ``wanted`` names, one blank line apart.

    Raises:
        UsageError: no function is generated for that name.
    """
    functions = functions_of(source)
    found = [text for name, text in functions.items() if matches(name, wanted)]
    if not found:
        choices = {*functions}
        for name in functions:
            generated = _GENERATED.fullmatch(name)
            if generated is not None:
                choices |= {generated["rule"], f"{generated['kind']}_{generated['rule']}"}
        raise UsageError(
            Diagnostic(f"no generated function for {wanted!r}", hint=did_you_mean(wanted, sorted(choices)))
        )
    return "\n".join(found)
