"""The shipped JSON Schemas are current and every shipped YAML file validates against its schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from rulekit.tools.schema import KINDS, build_schemas, render_schema, schema_path

ROOT = Path(__file__).resolve().parents[2]
RULESETS = ROOT / "rulesets"


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _includes(path: Path, data: Any) -> list[Path]:
    entries = data.get("include") if isinstance(data, dict) else None
    if isinstance(entries, str):
        entries = [entries]
    return [path.parent / str(e) for e in entries or ()]


def classify() -> dict[Path, str]:
    """Every YAML file under rulesets/ and the schema it must satisfy."""
    kinds: dict[Path, str] = {}
    files = sorted(RULESETS.rglob("*.yaml"))
    for path in files:
        data = _load(path)
        if path.name == "ruleset.yaml":
            kinds[path] = "ruleset"
        elif path.parent.name == "modules" and (path.parent.parent / "ruleset.yaml").is_file():
            kinds[path] = "module"
        elif isinstance(data, dict) and "variant" in data:
            kinds[path] = "variant"
        elif isinstance(data, dict) and "scenario" in data:
            kinds[path] = "scenario"
        elif path.name == "migrations.yaml" and (path.parent / "ruleset.yaml").is_file():
            kinds[path] = "migrations"
        elif path.name == "mutants.yaml" and (path.parent / "ruleset.yaml").is_file():
            kinds[path] = "mutants"
        else:
            continue
        for included in _includes(path, data):
            kinds[included.resolve()] = "sections"
    resolved = {p.resolve(): k for p, k in kinds.items()}
    return {p: resolved.get(p.resolve(), "unknown") for p in files}


FILES = classify()


@pytest.mark.parametrize("kind", KINDS)
def test_shipped_schema_is_current(kind: str) -> None:
    """rulekit/schema/*.json are generated: run `python -m rulekit.tools.schema` after changing keys."""
    assert schema_path(kind).read_text(encoding="utf-8") == render_schema(build_schemas()[kind])


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_valid_draft_2020_12(kind: str) -> None:
    schema = json.loads(schema_path(kind).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", sorted(FILES), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_yaml_file_validates(path: Path) -> None:
    kind = FILES[path]
    assert kind != "unknown", (
        f"{path}: not a ruleset, module, variant, scenario, migrations, mutants or included sections file"
    )
    schema = json.loads(schema_path(kind).read_text(encoding="utf-8"))
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(_load(path)), key=lambda e: list(e.absolute_path)
    )
    assert not errors, "\n".join(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])


def _errors(kind: str, data: Any) -> list[str]:
    schema = json.loads(schema_path(kind).read_text(encoding="utf-8"))
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]


def test_variant_schema_rejects_unknown_keys_and_bad_paths() -> None:
    head = {"variant": "v", "ruleset": "r"}
    assert _errors("variant", {**head, "sett": {}})
    assert _errors("variant", {**head, "set": {"START_MONEY": 30}})
    assert _errors("variant", {**head, "add": {"flow": []}})
    assert _errors("variant", {"variant": "v", "set": {"constants.START_MONEY": 30}})
    assert not _errors("variant", {**head, "set": {"constants.START_MONEY": 30}, "remove": ["triggers.x"]})


def test_ruleset_schema_is_strict_on_keys_but_not_on_dsl() -> None:
    assert _errors("ruleset", {"ruleset": "r", "action": {}})
    assert _errors("ruleset", {"ruleset": "r", "actions": {"a": {"efect": "pass"}}})
    assert not _errors(
        "ruleset",
        {
            "ruleset": "r",
            "actions": {"a": {"effect": "x.y = 1", "cost": 3, "params": {"c": "[c for c in cs]"}}},
        },
    )
