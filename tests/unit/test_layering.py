"""Packages import in one direction only: dsl -> rules -> compiler/runtime -> engine -> tools/cli.

Within a layer, modules import each other without cycles: a module-level import cycle makes
the result depend on which module happens to be imported first (a half-initialised module, a
name that is not defined yet).  Two kinds of import are not edges of that graph, by choice:

* imports under ``if TYPE_CHECKING:`` never run;
* imports inside a function run when it is called, after both modules have loaded; they
  are how the CLI and the tools load optional integrations and heavy commands lazily.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
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
    "lsp": {*_CORE, "load", "tools", "lsp"},
    "cli": {*_CORE, "load", "tools", "schema", "lsp"},
    "__main__": {"cli"},
    # The optional integrations (extras) sit on the front door; the core never imports them.
    "openspiel": {*_CORE, "load"},
    "pettingzoo": {*_CORE, "load", "tools", "pettingzoo_parallel"},
    "pettingzoo_parallel": {*_CORE, "load", "tools"},
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


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_level_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports run when the module is loaded: not in functions, not under TYPE_CHECKING."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _module_level_imports(node.orelse)
        else:
            for child in ("body", "orelse", "finalbody", "handlers", "cases"):
                block = getattr(node, child, None)
                if isinstance(block, list):
                    yield from _module_level_imports(block)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Which modules of the package at ``root`` each of its modules imports at module level.

    ``from pkg import name`` is an edge to the submodule ``pkg.name`` when there is one, else
    to the package ``pkg`` itself (its ``__init__``).
    """
    modules = {_module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in _module_level_imports(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif node.module and node.level == 0:
                targets = [
                    f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                    for alias in node.names
                ]
            else:
                targets = []
            graph[name].update(target for target in targets if target in modules and target != name)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every set of modules that import each other (strongly connected, more than one), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = [stack.pop()]
            while component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def test_no_module_level_import_cycle() -> None:
    """No two rulekit modules import each other, directly or around a loop, when loaded."""
    assert import_cycles(import_graph(PACKAGE)) == []


def _plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_planted_cycle_is_found(tmp_path: Path) -> None:
    """A loop through three modules, one of them a package's __init__, is reported."""
    pkg = _plant(
        tmp_path,
        {
            "__init__.py": "from pkg.a import run\n",
            "a.py": "import pkg.b\n\ndef run(): ...\n",
            "b.py": "try:\n    from pkg import run\nexcept ImportError:\n    run = None\n",
            "c.py": "from pkg import a\n",
        },
    )
    assert import_cycles(import_graph(pkg)) == [["pkg", "pkg.a", "pkg.b"]]


def test_imports_in_functions_and_type_checking_blocks_close_no_cycle(tmp_path: Path) -> None:
    """Lazy imports and imports for annotations do not run at load time, so they are allowed."""
    pkg = _plant(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "import pkg.b\n",
            "b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from pkg.a import X\n"
                "def f():\n    from pkg import a\n    return a\n"
            ),
        },
    )
    assert import_graph(pkg) == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": set()}
    assert import_cycles(import_graph(pkg)) == []


# Private names still imported across modules, owned by helpers reworking those modules.
_KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()


def test_no_module_imports_a_private_name_of_another() -> None:
    """What two modules share is public: a ``_name`` is its own module's business.

    (A function-level import of a private name is how the last engine cycle hid.)
    """
    found = {
        (str(path.relative_to(PACKAGE)), node.module, alias.name)
        for path in MODULES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rulekit")
        for alias in node.names
        if alias.name.startswith("_")
    }
    assert found - _KNOWN_PRIVATE_IMPORTS == set()


@pytest.mark.parametrize(
    ("library", "owners"),
    [("lark", ["dsl/parser.py", "dsl/transform.py"]), ("yaml", ["rules/yaml_source.py"])],
)
def test_only_its_owners_import_each_parsing_library(library: str, owners: list[str]) -> None:
    """lark is imported only by the DSL parser and its tree transformer, yaml only by the YAML reader."""
    importers = sorted(
        str(path.relative_to(PACKAGE))
        for path in MODULES
        if any(name == library or name.startswith(library + ".") for name in _imports(path))
    )
    assert importers == owners


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
