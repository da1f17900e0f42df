"""Procedures: named, parameterised effect blocks, called as statements.

``payday(city)`` in an effect runs the procedure's block with ``city`` bound, the
caller's ``me`` and the same state.  Procedures may call procedures, never in a
cycle (checked), so every effect still terminates.  Each compiles to one Python
function ``pr_<name>(F, R, me, *params)`` next to the ruleset's other code.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from rulekit.compiler import callgraph, emit
from rulekit.compiler.codegen import CodeGen, Context
from rulekit.compiler.facts import Facts
from rulekit.dsl import ast
from rulekit.dsl.types import Type
from rulekit.errors import DiagnosticBag
from rulekit.rules.model import ProcedureDecl
from rulekit.runtime.builtins import BUILTINS

Procedure = ProcedureDecl


def code_name(name: str) -> str:
    """The Python name of a procedure's function."""
    return emit.name("pr_", name)


def calls(block: ast.Block | tuple[ast.Stmt, ...], procedures: Mapping[str, Any]) -> set[str]:
    """Names of the procedures a block calls (in any nested if or for)."""
    return {s.call.function for s in _statements(block) if s.call.function in procedures}


def _statements(block: ast.Block | tuple[ast.Stmt, ...]) -> Iterator[ast.CallStatement]:
    statements = block.statements if isinstance(block, ast.Block) else block
    for stmt in statements:
        if isinstance(stmt, ast.CallStatement):
            yield stmt
        elif isinstance(stmt, ast.If):
            for _, body in stmt.branches:
                yield from _statements(body)
            yield from _statements(stmt.otherwise)
        elif isinstance(stmt, ast.For):
            yield from _statements(stmt.body)


def find_cycle(procedures: Mapping[str, Procedure]) -> list[str] | None:
    """A chain of procedures that ends where it began (``a -> b -> a``), if there is one."""
    return callgraph.find_cycle(
        {name: calls(procedures[name].body, procedures) for name in sorted(procedures)}
    )


def param_types(procedure: Procedure) -> tuple[tuple[str, Type], ...]:
    """The declared parameter types (parsed by the loader)."""
    return tuple((pname, declared.type) for pname, declared in procedure.params)


def define(
    gen: CodeGen,
    procedure: Procedure,
    types: tuple[tuple[str, Type], ...],
    facts: dict[str, Facts] | None = None,
) -> str:
    """The Python source of a procedure's function (``gen`` is the ruleset's CodeGen); its
    facts go to ``facts`` (by function name) when given."""
    ctx = Context(effects=True)
    names = [ctx.bind(n, ty) for n, ty in types]
    body, found = gen.block_facts(procedure.body, ctx, 1)
    if facts is not None:
        facts[code_name(procedure.name)] = found
    args = ", ".join(["F", "R", "me", *names])
    return f"def {code_name(procedure.name)}({args}):\n    {emit.step_entry()}\n" + "\n".join(body) + "\n"


def compile_all(
    gen: CodeGen,
    procedures: Mapping[str, Procedure],
    bag: DiagnosticBag,
    facts: dict[str, Facts] | None = None,
) -> list[str]:
    """Check the procedures (types, no cycle, no clash with a built-in or function) and give
    the source of their functions (their facts to ``facts``, by function name).  Sets
    ``gen.procedures`` first, so that every effect compiled afterwards (including the
    procedures' own bodies) can call them."""
    typed = {name: param_types(p) for name, p in procedures.items()}
    gen.procedures = typed
    for name, procedure in procedures.items():
        if name in BUILTINS or name in gen.rules.functions:
            what = "built-in" if name in BUILTINS else "function"
            bag.error(f"procedure '{name}' hides the {what} of that name", procedure.span)
    cycle = find_cycle(procedures)
    if cycle:
        bag.error(
            "procedures call each other in a cycle: " + " -> ".join(cycle),
            procedures[cycle[0]].span,
            hint="rules must terminate; a procedure cannot call itself, directly or through others",
        )
        return []
    return [define(gen, procedures[name], typed[name], facts) for name in procedures]
