"""``rulekit upgrade FILES``: rewrite scenario files of an older format or rules version for today.

Per file: the DSL rewrites of the format versions and of the ruleset's migrations
(:mod:`rulekit.tools.scenario.rewrite`), ``format:``/``rules_version:`` set to today's, and for a
file of format 1 (which checked no invariants) ``skip_invariants:`` naming exactly the
invariants it breaks (found by running it), so that it passes as it did.  The edit is textual:
comments and layout stay.  Each file is replaced atomically; ``--check`` and ``--diff`` write
nothing.

    rulekit upgrade rulesets/my_game/scenarios            # rewrite, saying what changed
    rulekit upgrade --check old/*.yaml                    # exit 1 if anything would change
    rulekit upgrade --diff --ruleset my_game old.yaml   # show the changes as a diff
"""

from __future__ import annotations

import argparse
import difflib
import os
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.errors import Diagnostic, RulekitError, RulesetError, Span
from rulekit.rules.yaml_source import load_file
from rulekit.tools.files import atomic_write_text
from rulekit.tools.scenario.files import find_scenarios
from rulekit.tools.scenario.rewrite import insert_lines, read, rewrite
from rulekit.tools.scenario.run import run_scenario
from rulekit.tools.scenario.versions import FORMAT

#: The comment on the ``skip_invariants:`` line an upgrade adds.
SKIP_NOTE = "format 1 checked no invariants; the set-up breaks these"


def add_parser(subparsers: Any) -> None:
    """Add the ``upgrade`` subcommand."""
    p = subparsers.add_parser(
        "upgrade",
        help="rewrite scenario files of an older format or ruleset encoding for today",
        description="Rewrite scenario files written for an older scenario format or an older encoding "
        "of their ruleset's data (its migrations.yaml) so they run today as they did; say what "
        "changed per file. Comments and layout are kept (a textual edit).",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or directories of them")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    p.add_argument("--diff", action="store_true", help="write nothing; print the changes as a unified diff")
    p.add_argument(
        "--ruleset",
        metavar="RULESET",
        help="the ruleset of files that name none and are outside a ruleset's directory",
    )


@define
class Upgrade:
    """What upgrading one file gives: its new text and the changes, in words."""

    path: Path
    old: str
    new: str
    changes: list[str] = field(factory=list)
    notes: list[str] = field(factory=list)


def upgrade_file(path: Path, ruleset: str | None = None) -> Upgrade:
    """The upgraded text of the scenario file at ``path`` (nothing written).

    Raises:
        RulekitError: the file cannot be read or parsed, or names a version newer than today's.
    """
    load_file(path)  # the size, encoding and YAML checks, with positions
    old = path.read_text(encoding="utf-8")
    done = rewrite(old, path, ruleset=ruleset, header=True)
    _check_layout(path, done.text)
    result = Upgrade(path, old, done.text, list(done.changes))
    asked = "check_invariants" in done.data or "skip_invariants" in done.data
    if done.format >= 2 or asked:
        return result
    skipped: list[str] = []
    text = done.text
    while True:
        run = run_scenario(path, ruleset=ruleset, text=text)
        if run.invariant is None or run.invariant in skipped:
            break
        skipped.append(run.invariant)
        text = insert_lines(
            done.text,
            [f"skip_invariants: [{', '.join(skipped)}]   # {SKIP_NOTE}"],
        )
    if skipped:
        result.new = text
        result.changes.append(
            f"skip_invariants: [{', '.join(skipped)}] added (format 1 checked no invariants)"
        )
    if not run.passed:
        first = run.failures[0].splitlines()[0] if run.failures else "?"
        result.notes.append(f"it does not pass after the upgrade: {first}")
    return result


def _check_layout(path: Path, text: str) -> None:
    """Refuse an upgrade whose text edit did not give a file of today's versions (a layout the
    line edit does not handle, such as the whole file written as one flow mapping)."""
    try:
        data = read(text, str(path))
    except RulesetError:
        data = None
    if data is None or data.get("format") != FORMAT:
        raise RulesetError(
            Diagnostic(
                "cannot upgrade this file's layout by editing its lines",
                Span(str(path), 1, 1),
                hint=f"write its top-level keys one per line (block style), or add format: {FORMAT} "
                "and the rewrites by hand",
            )
        )


def run(args: argparse.Namespace) -> int:
    """The ``upgrade`` command: 0 when done (with --check: when nothing would change), else 1."""
    files = find_scenarios(args.paths)
    if not files:
        raise RulekitError(Diagnostic(f"no scenario files in {', '.join(args.paths)}"))
    changed = failed = 0
    for path in files:
        try:
            upgrade = upgrade_file(path, args.ruleset)
        except RulekitError as error:
            failed += 1
            print(error.render())
            continue
        if upgrade.new == upgrade.old:
            continue
        changed += 1
        verb = "would upgrade" if args.check or args.diff else "upgraded"
        print(f"{verb} {path}")
        for line in upgrade.changes + upgrade.notes:
            print(f"  {line}")
        if args.diff:
            print(
                "".join(
                    difflib.unified_diff(
                        upgrade.old.splitlines(keepends=True),
                        upgrade.new.splitlines(keepends=True),
                        f"a/{path}",
                        f"b/{path}",
                    )
                ),
                end="",
            )
        if not (args.check or args.diff):
            mode = path.stat().st_mode & 0o7777
            atomic_write_text(path, upgrade.new)
            os.chmod(path, mode)
    current = len(files) - changed - failed
    verb = "would be upgraded" if args.check or args.diff else "upgraded"
    print(f"{changed} {verb}, {current} already current, {failed} could not be read")
    return 1 if failed or (args.check and changed) else 0
