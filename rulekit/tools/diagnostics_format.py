"""``rulekit check --format json|sarif``: a check's diagnostics for machines.

``json`` follows ``rulekit/schema/check.schema.json``; ``sarif`` is a SARIF 2.1.0 log (one run,
one result per diagnostic), for CI code scanning.  Columns are counted in characters (Unicode
code points) from 1, as in the text output; an end is the position just after the region.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from rulekit.errors import Diagnostic

#: The format of ``--format json``'s output (its schema's ``version``).
JSON_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: The one rule of the SARIF log: every problem ``rulekit check`` reports.
RULE_ID = "rulekit-check"


def _location(diagnostic: Diagnostic) -> dict[str, Any]:
    span = diagnostic.span
    if span is None:
        return {"file": None, "line": None, "column": None, "end": None}
    end = {"line": span.end_line, "column": span.end_column} if span.end_line > 0 else None
    return {"file": span.file, "line": span.line, "column": span.column, "end": end}


def check_json(ruleset: str, diagnostics: Sequence[Diagnostic], fingerprint: str | None = None) -> str:
    """The ``--format json`` document: the ruleset, whether it passed, each diagnostic."""
    document = {
        "version": JSON_VERSION,
        "tool": "rulekit",
        "ruleset": ruleset,
        "ok": not any(d.severity == "error" for d in diagnostics),
        "fingerprint": fingerprint,
        "diagnostics": [
            {
                **_location(d),
                "severity": _level(d.severity),
                "message": d.message,
                "hint": d.hint,
                "expected": list(d.expected),
            }
            for d in diagnostics
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _uri(file: str) -> str:
    path = PurePath(file)
    if path.is_absolute():
        return "file://" + quote(path.as_posix())
    return quote(path.as_posix())


def _level(severity: str) -> str:
    return severity if severity in ("error", "warning") else "note"


def _result(diagnostic: Diagnostic) -> dict[str, Any]:
    text = diagnostic.message + (f"\nhint: {diagnostic.hint}" if diagnostic.hint else "")
    result: dict[str, Any] = {
        "ruleId": RULE_ID,
        "level": _level(diagnostic.severity),
        "message": {"text": text},
    }
    span = diagnostic.span
    if span is not None:
        region = {"startLine": span.line, "startColumn": span.column}
        if span.end_line > 0:
            region.update(endLine=span.end_line, endColumn=max(span.end_column, 1))
        result["locations"] = [
            {"physicalLocation": {"artifactLocation": {"uri": _uri(span.file)}, "region": region}}
        ]
    result["properties"] = {"hint": diagnostic.hint, "expected": list(diagnostic.expected)}
    return result


def check_sarif(diagnostics: Sequence[Diagnostic], version: str) -> str:
    """The ``--format sarif`` document: a SARIF 2.1.0 log of one run of ``rulekit check``."""
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "rulekit",
                        "version": version,
                        "rules": [
                            {
                                "id": RULE_ID,
                                "shortDescription": {"text": "A problem found by rulekit check"},
                            }
                        ],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_result(d) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)
