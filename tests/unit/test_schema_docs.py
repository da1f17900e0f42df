"""docs/rules-format.md's key tables name exactly the keys rules/schema.py declares, and the JSON
Schemas and the loader agree about values."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import yaml

from rulekit.errors import RulesetError
from rulekit.load import load_program
from rulekit.rules import schema
from rulekit.tools.schema import schema_path

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules-format.md"


def _first_column(heading: str) -> str:
    """The first column of the first table under ``heading``, all rows joined."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return " ".join(row.split("|")[1] for row in rows)


def _table_keys(heading: str) -> set[str]:
    """The backquoted keys of the first column of the first table under ``heading``."""
    return set(re.findall(r"`([a-z_]+)`", _first_column(heading)))


@pytest.mark.parametrize(
    ("heading", "table"),
    [
        ("## Top-level keys of `ruleset.yaml`", schema.RULESET),
        ("## `state`", schema.FIELD),
        ("## `actions`", schema.ACTION),
    ],
)
def test_the_key_tables_of_the_docs_match_the_schema(heading: str, table: schema.Table) -> None:
    """A key added to the schema must be documented (and a documented key must exist)."""
    assert _table_keys(heading) == set(table.names)


def test_the_flow_table_of_the_docs_names_every_step_and_its_keys() -> None:
    """Each flow step and each key of a step appears in the docs' table of steps."""
    documented = set(re.findall(r"([a-z_]+):", _first_column("## `flow`")))
    declared = set(schema.FLOW_STEP.tags)
    for tag, table in schema.FLOW_STEP.tables:
        inner = schema.table_of(table.key(tag).shape)  # type: ignore[union-attr]
        declared |= set(table.names) | (set(inner.names) if inner is not None else set())
    assert declared == documented


BAD = {
    "a quoted flag": ("go: {ends_turn: true}", 'go: {ends_turn: "false"}'),
    "an unknown visibility": ("n: {type: int}", "n: {type: int, visibility: secret}"),
    "a bound out of range": ("flow:", "spaces: {bound: 1001}\nflow:"),
    "an unknown action key": ("go: {ends_turn: true}", "go: {ends_turn: true, efect: pass}"),
    "a turn that is not a mapping or text": ("- turn: player_at(1)", "- turn: [1]"),
}
MINIMAL = """\
ruleset: m
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
actions:
  go: {ends_turn: true}
flow:
  - turn: player_at(1)
"""


@pytest.mark.parametrize("case", sorted(BAD))
def test_the_json_schema_and_the_loader_refuse_the_same_mistakes(
    write_ruleset: Callable[..., Path], case: str
) -> None:
    """What the editor's JSON Schema refuses, check refuses too (and the good file passes both)."""
    validator = jsonschema.Draft202012Validator(
        json.loads(schema_path("ruleset").read_text(encoding="utf-8"))
    )
    assert not list(validator.iter_errors(yaml.safe_load(MINIMAL)))
    old, new = BAD[case]
    text = MINIMAL.replace(old, new, 1)
    assert list(validator.iter_errors(yaml.safe_load(text)))
    with pytest.raises(RulesetError):
        load_program(str(write_ruleset(text)))


def test_the_json_schema_and_the_loader_accept_a_number_as_text(write_ruleset: Callable[..., Path]) -> None:
    """``cite: 4.3`` is a citation for both."""
    validator = jsonschema.Draft202012Validator(
        json.loads(schema_path("ruleset").read_text(encoding="utf-8"))
    )
    text = MINIMAL.replace("go: {ends_turn: true}", "go: {ends_turn: true, cite: 4.3}")
    assert not list(validator.iter_errors(yaml.safe_load(text)))
    assert load_program(str(write_ruleset(text))).rules.actions["go"].cite == "4.3"
