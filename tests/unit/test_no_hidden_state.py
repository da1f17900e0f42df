"""No hidden state in the engine, the runtime and the compiler: what is remembered between
calls lives on the program or the game (made and dropped with it), never in a module global;
and the compiler's modules depend on each other without a cycle, even through an import
inside a function."""

from __future__ import annotations

import ast
import collections
import importlib
import pkgutil
import weakref
from pathlib import Path

import pytest

from rulekit.engine.game import Game
from rulekit.load import load_program
from tests.unit.test_layering import import_cycles

ROOT = Path(__file__).resolve().parents[2] / "rulekit"
PACKAGES = ("rulekit.engine", "rulekit.runtime", "rulekit.compiler")
_MUTABLE = (
    dict,
    list,
    set,
    bytearray,
    collections.deque,
    weakref.WeakKeyDictionary,
    weakref.WeakValueDictionary,
)
#: Tables filled once when their module is imported and only read afterwards (registries of
#: the built-ins and aggregates, fixed lookup tables), each with where it is written.
_TABLES = {
    "BUILTINS",  # rulekit.runtime.registry.register, at import
    "AGGREGATES",  # rulekit.compiler.codegen_support, a literal
    "SAFE_BUILTINS",  # rulekit.compiler.namespace, a literal
    "DIRECTIONS",  # rulekit.runtime.geometry, a literal
    "ARITH",  # rulekit.compiler.codegen_support, a literal
    "COMPARE",  # rulekit.compiler.codegen_support, a literal
    "_CHECKS",  # rulekit.compiler.emit, a literal
}


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        names.append(package)
        names.extend(info.name for info in pkgutil.walk_packages(module.__path__, package + "."))
    return names


@pytest.mark.parametrize("module_name", _modules())
def test_no_module_of_the_engine_runtime_or_compiler_keeps_a_mutable_cache(module_name: str) -> None:
    module = importlib.import_module(module_name)
    found = sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("__") and isinstance(value, _MUTABLE) and name not in _TABLES
    )
    assert found == [], f"{module_name} keeps {found} at module level: keep it on the program or the game"


def test_each_program_has_a_memory_of_its_own_that_its_games_use() -> None:
    one, other = load_program("tic_tac_toe"), load_program("connect_four")
    assert one.memory is not other.memory
    game = Game(one, 2)
    assert game.memory is one.memory
    before = dict(other.memory.sizes.fields)  # (other tests may have played it already)
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert one.memory.sizes.fields  # measuring one game's state used its program's memory...
    assert other.memory.sizes.fields == before  # ...and left the other's alone


def _all_imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` imports anywhere (inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in modules}


def test_the_compilers_modules_need_each_other_in_no_cycle_even_through_lazy_imports() -> None:
    directory = ROOT / "compiler"
    modules = {f"rulekit.compiler.{p.stem}": p for p in directory.glob("*.py") if p.stem != "__init__"}
    graph = {name: _all_imports(path, set(modules)) - {name} for name, path in modules.items()}
    assert import_cycles(graph) == []


def _private_reads(path: Path) -> list[str]:
    """``x._name`` where ``x`` is not ``self``/``cls`` and ``_name`` is no attribute or
    method this module defines: another module's private attribute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                own.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            own.add(node.value)  # (a name in __slots__)
    return [
        f"{path.relative_to(ROOT.parent)}:{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and node.attr not in own
        and node.attr != "_fields"  # (the ast module's public field list)
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]


def test_no_module_of_the_engine_runtime_or_compiler_reads_another_modules_private_attributes() -> None:
    found = [
        read
        for package in ("engine", "runtime", "compiler")
        for path in sorted((ROOT / package).rglob("*.py"))
        for read in _private_reads(path)
    ]
    assert found == []


def test_the_compiler_reads_no_text_with_regular_expressions() -> None:
    """The compiler works on facts (rulekit.compiler.facts) and syntax trees, never on its own
    output text matched by regular expressions."""
    users = [
        path.name
        for path in sorted((ROOT / "compiler").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.Import) and any(a.name == "re" for a in node.names))
        or (isinstance(node, ast.ImportFrom) and node.module == "re")
    ]
    assert users == []


def _text_tests(path: Path) -> list[str]:
    """Where ``path`` tests generated text: a comparison with text it builds
    (``line == f"{_INDENT}..."``) or ``.startswith``/``.endswith``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        sides = [node.left, *node.comparators] if isinstance(node, ast.Compare) else []
        built = any(isinstance(part, ast.JoinedStr) for side in sides for part in ast.walk(side))
        if built or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
        ):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_planner_and_the_decision_fusion_match_no_generated_line_against_text() -> None:
    """What a generated enumerator's lines are (its exits, where ``add`` is bound, whether it
    ends with the candidates check, each line's depth and span marker) is recorded where the
    planner writes them (planner.Enumerator, planner_reads.Line), never found again by
    looking at the text's indentation or comments."""
    found = [
        test
        for name in ("planner.py", "planner_decisions.py", "planner_reads.py")
        for test in _text_tests(ROOT / "compiler" / name)
    ]
    assert found == []
