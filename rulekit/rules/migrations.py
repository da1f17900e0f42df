"""A ruleset's data migrations: how scenario files written for an older encoding of its data
are rewritten for the current one (``migrations.yaml`` in the ruleset's directory).

A ruleset that changes its data encoding (a field's type, a function's name) raises its
``version`` and adds a migration ``to:`` that version: DSL text rewrites applied, line by line,
to the DSL of scenario files whose ``rules_version`` is older.  A rewrite is a template, not a
regular expression: ``find: "let {v} = player_at({n})"`` with ``replace:
"let {v} = main_warehouse(player_at({n}))"``; a ``{name}`` matches a name, a number or a dotted
path, perhaps with simple arguments (``player_at(2)``).  ``lines_with:`` limits it to lines
containing one of some texts, ``not_after:`` skips matches right after a text.  Templates
compile to patterns without nested repetition, so a hostile file cannot make matching slow.
docs/authoring.md describes the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.errors import DiagnosticBag, Span
from rulekit.rules.shapes import Int, Key, ListOf, Table, Text
from rulekit.rules.structure import Structurer
from rulekit.rules.yaml_source import LocDict, load_file, span_of

#: The file a ruleset's migrations are in, next to its ruleset.yaml.
MIGRATIONS_FILE = "migrations.yaml"

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_WORD = re.compile(r"[A-Za-z0-9_]")
#: What a ``{name}`` matches: a name, a number or a dotted path, perhaps called with simple
#: arguments (``player_at(2)``, ``f(a, b)``); no nested repetition, so matching stays linear.
_SLOT = r"[A-Za-z0-9_.]+(?:\([A-Za-z0-9_., ]*\))?"

REWRITE = Table(
    "rewrite",
    (
        Key(
            "find",
            Text(200),
            "The text to find; {name} matches a name, number or dotted path.",
            required=True,
        ),
        Key(
            "replace", Text(400), "What it becomes; {name} is what the find's {name} matched.", required=True
        ),
        Key("lines_with", ListOf(Text(100), one_ok=True), "Only on lines containing one of these texts."),
        Key("not_after", Text(50), "Not where the match directly follows this text."),
        Key("doc", Text(), "What the rewrite does, shown by rulekit upgrade."),
    ),
    "A DSL text rewrite.",
)
MIGRATION = Table(
    "migration",
    (
        Key("to", Int(2), "The version of the data encoding this migration produces.", required=True),
        Key("doc", Text(), "What changed in the encoding (and where: a commit, a date).", required=True),
        Key("rewrite", ListOf(REWRITE), "DSL rewrites, applied in order.", required=True),
    ),
    "The rewrites from the version before ``to`` to ``to``.",
)
MIGRATIONS = Table(
    "migrations file",
    (
        Key("version", Int(1), "The current version of the ruleset's data encoding.", required=True),
        Key("migrations", ListOf(MIGRATION), "One migration per version after the first."),
    ),
    "A ruleset's data encoding version and its migrations.",
)


@frozen
class Rewrite:
    """One DSL text rewrite (a compiled template)."""

    pattern: re.Pattern[str]
    replace: str
    lines_with: tuple[str, ...] = ()
    doc: str = ""

    def apply(self, line: str) -> str:
        """``line`` with every match rewritten (unchanged where ``lines_with`` does not hold)."""
        if self.lines_with and not any(text in line for text in self.lines_with):
            return line
        return self.pattern.sub(self._replacement, line)

    def _replacement(self, match: re.Match[str]) -> str:
        return _PLACEHOLDER.sub(lambda m: match.group(m.group(1)), self.replace)


@frozen
class Migration:
    """The rewrites from version ``to - 1`` to ``to``."""

    to: int
    doc: str
    rewrites: tuple[Rewrite, ...]


@frozen
class RulesetMigrations:
    """A ruleset's data encoding version and the migrations to it."""

    version: int
    migrations: tuple[Migration, ...] = ()

    def after(self, version: int) -> tuple[Migration, ...]:
        """The migrations a file written for ``version`` goes through, in order."""
        return tuple(m for m in self.migrations if m.to > version)


#: A ruleset without a migrations file: version 1, nothing to do.
NONE = RulesetMigrations(1)


def template_rewrite(
    find: str, replace: str, doc: str = "", *, lines_with: tuple[str, ...] = (), not_after: str = ""
) -> Rewrite:
    """A rewrite from a template (see the module's doc).

    Raises:
        ValueError: the template is malformed (the message says how).
    """
    if not find:
        raise ValueError("find is empty")
    names: list[str] = []
    parts: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(find):
        if names and not re.search(r"[^A-Za-z0-9_.]", find[position : match.start()]):
            raise ValueError(
                "two {names} must be parted by a character other than a letter, digit, _ or . "
                "(else they cannot be told apart quickly)"
            )
        parts.append(re.escape(find[position : match.start()]))
        name = match.group(1)
        if name in names:
            raise ValueError(f"{{{name}}} appears twice in find")
        names.append(name)
        parts.append(_SLOT_GROUP(name))
        position = match.end()
    parts.append(re.escape(find[position:]))
    unknown = sorted(set(_PLACEHOLDER.findall(replace)) - set(names))
    if unknown:
        raise ValueError(f"replace uses {{{unknown[0]}}}, which find does not have")
    pattern = "".join(parts)
    if _WORD.match(find[0]) or find.startswith("{"):
        pattern = r"(?<![A-Za-z0-9_.])" + pattern
    if _WORD.match(find[-1]) or find.endswith("}"):
        pattern += r"(?![A-Za-z0-9_])"
    if not_after:
        pattern = f"(?<!{re.escape(not_after)})" + pattern
    return Rewrite(re.compile(pattern), replace, tuple(lines_with), doc)


def _SLOT_GROUP(name: str) -> str:
    return f"(?P<{name}>{_SLOT})"


def load_migrations(ruleset_dir: Path) -> RulesetMigrations:
    """The migrations of the ruleset in ``ruleset_dir`` (none without a migrations file).

    Raises:
        RulesetError: the file is malformed (every problem at its position).
    """
    path = ruleset_dir / MIGRATIONS_FILE
    if not path.is_file():
        return NONE
    data = load_file(path)
    bag = DiagnosticBag()
    start = span_of(data) or Span(str(path), 1, 1)
    Structurer(bag).value(MIGRATIONS, data, start, "")
    bag.raise_if_any()
    assert isinstance(data, LocDict)
    version = int(data["version"])
    migrations: list[Migration] = []
    last = 1
    for entry in data.get("migrations") or []:
        to = int(entry["to"])
        where = entry.key_spans.get("to") or start
        if to != last + 1 or to > version:
            bag.error(f"migration to {to}: migrations go one version up at a time, up to {version}", where)
        last = to
        rewrites = []
        for item in entry["rewrite"]:
            try:
                rewrites.append(
                    template_rewrite(
                        str(item["find"]),
                        str(item["replace"]),
                        str(item.get("doc", "")),
                        lines_with=tuple(str(t) for t in _as_list(item.get("lines_with"))),
                        not_after=str(item.get("not_after", "")),
                    )
                )
            except ValueError as error:
                bag.error(f"rewrite: {error}", span_of(item.get("find")) or start)
        migrations.append(Migration(to, str(entry["doc"]), tuple(rewrites)))
    if last != version:
        bag.error(f"version {version} needs a migration to each version from 2 to {version}", start)
    bag.raise_if_any()
    return RulesetMigrations(version, tuple(migrations))


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]
