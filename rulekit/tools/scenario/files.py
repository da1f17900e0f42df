"""The scenario file format: its keys, finding scenario files, and the ruleset a file runs against.

See docs/cli.md for the format.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rulekit.errors import Diagnostic, RulekitError, RulesetError, Span
from rulekit.rules.compose import is_file

SCENARIO_KEYS = (
    "scenario",
    "cite",
    "doc",
    "ruleset",
    "modules",
    "variants",
    "players",
    "seed",
    "setup",
    "setup_effect",
    "actions",
    "expect",
    "expect_legal",
    "expect_not_legal",
    # format 2
    "before_setup",
    "keep_order",
    "start",
    "check_invariants",
    "skip_invariants",
    "expect_terminal",
    "expect_winners",
    "expect_standings",
    "expect_scores",
)
CHECK_KEYS = ("expect", "expect_legal", "expect_not_legal")
#: What a step of ``actions:`` may say: one of action / event / effect (or none: a checkpoint)
#: and expectations checked right after it.
ACTION_KEYS = ("action", "reject", "by", "may_reject", "event", "effect", *CHECK_KEYS)
EXPECT_KEYS = ("expr", "equals")


def find_scenarios(paths: Iterable[str | Path]) -> list[Path]:
    """The scenario files named by ``paths``: files as given, directories searched recursively.

    In a directory, only ``*.yaml`` files with a top-level ``scenario:`` key count
    (so a ruleset directory can be given as a whole).

    Raises:
        RulekitError: a path does not exist.
    """
    found: list[Path] = []
    for entry in paths:
        path = Path(entry)
        if path.is_dir():
            for candidate in sorted(path.rglob("*.yaml")):
                try:
                    text = candidate.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                if re.search(r"^scenario\s*:", text, re.MULTILINE):
                    found.append(candidate)
        elif path.is_file():
            found.append(path)
        else:
            raise RulekitError(Diagnostic(f"no such file or directory: {entry}"))
    return found


def ruleset_for(path: Path, given: Any) -> str:
    """The ruleset a scenario runs against: ``ruleset:`` or the directory above holding ruleset.yaml."""
    if given:
        candidate = path.parent / str(given)
        if is_file(candidate / "ruleset.yaml"):
            return str(candidate)
        return str(given)
    for parent in path.resolve().parents:
        if (parent / "ruleset.yaml").is_file():
            return str(parent)
    raise RulesetError(
        Diagnostic(
            "the scenario names no ruleset",
            Span(str(path), 1, 1),
            hint="add 'ruleset: NAME' or put the file inside the ruleset's directory",
        )
    )
