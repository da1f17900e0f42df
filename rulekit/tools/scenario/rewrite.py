"""Rewriting an older scenario file's text for today's format and its ruleset's data encoding.

A textual edit, line by line, of the DSL-bearing lines only (not ``scenario:``, ``cite:``,
``doc:``, ``ruleset:``, ``modules:``, ``variants:`` nor comment lines): comments, layout and
quoting stay as written.  The scenario runner applies the same rewrites in memory to run an
older file (line numbers stay those of the file); ``rulekit upgrade`` also writes the
``format:`` and ``rules_version:`` lines and saves the result.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.errors import Diagnostic, RulesetError, Span
from rulekit.rules.compose import find_ruleset
from rulekit.rules.migrations import NONE, Rewrite, RulesetMigrations, load_migrations
from rulekit.rules.yaml_source import LocDict, load_text, span_of
from rulekit.tools.scenario.files import ruleset_for
from rulekit.tools.scenario.versions import FORMAT, FORMAT_REWRITES, declared_version

#: Top-level keys whose values are prose or names, never DSL: left alone.
_NOT_DSL = ("scenario", "cite", "doc", "ruleset", "modules", "variants")


@define
class Rewritten:
    """A scenario file's text rewritten for today, and what changed."""

    text: str
    data: LocDict
    format: int
    rules_version: int
    migrations: RulesetMigrations
    changes: list[str] = field(factory=list)

    @property
    def old(self) -> bool:
        return self.format < FORMAT or self.rules_version < self.migrations.version


def read(text: str, name: str) -> LocDict:
    """A scenario file's located data (a mapping), or a located error."""
    data = load_text(text, name)
    if not isinstance(data, LocDict):
        raise RulesetError(
            Diagnostic(
                "a scenario file is a mapping (scenario:, actions:, expect: ...)",
                span_of(data, Span(name, 1, 1)),
            )
        )
    return data


def rewrite(
    text: str,
    path: Path,
    *,
    ruleset: str | None = None,
    header: bool = False,
    data: LocDict | None = None,
) -> Rewritten:
    """``text`` (the file at ``path``; ``data``: it parsed, when the caller has it) with its DSL
    rewritten for today's format and rules version; with ``header``, also its ``format:`` (and
    ``rules_version:``) lines set to today's."""
    name = str(path)
    if data is None:
        data = read(text, name)
    start = Span(name, 1, 1)
    fmt = declared_version(
        data, "format", FORMAT, data.key_spans.get("format", start), "this rulekit's format"
    )
    migrations = _migrations(path, data, ruleset)
    rules_version = declared_version(
        data,
        "rules_version",
        migrations.version,
        data.key_spans.get("rules_version", start),
        "the ruleset's data encoding version",
    )
    result = Rewritten(text, data, fmt, rules_version, migrations)
    steps: list[tuple[str, tuple[Rewrite, ...]]] = []
    for version in range(fmt, FORMAT):
        steps.append((f"format {version} -> {version + 1}", FORMAT_REWRITES.get(version, ())))
    for migration in migrations.after(rules_version):
        steps.append((f"rules_version {migration.to - 1} -> {migration.to}", migration.rewrites))
    lines = text.split("\n")
    dsl = _dsl_lines(data, lines)
    for title, rewrites in steps:
        for rule in rewrites:
            changed = []
            for index in dsl:
                new = rule.apply(lines[index])
                if new != lines[index]:
                    lines[index] = new
                    changed.append(index + 1)
            if changed:
                where = ", ".join(str(n) for n in changed)
                result.changes.append(
                    f"{title}: {rule.doc or rule.replace} (line{'s' * (len(changed) > 1)} {where})"
                )
    if header:
        wanted = {"format": FORMAT}
        if migrations.version > 1 or "rules_version" in data:
            wanted["rules_version"] = migrations.version
        current = {"format": fmt, "rules_version": rules_version}
        inserted = []
        for key, value in wanted.items():
            if key in data:
                if current[key] != value:
                    row = data.key_spans[key].line - 1
                    lines[row] = re.sub(rf"^{key}\s*:\s*[^#]*?(\s*(#.*)?)$", rf"{key}: {value}\1", lines[row])
                    result.changes.append(f"{key}: {current[key]} -> {value}")
            else:
                inserted.append(f"{key}: {value}")
                result.changes.append(f"{key}: {value} added (the file had none: {key} 1)")
        if inserted:
            lines[_insert_at(data, lines) : _insert_at(data, lines)] = inserted
    result.text = "\n".join(lines)
    return result


def insert_lines(text: str, extra: list[str]) -> str:
    """``text`` with top-level ``extra`` lines inserted after the ``scenario:`` entry."""
    data = read(text, "<upgrade>")
    lines = text.split("\n")
    at = _insert_at(data, lines)
    lines[at:at] = extra
    return "\n".join(lines)


def _insert_at(data: LocDict, lines: list[str]) -> int:
    """The index of the line new top-level keys go before: after the ``scenario:`` entry (and
    ``format:`` when there is one), else at the end."""
    rows = sorted(span.line for span in data.key_spans.values())
    after = max(
        (data.key_spans[k].line for k in ("scenario", "format", "rules_version") if k in data.key_spans),
        default=0,
    )
    later = [row for row in rows if row > after]
    if later:
        return later[0] - 1
    return len(lines) - 1 if lines and lines[-1] == "" else len(lines)


def _dsl_lines(data: LocDict, lines: list[str]) -> list[int]:
    """The 0-based indices of the lines that may hold DSL: those of the top-level entries other
    than :data:`_NOT_DSL`, without comment lines."""
    count = len(lines)
    starts = sorted((span.line - 1, str(key)) for key, span in data.key_spans.items())
    found: list[int] = []
    for position, (row, key) in enumerate(starts):
        end = starts[position + 1][0] if position + 1 < len(starts) else count
        if key in _NOT_DSL:
            continue
        found.extend(i for i in range(row, end) if not lines[i].lstrip().startswith("#"))
    return found


def _migrations(path: Path, data: Any, ruleset: str | None) -> RulesetMigrations:
    """The migrations of the ruleset the scenario runs against (none when it cannot be found:
    loading the ruleset reports that, at the scenario's ``ruleset:``)."""
    try:
        directory = find_ruleset(ruleset_for(path, data.get("ruleset"), default=ruleset))
    except RulesetError:
        return NONE
    return load_migrations(directory)
