"""What a DSL tree reads and calls: parameter arity, call graphs, cycles and topological order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rulekit.dsl import ast
from rulekit.rules import model as m


def arity(expr: ast.Expr, params: tuple[m.Param, ...]) -> int:
    """How many leading parameters ``expr`` may read: one past the last one it names.

    A local variable that happens to share a parameter's name counts as a use, so
    the answer errs on the safe side (a later test, never a wrong one).
    """
    names = names_read(expr)
    used = [i for i, param in enumerate(params) if param.name in names]
    return used[-1] + 1 if used else 0


def walk(node: Any) -> Iterator[Any]:
    """Every AST node, tuple element and string below ``node`` (spans left out)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, tuple):
            stack.extend(current)
        elif hasattr(current, "__attrs_attrs__"):
            stack.extend(
                getattr(current, attribute.name)
                for attribute in current.__attrs_attrs__
                if attribute.name != "span"
            )


def names_read(node: Any) -> set[str]:
    """Names read below ``node``, plus every identifier-like string (loop and ``where``
    variables, which may shadow a parameter): a superset, on purpose."""
    found: set[str] = set()
    for current in walk(node):
        if isinstance(current, ast.Name):
            found.add(current.id)
        elif isinstance(current, str):
            found.add(current)
    return found


def calls(node: Any) -> set[str]:
    """Names of the functions called below ``node``."""
    return {current.function for current in walk(node) if isinstance(current, ast.Call)}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in graph:
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def topological(graph: dict[str, set[str]]) -> list[str]:
    order: list[str] = []
    seen: set[str] = set()

    def visit(node: str) -> None:
        if node in seen:
            return
        seen.add(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        order.append(node)

    for node in graph:
        visit(node)
    return order
