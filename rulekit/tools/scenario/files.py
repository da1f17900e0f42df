"""The scenario file format: its keys, finding scenario files, and the ruleset a file runs against.

The format is declared in :mod:`rulekit.rules.schema_scenario`; docs/rules-format.md describes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rulekit.errors import Diagnostic, RulekitError, RulesetError, Span
from rulekit.rules import schema_scenario
from rulekit.rules.compose import is_file

#: The keys of a scenario file, of a step of ``actions:`` and of an expectation: from the
#: declaration of the format (rules/schema_scenario.py).
SCENARIO_KEYS = schema_scenario.SCENARIO_KEYS
CHECK_KEYS = schema_scenario.CHECK_KEYS
ACTION_KEYS = schema_scenario.STEP_KEYS
EXPECT_KEYS = schema_scenario.EXPECT_KEYS


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


def ruleset_for(path: Path, given: Any, default: str | None = None) -> str:
    """The ruleset a scenario runs against: ``ruleset:``, else the directory above holding
    ruleset.yaml, else ``default`` (``--ruleset``)."""
    if given:
        candidate = path.parent / str(given)
        if is_file(candidate / "ruleset.yaml"):
            return str(candidate)
        return str(given)
    for parent in path.resolve().parents:
        if (parent / "ruleset.yaml").is_file():
            return str(parent)
    if default is not None:
        return default
    raise RulesetError(
        Diagnostic(
            "the scenario names no ruleset",
            Span(str(path), 1, 1),
            hint="add 'ruleset: NAME', put the file inside the ruleset's directory or give --ruleset",
        )
    )
