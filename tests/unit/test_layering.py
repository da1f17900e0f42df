"""Packages import in one direction only: dsl -> rules -> compiler/runtime -> engine -> tools/cli."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "rulekit"
_CORE = {"errors", "cachedir", "dsl", "rules", "runtime", "compiler", "engine"}
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "cachedir": set(),
    "limits": set(),
    "dsl": {"errors", "cachedir"},
    "rules": {"errors", "dsl"},
    "runtime": {"errors", "dsl"},
    "compiler": {"errors", "cachedir", "dsl", "rules", "runtime"},
    "engine": {"errors", "dsl", "rules", "runtime", "compiler"},
    "load": _CORE,
    "tools": {*_CORE, "load", "tools", "schema"},
    "cli": {*_CORE, "load", "tools", "schema"},
    "__main__": {"cli"},
    # The optional integrations (extras) sit on the front door; the core never imports them.
    "openspiel": {*_CORE, "load"},
    "pettingzoo": {*_CORE, "load", "tools"},
    "__init__": {*_CORE, "load"},
}
MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def _layer(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names if node.module == "rulekit")
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_imports_only_lower_layers(path: Path) -> None:
    """A module imports rulekit packages of its own layer or the layers below it."""
    layer = _layer(path)
    allowed = ALLOWED.get(layer, _CORE) | {layer} | ({"limits"} if layer != "limits" else set())
    wrong = []
    for name in _imports(path):
        parts = name.split(".")
        if parts[0] != "rulekit" or len(parts) < 2:
            continue
        if parts[1] not in allowed:
            wrong.append(name)
    assert wrong == [], f"{path.name} ({layer}) may import only {sorted(allowed)}"


@pytest.mark.parametrize(
    ("library", "owner"),
    [("lark", "dsl/parser.py"), ("yaml", "rules/yaml_source.py")],
)
def test_only_one_module_imports_each_parsing_library(library: str, owner: str) -> None:
    """lark is imported only by the DSL parser and yaml only by the YAML source reader."""
    importers = sorted(
        str(path.relative_to(PACKAGE))
        for path in MODULES
        if any(name == library or name.startswith(library + ".") for name in _imports(path))
    )
    assert importers == [owner]


_OPTIONAL = ("pyspiel", "open_spiel", "pettingzoo", "gymnasium", "numpy")


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if _layer(p) in _CORE | {"load"}],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_core_never_imports_an_optional_integration(path: Path) -> None:
    """OpenSpiel, PettingZoo and their libraries are extras: the core runs without them."""
    found = [n for n in _imports(path) if n.split(".")[0] in _OPTIONAL]
    assert found == [], f"{path.name} imports {found}"
