"""``rulekit check --format json|sarif``: the diagnostics for machines, valid against their schemas."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest

from rulekit.cli import main
from tests.tools.conftest import TINY

ROOT = Path(__file__).resolve().parents[2]
CHECK_SCHEMA = json.loads((ROOT / "rulekit/schema/check.schema.json").read_text(encoding="utf-8"))
SARIF_SCHEMA = json.loads((ROOT / "tests/data/sarif-2.1.0-subset.schema.json").read_text(encoding="utf-8"))

#: Two mistakes: a Python literal and a misspelled name.
BROKEN = TINY.replace('"me.coins >= amount"', '"me.coins >= amount or False"').replace(
    "transfer(amount, me, bank)", "transfer(amount, me, bnak)"
)


def _position(word: str) -> tuple[int, int]:
    """Where ``word`` first occurs in BROKEN (line, column, from 1)."""
    for number, line in enumerate(BROKEN.split("\n"), 1):
        if word in line:
            return number, line.index(word) + 1
    raise AssertionError(word)


LITERAL_AT = _position("False")
NAME_AT = _position("bnak")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def broken(write_ruleset: Callable[..., Path]) -> Path:
    return write_ruleset(BROKEN, name="broken")


def _validate(schema: dict[str, Any], document: Any, draft: type[Any]) -> None:
    errors = [e.message for e in draft(schema, format_checker=draft.FORMAT_CHECKER).iter_errors(document)]
    assert errors == []


def test_json_lists_each_diagnostic_with_its_position_and_hint(
    capsys: pytest.CaptureFixture[str], broken: Path
) -> None:
    status, out, err = _run(capsys, "check", str(broken), "--format", "json")
    assert status == 1 and err == ""
    document = json.loads(out)
    _validate(CHECK_SCHEMA, document, jsonschema.Draft202012Validator)
    assert document["ok"] is False and document["fingerprint"] is None
    file = str(broken / "ruleset.yaml")
    literal, name = document["diagnostics"]
    assert literal == {
        "file": file,
        "line": LITERAL_AT[0],
        "column": LITERAL_AT[1],
        "end": {"line": LITERAL_AT[0], "column": LITERAL_AT[1] + len("False")},
        "severity": "error",
        "message": "unknown name 'False'",
        "hint": "write 'false' (the DSL's literals are lower case)",
        "expected": [],
    }
    assert (name["file"], name["line"], name["column"], name["message"]) == (
        file,
        *NAME_AT,
        "unknown name 'bnak'",
    )
    assert name["hint"] == "did you mean 'bank'?"


def test_json_of_a_sound_ruleset_is_ok_with_no_diagnostics(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "check", "tic_tac_toe", "--format", "json")
    assert status == 0
    document = json.loads(out)
    _validate(CHECK_SCHEMA, document, jsonschema.Draft202012Validator)
    assert document["ok"] is True
    assert document["diagnostics"] == []
    assert len(document["fingerprint"]) == 16


def test_json_of_a_missing_ruleset_has_a_diagnostic_without_position(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = _run(capsys, "check", str(tmp_path / "nowhere"), "--format", "json")
    assert status == 1
    document = json.loads(out)
    _validate(CHECK_SCHEMA, document, jsonschema.Draft202012Validator)
    assert len(document["diagnostics"]) == 1
    assert document["diagnostics"][0]["severity"] == "error"


def test_sarif_is_a_sarif_2_1_0_log_with_one_result_per_diagnostic(
    capsys: pytest.CaptureFixture[str], broken: Path
) -> None:
    status, out, err = _run(capsys, "check", str(broken), "--format", "sarif")
    assert status == 1 and err == ""
    log = json.loads(out)
    _validate(SARIF_SCHEMA, log, jsonschema.Draft7Validator)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "rulekit"
    rule_ids = {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    literal, name = run["results"]
    assert {literal["ruleId"], name["ruleId"]} <= rule_ids
    assert literal["level"] == "error"
    assert literal["message"]["text"] == (
        "unknown name 'False'\nhint: write 'false' (the DSL's literals are lower case)"
    )
    (location,) = literal["locations"]
    uri = location["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file://")
    assert Path(unquote(uri.removeprefix("file://"))) == broken / "ruleset.yaml"
    assert location["physicalLocation"]["region"] == {
        "startLine": LITERAL_AT[0],
        "startColumn": LITERAL_AT[1],
        "endLine": LITERAL_AT[0],
        "endColumn": LITERAL_AT[1] + len("False"),
    }
    assert name["locations"][0]["physicalLocation"]["region"]["startLine"] == NAME_AT[0]


def test_sarif_of_a_sound_ruleset_has_no_results(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "check", "pig", "--format", "sarif")
    assert status == 0
    log = json.loads(out)
    _validate(SARIF_SCHEMA, log, jsonschema.Draft7Validator)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"


def test_format_is_refused_with_all_combinations(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "check", "pig", "--all-combinations", "--format", "json")
    assert status == 2
    assert out == ""
    assert "--format" in err
