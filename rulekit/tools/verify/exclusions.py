"""A ruleset's equivalent mutants: ``mutants.yaml`` next to its ``ruleset.yaml``.

``verify --mutants`` leaves the mutants declared here out of the score: changes that mean the
same rules (drawing 2 from a pile that never holds more than 1), which nothing can kill. Each
entry names the mutant as the report prints it -- ``at:`` its ``file:line:col`` (the file
relative to the ruleset's directory) and ``change:`` its description -- and says why.
"""

from __future__ import annotations

from pathlib import Path

from attrs import define

from rulekit.errors import DiagnosticBag, Span
from rulekit.rules.shapes import Key, ListOf, Table, Text
from rulekit.rules.structure import Structurer
from rulekit.rules.yaml_source import LocDict, load_file, span_of

#: The file of a ruleset that declares its equivalent mutants.
EXCLUSIONS = "mutants.yaml"

EQUIVALENT = Table(
    "equivalent mutant",
    (
        Key(
            "at",
            Text(300),
            "Where: FILE:LINE:COL, the file relative to the ruleset's directory.",
            required=True,
        ),
        Key(
            "change", Text(300), "The mutation as verify --mutants prints it (e.g. '1 -> 2').", required=True
        ),
        Key("reason", Text(), "Why it means the same rules.", required=True),
    ),
    "A mutant that cannot be killed because it means the same rules.",
)
MUTANTS = Table(
    "mutants file",
    (Key("equivalent", ListOf(EQUIVALENT), "The ruleset's equivalent mutants.", required=True),),
    "A ruleset's equivalent mutants, left out of verify --mutants' score.",
)


@define
class Exclusion:
    """A mutant declared equivalent."""

    at: str
    change: str
    reason: str
    span: Span | None = None
    used: bool = False


def load_exclusions(directory: Path) -> list[Exclusion]:
    """The equivalent mutants ``directory/mutants.yaml`` declares (none without the file).

    Raises:
        RulesetError: the file is malformed (every problem at its position).
    """
    path = directory / EXCLUSIONS
    if not path.is_file():
        return []
    data = load_file(path)
    bag = DiagnosticBag()
    start = span_of(data) or Span(str(path), 1, 1)
    Structurer(bag).value(MUTANTS, data, start, "")
    entries = data.get("equivalent") if isinstance(data, LocDict) else None
    if isinstance(entries, list):
        for entry in entries:
            if isinstance(entry, LocDict) and any(
                not str(entry.get(k, "x")).strip() for k in ("at", "change")
            ):
                bag.error("'at:' and 'change:' must not be empty", span_of(entry, start))
    bag.raise_if_any()
    assert isinstance(data, LocDict)
    return [
        Exclusion(str(entry["at"]), str(entry["change"]), str(entry["reason"]), span_of(entry, start))
        for entry in data.get("equivalent") or []
    ]
