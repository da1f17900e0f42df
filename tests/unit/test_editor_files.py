"""The VS Code extension in editors/vscode/ starts `rulekit lsp` and maps the shipped schemas."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"


def test_the_vscode_extension_maps_each_kind_of_file_to_a_shipped_schema() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    mapped = {Path(entry["url"]).name for entry in manifest["contributes"]["yamlValidation"]}
    assert mapped == {f"{kind}.schema.json" for kind in ("ruleset", "module", "variant", "scenario")}
    assert all((ROOT / "rulekit" / "schema" / name).is_file() for name in mapped)
    assert (EXTENSION / manifest["main"]).is_file()
    assert "vscode-languageclient" in manifest["dependencies"]


def test_the_vscode_extension_starts_the_configured_command_which_is_rulekit_lsp() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    command = manifest["contributes"]["configuration"]["properties"]["rulekit.command"]["default"]
    script = (EXTENSION / "extension.js").read_text(encoding="utf-8")
    assert command == ["rulekit", "lsp"]
    assert 'getConfiguration("rulekit").get("command")' in script
